"""JSON qrels and runs (``ragmeter evaluate qrels.json run.json``): what Python's ``json`` would
read differently from what the file says is refused, naming the file (and query and document)."""

from __future__ import annotations

import json
import os

import pytest

from ragmeter import InvalidInputError
from ragmeter.cli import main
from ragmeter.io import evaluate
from ragmeter.io._json import read_json


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _evaluate(qrels, run):
    return evaluate(qrels, run, metrics=["mrr"]), None


@pytest.mark.parametrize(
    ("qrels", "run", "pattern"),
    [
        # Python reads true/false as 1/0.
        (
            '{"q": {"d": true}}',
            '{"q": {"d": 0.5}}',
            r"qrels.json: query 'q': the grade of "
            r"document 'd' is true, not a number; write 1 or 0",
        ),
        (
            '{"q": {"d": 1}}',
            '{"q": {"d": false}}',
            r"run.json: query 'q': the score of document "
            r"'d' is false",
        ),
        ('{"q": [true]}', '{"q": {"d": 0.5}}', r"qrels.json: query 'q': a document id is true"),
        # A query id "\n1\tall" would print a line that looks like trec_eval's mean row.
        (
            '{"q": {"d": 1}}',
            '{"\\n1\\tall": {"d": 0.5}}',
            r"run.json: the query id '\\n1\\tall' "
            r"holds a control character",
        ),
        (
            '{"q": {"d\\u0000": 1}}',
            '{"q": {"d": 0.5}}',
            r"qrels.json: query 'q': the document "
            r"id 'd\\x00' holds a control",
        ),
        ('{"q": ["d\\u0085"]}', '{"q": {"d": 0.5}}', r"qrels.json: .*holds a control"),
        # Python's int limit would say "use sys.set_int_max_str_digits()", without the file.
        (
            '{"q": {"d": 1}}',
            '{"q": {"d": ' + "9" * 5000 + "}}",
            r"run.json: holds a number of "
            r"more than 4300 digits",
        ),
        ("[" * 100_000 + "]" * 100_000, '{"q": {"d": 0.5}}', r"qrels.json: nested too deeply"),
        ('{"q": {"d": 1}}', '{"q": {"d": 0.5}', r"run.json: not valid JSON"),
    ],
)
def test_json_inputs_read_differently_by_python_are_refused(tmp_path, qrels, run, pattern):
    qrels_path = _write(tmp_path, "qrels.json", qrels)
    run_path = _write(tmp_path, "run.json", run)
    with pytest.raises(InvalidInputError, match=pattern):
        _evaluate(qrels_path, run_path)


def test_the_command_names_the_file(tmp_path, capsys):
    qrels = _write(tmp_path, "qrels.json", '{"q": {"d": 1}}')
    run = _write(tmp_path, "run.json", json.dumps({"q\n1\tall": {"d": 0.5}}))
    assert main(["evaluate", qrels, run, "--format", "trec"]) == 2
    err = capsys.readouterr().err
    assert "run.json" in err and "control character" in err, err


def test_non_regular_files_and_non_utf8_text_are_refused(tmp_path):
    with pytest.raises(InvalidInputError, match=r"/dev/zero: is a device, not a regular file"):
        read_json("/dev/zero", "run")
    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInputError, match=r"run.json: is a FIFO"):
        read_json(fifo, "run")
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"q": {"caf\xe9": 1}}'.encode("latin-1"))
    with pytest.raises(InvalidInputError, match=r"latin.json:1: not UTF-8 text"):
        read_json(latin, "qrels")


def test_valid_files_are_read_as_before(tmp_path):
    qrels = _write(tmp_path, "qrels.json", '{"q": {"d": 1, "e": 0}, "r": ["x"]}')
    run = _write(tmp_path, "run.json", '{"q": {"e": 0.9, "d": 0.5}, "r": {"x": 1e400}}')
    means, _ = _evaluate(qrels, run)
    assert float(means["mrr"]) == pytest.approx((0.5 + 1.0) / 2)
