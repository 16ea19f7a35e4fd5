"""Built indexes kept between fits, so that a search over search-time parameters builds once.

A :class:`RetrievalIndex` holds everything a corpus needs whatever the search settings: the
tokenised documents as BM25 postings (one matrix per text choice, built on first use), the
normalised embeddings, the document order. ``top_k``, the BM25 parameters and variant, the
thresholds and the hybrid weights are applied at search time. So the cache is keyed by the
corpus alone and a grid of any size over those settings builds one index per corpus.

A corpus is recognised by the identity of its documents (a :class:`CorpusDocument` is
immutable), which costs one pass over the list; documents that are new objects (unpickled in a
worker process, or rebuilt from a file) are recognised by a digest of their content.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..exceptions import InvalidInputError
from ._documents import CorpusDocument
from ._index import RetrievalIndex

__all__ = [
    "DEFAULT_INDEX_CACHE_SIZE",
    "IndexCache",
    "IndexCacheInfo",
    "clear_index_cache",
    "index_cache",
    "index_cache_info",
    "set_index_cache_size",
]

#: Corpora whose built index is kept (least recently used evicted first).
DEFAULT_INDEX_CACHE_SIZE = 4


@dataclass(frozen=True)
class IndexCacheInfo:
    """What the index cache holds and how it was used since it was created or cleared, as
    :func:`index_cache_info` reports it.

    Parameters
    ----------
    hits
        Fits that found their corpus' index.
    misses
        Fits that built one.
    size
        Indexes held now, at most ``maxsize``.
    maxsize
        The most indexes held (:func:`set_index_cache_size`).
    nbytes
        Bytes of the NumPy arrays of the held indexes (postings, idf, embeddings); the
        documents themselves and the vocabularies are not counted.
    """

    hits: int
    misses: int
    size: int
    maxsize: int
    nbytes: int


class IndexCache:
    """At most ``maxsize`` built :class:`RetrievalIndex`, least recently used evicted first
    (``maxsize=0``: nothing is kept, every fit builds). Thread-safe."""

    def __init__(self, maxsize: int = DEFAULT_INDEX_CACHE_SIZE) -> None:
        self._lock = threading.Lock()
        self._maxsize = _check_maxsize(maxsize)
        # digest of the content -> index
        self._indexes: OrderedDict[bytes, RetrievalIndex] = OrderedDict()
        # ids of the documents -> (the documents, kept alive so the ids stay theirs; digest)
        self._by_identity: OrderedDict[
            tuple[int, ...], tuple[tuple[CorpusDocument, ...], bytes]
        ] = OrderedDict()
        self._hits = 0
        self._misses = 0

    @property
    def maxsize(self) -> int:
        return self._maxsize

    def resize(self, maxsize: int) -> None:
        with self._lock:
            self._maxsize = _check_maxsize(maxsize)
            self._evict()

    def clear(self) -> None:
        with self._lock:
            self._indexes.clear()
            self._by_identity.clear()
            self._hits = self._misses = 0

    def info(self) -> IndexCacheInfo:
        with self._lock:
            return IndexCacheInfo(
                hits=self._hits,
                misses=self._misses,
                size=len(self._indexes),
                maxsize=self._maxsize,
                nbytes=sum(index.nbytes for index in self._indexes.values()),
            )

    def get(
        self,
        documents: Sequence[CorpusDocument],
        check: Callable[[tuple[CorpusDocument, ...]], None] | None = None,
    ) -> RetrievalIndex:
        """The index built over ``documents`` (in this order), built now if it is not held.

        ``check(documents)`` runs before the documents are digested or built, unless they are
        the very objects of a held index (which were checked when it was built).
        """
        docs = tuple(documents)
        identity = tuple(map(id, docs))
        with self._lock:
            known = self._by_identity.get(identity)
            if known is not None and known[1] in self._indexes:
                self._hits += 1
                self._indexes.move_to_end(known[1])
                self._by_identity.move_to_end(identity)
                return self._indexes[known[1]]
            if check is not None:
                check(docs)
            digest = _digest(docs)
            index = self._indexes.get(digest)
            if index is None:
                self._misses += 1
                index = RetrievalIndex().build(docs)
                if self._maxsize == 0:
                    return index
                self._indexes[digest] = index
            else:
                self._hits += 1
                self._indexes.move_to_end(digest)
            # Only CorpusDocument itself is known to be immutable (a subclass could add mutable
            # state), so only such documents are recognised again by identity.
            if set(map(type, docs)) == {CorpusDocument}:
                self._by_identity[identity] = (docs, digest)
                self._by_identity.move_to_end(identity)
            self._evict()
            return index

    def _evict(self) -> None:
        while len(self._indexes) > self._maxsize:
            self._indexes.popitem(last=False)
        # Identities of evicted indexes, and all but the `maxsize` most recent, release their
        # documents.
        for identity, (_, digest) in list(self._by_identity.items()):
            if digest not in self._indexes:
                del self._by_identity[identity]
        while len(self._by_identity) > self._maxsize:
            self._by_identity.popitem(last=False)


def _check_maxsize(maxsize: object) -> int:
    if isinstance(maxsize, bool) or not isinstance(maxsize, int | np.integer) or maxsize < 0:
        raise InvalidInputError(
            f"maxsize: the number of indexes to keep must be an int >= 0, got {maxsize!r}"
        )
    return int(maxsize)


def _digest(docs: Sequence[CorpusDocument]) -> bytes:
    """A digest of everything an index keeps of the documents: every field (the repr holds
    them all but the embedding) and the embedding's values."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(f"{len(docs)}\x1e".encode())
    for doc in docs:
        digest.update(repr(doc).encode("utf-8", "surrogatepass"))
        embedding = getattr(doc, "embedding", None)
        if embedding is not None:
            digest.update(np.asarray(embedding, dtype=np.float64).tobytes())
        digest.update(b"\x1e")
    return digest.digest()


#: The cache :class:`~ragmeter.retrieval.RetrievalEstimator` uses.
index_cache = IndexCache()


def index_cache_info() -> IndexCacheInfo:
    """Hits, misses, size, maximum size and array bytes of the estimators' index cache.

    Returns
    -------
    IndexCacheInfo
        The counts since the cache was created or last cleared.

    Examples
    --------
    >>> clear_index_cache()
    >>> info = index_cache_info()
    >>> info.hits, info.misses, info.size
    (0, 0, 0)
    """
    return index_cache.info()


def clear_index_cache() -> None:
    """Drop every index the estimators' cache holds and reset its counters.

    Estimators fitted before keep their own index; the next fit builds again.
    """
    index_cache.clear()


def set_index_cache_size(maxsize: int) -> None:
    """Keep at most ``maxsize`` indexes (default 4; 0 keeps none), evicting the least recently
    used now if more are held.

    The setting holds for the process, for every :class:`RetrievalEstimator`.

    Parameters
    ----------
    maxsize
        The most corpora whose built index is kept: an int >= 0.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: ``maxsize`` is negative or not an int.

    Examples
    --------
    >>> set_index_cache_size(2)
    >>> index_cache_info().maxsize
    2
    >>> set_index_cache_size(DEFAULT_INDEX_CACHE_SIZE)
    """
    index_cache.resize(maxsize)
