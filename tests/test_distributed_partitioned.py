"""One huge run evaluated on a Dask cluster partition by partition
(``ragmeter.distributed.evaluate_partitioned``), on a LocalCluster with worker processes: the
same numbers, to the last digit, as ``evaluate_trec`` on the whole run, whose values are
trec_eval's (checked here against the trec_eval binary too)."""

from __future__ import annotations

import random
import subprocess
import warnings
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from vendored import TREC_EVAL_TESTS

import ragmeter
from ragmeter import InvalidInputError
from ragmeter.distributed import evaluate_partitioned

ORACLE = TREC_EVAL_TESTS
METRICS = [m.name for m in ragmeter.parse_measures("all_trec")]


@pytest.fixture(scope="module")
def client():
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


def random_run(directory: Path, seed: int, n_queries: int = 60):
    """qrels and run files (TREC) with ties, graded and negative judgments, judged queries the
    run lacks and run queries without judgments; the run grouped by query."""
    rng = random.Random(seed)
    queries = [f"q{i}" for i in range(n_queries)]
    qrels_lines, run_rows = [], []
    for query in queries:
        docs = [f"d{rng.randrange(300)}" for _ in range(40)]
        judged = sorted(set(docs[:15]))
        qrels_lines += [f"{query} 0 {d} {rng.choice([-1, 0, 1, 2, 3])}" for d in judged]
        if rng.random() < 0.1:
            continue  # judged, not in the run
        ranked = list(dict.fromkeys(docs + [f"x{rng.randrange(50)}" for _ in range(20)]))
        for doc in ranked:
            run_rows.append((query, doc, float(rng.choice([1, 2, 3, rng.random()]))))
    for extra in range(5):
        run_rows.append((f"unjudged{extra}", "d1", 1.0))
    qrels = directory / "qrels.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run = directory / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} {i} {s!r} tagZ\n" for i, (q, d, s) in enumerate(run_rows)))
    return qrels, run, run_rows


def trec_partitions(directory: Path, rows, n_parts: int) -> list[Path]:
    """The run as TREC files, each query in one of them, rows in run order."""
    queries = list(dict.fromkeys(q for q, _, _ in rows))
    part_of = {q: i * n_parts // len(queries) for i, q in enumerate(queries)}
    paths = [directory / f"part{i}.txt" for i in range(n_parts)]
    for i, path in enumerate(paths):
        lines = [f"{q} Q0 {d} 1 {s!r} tagZ\n" for q, d, s in rows if part_of[q] == i]
        path.write_text("".join(lines))
    return paths


def parquet_dataset(directory: Path, rows, *, hive: bool) -> Path:
    table = pa.table(
        {
            "query_id": [q for q, _, _ in rows],
            "doc_id": [d for _, d, _ in rows],
            "score": [s for _, _, s in rows],
        }
    )
    root = directory / ("hive" if hive else "tagZ")
    if hive:
        pq.write_to_dataset(table, root, partition_cols=["query_id"])
    else:
        root.mkdir()
        queries = list(dict.fromkeys(table.column("query_id").to_pylist()))
        for i in range(4):
            chunk = set(queries[i::4])
            mask = pa.array([q in chunk for q in table.column("query_id").to_pylist()])
            pq.write_table(table.filter(mask), root / f"part-{i}.parquet", row_group_size=97)
    return root


@pytest.mark.parametrize("complete", [False, True])
def test_partitions_give_the_whole_runs_numbers_to_the_last_digit(client, tmp_path, complete):
    qrels, run, rows = random_run(tmp_path, 1)
    options = {"metrics": METRICS, "complete": complete, "missing": None if complete else "skip"}
    whole_means = quietly(lambda: ragmeter.evaluate_trec(qrels, run, **options))
    whole_values = quietly(lambda: ragmeter.evaluate_trec(qrels, run, per_query=True, **options))
    sources = [
        trec_partitions(tmp_path, rows, 5),
        parquet_dataset(tmp_path, rows, hive=False),
        parquet_dataset(tmp_path, rows, hive=True),
    ]
    for source in sources:
        tag = "tagZ" if not isinstance(source, Path) or source.name == "tagZ" else "hive"
        means = quietly(
            lambda source=source: evaluate_partitioned(qrels, source, client=client, **options)
        )
        values = quietly(
            lambda source=source: evaluate_partitioned(
                qrels, source, client=client, per_query=True, **options
            )
        )
        assert means["runid"] == tag
        for name in METRICS:
            if name == "runid":
                continue
            assert means.get(name) == whole_means.get(name), (name, source)
            assert values[name] == whole_values[name], (name, source)
        assert sorted(means.unjudged) == sorted(whole_means.unjudged)


def test_trec_evals_own_test_run_split_by_topic(client, tmp_path, trec_eval):
    lines = (ORACLE / "results.test").read_text().splitlines()
    paths = []
    for topic in sorted({line.split()[0] for line in lines}):
        path = tmp_path / f"{topic}.txt"
        path.write_text("".join(f"{line}\n" for line in lines if line.split()[0] == topic))
        paths.append(path)
    means = quietly(
        lambda: evaluate_partitioned(
            ORACLE / "qrels.test",
            paths,
            metrics=["map", "P_10", "ndcg"],
            client=client,
            zero_division="trec_eval",
        )
    )
    out = subprocess.run(
        [
            str(trec_eval),
            "-m",
            "map",
            "-m",
            "P.10",
            "-m",
            "ndcg",
            str(ORACLE / "qrels.test"),
            str(ORACLE / "results.test"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    printed = {line.split()[0]: line.split()[2] for line in out.splitlines()}
    assert {name: f"{float(means[name]):.4f}" for name in printed} == printed


def test_a_query_split_across_partitions_is_named(client, tmp_path):
    qrels, _, rows = random_run(tmp_path, 2, n_queries=10)
    paths = trec_partitions(tmp_path, rows, 3)
    # Move the last line of the first partition into the second.
    first = paths[0].read_text().splitlines(keepends=True)
    paths[0].write_text("".join(first[:-1]))
    paths[1].write_text(first[-1] + paths[1].read_text())
    query = first[-1].split()[0]
    with pytest.raises(InvalidInputError, match=rf"query '{query}' is in two partitions"):
        quietly(lambda: evaluate_partitioned(qrels, paths, client=client, missing="skip"))
    with pytest.raises(InvalidInputError, match=r"judged topics missing from the run"):
        quietly(
            lambda: evaluate_partitioned(qrels, trec_partitions(tmp_path, rows, 3), client=client)
        )
