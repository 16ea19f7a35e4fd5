"""`ragmeter fuse` writes a TREC run trec_eval reads: the fused file evaluated by the trec_eval
binary (built in the conftest fixture) equals the evaluation of ranx's fused run."""

from __future__ import annotations

import random
import subprocess

import pytest

ranx = pytest.importorskip("ranx")

from ragmeter.cli import main  # noqa: E402
from ragmeter.io import write_trec_run  # noqa: E402


def _trec_eval(binary, qrels, run):
    done = subprocess.run(
        [
            str(binary),
            "-q",
            "-m",
            "map",
            "-m",
            "ndcg_cut.10",
            "-m",
            "recip_rank",
            str(qrels),
            str(run),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.mark.parametrize(
    ("method", "norm", "extra", "params"),
    [
        # No --method, no --norm: the command's defaults are Python fuse's, rrf (k 60) after
        # min-max; ranx's rrf with its default k.
        (None, None, [], None),
        ("rrf", None, ["--k", "60"], {"k": 60}),
        ("wsum", "zmuv", ["--weights", "0.7", "0.3"], {"weights": [0.7, 0.3]}),
        ("mnz", "min-max", [], {}),
    ],
)
def test_fused_file_evaluates_as_ranx_fused_run(
    tmp_path, trec_eval, method, norm, extra, params, capsys
):
    rng = random.Random(5)
    docs = [f"D{i}" for i in range(40)]
    runs = [
        {f"q{q}": {d: rng.uniform(0, 10) for d in rng.sample(docs, 25)} for q in range(10)}
        for _ in range(2)
    ]
    qrels = {f"q{q}": {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, 12)} for q in range(10)}
    paths = []
    for i, r in enumerate(runs):
        paths.append(tmp_path / f"run{i}.txt")
        write_trec_run(r, paths[-1])
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items())
    )
    out = tmp_path / "fused.run"
    chosen = [] if method is None else ["--method", method, "--norm", norm or "none"]
    argv = ["fuse", *map(str, paths), *chosen, *extra, "-o", str(out)]
    assert main(argv) == 0
    assert "fused 2 runs over 10 queries" in capsys.readouterr().out
    ranx_runs = [ranx.Run.from_dict(r) for r in runs]
    if method is None:
        theirs = ranx.fuse(ranx_runs, norm="min-max", method="rrf")
    else:
        theirs = ranx.fuse(ranx_runs, norm=norm, method=method, params=params)
    theirs_path = tmp_path / "ranx.run"
    write_trec_run({q: dict(theirs[q]) for q in theirs.get_query_ids()}, theirs_path)
    assert _trec_eval(trec_eval, qrels_path, out) == _trec_eval(trec_eval, qrels_path, theirs_path)


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--method", "probfuse", "--n-segments", "-1"], "n_segments"),
        (["--method", "probfuse", "--n-segments", "0"], "n_segments"),
        (["--method", "probfuse", "--n-segments", "9" * 25], "n_segments"),
        (["--method", "slidefuse", "--w", "-1"], "w"),
        (["--method", "slidefuse", "--w", "9" * 25], "w"),
    ],
)
def test_integer_parameters_out_of_range_exit_2_naming_them(tmp_path, capsys, extra, named):
    # --n-segments -1 was an OverflowError traceback ("can't convert negative int to
    # unsigned"), slidefuse's --w -1 "failed to extract field FusionParams.w".
    paths = []
    for i, ranked in enumerate((["d1", "d2"], ["d2", "d1"])):
        paths.append(tmp_path / f"run{i}.txt")
        write_trec_run({"1": {d: 2.0 - r for r, d in enumerate(ranked)}}, paths[-1])
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    argv = ["fuse", *extra, "--qrels", str(qrels), "-o", str(tmp_path / "out.run")]
    assert main([*argv, *map(str, paths)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ragmeter: error: {named}: must be a whole number from ")
    assert "Traceback" not in err and "FusionParams" not in err
    assert not (tmp_path / "out.run").exists()
