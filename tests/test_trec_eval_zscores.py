"""``ragmeter evaluate -Z FILE`` against the trec_eval binary built from its sources: random
runs and z-score files whose references cover some topics and measures (trec_eval's
-1000000 for the others), with standard deviations of 0 (the mean itself scores 0), with and
without -q, -c and -n."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from test_trec_eval_dropin import random_files

from ragmeter.cli import main

MEASURES = ["num_ret", "num_rel_ret", "map", "gm_map", "P_5", "P_10", "ndcg", "recip_rank"]


def zscore_file(path: Path, qrels: Path, seed: int) -> Path:
    rng = random.Random(seed)
    topics = sorted({line.split()[0] for line in qrels.read_text().splitlines()})
    lines = []
    for topic in topics:
        for measure in MEASURES:
            if rng.random() < 0.15:
                continue  # no reference: trec_eval's MISSING_ZSCORE_VALUE
            stddev = 0.0 if rng.random() < 0.15 else round(rng.uniform(0.01, 3), 4)
            mean = 0.0 if stddev == 0 and rng.random() < 0.5 else round(rng.uniform(0, 20), 4)
            lines.append(f"{topic} {measure} {mean:.4f} {stddev:.4f}")
    rng.shuffle(lines)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("seed", range(6))
def test_zscores_as_trec_eval(trec_eval, tmp_path, capsys, seed):
    for flags in (["-q"], [], ["-q", "-c"], ["-q", "-n"]):
        qrels, run = random_files(
            tmp_path, seed * 10 + len(flags), graded=False, complete="-c" in flags
        )
        zscores = zscore_file(tmp_path / f"z{seed}", qrels, seed)
        measures = ["-m", "official", "-m", "num_ret", "-m", "ndcg"]
        args = [*flags, *measures, "-Z", str(zscores), str(qrels), str(run)]
        done = subprocess.run([str(trec_eval), *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        code = main(["evaluate", *args])
        got = capsys.readouterr()
        assert code == 0, got.err
        assert got.out == done.stdout, args


def test_zscore_file_errors_name_the_line(tmp_path, capsys):
    qrels, run = random_files(tmp_path, 1, graded=False, complete=False)
    bad = tmp_path / "bad"
    bad.write_text("301 map 0.1 0.2\n301 P_5 x 0.1\n")
    assert main(["evaluate", "-Z", str(bad), str(qrels), str(run)]) == 2
    assert f"{bad}:2" in capsys.readouterr().err
    bad.write_text("301 map 0.1\n")
    assert main(["evaluate", "-Z", str(bad), str(qrels), str(run)]) == 2
    assert "expected 'topic measure mean stddev'" in capsys.readouterr().err
    bad.write_text("301 map 0.1 0.2\n")
    assert main(["evaluate", "-Z", str(bad), "--format", "json", str(qrels), str(run)]) == 2
    assert "trec_eval's format only" in capsys.readouterr().err
