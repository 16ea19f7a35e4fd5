"""Reading and writing TREC files: comments, white space, errors with line numbers, files that
change while they are read, and what trec_eval would read differently (refused with path:line)."""

import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragmeter


def write(path, text):
    path.write_text(text)
    return path


def test_read_qrels_and_run(tmp_path):
    qrels = write(
        tmp_path / "q.txt", "# judged\n301 0 CR#93E-1860 1\n301 0 d2 0\n\n302\t0\td3\t2\r\n"
    )
    assert ragmeter.read_trec_qrels(qrels) == {"301": {"CR#93E-1860": 1, "d2": 0}, "302": {"d3": 2}}
    assert isinstance(ragmeter.read_trec_qrels(qrels)["302"]["d3"], int)
    run = write(tmp_path / "r.txt", "301 Q0 d1 1 2.5 tag\n301 Q0 d2 2 -1e-3 tag extra junk\n")
    assert ragmeter.read_trec_run(run) == {"301": {"d1": 2.5, "d2": -0.001}}


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("q 0 d\n", r"q.txt:1: expected 4 fields \(query_id iteration doc_id grade\), found 3"),
        ("q 0 d1 1\nq 0 d2 high\n", r"q.txt:2: the grade 'high' is not a number"),
        ("q 0 d1 1\nq 0 d1 0\n", r"q.txt:2: document 'd1' is listed twice for query 'q'"),
    ],
)
def test_qrels_errors_name_the_line(tmp_path, text, pattern):
    path = write(tmp_path / "q.txt", text)
    with pytest.raises(ragmeter.TrecFormatError, match=pattern):
        ragmeter.read_trec_qrels(path)


def test_run_errors_name_the_line(tmp_path):
    run = write(tmp_path / "r.txt", "q Q0 d1 1 0.5 t\nq Q0 d2 2 0.4\n")
    with pytest.raises(ValueError, match=r"r.txt:2: expected 6 fields"):
        ragmeter.read_trec_run(run)
    qrels = write(tmp_path / "q.txt", "q 0 d1 1\n")
    with pytest.raises(ragmeter.TrecFormatError, match=r"r.txt:2"):
        ragmeter.evaluate_trec(qrels, run)


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nope\.txt"):
        ragmeter.read_trec_run(tmp_path / "nope.txt")


def test_write_then_evaluate_round_trip(tmp_path):
    run = {"q1": {"d9": 0.5, "d10": 0.5, "d1": 0.75}, "q2": ["b", "a"]}
    path = tmp_path / "run.txt"
    ragmeter.write_trec_run(run, path, tag="mine")
    lines = path.read_text().splitlines()
    # trec_eval order: score descending, ties by doc id descending ("d9" > "d10").
    assert lines[:3] == ["q1 Q0 d1 1 0.75 mine", "q1 Q0 d9 2 0.5 mine", "q1 Q0 d10 3 0.5 mine"]
    assert lines[3:] == ["q2 Q0 b 1 2.0 mine", "q2 Q0 a 2 1.0 mine"]
    back = ragmeter.read_trec_run(path)
    assert back["q1"] == run["q1"]
    qrels = {"q1": ["d10"], "q2": ["a"]}
    assert ragmeter.mean_reciprocal_rank(qrels, back) == ragmeter.mean_reciprocal_rank(qrels, run)
    with pytest.raises(ValueError, match="without white space"):
        ragmeter.write_trec_run({"q 1": ["a"]}, tmp_path / "bad.txt")
    assert not (tmp_path / "bad.txt").exists()


# -- files that change while they are read --------------------------------------------------

_READER = """
import json, sys, time
import ragmeter

run_path, qrels_path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
outcomes = {"read": 0, "changed": 0, "malformed": 0, "empty": 0, "other": []}
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    try:
        run = ragmeter.read_trec_run(run_path)
        ragmeter.evaluate_trec(qrels_path, run_path, metrics=["mrr"], missing="skip")
    except ragmeter.TrecFormatError as exc:  # a line cut where the file was read
        outcomes["malformed"] += 1
        assert run_path + ":" in str(exc), exc
        continue
    except Exception as exc:
        if "changed while it was read" in str(exc) and run_path in str(exc):
            outcomes["changed"] += 1
        elif "no judged topic" in str(exc) and run_path in str(exc):
            outcomes["empty"] += 1  # cut before the judged topic's lines: nothing to evaluate
        elif len(outcomes["other"]) < 5:
            outcomes["other"].append(repr(exc))
        else:
            outcomes["other"].append("...")
            break
        continue
    # A result is the file as it was at some moment: every record as written.
    for query, docs in run.items():
        for doc, score in docs.items():
            number = int(doc[1:])
            assert query == f"q{number % 97}" and score == number + 0.5, (query, doc, score)
    outcomes["read"] += 1
print(json.dumps(outcomes))
"""


