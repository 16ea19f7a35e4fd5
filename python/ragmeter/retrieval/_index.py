"""An in-memory index over :class:`CorpusDocument`: BM25, substring, cosine and their fusion."""

from __future__ import annotations

import hashlib
import math
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from ..exceptions import InvalidInputError
from ._config import RetrievalConfig
from ._documents import CorpusDocument, DocId
from ._response import (
    ErrorCategory,
    ErrorRecord,
    LegContribution,
    LegKind,
    LegOutcome,
    LegStatus,
    RetrievalHit,
    RetrievalResponse,
)

__all__ = ["BM25_B", "BM25_K1", "RetrievalIndex", "tokenize"]

BM25_K1 = 1.5
BM25_B = 0.75
_WORD = re.compile(r"\w+")


def _doc_id(doc: CorpusDocument) -> DocId:
    """The id of an indexed document: ``CorpusDocument`` derives one when none is given."""
    if doc.doc_id is None:  # pragma: no cover - __post_init__ always sets it
        raise InvalidInputError(f"documents: {doc!r} has no doc_id")
    return doc.doc_id


def tokenize(text: str) -> list[str]:
    """Lower-cased ``\\w+`` runs: the tokens of BM25 documents (without ``tokens``) and queries."""
    return _WORD.findall(text.lower())


