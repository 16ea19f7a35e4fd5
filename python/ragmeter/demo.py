"""The bundled demo: keyword (BM25) against strict (substring) retrieval on a small example
corpus, fully offline. It evaluates both, compares them with a paired sign-flip test, prints
the tables and writes the reports and plots to an output directory."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from .exceptions import MissingDependencyError
from .harness import RetrievalEvaluation, evaluate_retrieval
from .io import read_records
from .retrieval import CorpusDocument, RetrievalConfig, RetrievalIndex
from .stats import Comparison

__all__ = ["DEMO_METRICS", "load_demo_corpus", "run_demo"]

DEMO_METRICS = ("precision@1", "recall@5", "mrr", "ndcg@5")


def _rows(name: str) -> list[dict[str, Any]]:
    with resources.as_file(resources.files("ragmeter").joinpath("data", name)) as path:
        return read_records(path, format="jsonl", what="the demo's data").rows


def load_demo_corpus() -> tuple[list[CorpusDocument], dict[str, str], dict[str, dict[str, int]]]:
    """The bundled example: 30 documents (chunks of 10 short science notes), 24 queries and
    graded judgments (2: answers the query, 1: related)."""
    documents = [CorpusDocument(**row) for row in _rows("demo_corpus.jsonl")]
    rows = _rows("demo_queries.jsonl")
    queries = {row["query_id"]: row["query"] for row in rows}
    qrels = {row["query_id"]: row["relevance"] for row in rows}
    return documents, queries, qrels


def _summary_table(evaluations: list[RetrievalEvaluation]) -> str:
    metrics = list(evaluations[0].metric_names)
    header = ["system", *metrics, "statuses", "p50 latency"]
    rows = [header]
    for evaluation in evaluations:
        means = evaluation.metrics
        statuses = ", ".join(f"{s} {n}" for s, n in evaluation.status_counts.items())
        rows.append(
            [
                evaluation.name or "system",
                *(f"{float(means[m]):.4f}" for m in metrics),
                statuses,
                f"{evaluation.latency['p50'] * 1e6:.0f} us",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            c.ljust(w) if i in (0, len(header) - 2) else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    )


def text_figure(comparison: Comparison, metric: str, width: int = 40) -> str:
    """The per-query differences of ``metric`` (candidate minus baseline), sorted, as a text
    bar chart: one line per query, a bar to the right for a win, to the left for a loss."""
    item = comparison[metric]
    differences = sorted(
        zip(comparison.differences[metric], comparison.query_ids, strict=True), reverse=True
    )
    bound = max((abs(d) for d, _ in differences), default=0.0) or 1.0
    half = width // 2
    label = max(len(str(q)) for _, q in differences)
    lines = [
        f"{metric}: {comparison.candidate} - {comparison.baseline} per query, sorted "
        f"(mean {item.delta:+.4f}, W/T/L {item.wins}/{item.ties}/{item.losses})"
    ]
    for d, query in differences:
        size = round(abs(d) / bound * half)
        left = " " * (half - size) + "█" * size if d < 0 else " " * half
        right = "█" * size if d > 0 else ""
        lines.append(f"{query!s:>{label}} {left}|{right:<{half}} {d:+.3f}")
    return "\n".join(lines)


def run_demo(out: TextIO, output_dir: str | Path = "demo-output") -> int:
    """Run the demo, print to ``out`` and write reports and plots into ``output_dir``."""
    documents, queries, qrels = load_demo_corpus()
    print(
        f"ragmeter {__version__} demo: {len(documents)} documents, {len(queries)} queries "
        "with graded judgments (bundled, offline)\n",
        file=out,
    )
    evaluations = []
    for mode in ("keyword", "strict"):
        index = RetrievalIndex(RetrievalConfig(match_mode=mode, top_k=10)).build(documents)
        evaluations.append(
            evaluate_retrieval(index, queries, qrels, metrics=DEMO_METRICS, name=mode)
        )
    keyword, strict = evaluations
    print(f"Means over {keyword.n_queries} queries:", file=out)
    print(_summary_table(evaluations), file=out)
    comparison: Comparison = keyword.compare(strict, random_state=0)
    print(f"\n{comparison.to_table()}", file=out)

    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    written = [
        keyword.write(directory / "keyword.json"),
        strict.write(directory / "strict.json"),
        keyword.write(directory / "keyword.jsonl"),
        comparison.write(directory / "comparison.json"),
    ]
    try:
        from .plots import plot_metrics, plot_query_deltas

        plot_metrics({"keyword": keyword, "strict": strict}, path=directory / "metrics.png")
        plot_query_deltas(comparison, "ndcg@5", path=directory / "ndcg@5-deltas.png")
        written += [directory / "metrics.png", directory / "ndcg@5-deltas.png"]
    except MissingDependencyError:
        # Without matplotlib, the same figures as text (the report below draws them as SVG).
        print("\n" + text_figure(comparison, "ndcg@5"), file=out)
        print(
            "(PNG figures need matplotlib: pip install 'ragmeter[plot]'; report.html has "
            "them as SVG)",
            file=out,
        )
    from .html_report import report
    from .stats import compare_many

    campaign = compare_many({"keyword": keyword, "strict": strict}, random_state=0)
    report(("keyword vs strict", campaign), output=directory / "report.html", title="ragmeter demo")
    written.append(directory / "report.html")
    print("\nwrote " + ", ".join(str(path) for path in written), file=out)
    return 0