def test_a_file_truncated_and_rewritten_while_it_is_read_never_kills_the_reader(tmp_path):
    # 3.5 MB: large files used to be memory-mapped, and a mapped file that shrinks kills the
    # process with SIGBUS. The reader must get a result or an error, whatever the writer does.
    contents = "".join(f"q{i % 97} Q0 d{i} 1 {i}.5 tag\n" for i in range(120_000)).encode()
    assert len(contents) > 2**21
    run = tmp_path / "run.txt"
    run.write_bytes(contents)
    qrels = write(tmp_path / "qrels.txt", "q1 0 d1 1\n")
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER, str(run), str(qrels), "4"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    random = np.random.default_rng(0)
    while reader.poll() is None:
        with open(run, "r+b") as handle:
            handle.truncate(int(random.integers(0, len(contents))))
        time.sleep(0.0005)
        run.write_bytes(contents)
    out, err = reader.communicate()
    assert reader.returncode == 0, f"the reader died with {reader.returncode}: {err[-2000:]}"
    outcomes = json.loads(out)
    assert outcomes["other"] == [] and outcomes["changed"] > 0, outcomes
    done = outcomes["read"] + outcomes["changed"] + outcomes["malformed"] + outcomes["empty"]
    assert done > 10, outcomes


def test_a_large_run_read_in_blocks_while_it_is_rewritten_is_read_whole_or_refused(tmp_path):
    # 20 MB, grouped by query: evaluate_trec reads a plain run this large in blocks (bounded
    # memory) instead of whole; a file that changes meanwhile must still give the file as it
    # was at some moment, or an error, never a mixture.
    lines = [f"q{q} Q0 d{i} 1 {i}.5 tag\n" for q in range(97) for i in range(q, 960_000, 97)]
    contents = "".join(lines).encode()
    assert len(contents) > 16 << 20  # ragmeter_core::trec::STREAM_PLAIN_BYTES
    run = tmp_path / "run.txt"
    run.write_bytes(contents)
    qrels = write(tmp_path / "qrels.txt", "q1 0 d1 1\n")
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER, str(run), str(qrels), "6"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    random = np.random.default_rng(1)
    while reader.poll() is None:
        with open(run, "r+b") as handle:
            handle.truncate(int(random.integers(0, len(contents))))
        time.sleep(0.002)
        run.write_bytes(contents)
        time.sleep(0.05)
    out, err = reader.communicate()
    assert reader.returncode == 0, f"the reader died with {reader.returncode}: {err[-2000:]}"
    outcomes = json.loads(out)
    assert outcomes["other"] == [] and outcomes["changed"] > 0, outcomes
    assert outcomes["read"] + outcomes["changed"] + outcomes["malformed"] > 3, outcomes


def test_a_large_run_read_in_blocks_gives_what_the_whole_file_gives(tmp_path):
    # Above STREAM_PLAIN_BYTES a grouped plain run is read in blocks; a run whose queries come
    # back is read whole. Both must give pytrec_eval's values (the oracle) for every query.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(3)
    queries = [f"q{q}" for q in range(300)]
    run = {}
    for q in queries:
        docs, scores = rng.permutation(4000)[:2600], rng.random(2600)
        run[q] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
    qrels = {
        q: {f"d{d}": int(rng.integers(0, 3)) for d in rng.permutation(4000)[:40]} for q in queries
    }
    grouped = "".join(
        f"{q} Q0 {d} {r + 1} {s!r} tag\n"
        for q, docs in run.items()
        for r, (d, s) in enumerate(docs.items())
    )
    lines = grouped.splitlines(keepends=True)
    interleaved = "".join(lines[1::2] + lines[0::2])  # every query comes back
    assert len(grouped.encode()) > 16 << 20  # ragmeter_core::trec::STREAM_PLAIN_BYTES
    qrels_path = write(
        tmp_path / "qrels.txt",
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()),
    )
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5"}).evaluate(run)
    for name, text in [("grouped.run", grouped), ("interleaved.run", interleaved)]:
        path = write(tmp_path / name, text)
        got = ragmeter.evaluate_trec(
            qrels_path, path, metrics=["map", "ndcg_cut_10", "P_5"], per_query=True
        )
        for metric in ("map", "ndcg_cut_10", "P_5"):
            want = {q: oracle[q][metric] for q in queries}
            assert dict(got[metric]) == pytest.approx(want, rel=1e-9), (name, metric)


