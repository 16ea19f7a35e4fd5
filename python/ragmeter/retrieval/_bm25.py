"""BM25 over one tokenisation of a corpus: its vocabulary and term-major postings, scored by the
Rust core for a whole query set in one call."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from .. import _core
from ._config import RetrievalConfig

__all__ = ["Bm25Matrix", "RankedBatch"]

#: Best documents of a batch of queries: ``offsets`` (one more than the queries) into the
#: document ``positions`` and their ``scores``, each query's best first.
RankedBatch = tuple[np.ndarray, np.ndarray, np.ndarray]


class Bm25Matrix:
    """The documents' tokens as a sparse term matrix: a vocabulary (token -> term id) and, for
    every term, the documents containing it with the term's frequency there.

    The matrix holds only what BM25's parameters do not change (frequencies, document lengths,
    document frequencies), so one matrix serves every ``bm25_k1``, ``bm25_b``,
    ``bm25_delta`` and ``top_k``; the idf of each variant is computed once, on first use.
    Memory: about 12 bytes per distinct (term, document) pair, plus the vocabulary.
    """

    def __init__(self, documents: Sequence[Sequence[Hashable]]) -> None:
        vocabulary: dict[Hashable, int] = {}
        term_ids: list[int] = []
        offsets = [0]
        for tokens in documents:
            # setdefault's default is evaluated first: a new token gets the next id.
            term_ids.extend([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
            offsets.append(len(term_ids))
        self.vocabulary = vocabulary
        self.offsets, self.docs, self.tfs, self.doc_lengths = _core.bm25_postings(
            np.asarray(offsets, dtype=np.uintp),
            np.asarray(term_ids, dtype=np.uint32),
            len(vocabulary),
        )
        self._idf: dict[str, np.ndarray] = {}

    @property
    def n_documents(self) -> int:
        return len(self.doc_lengths)

    @property
    def nbytes(self) -> int:
        """Bytes held by the postings and idf arrays (the vocabulary dict is not counted)."""
        arrays: list[np.ndarray] = [
            self.offsets,
            self.docs,
            self.tfs,
            self.doc_lengths,
            *self._idf.values(),
        ]
        return sum(array.nbytes for array in arrays)

    def idf(self, variant: str) -> np.ndarray:
        values = self._idf.get(variant)
        if values is None:
            # Two threads may compute it at once; both get the same values.
            values = self._idf[variant] = _core.bm25_idf(
                self.offsets, self.docs, self.tfs, self.doc_lengths, variant
            )
        return values

    def top_k(
        self,
        queries: Sequence[Sequence[Hashable]],
        config: RetrievalConfig,
        limit: int,
        n_threads: int | None = None,
    ) -> RankedBatch:
        """The ``limit`` best documents of every tokenised query under ``config``'s BM25
        parameters, scores ``> 0`` and ``>= config.keyword_threshold``."""
        get = self.vocabulary.get
        term_ids: list[int] = []
        offsets = [0]
        for tokens in queries:
            # Tokens no document has add nothing to any score.
            term_ids.extend([t for t in map(get, tokens) if t is not None])
            offsets.append(len(term_ids))
        return _core.bm25_top_k(
            self.offsets,
            self.docs,
            self.tfs,
            self.doc_lengths,
            self.idf(config.bm25_variant),
            np.asarray(offsets, dtype=np.uintp),
            np.asarray(term_ids, dtype=np.uint32),
            k1=config.bm25_k1,
            b=config.bm25_b,
            delta=config.bm25_delta_value,
            variant=config.bm25_variant,
            k=limit,
            min_score=config.keyword_threshold,
            n_threads=n_threads,
        )
