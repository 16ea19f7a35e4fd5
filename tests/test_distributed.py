"""ragmeter.distributed.evaluate_runs on a local Dask cluster, against trec_eval's outputs."""

from __future__ import annotations

import os
import re
import sys
import warnings

import pytest
from vendored import TREC_EVAL_TESTS

import ragmeter
from ragmeter.distributed import RunFailure, evaluate_runs, map_runs
from ragmeter.exceptions import MissingDependencyError

ORACLE = TREC_EVAL_TESTS
MEASURES = ["map", "P_5", "P_10", "recip_rank", "Rprec", "recall_100", "ndcg", "ndcg_cut_10"]


def trec_eval_means(name: str) -> dict[str, float]:
    means = {}
    for line in (ORACLE / name).read_text().splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0] in MEASURES and fields[1] == "all":
            means[fields[0]] = float(fields[2])
    assert len(means) == len(MEASURES), f"means missing from {name}"
    return means


@pytest.fixture(scope="module")
def client():
    # Worker processes: results, failures and warnings cross a process boundary, as on a cluster.
    from dask import distributed

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()


def quietly(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ragmeter.UndefinedMetricWarning)
        return call()


def test_each_run_matches_trec_eval(client):
    runs = [ORACLE / "results.test", ORACLE / "results.trunc"]
    results = quietly(
        lambda: evaluate_runs(
            ORACLE / "qrels.test", runs, metrics=MEASURES, complete=True, client=client
        )
    )
    assert list(results) == [str(p) for p in runs]
    for run, oracle in (("results.test", "out.test.aq"), ("results.trunc", "out.test.aqc")):
        result = results[str(ORACLE / run)]
        assert not isinstance(result, RunFailure)
        for measure, value in trec_eval_means(oracle).items():
            assert f"{result[measure]:.4f}" == f"{value:.4f}", (run, measure)


def test_per_query_values_and_the_default_scheduler():
    # client=None: Dask's default scheduler (local threads), and per-query values.
    results = quietly(
        lambda: evaluate_runs(
            ORACLE / "qrels.test", [ORACLE / "results.test"], metrics=["map"], per_query=True
        )
    )
    per_topic = results[str(ORACLE / "results.test")]["map"]
    want = {
        fields[1]: float(fields[2])
        for fields in (line.split() for line in (ORACLE / "out.test.aq").read_text().splitlines())
        if len(fields) == 3 and fields[0] == "map" and fields[1] != "all"
    }
    assert {q: f"{v:.4f}" for q, v in per_topic.items()} == {q: f"{v:.4f}" for q, v in want.items()}


def test_a_failed_run_is_recorded_or_raised(client):
    # results.trunc lacks judged topics: without complete=True that is an error (trec_eval 10).
    runs = [ORACLE / "results.test", ORACLE / "results.trunc"]
    results = quietly(
        lambda: evaluate_runs(
            ORACLE / "qrels.test", runs, metrics=["map"], client=client, on_error="record"
        )
    )
    failure = results[str(ORACLE / "results.trunc")]
    assert isinstance(failure, RunFailure)
    assert failure.error_type == "InvalidInputError"  # a ValueError
    assert "complete=True" in failure.message or "missing" in failure.message
    assert str(failure).startswith(str(ORACLE / "results.trunc"))
    good = results[str(ORACLE / "results.test")]
    assert f"{good['map']:.4f}" == f"{trec_eval_means('out.test.aq')['map']:.4f}"
    with pytest.raises(ValueError):
        quietly(lambda: evaluate_runs(ORACLE / "qrels.test", runs, metrics=["map"], client=client))


def test_worker_warnings_reach_the_caller_with_the_run_path(client):
    # One topic of qrels.comment.test has no relevant document: map is undefined there.
    run = ORACLE / "results.comment.test"
    with pytest.warns(ragmeter.UndefinedMetricWarning, match=f"^{re.escape(str(run))}: map is"):
        evaluate_runs(ORACLE / "qrels.comment.test", [run], metrics=["map"], client=client)