# -- what trec_eval reads differently is refused with path:line ------------------------------


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # A run given as the qrels: trec_eval says "Malformed line"; read leniently, its rank
        # column would be the grade.
        ("q Q0 d1 1 0.5 run\n", r"q.txt:1: more than 4 fields .*Malformed line"),
        ("q 0 d1 1\nq 0 d2 1 extra\n", r"q.txt:2: more than 4 fields"),
        # trec_eval truncates grades with atol: refused rather than read as 2 or kept as 2.5.
        ("q 0 d1 1\nq 0 d2 2.5\n", r"q.txt:2: the grade '2.5' is not an integer.* as 2\)"),
        ("q 0 d1 inf\n", r"q.txt:1: the grade 'inf' is not an integer.* as 0\)"),
        ("q 0 d1 1e400\n", r"q.txt:1: the grade '1e400' is not an integer.* as 1\)"),
        ("q 0 d1 1e3\n", r"q.txt:1: the grade '1e3' is not an integer.* as 1\)"),
        ("q 0 d1 nan\n", r"q.txt:1: the grade 'nan' is not a number"),
        # CR-only line ends (classic Mac OS) would be one long line.
        ("q 0 d1 1\rq 0 d2 0\rq 0 d3 2\r", r"q.txt:1: a carriage return \(CR\) is followed"),
    ],
)
def test_qrels_that_trec_eval_reads_differently_are_refused(tmp_path, text, pattern):
    path = tmp_path / "q.txt"
    path.write_bytes(text.encode())
    with pytest.raises(ragmeter.TrecFormatError, match=pattern):
        ragmeter.read_trec_qrels(path)


def test_integer_valued_grades_are_read_as_integers(tmp_path):
    path = write(tmp_path / "q.txt", "q 0 a 2.0\nq 0 b -1\nq 0 c +3\nq 0 d 2.\r\nq 0 e 0 \n")
    qrels = ragmeter.read_trec_qrels(path)
    assert qrels == {"q": {"a": 2, "b": -1, "c": 3, "d": 2, "e": 0}}
    assert all(type(grade) is int for grade in qrels["q"].values())


def test_run_files_with_cr_only_lines_or_invalid_utf8_ids_are_refused(tmp_path):
    run = tmp_path / "r.txt"
    run.write_bytes(b"q Q0 d1 1 0.5 t\rq Q0 d2 2 0.4 t\r")
    with pytest.raises(ragmeter.TrecFormatError, match=r"r.txt:1: a carriage return"):
        ragmeter.read_trec_run(run)
    run.write_bytes(b"q Q0 d1 1 0.5 t\r\nq\xff Q0 d2 2 0.4 t\r\n")
    with pytest.raises(ragmeter.TrecFormatError, match=r"r.txt:2: the query id 'q\ufffd' is not"):
        ragmeter.read_trec_run(run)
    qrels = write(tmp_path / "q.txt", "q 0 d1 1\n")
    with pytest.raises(ragmeter.TrecFormatError, match=r"r.txt:2: the query id"):
        ragmeter.evaluate_trec(qrels, run)
    # Text after the run tag is ignored, as trec_eval ignores it (CRLF line ends are read).
    run.write_bytes(b"q Q0 d1 1 0.5 t extra \r\nq Q0 d2 2 0.4 t\r\n")
    assert ragmeter.read_trec_run(run) == {"q": {"d1": 0.5, "d2": 0.4}}


def test_what_is_not_a_regular_file_is_refused_naming_it(tmp_path):
    with pytest.raises(ragmeter.InvalidInputError, match=r"/dev/zero: is a device, not a regular"):
        ragmeter.read_trec_run("/dev/zero")
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    # Refused without opening it (opening a FIFO waits for a writer).
    with pytest.raises(ragmeter.InvalidInputError, match=r"run.fifo: is a FIFO"):
        ragmeter.read_trec_run(fifo)
    qrels = write(tmp_path / "q.txt", "q 0 d1 1\n")
    with pytest.raises(ragmeter.InvalidInputError, match=r"is a directory, not a regular file"):
        ragmeter.evaluate_trec(qrels, tmp_path)


