"""A measure keeps the spelling and the order it was asked in, from the request to the results,
the comparison's tables, its saved form and the report (issue 50 item 8).

trec_eval's own requests (``-m ndcg_cut.10``) are printed under trec_eval's output names
(``ndcg_cut_10``), as trec_eval prints them; every other spelling (``nDCG@10``, ``P@5``) is the
name of its column everywhere, in the order given.
"""

from __future__ import annotations

import json

from ragmeter import compare_many, ranking_metrics, report
from ragmeter.cli import main
from ragmeter.reports import render_report

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}, "q3": {"d4": 1}}
RUNS = {
    "a": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}, "q3": {"d9": 1.0}},
    "b": {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}, "q3": {"d4": 1.0}},
}
ASKED = ["P@5", "nDCG@10", "AP", "recall@100"]


def test_python_results_tables_saved_form_and_report_keep_the_asked_names():
    values = [
        ranking_metrics(QRELS, run, metrics=ASKED, average=None).per_query_results(name)
        for name, run in RUNS.items()
    ]
    means = ranking_metrics(QRELS, RUNS["a"], metrics=ASKED)
    assert list(means) == ASKED
    assert [list(v.metric_names) for v in values] == [ASKED, ASKED]
    result = compare_many(values)
    assert list(result.metric_names) == ASKED
    assert json.loads(render_report(result, "json"))["metrics"] == ASKED
    text = str(result)
    header = next(line for line in text.splitlines() if "system" in line)
    assert [c for c in header.split() if c in ASKED] == ASKED
    page = report(result)
    positions = [page.index(f'data-metric="{m}"') for m in ASKED]
    assert positions == sorted(positions)


def test_the_command_keeps_the_order_of_m_under_trec_evals_or_the_asked_names(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    runs = []
    for name, run in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {rank} {score} {name}\n"
                for q, docs in run.items()
                for rank, (d, score) in enumerate(docs.items(), start=1)
            )
        )
        runs.append(path)
    for flags, names in (
        (["-m", "P.5", "-m", "ndcg_cut.10"], ["P_5", "ndcg_cut_10"]),
        (["-m", "ndcg_cut.10", "-m", "P.5"], ["ndcg_cut_10", "P_5"]),
        (["-m", "recall@100", "-m", "nDCG@10"], ["recall@100", "nDCG@10"]),
    ):
        assert main(["compare", str(qrels), *map(str, runs), *flags]) == 0
        out = capsys.readouterr().out
        header = next(line for line in out.splitlines() if "system" in line)
        assert [c for c in header.split() if c in names] == names, out
