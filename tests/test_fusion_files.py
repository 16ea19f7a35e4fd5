"""TREC run files fused by the core (issue 52): ``ragmeter fuse``, ``fuse(paths)`` and
``FusedRun.write_trec`` write the bytes the dict path writes, for every method.

The oracle is the path every fusion of files took before: each file read into a
``{query_id: {doc_id: score}}`` dict (``read_run``), fused from the dicts, and written by the
Python writer (``write_trec_run`` of ``to_dict()``), whose output trec_eval reads (that path
is held to ranx's fusion by ``test_fusion_ranx.py`` and to trec_eval by
``test_fusion_cli.py``). Random runs: missing queries, queries not grouped, comments, a
byte order mark, a gzipped run, ties, zeros of both signs, scores from 1e-300 to 1e300, ids
that are not ASCII; several files are read in many small blocks and batches by the core's own
tests (``fusion::files``)."""

from __future__ import annotations

import gzip
import math
import random
from pathlib import Path
from typing import Any

import pytest

from ragmeter import InvalidInputError, TrecFormatError
from ragmeter.cli import main
from ragmeter.fusion import METHODS, fuse, train_fusion
from ragmeter.io import read_run, write_trec_run

TRAINED = {m for m, d in METHODS.items() if d.trained_parameter}
PARAMS: dict[str, dict[str, Any]] = {
    "gmnz": {"gamma": 0.7},
    "rrf": {"k": 10},
    "logn_isr": {"sigma": 0.05},
    "rbc": {"phi": 0.9},
    "slidefuse": {"w": 2},
}
DOCS = [f"d{i}" for i in range(30)] + ["é1", "文書", "d-𝔘", "Z", "a" * 40]
SCORES = [0.0, -0.0, 1.0, 1.0, 0.5, -2.25, 1e-300, 1e300, 123456789.125, 1e-5, 7.0]


def _score(rng: random.Random) -> float:
    if rng.random() < 0.4:
        return rng.choice(SCORES)
    return rng.uniform(-10, 10) * 10 ** rng.randint(-6, 6)