# -- write_trec_run: what it writes reads back the same, or it is refused ---------------------

trec_ids = st.text(
    alphabet=st.characters(blacklist_categories=["Cc", "Cs", "Zs", "Zl", "Zp"]), min_size=1
).filter(lambda text: not any(c.isspace() for c in text))
scores = st.floats(allow_nan=False, allow_infinity=False)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    run=st.dictionaries(
        trec_ids.filter(lambda q: not q.startswith("#")),
        st.one_of(
            st.dictionaries(trec_ids, scores, min_size=1, max_size=5),
            st.lists(trec_ids, min_size=1, max_size=5, unique=True),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_written_runs_read_back_the_same(tmp_path, run):
    path = tmp_path / "run.txt"
    ragmeter.write_trec_run(run, path)
    back = ragmeter.read_trec_run(path)
    expected = {
        query: ranking
        if isinstance(ranking, dict)
        else {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}
        for query, ranking in run.items()
    }
    assert back == expected
    assert [list(docs) for docs in back.values()] == [
        ragmeter._inputs.trec_order(docs) for docs in expected.values()
    ]


@pytest.mark.parametrize(
    ("run", "pattern"),
    [
        ({"#q": ["d"]}, r"query '#q': a query id starting with '#' would make its lines comments"),
        ({"q": {"d": math.nan}}, r"query 'q', document 'd': the score nan is not finite"),
        ({"q": {"d": math.inf}}, r"the score inf is not finite"),
        ({"q": {"d": 10**400}}, r"is not finite"),
        ({"q": {"d": True}}, r"a score must be a real number, got True"),
        ({"q": {"d": "0.5"}}, r"a score must be a real number, got '0.5'"),
        ({"q": ["d\x01x"]}, r"the document id 'd\\x01x' holds '\\x01'"),
        ({"q": ["a b"]}, r"the document id 'a b' holds ' '"),
        ({"q\u2028": ["d"]}, r"the query id 'q\\u2028' holds"),
        ({"q": ["d\x85"]}, r"holds '\\x85'"),
        ({"q": [""]}, r"the document id '' is empty"),
        ({"q": [1.5]}, r"a document id must be a str or an int, got float"),
        ({("q",): ["d"]}, r"a query id must be a str or an int, got tuple"),
        ({"q": [True]}, r"a document id must be a str or an int, got bool"),
        ({1: ["d"], "1": ["e"]}, r"1 and '1' are both written '1'"),
        ({"q": ["d", "d"]}, r"document 'd' is listed twice"),
        ({"q": {1: 0.5, "1": 0.4}}, r"document '1' is listed twice"),
        ({"q": []}, r"query 'q': the ranking is empty"),
        ({"q": "abc"}, r"a ranking is a \{doc_id: score\} mapping or a list"),
    ],
)
def test_runs_that_would_not_read_back_the_same_are_refused(tmp_path, run, pattern):
    path = tmp_path / "run.txt"
    with pytest.raises(ragmeter.InvalidInputError, match=pattern):
        ragmeter.write_trec_run(run, path)
    assert not list(tmp_path.iterdir())
    with pytest.raises(ragmeter.InvalidInputError, match=r"tag: the run tag 'my tag' holds"):
        ragmeter.write_trec_run({"q": ["d"]}, path, tag="my tag")


def test_write_trec_run_is_atomic_and_never_follows_a_planted_symlink(tmp_path, monkeypatch):
    path = tmp_path / "run.txt"
    victim = tmp_path / "victim"
    victim.write_text("precious")
    # The old writer's temporary name was predictable: a symlink planted there was followed.
    (tmp_path / f"run.txt.tmp-{os.getpid()}").symlink_to(victim)
    ragmeter.write_trec_run({"q": ["d"]}, path)
    assert victim.read_text() == "precious"
    assert path.read_text() == "q Q0 d 1 1.0 ragmeter\n"
    path.chmod(0o600)
    ragmeter.write_trec_run({"q": ["e"]}, path)
    assert path.stat().st_mode & 0o777 == 0o600

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ragmeter.write_trec_run({"q": ["f"]}, path)
    assert path.read_text() == "q Q0 e 1 1.0 ragmeter\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "run.txt",
        f"run.txt.tmp-{os.getpid()}",
        "victim",
    ]