class RetrievalIndex:
    """Search a fixed set of documents by keyword (BM25), substring, embedding or both.

    * keyword: Okapi BM25 with k1 = 1.5, b = 0.75 and the Lucene idf
      ``ln((N - df + 0.5) / (df + 0.5) + 1)`` (Robertson and Zaragoza 2009); each query token
      counts once per occurrence. Only documents scoring > 0 (and >= ``keyword_threshold``)
      are returned, best first, ties in build order.
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
    """

    def __init__(self, config: RetrievalConfig | None = None) -> None:
        if config is not None and not isinstance(config, RetrievalConfig):
            raise InvalidInputError(
                f"config: expected a RetrievalConfig, got {type(config).__name__}"
            )
        self.config = config if config is not None else RetrievalConfig()
        self._documents: tuple[CorpusDocument, ...] = ()
        self._generation: str | None = None
        self._bm25_indexes: dict[bool, _Bm25] = {}
        self._embeddings: np.ndarray | None = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(match_mode={self.config.match_mode!r}, "
            f"top_k={self.config.top_k}, n_documents={self.n_documents})"
        )

    # -- building -----------------------------------------------------------------------------

    def build(self, documents: Iterable[CorpusDocument]) -> RetrievalIndex:
        """Index ``documents`` (replacing any previous build) and return the index."""
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

    def _lexical(self, config: RetrievalConfig) -> _Bm25:
        # One BM25 index per text choice, built on first use (searches may override
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
            index = self._bm25_indexes[key] = _Bm25(texts)
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
        return self._documents

    @property
    def n_documents(self) -> int:
        return len(self._documents)

    @property
    def has_embeddings(self) -> bool:
        """True when semantic search can run (every document has a finite embedding)."""
        return self._embeddings is not None

    @property
    def backend_name(self) -> str | None:
        return "bruteforce" if self.has_embeddings else None

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
        """Search with ``config`` (default: the index's) and return a :class:`RetrievalResponse`."""
        if not self._documents:
            raise InvalidInputError("search: the index is empty; call build(documents) first")
        if not isinstance(query, str):
            raise InvalidInputError(f"query: expected a str, got {type(query).__name__}")
        config = config if config is not None else self.config
        mode = config.match_mode
        skipped_dense = LegOutcome(LegKind.DENSE, LegStatus.SKIPPED)
        if mode == "keyword":
            ranked = self._bm25(query, config, config.top_k)
            hits = self._hits(ranked, "keyword", "bm25", "bm25")
            return RetrievalResponse(hits, (self._ran(LegKind.LEXICAL, hits), skipped_dense), query)
        if mode == "strict":
            ranked = self._substring(query, config)
            hits = self._hits(ranked, "strict", "exact_match", "substring")
            return RetrievalResponse(hits, (self._ran(LegKind.LEXICAL, hits), skipped_dense), query)
        skipped_lexical = LegOutcome(LegKind.LEXICAL, LegStatus.SKIPPED)
        if mode == "semantic":
            if self._embeddings is None:
                failed = self._dense_failure(None)
                return RetrievalResponse((), (skipped_lexical, failed), query)
            if query_embedding is None:
                raise InvalidInputError(
                    "query_embedding: a semantic search needs the query's embedding "
                    "(from the model that embedded the documents)"
                )
            ranked = self._cosine(query_embedding, config, config.top_k)
            hits = self._hits(ranked, "semantic", "cosine_similarity", "bruteforce")
            return RetrievalResponse(hits, (skipped_lexical, self._ran(LegKind.DENSE, hits)), query)
        return self._hybrid(query, config, query_embedding)

    def _ran(self, leg: LegKind, hits: Sequence[RetrievalHit]) -> LegOutcome:
        status = LegStatus.SUCCESS if hits else LegStatus.EMPTY
        return LegOutcome(leg, status, len(hits), self._generation, None)

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

    def _hits(
        self,
        ranked: Sequence[tuple[int, float]],
        mode: str,
        metric: str,
        backend: str,
    ) -> tuple[RetrievalHit, ...]:
        return tuple(
            RetrievalHit(
                doc=self._documents[position],
                score=score,
                match_mode=mode,
                backend=backend,
                index_generation=self._generation,
                native_score=score,
                native_metric=metric,
                rank=rank,
            )
            for rank, (position, score) in enumerate(ranked)
        )

    def _bm25(self, query: str, config: RetrievalConfig, limit: int) -> list[tuple[int, float]]:
        kept = [
            (position, score)
            for position, score in self._lexical(config).scores(tokenize(query)).items()
            if score > 0.0 and score >= config.keyword_threshold
        ]
        kept.sort(key=lambda item: (-item[1], item[0]))
        return kept[:limit]

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

    def _query_vector(self, query_embedding: Sequence[float] | np.ndarray) -> np.ndarray:
        assert self._embeddings is not None
        vector = np.asarray(query_embedding, dtype=np.float64)
        dim = self._embeddings.shape[1]
        if vector.shape != (dim,):
            raise InvalidInputError(
                f"query_embedding: expected a vector of {dim} values like the documents', "
                f"got shape {vector.shape}"
            )
        norm = float(np.linalg.norm(vector))
        if not math.isfinite(norm) or norm == 0.0:
            raise InvalidInputError(
                "query_embedding: the vector is zero or not finite, so its cosine is undefined"
            )
        return vector / norm

    def _cosine(
        self, query_embedding: Sequence[float] | np.ndarray, config: RetrievalConfig, limit: int
    ) -> list[tuple[int, float]]:
        assert self._embeddings is not None
        cosines = self._embeddings @ self._query_vector(query_embedding)
        order = np.argsort(-cosines, kind="stable")
        ranked = []
        for position in order[:limit]:
            cosine = float(cosines[position])
            if cosine < config.semantic_threshold:
                break
            ranked.append((int(position), cosine))
        return ranked

    def query(
        self, vector: Sequence[float] | np.ndarray, k: int | None = None
    ) -> list[tuple[DocId, float]]:
        """The ``k`` (default ``top_k``) documents with the highest cosine to ``vector``."""
        if self._embeddings is None:
            raise InvalidInputError(
                "query: this index has no dense index (not every document has an embedding)"
            )
        limit = self.config.top_k if k is None else k
        ranked = self._cosine(vector, RetrievalConfig(semantic_threshold=-1.0), limit)
        return [(_doc_id(self._documents[position]), score) for position, score in ranked]

    def _hybrid(
        self,
        query: str,
        config: RetrievalConfig,
        query_embedding: Sequence[float] | np.ndarray | None,
    ) -> RetrievalResponse:
        fetch_k = min(3 * config.top_k, max(self.n_documents, 1))
        lexical = self._bm25(query, config, fetch_k)
        lexical_outcome = LegOutcome(
            LegKind.LEXICAL,
            LegStatus.SUCCESS if lexical else LegStatus.EMPTY,
            len(lexical),
            self._generation,
            "bm25",
        )
        legs: list[tuple[LegKind, float, str, list[tuple[int, float]]]] = [
            (LegKind.LEXICAL, 1.0 - config.hybrid_alpha, "bm25", lexical)
        ]
        if self._embeddings is None or query_embedding is None:
            dense_outcome = self._dense_failure(query_embedding)
        else:
            dense = self._cosine(query_embedding, config, fetch_k)
            legs.append((LegKind.DENSE, config.hybrid_alpha, "cosine_similarity", dense))
            dense_outcome = LegOutcome(
                LegKind.DENSE,
                LegStatus.SUCCESS if dense else LegStatus.EMPTY,
                len(dense),
                self._generation,
                "bruteforce",
            )
        fused: dict[int, float] = {}
        contributions: dict[int, list[LegContribution]] = {}
        for leg, weight, metric, ranked in legs:
            for rank, (position, native) in enumerate(ranked):
                fused[position] = fused.get(position, 0.0) + weight / (config.rrf_k + rank + 1)
                contributions.setdefault(position, []).append(
                    LegContribution(leg, rank, native, metric)
                )
        order = sorted(fused, key=lambda p: (-fused[p], self._documents[p].doc_id))
        hits = tuple(
            RetrievalHit(
                doc=self._documents[position],
                score=fused[position],
                match_mode="hybrid",
                backend="rrf",
                index_generation=self._generation,
                native_score=None,
                native_metric="reciprocal_rank_fusion",
                contributions=tuple(contributions[position]),
                rank=rank,
            )
            for rank, position in enumerate(order[: config.top_k])
        )
        return RetrievalResponse(hits, (lexical_outcome, dense_outcome), query)


class _Bm25:
    """Postings, document lengths and idf of one tokenisation of the corpus."""

    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        self.postings: dict[str, list[tuple[int, int]]] = {}
        self.lengths = [len(tokens) for tokens in documents]
        for position, tokens in enumerate(documents):
            for token, tf in Counter(tokens).items():
                self.postings.setdefault(token, []).append((position, tf))
        n = len(documents)
        self.avg_length = sum(self.lengths) / n
        self.idf = {
            token: math.log((n - len(p) + 0.5) / (len(p) + 0.5) + 1.0)
            for token, p in self.postings.items()
        }

    def scores(self, query_tokens: Sequence[str]) -> dict[int, float]:
        scores: dict[int, float] = {}
        for token in query_tokens:
            postings = self.postings.get(token)
            if not postings:
                continue
            idf = self.idf[token]
            for position, tf in postings:
                norm = 1.0 - BM25_B + BM25_B * self.lengths[position] / self.avg_length
                gain = idf * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * norm)
                scores[position] = scores.get(position, 0.0) + gain
        return scores