def _runs(seed: int, n_runs: int) -> list[dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    queries = [f"q{i}" for i in range(12)] + ["Q10", "é"]
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in queries:
            # The training queries (q0-q3) are in every run.
            if rng.random() < 0.15 and q not in ("q0", "q1", "q2", "q3"):
                continue
            run[q] = {d: _score(rng) for d in rng.sample(DOCS, rng.randint(1, 20))}
        runs.append(run)
    return runs


def _write(run: dict[str, dict[str, float]], path: Path, rng: random.Random) -> None:
    """A TREC file of ``run``: lines shuffled across queries or grouped, comments, a byte
    order mark, gzipped, at random; scores written as ``repr`` (read back exactly)."""
    lines = [
        f"{q} Q0 {d} {i + 1} {s!r} tag\n"
        for q, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    ]
    if rng.random() < 0.5:
        rng.shuffle(lines)
    if rng.random() < 0.3:
        lines.insert(rng.randint(0, len(lines)), "# a comment\n")
    text = "".join(lines)
    if rng.random() < 0.2:
        text = "\ufeff" + text
    data = text.encode()
    if rng.random() < 0.3:
        data = gzip.compress(data)
    path.write_bytes(data)


def _params(method: str) -> dict[str, Any]:
    params = dict(PARAMS.get(method, {}))
    if "weights" in METHODS[method].parameters:
        params["weights"] = [0.2, 0.5, 0.3][:NRUNS]
    return params


NRUNS = 3


def _qrels(path: Path, rng: random.Random) -> Path:
    lines = [
        f"q{i} 0 {d} {rng.choice([0, 1, 2])}\n" for i in range(4) for d in rng.sample(DOCS, 10)
    ]
    path.write_text("".join(lines))
    return path


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("method", sorted(METHODS))
def test_files_fuse_to_the_bytes_of_the_dict_path(tmp_path: Path, method: str, seed: int) -> None:
    rng = random.Random(seed * 1000 + len(method))
    runs = _runs(seed, NRUNS)
    paths = [tmp_path / f"run{i}" for i in range(NRUNS)]
    for run, path in zip(runs, paths, strict=True):
        _write(run, path, rng)
    norm = rng.choice([None, "min-max", "sum", "zmuv", "rank", "borda", "max"])
    missing = rng.choice(["empty", "intersect"])
    params = _params(method)
    qrels = _qrels(tmp_path / "qrels", rng) if method in TRAINED else None
    options: dict[str, Any] = {"norm": norm, "missing": missing, "params": params, "name": "fz"}
    if method == "probfuse":
        options["n_segments"] = 3
    read = [read_run(str(p)) for p in paths]
    oracle = fuse(read, method, qrels=None if qrels is None else str(qrels), **options)
    expected_file = tmp_path / "expected"
    write_trec_run(oracle.to_dict(), expected_file, tag="fz")
    expected = expected_file.read_bytes()

    fused = fuse(
        [str(p) for p in paths], method, qrels=None if qrels is None else str(qrels), **options
    )
    assert list(fused.to_dict().items()) == list(oracle.to_dict().items())
    assert fused.params == oracle.params
    written = tmp_path / "written"
    fused.write_trec(written)
    assert written.read_bytes() == expected
    oracle.write_trec(written)
    assert written.read_bytes() == expected

    command = [
        "fuse",
        *map(str, paths),
        "--method",
        method,
        "--norm",
        norm or "none",
        "--missing",
        missing,
        "--tag",
        "fz",
        "-o",
        str(tmp_path / "cli"),
    ]
    for name, value in params.items():
        command += [f"--{name}", *(map(str, value) if isinstance(value, list) else [str(value)])]
    if qrels is not None:
        command += ["--qrels", str(qrels)]
    if method == "probfuse":
        command += ["--n-segments", "3"]
    assert main(command) == 0
    assert (tmp_path / "cli").read_bytes() == expected


@pytest.mark.parametrize("method", sorted(TRAINED))
def test_training_on_files_learns_what_training_on_dicts_learns(
    tmp_path: Path, method: str
) -> None:
    rng = random.Random(7)
    runs = _runs(11, 2)
    paths = [tmp_path / "a", tmp_path / "b"]
    for run, path in zip(runs, paths, strict=True):
        _write(run, path, rng)
    qrels = {f"q{i}": {d: rng.choice([0, 1, 2]) for d in rng.sample(DOCS, 10)} for i in (0, 1, 2)}
    n_segments = 4 if method == "probfuse" else None
    from_files = train_fusion(qrels, [str(p) for p in paths], method, n_segments=n_segments)
    from_dicts = train_fusion(qrels, runs, method, n_segments=n_segments)
    assert from_files == from_dicts


def _two(tmp_path: Path, a: str, b: str = "q1 Q0 x 1 1 t\n") -> list[str]:
    (tmp_path / "a").write_bytes(a.encode() if isinstance(a, str) else a)
    (tmp_path / "b").write_text(b)
    return [str(tmp_path / "a"), str(tmp_path / "b")]


def test_a_document_listed_twice_is_named_at_its_line(tmp_path: Path) -> None:
    paths = _two(tmp_path, "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\nq1 Q0 d1 3 0.2 t\n")
    with pytest.raises(TrecFormatError, match=r"a:3: document 'd1' is listed twice for query 'q1'"):
        fuse(paths, "rrf", None)
    # The dict path names the same line.
    with pytest.raises(TrecFormatError, match=r"a:3: document 'd1' is listed twice"):
        read_run(paths[0])


def test_a_malformed_line_is_named_at_its_line(tmp_path: Path) -> None:
    paths = _two(tmp_path, "q1 Q0 d1 1 1 t\nq1 Q0 d2 2\n")
    with pytest.raises(TrecFormatError, match=r"a:2:"):
        fuse(paths, "rrf", None)


def test_an_id_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    # Past the head the format is recognised from.
    head = b"".join(b"q1 Q0 d%d 1 1 t\n" % i for i in range(5000))
    (tmp_path / "a").write_bytes(head + b"q1 Q0 d\xff 1 1 t\n")
    (tmp_path / "b").write_text("q1 Q0 x 1 1 t\n")
    with pytest.raises(InvalidInputError, match="not valid UTF-8"):
        fuse([str(tmp_path / "a"), str(tmp_path / "b")], "rrf", None)


def test_queries_some_runs_lack_are_refused_as_the_dict_path_refuses_them(tmp_path: Path) -> None:
    paths = _two(tmp_path, "q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n")
    with pytest.raises(InvalidInputError) as from_files:
        fuse(paths, "rrf", None)
    with pytest.raises(InvalidInputError) as from_dicts:
        fuse([read_run(p) for p in paths], "rrf", None, names=paths)
    assert str(from_files.value) == str(from_dicts.value)


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d\u00a0x 1 1 t\n",  # a no-break space in a document id
        "q1 Q0 d\u007fx 1 1 t\n",  # DEL
        "q\u2003 Q0 d1 1 1 t\n",  # an em space in a query id
    ],
)
def test_what_a_trec_file_cannot_hold_is_refused_by_both_writers_alike(
    tmp_path: Path, text: str
) -> None:
    (tmp_path / "a").write_text(text)
    query = text.split(" ")[0]
    (tmp_path / "b").write_text(f"{query} Q0 x 1 1 t\n")
    paths = [str(tmp_path / "a"), str(tmp_path / "b")]
    fused = fuse(paths, "rrf", None)
    with pytest.raises(InvalidInputError) as from_core:
        fused.write_trec(tmp_path / "out")
    with pytest.raises(InvalidInputError) as from_python:
        write_trec_run(fused.to_dict(), tmp_path / "out", tag="rrf")
    assert str(from_core.value) == str(from_python.value)
    assert main(["fuse", *paths, "-o", str(tmp_path / "cli")]) == 2
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "cli").exists()


