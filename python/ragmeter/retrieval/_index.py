"""An in-memory index over :class:`CorpusDocument`: BM25, substring, cosine and their fusion."""

from __future__ import annotations

import hashlib
import math
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .. import _core
from ..exceptions import InputTypeError, InvalidInputError
from ._bm25 import Bm25Matrix, RankedBatch
from ._config import RetrievalConfig
from ._documents import CorpusDocument, DocId
from ._response import (
    ErrorCategory,
    ErrorRecord,
    LegContribution,
    LegKind,
    LegOutcome,
    LegStatus,
    RetrievalResponse,
)
from ._search import Hybrid, Search

__all__ = ["RetrievalIndex", "tokenize"]

_WORD = re.compile(r"\w+")
#: Query embeddings multiplied with the document matrix at once (bounds the cosine matrix).
_DENSE_BLOCK = 1024
#: The rank the core gives a fused hit for a leg that does not have it.
_ABSENT = 2**32 - 1


def _doc_id(doc: CorpusDocument) -> DocId:
    """The id of an indexed document: ``CorpusDocument`` derives one when none is given."""
    if doc.doc_id is None:  # pragma: no cover - __post_init__ always sets it
        raise InvalidInputError(f"documents: {doc!r} has no doc_id")
    return doc.doc_id


def tokenize(text: str) -> list[str]:
    """Lower-cased ``\\w+`` runs: the tokens of BM25 documents (without ``tokens``) and queries.

    A word character is a Unicode letter, digit or underscore (Python's ``re``); everything
    else separates tokens and is dropped.

    Parameters
    ----------
    text
        The text to split.

    Returns
    -------
    list of str
        The tokens, in order, repeats kept.

    Examples
    --------
    >>> tokenize("Reset your PASSWORD: it's quick (2 min)")
    ['reset', 'your', 'password', 'it', 's', 'quick', '2', 'min']
    """
    return _WORD.findall(text.lower())


