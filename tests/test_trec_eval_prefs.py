"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``; ragmeter.ranking.prefs)
against the trec_eval binary built from its sources, on random judgments: judgment groups of
one sub-group (equivalence classes) and of several (partial orders closed under
transitivity), documents retrieved, unretrieved and unjudged, score ties, ``-M`` and ``-c``.
trec_eval's own files are the quicktest (tests/test_trec_eval_quicktest.py)."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmeter.cli import main

DOCS = [f"d{i}" for i in range(14)] + ["D1", "a-b", "z"]
FLAGS = [[], ["-M", "4"], ["-c"], ["-M", "2", "-c"]]


def prefs_files(directory: Path, rng: random.Random, *, qrels: bool, complete: bool):
    """A judgments file (prefs or qrels_prefs layout) and a run."""
    topics = rng.sample(["1", "2", "10", "q3", "301"], rng.randint(1, 4))
    lines, run = [], []
    for topic in topics:
        for jg in rng.sample(["a", "b", "0", "jg1"], rng.randint(1, 3)):
            # One hidden level per document of the group: every sub-group agrees with it, so
            # the group is consistent as trec_eval requires.
            level = {d: rng.choice([0, 0, 1, 2, 3, 4.5]) for d in rng.sample(DOCS, 8)}
            n_sub = 1 if qrels else rng.choice([1, 1, 2, 3])
            for jsg in range(n_sub):
                for doc in rng.sample(sorted(level), rng.randint(2, len(level))):
                    if qrels:
                        lines.append(f"{topic} {jg} {doc} {level[doc]:g}")
                    else:
                        lines.append(f"{topic} {jg} s{jsg} {doc} {level[doc]}")
        if complete and rng.random() < 0.3:
            continue
        tied = rng.random() < 0.5
        for rank, doc in enumerate(rng.sample(DOCS, rng.randint(1, 12)), start=1):
            score = rng.choice([1, 2, 3]) if tied else round(rng.uniform(-1, 5), 3)
            run.append(f"{topic} Q0 {doc} {rank} {score} tagP")
    if not run:
        run.append(f"{topics[0]} Q0 d0 1 1 tagP")
    run.append("unjudged Q0 d1 1 1 tagLast")
    rng.shuffle(lines)
    judgments, run_file = directory / "judgments", directory / "run"
    judgments.write_text("\n".join(lines) + "\n")
    run_file.write_text("\n".join(run) + "\n")
    return judgments, run_file


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1), qrels=st.booleans(), flags=st.sampled_from(FLAGS))
def test_prefs_measures_as_trec_eval(trec_eval, tmp_path, capsys, seed, qrels, flags):
    rng = random.Random(seed)
    judgments, run = prefs_files(tmp_path, rng, qrels=qrels, complete="-c" in flags)
    rel_format = "qrels_prefs" if qrels else "prefs"
    args = [*flags, "-q", "-m", "all_prefs", "-R", rel_format, str(judgments), str(run)]
    done = subprocess.run([str(trec_eval), *args], capture_output=True, text=True)
    code = main(["evaluate", *args])
    got = capsys.readouterr()
    assert done.returncode == 0, done.stderr
    assert code == 0, got.err
    assert got.out == done.stdout, args


def test_groups_and_refusals(trec_eval, tmp_path, capsys):
    rng = random.Random(5)
    judgments, run = prefs_files(tmp_path, rng, qrels=False, complete=False)
    for measures in (["-m", "prefs"], ["-m", "prefs_simp", "-m", "prefs_pair_imp"]):
        args = ["-q", *measures, "-R", "prefs", str(judgments), str(run)]
        done = subprocess.run([str(trec_eval), *args], capture_output=True, text=True)
        assert main(["evaluate", *args]) == 0
        assert capsys.readouterr().out == done.stdout, measures
    # Without -m, trec_eval fails (its default measures read qrels); ragmeter evaluates
    # trec_eval's "prefs" group.
    default = ["-q", "-R", "prefs", str(judgments), str(run)]
    assert main(["evaluate", *default]) == 0
    without_m = capsys.readouterr().out
    assert main(["evaluate", "-m", "prefs", *default]) == 0
    assert capsys.readouterr().out == without_m
    assert main(["evaluate", "-m", "map", "-R", "prefs", str(judgments), str(run)]) == 2
    assert "not a preference measure" in capsys.readouterr().err
    assert main(["evaluate", "-Z", str(run), "-R", "prefs", str(judgments), str(run)]) == 2
    assert "-Z" in capsys.readouterr().err
    judgments.write_text("1 a s0 d1\n")
    assert main(["evaluate", "-R", "prefs", str(judgments), str(run)]) == 2
    assert f"{judgments}:1" in capsys.readouterr().err


