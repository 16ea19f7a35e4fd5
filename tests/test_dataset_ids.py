"""``irds:`` dataset ids: judgments read through ir_datasets from a dataset registered here on
local files (never the network), its documented relevance level applied unless -l is given,
and the values equal to those of the same qrels given as a file."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ragmeter.cli import main
from ragmeter.datasets import dataset_qrels

ir_datasets = pytest.importorskip("ir_datasets")

QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d5 0\nq2 0 d3 3\nq2 0 d4 1\n"
RUN = "q1 Q0 d2 1 3.0 t\nq1 Q0 d1 2 2.0 t\nq1 Q0 d9 3 1.0 t\nq2 Q0 d4 1 2.0 t\nq2 Q0 d3 2 1.0 t\n"


class _Documentation:
    def __init__(self, official):
        self.official = official

    def documentation(self):
        return {"official_measures": self.official}


@pytest.fixture(scope="module")
def local_dataset(tmp_path_factory):
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import LocalDownload

    folder = tmp_path_factory.mktemp("irds")
    (folder / "qrels.txt").write_text(QRELS)
    defs = {0: "not relevant", 1: "related", 2: "relevant", 3: "perfect"}
    for name, official in (
        ("ragmeter-test/graded", ["nDCG@10", "AP(rel=2)", "RR(rel=2)"]),
        ("ragmeter-test/plain", ["nDCG@10"]),
    ):
        if name not in ir_datasets.registry:
            dataset = ir_datasets.Dataset(
                TrecQrels(LocalDownload(folder / "qrels.txt"), defs), _Documentation(official)
            )
            ir_datasets.registry.register(name, dataset)
    (folder / "run.txt").write_text(RUN)
    return folder


def test_qrels_and_documented_level(local_dataset):
    loaded = dataset_qrels("irds:ragmeter-test/graded")
    assert loaded.qrels == {"q1": {"d1": 2, "d2": 1, "d5": 0}, "q2": {"d3": 3, "d4": 1}}
    assert loaded.relevance_level == 2
    assert dataset_qrels("irds:ragmeter-test/plain").relevance_level is None


def test_evaluate_with_a_dataset_id_equals_the_qrels_file(local_dataset, capsys):
    run = str(local_dataset / "run.txt")
    qrels = str(local_dataset / "qrels.txt")
    measures = ["-q", "-m", "map", "-m", "P.2", "-m", "ndcg"]
    assert main(["evaluate", *measures, "irds:ragmeter-test/graded", run]) == 0
    got = capsys.readouterr()
    assert "relevance level 2 for binary measures" in got.err
    assert main(["evaluate", *measures, "-l", "2", qrels, run]) == 0
    assert got.out == capsys.readouterr().out
    # -l overrides the documented level; a dataset without one keeps trec_eval's 1.
    assert main(["evaluate", *measures, "-l", "1", "irds:ragmeter-test/graded", run]) == 0
    overridden = capsys.readouterr()
    assert "relevance level" not in overridden.err
    assert main(["evaluate", *measures, qrels, run]) == 0
    assert overridden.out == capsys.readouterr().out
    assert main(["evaluate", *measures, "irds:ragmeter-test/plain", run]) == 0
    plain = capsys.readouterr().out
    assert main(["evaluate", *measures, qrels, run]) == 0
    assert plain == capsys.readouterr().out


def test_unknown_dataset_is_named(local_dataset, capsys):
    assert main(["evaluate", "irds:no-such/dataset", str(local_dataset / "run.txt")]) == 2
    assert "ir_datasets has no dataset 'no-such/dataset'" in capsys.readouterr().err


def test_ranking_metrics_reads_a_dataset_id_with_its_level(local_dataset):
    import pytrec_eval

    from ragmeter import ranking_metrics
    from ragmeter.io.trec import read_trec_run

    run = read_trec_run(local_dataset / "run.txt")
    qrels = dataset_qrels("irds:ragmeter-test/graded").qrels
    for level in (2, 1):
        oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P"}, relevance_level=level)
        per_query = oracle.evaluate({q: dict(d) for q, d in run.items()})
        expected = {
            m: sum(v[m] for v in per_query.values()) / len(per_query) for m in ("map", "P_5")
        }
        # the documented level (2) unless relevance_threshold is given
        given = {} if level == 2 else {"relevance_threshold": level}
        got = ranking_metrics("irds:ragmeter-test/graded", run, metrics=["map", "P_5"], **given)
        assert got == pytest.approx(expected, rel=1e-12)


def test_a_dataset_that_cannot_be_downloaded_is_a_clean_error(tmp_path):
    # No network: every proxy refuses (requests reads HTTP(S)_PROXY) and ir_datasets' home is
    # empty, so it must download vaswani's judgments. Its RuntimeError('All download sources
    # failed', ...) was a traceback from `ragmeter evaluate irds:vaswani run`.
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 3.0 t\n")
    refused = "http://127.0.0.1:9"
    env = {k: v for k, v in os.environ.items() if k.lower() != "no_proxy"}
    env.update(
        IR_DATASETS_HOME=str(tmp_path / "irds"),
        HTTP_PROXY=refused,
        HTTPS_PROXY=refused,
        http_proxy=refused,
        https_proxy=refused,
    )
    done = subprocess.run(
        [sys.executable, "-m", "ragmeter", "evaluate", "irds:vaswani", str(run)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ragmeter: error: qrels: irds:vaswani: ir_datasets could not download")
    assert "check the network connection" in last
