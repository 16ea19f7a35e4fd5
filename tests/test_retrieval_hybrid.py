"""Hybrid search fused in the core (issue 52) is the weighted reciprocal rank fusion of the
index's own two legs, to the bit.

The reference takes each leg from the index itself, searched alone (``match_mode="keyword"``
and ``"semantic"`` with ``top_k = 3 x top_k``, the hybrid search's fetch), and fuses them as
the definition says (``RetrievalConfig``'s docstring; Cormack, Clarke and Buettcher, SIGIR
2009): a hit at 0-based rank ``r`` of a leg adds ``weight / (rrf_k + r + 1)``, the keyword leg
weighing ``1 - hybrid_alpha``; ties by doc id; cut at ``top_k``. Random collections with
repeated texts and embeddings (ties in both legs), str and int ids, queries with and without
embeddings."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ragmeter import CorpusDocument, RetrievalConfig, RetrievalEstimator, RetrievalIndex
from ragmeter.retrieval import LegKind

WORDS = ["red", "blood", "cell", "oxygen", "iron", "lung", "heart", "bone", "skin", "vein"]


def collection(
    seed: int, int_ids: bool
) -> tuple[list[CorpusDocument], list[str], list[list[float]]]:
    rng = random.Random(seed)
    n = rng.randint(5, 60)
    texts = [" ".join(rng.choices(WORDS, k=rng.randint(1, 8))) for _ in range(6)]
    vectors = [[rng.choice([-1.0, 0.0, 0.5, 1.0]) for _ in range(3)] for _ in range(8)]
    vectors = [v if any(v) else [1.0, 0.0, 0.0] for v in vectors]
    ids = rng.sample(range(1000), n)
    documents = [
        CorpusDocument(
            doc_id=ids[i] if int_ids else f"d{ids[i]}",
            input_path=f"memory://{i}",
            chunk_index=0,
            text=rng.choice(texts),
            embedding=rng.choice(vectors),
        )
        for i in range(n)
    ]
    queries = [" ".join(rng.choices(WORDS, k=rng.randint(1, 3))) for _ in range(12)]
    embeddings = [[rng.uniform(-1, 1) for _ in range(3)] for _ in queries]
    return documents, queries, embeddings


def reference(
    index: RetrievalIndex,
    queries: list[str],
    embeddings: list[list[float] | None],
    config: RetrievalConfig,
) -> list[list[tuple]]:
    """Each query's fused hits (doc id, score, contributions) from the index's own legs. The
    semantic leg is searched for the queries with an embedding together, as the hybrid search
    stacks them (a cosine's last bit depends on the shape of the matrix product)."""
    fetch = min(3 * config.top_k, index.n_documents)
    keyword = index.search_many(queries, config=RetrievalConfig(match_mode="keyword", top_k=fetch))
    given = [p for p, e in enumerate(embeddings) if e is not None]
    semantic_config = RetrievalConfig(
        match_mode="semantic", top_k=fetch, semantic_threshold=config.semantic_threshold
    )
    semantic = dict(
        zip(
            given,
            index.search_many(
                [queries[p] for p in given],
                config=semantic_config,
                query_embeddings=[embeddings[p] for p in given],
            )
            if given
            else [],
            strict=True,
        )
    )
    out = []
    for p in range(len(queries)):
        legs = [(LegKind.LEXICAL, 1.0 - config.hybrid_alpha, keyword[p])]
        if p in semantic:
            legs.append((LegKind.DENSE, config.hybrid_alpha, semantic[p]))
        fused: dict = {}
        parts: dict = {}
        for leg, weight, response in legs:
            for rank, hit in enumerate(response):
                doc = hit.doc.doc_id
                fused[doc] = fused.get(doc, 0.0) + weight / (config.rrf_k + rank + 1)
                parts.setdefault(doc, []).append((leg, rank, hit.score))
        best = sorted(fused, key=lambda d: (-fused[d], d))[: config.top_k]
        out.append([(d, fused[d], parts[d]) for d in best])
    return out


@pytest.mark.parametrize("seed", range(12))
def test_hybrid_search_is_the_fusion_of_the_index_s_own_legs(seed: int) -> None:
    documents, queries, embeddings = collection(seed, int_ids=seed % 2 == 1)
    index = RetrievalIndex().build(documents)
    rng = random.Random(seed)
    for _ in range(3):
        config = RetrievalConfig(
            match_mode="hybrid",
            top_k=rng.randint(1, 12),
            hybrid_alpha=rng.choice([0.0, 0.25, 0.5, 0.8, 1.0]),
            rrf_k=rng.choice([0, 1, 10, 60]),
            semantic_threshold=rng.choice([-1.0, 0.0, 0.4]),
        )
        given = [e if rng.random() < 0.8 else None for e in embeddings]
        responses = index.search_many(queries, config=config, query_embeddings=given)
        expected = reference(index, queries, given, config)
        for response, hits in zip(responses, expected, strict=True):
            got = [
                (h.doc.doc_id, h.score, [(c.leg, c.rank, c.native_score) for c in h.contributions])
                for h in response
            ]
            assert got == hits
        if all(e is not None for e in given):
            estimator = RetrievalEstimator(
                documents=documents,
                match_mode="hybrid",
                top_k=config.top_k,
                hybrid_alpha=config.hybrid_alpha,
                rrf_k=config.rrf_k,
                semantic_threshold=config.semantic_threshold,
            ).fit(list(zip(queries, given, strict=True)))
            predicted = estimator.predict(list(zip(queries, given, strict=True)))
            assert list(predicted) == [r.doc_ids for r in responses]


def test_predict_refuses_a_query_without_its_embedding_naming_it() -> None:
    documents, queries, embeddings = collection(3, int_ids=False)
    estimator = RetrievalEstimator(documents=documents, match_mode="hybrid").fit(queries)
    pairs = [(q, e) for q, e in zip(queries, embeddings, strict=True)]
    pairs[4] = queries[4]
    with pytest.raises(RuntimeError, match=r"query 4 .*NO_QUERY_EMBEDDING"):
        estimator.predict(pairs)
    assert np.asarray(estimator.predict(pairs[:4])).shape == (4,)