def test_a_score_that_overflows_is_refused_by_both_writers_alike(tmp_path: Path) -> None:
    paths = _two(tmp_path, "q1 Q0 x 1 1e308 t\n", "q1 Q0 x 1 1e308 t\n")
    fused = fuse(paths, "sum", None)
    assert math.isinf(fused["q1"]["x"])
    with pytest.raises(InvalidInputError) as from_core:
        fused.write_trec(tmp_path / "out")
    with pytest.raises(InvalidInputError) as from_python:
        write_trec_run(fused.to_dict(), tmp_path / "out", tag="sum")
    assert str(from_core.value) == str(from_python.value)


def test_scores_are_written_as_python_s_repr(tmp_path: Path) -> None:
    rng = random.Random(3)
    values = [rng.uniform(-1, 1) * 10 ** rng.randint(-320, 300) for _ in range(3000)]
    values += [float(2**e) for e in range(-60, 70)] + [5e-324, 1e16, 1e15, 1e-4, 1e-5, 0.1]
    values = [v for v in values if math.isfinite(v)]
    # Each score alone in its query, fused with CombSUM (the score itself).
    run = {f"q{i}": {"d": v} for i, v in enumerate(values)}
    other = {f"q{i}": {} for i in range(len(values))}
    fused = fuse([run, other], "sum", None)
    fused.write_trec(tmp_path / "out")
    written = {
        line.split()[0]: line.split()[4] for line in (tmp_path / "out").read_text().splitlines()
    }
    assert {q: repr(v) for q, v in fused.to_dict().items() for v in v.values()} == written
    assert all(float(written[f"q{i}"]) == v for i, v in enumerate(values))