def test_arguments_are_checked_before_any_task():
    qrels = ORACLE / "qrels.test"
    with pytest.raises(TypeError, match="wrap it in a list"):
        evaluate_runs(qrels, str(ORACLE / "results.test"))
    with pytest.raises(ValueError, match="more than once"):
        evaluate_runs(qrels, ["a.run", "a.run"])
    with pytest.raises(ValueError, match=r"unknown metric|valid"):
        evaluate_runs(qrels, ["a.run"], metrics=["nope@3"])
    with pytest.raises(ValueError, match="on_error"):
        evaluate_runs(qrels, ["a.run"], on_error="ignore")  # type: ignore[arg-type]
    assert evaluate_runs(qrels, []) == {}


def test_without_dask_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[dask\]"):
        evaluate_runs(ORACLE / "qrels.test", [ORACLE / "results.test"])


def test_progress_ticks_as_runs_finish(client):
    runs = [ORACLE / "results.test", ORACLE / "results.trunc"]
    for dask_client in (client, None):
        seen: list[tuple[int, int]] = []
        quietly(
            lambda c=dask_client, s=seen: evaluate_runs(
                ORACLE / "qrels.test",
                runs,
                metrics=["map"],
                complete=True,
                client=c,
                progress=lambda done, total, s=s: s.append((done, total)),
            )
        )
        assert seen == [(1, 2), (2, 2)]


def test_local_scheduler_without_any_client_ticks_too():
    # In a fresh process no distributed Client exists: Dask's local threads run the tasks.
    import subprocess

    code = f"""
import warnings
from ragmeter.distributed import evaluate_runs
warnings.simplefilter("ignore")
seen = []
results = evaluate_runs(
    {str(ORACLE / "qrels.test")!r},
    [{str(ORACLE / "results.test")!r}, {str(ORACLE / "results.trunc")!r}],
    metrics=["map"], complete=True, progress=lambda done, total: seen.append((done, total)),
)
print(seen, [round(float(r["map"]), 4) for r in results.values()])
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    aq, aqc = trec_eval_means("out.test.aq")["map"], trec_eval_means("out.test.aqc")["map"]
    assert out.strip() == f"[(1, 2), (2, 2)] {[round(aq, 4), round(aqc, 4)]}"


def exit_on_poison(qrels_path, run_path, **options):
    """Runs on a worker: a run named *.poison kills the worker process, as a crash would."""
    if run_path.endswith(".poison"):
        os._exit(3)
    return ragmeter.evaluate_trec(qrels_path, run_path, **options)


def test_a_run_that_kills_its_worker_is_that_runs_failure_and_the_others_come_back():
    import dask
    from dask import distributed

    # No retries (the default of 3 kills three more workers first): the scheduler gives up
    # on the task at once and raises KilledWorker for it, and for any run that was on the
    # worker with it; those are evaluated again, alone.
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
    runs = [str(ORACLE / "results.test"), "killer.poison", str(ORACLE / "results.trunc")]
    options = {"metrics": ["map"], "complete": True}
    try:
        with distributed.Client(cluster) as client:
            outcomes = quietly(
                lambda: map_runs(
                    exit_on_poison,
                    ORACLE / "qrels.test",
                    runs,
                    options,
                    client=client,
                    record_errors=True,
                )
            )
            with pytest.raises(distributed.KilledWorker):
                map_runs(exit_on_poison, ORACLE / "qrels.test", runs[1:2], options, client=client)
    finally:
        cluster.close()
    killed = outcomes[1].result
    assert isinstance(killed, RunFailure) and killed.error_type == "KilledWorker"
    assert killed.run_path == "killer.poison"
    for outcome, oracle in ((outcomes[0], "out.test.aq"), (outcomes[2], "out.test.aqc")):
        value = outcome.result["map"]
        assert f"{value:.4f}" == f"{trec_eval_means(oracle)['map']:.4f}"