@pytest.mark.parametrize("qrels", [False, True], ids=["prefs", "qrels_prefs"])
@pytest.mark.parametrize("flags", [["-J"], ["-J", "-l", "2", "-N", "50", "-M", "5"]])
def test_judged_only_level_and_collection_size_are_read_as_trec_eval(
    trec_eval, tmp_path, capsys, qrels, flags
):
    # `-J` with -R prefs/qrels_prefs exited 2; trec_eval accepts it, and -l and -N, and its
    # preference measures read none of them.
    judgments, run = prefs_files(tmp_path, random.Random(11), qrels=qrels, complete=False)
    rel_format = "qrels_prefs" if qrels else "prefs"
    args = [*flags, "-q", "-m", "all_prefs", "-R", rel_format, str(judgments), str(run)]
    done = subprocess.run([str(trec_eval), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert main(["evaluate", *args]) == 0
    assert capsys.readouterr().out == done.stdout


def test_flags_refused_with_preferences_name_those_that_work(tmp_path, capsys):
    judgments, run = prefs_files(tmp_path, random.Random(12), qrels=False, complete=False)
    assert main(["evaluate", "-Z", str(run), "-R", "prefs", str(judgments), str(run)]) == 2
    err = capsys.readouterr().err
    assert "-Z not supported" in err
    assert "-q, -n, -c, -M, -m, -l, -N and -J are" in err


def qrels_jg_files(directory: Path, rng: random.Random, *, complete: bool):
    topics = rng.sample(["1", "2", "10", "q3", "301"], rng.randint(1, 4))
    lines, run = [], []
    for topic in topics:
        for group in rng.sample(["0", "1", "2", "u9"], rng.randint(1, 3)):
            for doc in rng.sample(DOCS, rng.randint(1, 10)):
                lines.append(f"{topic} {group} {doc} {rng.choice([-1, 0, 0, 1, 2, 3])}")
        if complete and rng.random() < 0.3:
            continue
        tied = rng.random() < 0.5
        for rank, doc in enumerate(rng.sample(DOCS, rng.randint(1, 14)), start=1):
            score = rng.choice([1, 2, 3]) if tied else round(rng.uniform(-1, 5), 3)
            run.append(f"{topic} Q0 {doc} {rank} {score} tagG")
    if not run:
        run.append(f"{topics[0]} Q0 d0 1 1 tagG")
    rng.shuffle(lines)
    judgments, run_file = directory / "qrels_jg", directory / "run_jg"
    judgments.write_text("\n".join(lines) + "\n")
    run_file.write_text("\n".join(run) + "\n")
    return judgments, run_file


JG_FLAGS = [[], ["-M", "3"], ["-c"], ["-l", "2"], ["-J"], ["-J", "-M", "4", "-l", "2"]]
JG_MEASURES = [
    ["-m", "qrels_jg"],
    ["-m", "P_avgjg.1,3,7", "-m", "Rprec_mult_avgjg.0.5,1,1.5", "-m", "map_avgjg"],
]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    flags=st.sampled_from(JG_FLAGS),
    measures=st.sampled_from(JG_MEASURES),
)
def test_judgment_group_measures_as_trec_eval(trec_eval, tmp_path, capsys, seed, flags, measures):
    rng = random.Random(seed)
    judgments, run = qrels_jg_files(tmp_path, rng, complete="-c" in flags)
    args = [*flags, "-q", *measures, "-R", "qrels_jg", str(judgments), str(run)]
    done = subprocess.run([str(trec_eval), *args], capture_output=True, text=True)
    code = main(["evaluate", *args])
    got = capsys.readouterr()
    assert done.returncode == 0, done.stderr
    assert code == 0, got.err
    assert got.out == done.stdout, args


@pytest.mark.parametrize("rel_format", ["prefs", "qrels_prefs", "qrels_jg"])
def test_ids_holding_bytes_python_calls_spaces_are_read_as_trec_eval(
    trec_eval, tmp_path, capsys, rel_format
):
    # Python's str.split() splits at 0x1C to 0x1F (and U+0085, U+00A0...), which C's isspace,
    # trec_eval's separator, does not accept: "d\x1c1" is one document id there.
    rng = random.Random(13)
    docs = ["d1", "d\x1c1", "d\x1f", "\x1e2", "d2", "d\x0e3"]
    lines, run = [], []
    for topic in ("1", "t\x1d2"):
        for doc in docs:
            grade = rng.choice([0, 1, 2])
            if rel_format == "prefs":
                lines.append(f"{topic} g s0 {doc} {grade}")
            else:
                lines.append(f"{topic} 0 {doc} {grade}")
        for rank, doc in enumerate(rng.sample(docs, 5), start=1):
            run.append(f"{topic}\x0bQ0 {doc}\x0c{rank} {rng.uniform(0, 5):.3f} tag")
    judgments, run_file = tmp_path / "judgments", tmp_path / "run"
    judgments.write_text("\n".join(lines) + "\n")
    run_file.write_text("\n".join(run) + "\n")
    measures = ["-m", "qrels_jg"] if rel_format == "qrels_jg" else ["-m", "all_prefs"]
    args = ["-q", *measures, "-R", rel_format, str(judgments), str(run_file)]
    done = subprocess.run([str(trec_eval), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert main(["evaluate", *args]) == 0
    assert capsys.readouterr().out == done.stdout