class RetrievalIndex:
    """Search a fixed set of documents by keyword (BM25), substring, embedding or both.

    * keyword: BM25 with ``bm25_k1`` (default 1.5) and ``bm25_b`` (0.75) over the documents'
      ``tokens`` or :func:`tokenize` of their text; each query token counts once per
      occurrence. With ``N`` documents, ``df`` of them holding the term, ``tf`` its frequency
      in the document and ``L = 1 - b + b * length / mean length``, a query term adds

      - ``"lucene"`` (default): ``ln(1 + (N - df + 0.5) / (df + 0.5)) * tf * (k1 + 1) /
        (tf + k1 * L)`` (Robertson and Zaragoza 2009 with Lucene's idf);
      - ``"okapi"``: the same with idf ``ln((N - df + 0.5) / (df + 0.5))``, a negative idf
        replaced by 0.25 times the mean idf of the vocabulary (rank_bm25's ``BM25Okapi``);
      - ``"bm25l"``: ``ln((N + 1) / (df + 0.5)) * (k1 + 1) * (c + delta) / (k1 + c + delta)``
        with ``c = tf / L``;
      - ``"bm25plus"``: ``ln((N + 1) / df) * ((k1 + 1) * tf / (k1 * L + tf) + delta)``.

      BM25L and BM25+ (Lv and Zhai 2011) are summed over every query term, absent ones
      included (``tf = 0``), as Trotman et al. (2014), rank_bm25 and bm25s write them. Only
      documents holding at least one query token and scoring > 0 (and >=
      ``keyword_threshold``) are returned, best first, ties in build order. The scoring runs
      in the Rust core, for a whole query set at once with :meth:`search_many`.
    * strict: documents containing the query as a case-folded substring (``str.casefold``,
      or exact case with ``case_sensitive=True``), score 1.0, in build order.
    * semantic: cosine between ``query_embedding`` and every document embedding (built only
      when every document has one), ties in build order, cosines below
      ``semantic_threshold`` dropped. Without a dense index the response is ``failed``.
    * hybrid: weighted reciprocal rank fusion ``sum_leg w_leg / (rrf_k + rank + 1)`` (0-based
      ranks) of the keyword leg (weight ``1 - hybrid_alpha``) and the semantic leg (weight
      ``hybrid_alpha``), each fetching ``min(3 * top_k, n_documents)``; ties by ``doc_id``.
      When the semantic leg cannot run (no query embedding or no dense index) the response is
      ``degraded`` and holds the keyword hits.

    Building tokenises the documents once per text choice (``use_normalized_text``) and
    normalises the embeddings once; every other setting is applied at search time, so one
    built index answers searches under any ``config``.

    Parameters
    ----------
    config
        The default search settings (None: ``RetrievalConfig()``, BM25 keyword search of the
        top 10); each search may pass its own.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: ``config`` is not a :class:`RetrievalConfig`.

    Examples
    --------
    Three documents; the first two hold "sat", only the first "cat" ("cats" is another
    token). With ``N = 3``, ``df`` 1 and 2, lengths 6, 3, 3 (mean 4), Lucene's BM25 gives
    0.8007 + 0.3837 to the first document and 0.5296 to the second:

    >>> from ragmeter.retrieval import CorpusDocument, RetrievalConfig
    >>> docs = [
    ...     CorpusDocument(doc_id="d1", input_path="pets.txt", chunk_index=0,
    ...                    text="The cat sat on the mat", embedding=[1.0, 0.0]),
    ...     CorpusDocument(doc_id="d2", input_path="pets.txt", chunk_index=1,
    ...                    text="The dog sat", embedding=[0.6, 0.8]),
    ...     CorpusDocument(doc_id="d3", input_path="pets.txt", chunk_index=2,
    ...                    text="Cats and dogs", embedding=[0.0, 1.0]),
    ... ]
    >>> index = RetrievalIndex().build(docs)
    >>> [(hit.doc.doc_id, round(hit.score, 4)) for hit in index.search("cat sat")]
    [('d1', 1.1844), ('d2', 0.5296)]

    rank_bm25's ``BM25Okapi`` gives the same as ``bm25_variant="okapi"`` (the idf of "sat",
    negative, becomes 0.25 times the mean idf):

    >>> okapi = RetrievalConfig(bm25_variant="okapi")
    >>> [round(hit.score, 4) for hit in index.search("cat sat", config=okapi)]
    [0.4749, 0.0799]

    Strict matching finds the case-folded substring ("cat" is in "cats"):

    >>> index.search("CAT", config=RetrievalConfig(match_mode="strict")).doc_ids
    ['d1', 'd3']

    Semantic search ranks by cosine with the query's embedding, ``1.4 / sqrt(2)`` for the
    second document and ``1 / sqrt(2)`` for the two others (tied, in build order):

    >>> semantic = RetrievalConfig(match_mode="semantic")
    >>> hits = index.search("pets", config=semantic, query_embedding=[1.0, 1.0])
    >>> [(hit.doc.doc_id, round(hit.score, 4)) for hit in hits]
    [('d2', 0.9899), ('d1', 0.7071), ('d3', 0.7071)]

    Hybrid search fuses both legs; without a query embedding it returns the keyword hits,
    ``degraded``:

    >>> hybrid = RetrievalConfig(match_mode="hybrid")
    >>> response = index.search("cat sat", config=hybrid)
    >>> str(response.status), response.doc_ids
    ('degraded', ['d1', 'd2'])
    """

    def __init__(self, config: RetrievalConfig | None = None) -> None:
        if config is not None and not isinstance(config, RetrievalConfig):
            raise InvalidInputError(
                f"config: expected a RetrievalConfig, got {type(config).__name__}"
            )
        self.config = config if config is not None else RetrievalConfig()
        self._documents: tuple[CorpusDocument, ...] = ()
        self._generation: str | None = None
        self._bm25_indexes: dict[bool, Bm25Matrix] = {}
        self._embeddings: np.ndarray | None = None
        self._doc_ids: np.ndarray | None = None
        self._doc_order: np.ndarray | None = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(match_mode={self.config.match_mode!r}, "
            f"top_k={self.config.top_k}, n_documents={self.n_documents})"
        )

    # -- building -----------------------------------------------------------------------------

    def build(self, documents: Iterable[CorpusDocument]) -> RetrievalIndex:
        """Index ``documents`` (replacing any previous build) and return the index.

        A dense index (for semantic and hybrid search) is built when every document has an
        embedding, all finite, non-zero and of one dimension; when only some documents have
        one, or one is zero or not finite, a warning says so and no dense index is built.

        Parameters
        ----------
        documents
            The :class:`CorpusDocument` objects to index (any iterable), with unique
            ``doc_id`` values, all ``str`` or all ``int``.

        Returns
        -------
        RetrievalIndex
            The index itself, so that ``RetrievalIndex().build(docs)`` reads in one line.

        Raises
        ------
        InvalidInputError
            A ``ValueError``: no documents, an item that is not a document, two documents
            with one ``doc_id``, ``doc_id`` values mixing ``str`` and ``int``, embeddings of
            different dimensions.
        """
        if isinstance(documents, str | bytes | Mapping) or not isinstance(documents, Iterable):
            raise InputTypeError(
                f"documents: expected a sequence of CorpusDocument, got {type(documents).__name__}"
            )
        docs = tuple(documents)
        if not docs:
            raise InvalidInputError("documents: cannot build an index over no documents")
        seen: dict[DocId, int] = {}
        id_types = set()
        for position, doc in enumerate(docs):
            if not hasattr(doc, "doc_id") or not hasattr(doc, "text"):
                raise InvalidInputError(
                    f"documents: item {position} is a {type(doc).__name__}, "
                    "expected a CorpusDocument"
                )
            doc_id = _doc_id(doc)
            if doc_id in seen:
                raise InvalidInputError(
                    f"documents: doc_id {doc_id!r} is used by documents {seen[doc_id]} "
                    f"and {position}; identifiers must be unique so judgments can name them"
                )
            seen[doc_id] = position
            id_types.add(type(doc_id))
        if len(id_types) > 1:
            raise InvalidInputError(
                "documents: doc_id values mix str and int; use one type, because '1' and 1 "
                "would never match the same judgment"
            )
        self._documents = docs
        self._doc_ids = None
        self._doc_order = None
        self._bm25_indexes = {}
        self._lexical(self.config)
        self._build_dense(docs)
        digest = hashlib.sha256()
        for doc in docs:
            digest.update(f"{doc.doc_id!r}\x1f{doc.text}\x1e".encode())
        self._generation = digest.hexdigest()[:16]
        return self

    def _doc_text(self, doc: CorpusDocument, config: RetrievalConfig) -> str:
        normalized = getattr(doc, "normalized_text", None)
        return normalized if (config.use_normalized_text and normalized) else doc.text

    def _lexical(self, config: RetrievalConfig) -> Bm25Matrix:
        # One BM25 matrix per text choice, built on first use (searches may override
        # use_normalized_text); building twice under threads is harmless.
        key = config.use_normalized_text
        index = self._bm25_indexes.get(key)
        if index is None:
            texts = [
                tokens
                if (tokens := getattr(doc, "tokens", None)) is not None
                else tokenize(self._doc_text(doc, config))
                for doc in self._documents
            ]
            index = self._bm25_indexes[key] = Bm25Matrix(texts)
        return index

    def _build_dense(self, docs: Sequence[CorpusDocument]) -> None:
        self._embeddings = None
        vectors = [getattr(doc, "embedding", None) for doc in docs]
        present = sum(v is not None for v in vectors)
        if present == 0:
            return
        if present < len(vectors):
            warnings.warn(
                f"{present} of {len(vectors)} documents have an embedding; semantic search "
                "needs every document embedded, so no dense index was built",
                stacklevel=3,
            )
            return
        dims = {len(v) for v in vectors if v is not None}
        if len(dims) > 1:
            raise InvalidInputError(
                f"documents: embeddings have different dimensions {sorted(dims)}; "
                "embed every document with the same model"
            )
        matrix = np.asarray(vectors, dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1)
        if not np.all(np.isfinite(matrix)) or np.any(norms == 0):
            bad = int(np.flatnonzero(~np.isfinite(matrix).all(axis=1) | (norms == 0))[0])
            warnings.warn(
                f"document {docs[bad].doc_id!r} has a non-finite or zero embedding, whose "
                "cosine is undefined; no dense index was built",
                stacklevel=3,
            )
            return
        self._embeddings = matrix / norms[:, None]

    # -- properties ---------------------------------------------------------------------------

    @property
    def documents(self) -> tuple[CorpusDocument, ...]:
        """The indexed documents, in build order."""
        return self._documents

    @property
    def n_documents(self) -> int:
        """The number of indexed documents."""
        return len(self._documents)

    @property
    def has_embeddings(self) -> bool:
        """True when semantic search can run (every document has a finite embedding)."""
        return self._embeddings is not None

    @property
    def backend_name(self) -> str | None:
        """The semantic search backend (``"bruteforce"``: exact cosine over all documents), or
        None when the documents have no embeddings."""
        return "bruteforce" if self.has_embeddings else None

    @property
    def doc_ids(self) -> np.ndarray:
        """The documents' identifiers in build order, as a 1-D object array."""
        ids = self._doc_ids
        if ids is None or len(ids) != len(self._documents):
            ids = np.empty(len(self._documents), dtype=object)
            ids[:] = [_doc_id(doc) for doc in self._documents]
            self._doc_ids = ids
        return ids

    @property
    def nbytes(self) -> int:
        """Bytes of the index's arrays: BM25 postings and idf, normalised embeddings."""
        lexical = sum(matrix.nbytes for matrix in self._bm25_indexes.values())
        return lexical + (0 if self._embeddings is None else self._embeddings.nbytes)

    @property
    def index_generation(self) -> str | None:
        """16 hexadecimal characters derived from the indexed identifiers and texts."""
        return self._generation

    # -- searching ----------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        config: RetrievalConfig | None = None,
        query_embedding: Sequence[float] | np.ndarray | None = None,
    ) -> RetrievalResponse:
        """Search with ``config`` (default: the index's) and return a :class:`RetrievalResponse`.

        The class documentation describes each mode. A search whose leg cannot run does not
        raise: a semantic search without document embeddings is ``failed``, a hybrid search
        without a query embedding is ``degraded`` (see :class:`RetrievalStatus`).

        Parameters
        ----------
        query
            The query text.
        config
            Settings for this search only (None: the index's ``config``).
        query_embedding
            The query's vector, from the model that embedded the documents, for the semantic
            and hybrid modes (ignored by the others).

        Returns
        -------
        RetrievalResponse
            The hits, best first, at most ``top_k``, with the status of each leg.

        Raises
        ------
        InvalidInputError
            A ``ValueError``: the index is empty (call :meth:`build` first), ``query`` is not
            a ``str``, ``config`` is not a :class:`RetrievalConfig`, a semantic search
            without ``query_embedding`` on an index with embeddings, a query embedding of
            another dimension than the documents', zero or not finite.
        """
        if not isinstance(query, str):
            raise InvalidInputError(f"query: expected a str, got {type(query).__name__}")
        return self.search_many([query], config=config, query_embeddings=[query_embedding])[0]

    def search_many(
        self,
        queries: Sequence[str],
        *,
        config: RetrievalConfig | None = None,
        query_embeddings: Sequence[Sequence[float] | np.ndarray | None] | None = None,
        n_threads: int | None = None,
    ) -> list[RetrievalResponse]:
        """Search every query of ``queries`` (aligned with ``query_embeddings`` when given) and
        return one response per query, what :meth:`search` returns for it.

        BM25 scores the whole set in one call to the Rust core (``n_threads`` threads; None:
        ``RAGMETER_NUM_THREADS`` or every core) and the cosines of the semantic leg are one
        matrix product per block of queries. Those cosines may differ from a single search's
        (a matrix-vector product) in the last bits, so two documents whose cosines tie up to
        rounding may come in the other order; everything else is equal.

        Parameters
        ----------
        queries
            The query texts (a list, not a single ``str``).
        config
            Settings for these searches (None: the index's ``config``).
        query_embeddings
            One vector per query (None where a query has none), or None for no embeddings.
        n_threads
            Threads of the Rust core for BM25 (None: ``RAGMETER_NUM_THREADS`` or every core).

        Returns
        -------
        list of RetrievalResponse
            One response per query, in the order of ``queries``.

        Raises
        ------
        InvalidInputError
            A ``ValueError``: as for :meth:`search`, and ``queries`` given as a single
            ``str``, or ``query_embeddings`` of another length than ``queries``.

        Examples
        --------
        >>> from ragmeter.retrieval import CorpusDocument
        >>> index = RetrievalIndex().build([
        ...     CorpusDocument(doc_id="d1", input_path="pets.txt", text="the cat sat"),
        ...     CorpusDocument(doc_id="d2", input_path="pets.txt", text="the dog barked"),
        ... ])
        >>> [response.doc_ids for response in index.search_many(["cat", "dog", "bird"])]
        [['d1'], ['d2'], []]
        """
        searches = self._search_batch(queries, config, query_embeddings, n_threads)
        return [
            search.response(query, self._documents, self._generation)
            for query, search in zip(queries, searches, strict=True)
        ]

    def _search_batch(
        self,
        queries: Sequence[str],
        config: RetrievalConfig | None,
        query_embeddings: Sequence[Sequence[float] | np.ndarray | None] | None,
        n_threads: int | None,
    ) -> list[Search]:
        if not self._documents:
            raise InvalidInputError("search: the index is empty; call build(documents) first")
        if config is not None and not isinstance(config, RetrievalConfig):
            raise InvalidInputError(
                f"config: expected a RetrievalConfig, got {type(config).__name__}"
            )
        config = config if config is not None else self.config
        if isinstance(queries, str):
            raise InvalidInputError(
                "queries: got a str; pass a list of queries (wrap a single query in a list)"
            )
        texts = list(queries)
        for position, query in enumerate(texts):
            if not isinstance(query, str):
                raise InvalidInputError(
                    f"queries: item {position} is a {type(query).__name__}, expected a str"
                )
        embeddings = [None] * len(texts) if query_embeddings is None else list(query_embeddings)
        if len(embeddings) != len(texts):
            raise InvalidInputError(
                f"query_embeddings: {len(embeddings)} embeddings for {len(texts)} queries; "
                "give one per query (None where a query has none)"
            )
        mode = config.match_mode
        if mode == "keyword":
            return [
                Search(ranked, "keyword", "bm25", "bm25", (self._ran(LegKind.LEXICAL, ranked),))
                for ranked in self._bm25(texts, config, config.top_k, n_threads)
            ]
        if mode == "strict":
            searches = []
            for text in texts:
                ranked = self._substring(text, config)
                legs = (self._ran(LegKind.LEXICAL, ranked),)
                searches.append(Search(ranked, "strict", "exact_match", "substring", legs))
            return searches
        if mode == "semantic":
            return self._semantic(texts, embeddings, config)
        return self._hybrid(texts, embeddings, config, n_threads)

    def _ran(self, leg: LegKind, ranked: Sequence[object]) -> LegOutcome:
        status = LegStatus.SUCCESS if ranked else LegStatus.EMPTY
        return LegOutcome(leg, status, len(ranked), self._generation, None)

    def _dense_failure(self, query_embedding: object) -> LegOutcome:
        if self._embeddings is None:
            error = ErrorRecord(
                "NO_DENSE_INDEX",
                ErrorCategory.CAPABILITY,
                "semantic search needs an embedding on every document; this index has none",
                stage="retrieve",
            )
        else:
            error = ErrorRecord(
                "NO_QUERY_EMBEDDING",
                ErrorCategory.CAPABILITY,
                "the semantic leg needs query_embedding; only the keyword leg ran",
                stage="retrieve",
            )
        return LegOutcome(LegKind.DENSE, LegStatus.FAILED, 0, self._generation, None, error)

    def _bm25_batch(
        self, texts: Sequence[str], config: RetrievalConfig, limit: int, n_threads: int | None
    ) -> RankedBatch:
        """The ``limit`` best documents of every query by BM25, as CSR arrays."""
        return self._lexical(config).top_k(
            [tokenize(text) for text in texts], config, limit, n_threads
        )

    def _bm25(
        self, texts: Sequence[str], config: RetrievalConfig, limit: int, n_threads: int | None
    ) -> list[list[tuple[int, float]]]:
        offsets, positions, scores = self._bm25_batch(texts, config, limit, n_threads)
        bounds = offsets.tolist()
        pairs = list(zip(positions.tolist(), scores.tolist(), strict=True))
        return [pairs[bounds[i] : bounds[i + 1]] for i in range(len(texts))]

    def _substring(self, query: str, config: RetrievalConfig) -> list[tuple[int, float]]:
        if not query.strip():
            return []
        needle = query if config.case_sensitive else query.casefold()
        found = []
        for position, doc in enumerate(self._documents):
            text = self._doc_text(doc, config)
            if needle in (text if config.case_sensitive else text.casefold()):
                found.append((position, 1.0))
                if len(found) == config.top_k:
                    break
        return found

    def _query_vector(
        self, query_embedding: Sequence[float] | np.ndarray, position: int = 0
    ) -> np.ndarray:
        assert self._embeddings is not None
        vector = np.asarray(query_embedding, dtype=np.float64)
        dim = self._embeddings.shape[1]
        where = "" if position == 0 else f" (query {position})"
        if vector.shape != (dim,):
            raise InvalidInputError(
                f"query_embedding{where}: expected a vector of {dim} values like the "
                f"documents', got shape {vector.shape}"
            )
        norm = float(np.linalg.norm(vector))
        if not math.isfinite(norm) or norm == 0.0:
            raise InvalidInputError(
                f"query_embedding{where}: the vector is zero or not finite, so its cosine is "
                "undefined"
            )
        return vector / norm

    def _dense_rows(
        self,
        given: Sequence[tuple[int, Sequence[float] | np.ndarray]],
        n_queries: int,
        threshold: float,
        limit: int,
    ) -> RankedBatch:
        """The semantic leg of ``n_queries`` queries as CSR rows (an empty row for a query not
        in ``given``, its ``(position, embedding)`` pairs in order): the ``limit`` best
        documents by cosine, cosines below ``threshold`` dropped, ties in build order."""
        assert self._embeddings is not None
        counts = np.zeros(n_queries, dtype=np.uintp)
        docs: list[np.ndarray] = [np.empty(0, dtype=np.uint32)]
        values: list[np.ndarray] = [np.empty(0, dtype=np.float64)]
        for start in range(0, len(given), _DENSE_BLOCK):
            block = given[start : start + _DENSE_BLOCK]
            vectors = np.stack([self._query_vector(vector, p) for p, vector in block])
            cosines = np.ascontiguousarray(vectors @ self._embeddings.T)
            offsets, found, kept = _core.dense_top_k(cosines, limit=limit, threshold=threshold)
            counts[[p for p, _ in block]] = np.diff(offsets)
            docs.append(found)
            values.append(kept)
        offsets = np.zeros(n_queries + 1, dtype=np.uintp)
        np.cumsum(counts, out=offsets[1:])
        return offsets, np.concatenate(docs), np.concatenate(values)

    def _cosine_many(
        self,
        query_embeddings: Sequence[tuple[int, Sequence[float] | np.ndarray]],
        threshold: float,
        limit: int,
    ) -> dict[int, list[tuple[int, float]]]:
        """The ``limit`` best documents by cosine of each ``(position, embedding)``, cosines
        below ``threshold`` dropped, ties in build order."""
        n = max((p for p, _ in query_embeddings), default=-1) + 1
        offsets, docs, values = self._dense_rows(query_embeddings, n, threshold, limit)
        bounds, pairs = offsets.tolist(), list(zip(docs.tolist(), values.tolist(), strict=True))
        return {p: pairs[bounds[p] : bounds[p + 1]] for p, _ in query_embeddings}

    def query(
        self, vector: Sequence[float] | np.ndarray, k: int | None = None
    ) -> list[tuple[DocId, float]]:
        """The ``k`` (default ``top_k``) documents with the highest cosine to ``vector``.

        Unlike a semantic :meth:`search`, no ``semantic_threshold`` applies: negative cosines
        are kept. Ties keep the build order.

        Parameters
        ----------
        vector
            The query's embedding, of the documents' dimension.
        k
            How many documents (None: the config's ``top_k``).

        Returns
        -------
        list of (doc_id, float)
            The documents' identifiers and cosines, highest first.

        Raises
        ------
        InvalidInputError
            A ``ValueError``: the index has no dense index (not every document has an
            embedding), or ``vector`` is of another dimension, zero or not finite.

        Examples
        --------
        >>> from ragmeter.retrieval import CorpusDocument
        >>> index = RetrievalIndex().build([
        ...     CorpusDocument(doc_id="x", input_path="v", text="east", embedding=[1, 0]),
        ...     CorpusDocument(doc_id="y", input_path="v", text="north", embedding=[0, 1]),
        ...     CorpusDocument(doc_id="z", input_path="v", text="west", embedding=[-1, 0]),
        ... ])
        >>> [(doc_id, round(cosine, 4)) for doc_id, cosine in index.query([3, 4], k=2)]
        [('y', 0.8), ('x', 0.6)]
        """
        if self._embeddings is None:
            raise InvalidInputError(
                "query: this index has no dense index (not every document has an embedding)"
            )
        limit = self.config.top_k if k is None else k
        ranked = self._cosine_many([(0, vector)], -1.0, limit)[0]
        return [(_doc_id(self._documents[position]), score) for position, score in ranked]

    def _semantic(
        self,
        texts: Sequence[str],
        embeddings: Sequence[Sequence[float] | np.ndarray | None],
        config: RetrievalConfig,
    ) -> list[Search]:
        skipped_lexical = LegOutcome(LegKind.LEXICAL, LegStatus.SKIPPED)
        if self._embeddings is None:
            failed = (skipped_lexical, self._dense_failure(None))
            return [Search([], "semantic", "cosine_similarity", "bruteforce", failed)] * len(texts)
        for position, vector in enumerate(embeddings):
            if vector is None:
                where = "" if len(texts) == 1 else f" (query {position})"
                raise InvalidInputError(
                    f"query_embedding{where}: a semantic search needs the query's embedding "
                    "(from the model that embedded the documents)"
                )
        given = [(p, v) for p, v in enumerate(embeddings) if v is not None]
        ranked = self._cosine_many(given, config.semantic_threshold, config.top_k)
        return [
            Search(
                ranked[p],
                "semantic",
                "cosine_similarity",
                "bruteforce",
                (skipped_lexical, self._ran(LegKind.DENSE, ranked[p])),
            )
            for p in range(len(texts))
        ]

    def _order(self) -> np.ndarray:
        """Each document's place when the ids are sorted: the order that breaks ties of
        fused scores."""
        if self._doc_order is None:
            ids = [_doc_id(doc) for doc in self._documents]
            order = np.empty(len(ids), dtype=np.uint32)
            order[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
            self._doc_order = order
        return self._doc_order

    def _hybrid_ranked(
        self,
        texts: Sequence[str],
        embeddings: Sequence[Sequence[float] | np.ndarray | None],
        config: RetrievalConfig,
        n_threads: int | None,
    ) -> Hybrid:
        """Both legs of every query and their reciprocal rank fusion, fused in the core."""
        fetch_k = min(3 * config.top_k, max(self.n_documents, 1))
        keyword = self._bm25_batch(texts, config, fetch_k, n_threads)
        if self._embeddings is not None:
            given = [(p, v) for p, v in enumerate(embeddings) if v is not None]
            semantic = self._dense_rows(given, len(texts), config.semantic_threshold, fetch_k)
        else:
            empty = np.zeros(len(texts) + 1, dtype=np.uintp)
            semantic = (empty, np.empty(0, dtype=np.uint32), np.empty(0, dtype=np.float64))
        fused = _core.hybrid_fuse(
            keyword[0],
            keyword[1],
            semantic[0],
            semantic[1],
            self._order(),
            keyword_weight=1.0 - config.hybrid_alpha,
            semantic_weight=config.hybrid_alpha,
            rrf_k=float(config.rrf_k),
            top_k=config.top_k,
            n_threads=n_threads,
        )
        dense = self._embeddings is not None
        return Hybrid(keyword, semantic, [dense and v is not None for v in embeddings], fused)

    def _hybrid(
        self,
        texts: Sequence[str],
        embeddings: Sequence[Sequence[float] | np.ndarray | None],
        config: RetrievalConfig,
        n_threads: int | None,
    ) -> list[Search]:
        batch = self._hybrid_ranked(texts, embeddings, config, n_threads)
        offsets, docs, scores, keyword_ranks, semantic_ranks = (a.tolist() for a in batch.fused)
        keyword_offsets, keyword_natives = batch.keyword[0].tolist(), batch.keyword[2].tolist()
        dense_offsets, dense_natives = batch.semantic[0].tolist(), batch.semantic[2].tolist()
        searches = []
        for q in range(len(texts)):
            n_keyword = keyword_offsets[q + 1] - keyword_offsets[q]
            lexical = LegOutcome(
                LegKind.LEXICAL,
                LegStatus.SUCCESS if n_keyword else LegStatus.EMPTY,
                n_keyword,
                self._generation,
                "bm25",
            )
            if batch.dense[q]:
                n_dense = dense_offsets[q + 1] - dense_offsets[q]
                status = LegStatus.SUCCESS if n_dense else LegStatus.EMPTY
                dense = LegOutcome(LegKind.DENSE, status, n_dense, self._generation, "bruteforce")
            else:
                dense = self._dense_failure(embeddings[q])
            hits = range(offsets[q], offsets[q + 1])
            contributions = []
            for i in hits:
                parts = []
                if (rank := keyword_ranks[i]) != _ABSENT:
                    native = keyword_natives[keyword_offsets[q] + rank]
                    parts.append(LegContribution(LegKind.LEXICAL, rank, native, "bm25"))
                if (rank := semantic_ranks[i]) != _ABSENT:
                    native = dense_natives[dense_offsets[q] + rank]
                    parts.append(LegContribution(LegKind.DENSE, rank, native, "cosine_similarity"))
                contributions.append(tuple(parts))
            searches.append(
                Search(
                    [(docs[i], scores[i]) for i in hits],
                    "hybrid",
                    "reciprocal_rank_fusion",
                    "rrf",
                    (lexical, dense),
                    contributions,
                )
            )
        return searches
