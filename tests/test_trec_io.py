"""Reading and writing TREC files: comments, white space, errors with line numbers."""

import pytest

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
