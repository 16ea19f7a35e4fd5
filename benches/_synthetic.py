"""Deterministic synthetic judgments and runs for the ranking benchmarks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["make_dicts", "write_trec_files"]


def _arrays(n_queries: int, docs_per_query: int, judged_per_query: int, seed: int):
    rng = np.random.default_rng(seed)
    # Each query ranks docs_per_query distinct documents out of a large collection.
    docs = rng.integers(0, 5_000_000, size=(n_queries, docs_per_query * 2))
    scores = rng.random((n_queries, docs_per_query))
    grades = rng.integers(0, 4, size=(n_queries, judged_per_query))
    # About 60% of the judged documents were retrieved.
    retrieved_judged = rng.random((n_queries, judged_per_query)) < 0.6
    picks = rng.integers(0, docs_per_query, size=(n_queries, judged_per_query))
    return docs, scores, grades, retrieved_judged, picks


def make_dicts(
    n_queries: int = 10_000, docs_per_query: int = 1_000, judged_per_query: int = 50, seed: int = 42
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """qrels {qid: {doc: grade 0-3}} with ~50 judged docs per query, and a run of 1,000 scored
    docs per query."""
    docs, scores, grades, retrieved_judged, picks = _arrays(
        n_queries, docs_per_query, judged_per_query, seed
    )
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        row = np.unique(docs[q])[: docs_per_query * 2]
        ranked = [f"doc{d}" for d in row[:docs_per_query].tolist()]
        unranked = [f"doc{d}" for d in row[docs_per_query:].tolist()]
        run[f"q{q}"] = dict(zip(ranked, scores[q].tolist(), strict=False))
        judged: dict[str, int] = {}
        for j, grade in enumerate(grades[q].tolist()):
            if retrieved_judged[q, j] or not unranked:
                doc = ranked[picks[q, j]]
            else:
                doc = unranked[j % len(unranked)]
            judged[doc] = grade
        qrels[f"q{q}"] = judged
    return qrels, run


def write_trec_files(
    directory: Path, qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    qrels_path = directory / "bench.qrels"
    run_path = directory / "bench.run"
    with open(qrels_path, "w") as f:
        for q, judged in qrels.items():
            f.writelines(f"{q} 0 {d} {g}\n" for d, g in judged.items())
    with open(run_path, "w") as f:
        for q, ranking in run.items():
            ordered = sorted(ranking.items(), key=lambda kv: -kv[1])
            f.writelines(f"{q} Q0 {d} {r} {s!r} bench\n" for r, (d, s) in enumerate(ordered, 1))
    return qrels_path, run_path
