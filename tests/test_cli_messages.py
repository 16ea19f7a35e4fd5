"""Every error message of ``ragmeter evaluate``, ``compare``, ``gate`` and ``fuse`` that names
an option names a flag of that command (issue 50 item 8): the library words its advice for
Python callers (``complete=True``, ``missing='skip'``, ``duplicates="first"``), the command
prints its own flags. The test walks the messages of many bad invocations of each command."""

from __future__ import annotations

import argparse
import importlib
import json
import re
from pathlib import Path

import pytest

from ragmeter.cli import COMMANDS, main
from ragmeter.cli.advice import ADVICE, FLAGS, cli_message

#: A flag named in a message: ``--name`` or ``-x`` not inside a word or a path.
_FLAG = re.compile(r"(?<![\w/.-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")
#: Flags of trec_eval named as trec_eval's (``(trec_eval -c)``), which ragmeter shares.
_TREC_EVAL = re.compile(r"trec_eval (-[a-zA-Z])")


def _flags(command: str) -> set[str]:
    holder = argparse.ArgumentParser(add_help=False)
    sub = holder.add_subparsers()
    importlib.import_module(COMMANDS[command][0]).add_parser(sub)
    return set(sub.choices[command]._option_string_actions)


def _files(tmp: Path) -> dict[str, str]:
    files = {
        "qrels": "q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n",
        # q3 missing (a judged topic the run lacks), d1 twice for q1
        "dup": "q1 Q0 d1 1 2.0 a\nq1 Q0 d1 2 1.0 a\nq2 Q0 d2 1 1.0 a\n",
        "lacks": "q1 Q0 d1 1 2.0 b\nq2 Q0 d2 1 1.0 b\n",
        "full": "q1 Q0 d1 1 2.0 c\nq2 Q0 d9 1 1.0 c\nq3 Q0 d3 1 1.0 c\n",
        "other": "q1 Q0 d1 1 2.0 d\nq4 Q0 d2 1 1.0 d\n",
        "bad": "q1 Q0 d1\n",
        "nan": "q1 Q0 d1 1 nan e\n",
    }
    paths = {}
    for name, text in files.items():
        path = tmp / f"{name}.run"
        path.write_text(text)
        paths[name] = str(path)
    saved = tmp / "saved.json"
    saved.write_text(json.dumps({"ndcg@10": {"q1": 0.5, "q2": 0.25}}))
    paths["saved"] = str(saved)
    paths["absent"] = str(tmp / "absent.run")
    paths["out"] = str(tmp / "out.run")
    return paths


def _invocations(f: dict[str, str]) -> list[list[str]]:
    q, dup, lacks, full, other = f["qrels"], f["dup"], f["lacks"], f["full"], f["other"]
    gate = ["gate", "--qrels", q, "-m", "P_1", "--margin", "0.1"]
    return [
        ["evaluate", q, dup],
        ["evaluate", "-m", "ndcg_cut.10", q, lacks],
        ["evaluate", "-q", "--format", "json", q, lacks],
        ["evaluate", "--missing", "zero", "--duplicates", "first", q, f["bad"]],
        ["evaluate", "-c", q, f["nan"]],
        ["evaluate", "-m", "nosuch", q, full],
        ["evaluate", "-Z", q, "--format", "json", q, full],
        ["evaluate", q, f["absent"]],
        ["evaluate", "-c", "--missing", "skip", q, full],
        ["compare", q, dup, full],
        ["compare", q, lacks, full],
        ["compare", "-m", "map", q, full],
        ["compare", "--baseline", "nosuch", q, full, lacks],
        ["compare", "--duplicates", "first", q, dup, lacks],
        ["compare", q, full, f["absent"]],
        [*gate, "--baseline", dup, "--candidate", full],
        [*gate, "--baseline", lacks, "--candidate", full],
        [*gate, "--baseline", full, "--candidate", other],
        ["gate", "--qrels", q, "-m", "P_1", "--baseline", full, "--candidate", lacks],
        ["gate", "-m", "P_1", "--margin", "0.1", "--baseline", full, "--candidate", full],
        [
            "gate",
            "-m",
            "map",
            "--margin",
            "0.1",
            "--baseline",
            f["saved"],
            "--candidate",
            f["saved"],
        ],
        [*gate, "--margin-for", "P_1", "--baseline", full, "--candidate", full],
        ["fuse", lacks, other, "-o", f["out"]],
        ["fuse", dup, lacks, "-o", f["out"]],
        ["fuse", "--method", "wsum", full, lacks, "-o", f["out"]],
        ["fuse", "--method", "wsum", full, full, "--weights", "1", "-o", f["out"]],
        ["fuse", "--method", "probfuse", full, full, "-o", f["out"]],
        ["fuse", full, f["absent"], "-o", f["out"]],
    ]


def test_every_message_names_the_flags_of_its_command(tmp_path, capsys) -> None:
    walked: dict[str, int] = {}
    problems = []
    for argv in _invocations(_files(tmp_path)):
        command = argv[0]
        status = main(argv)
        message = capsys.readouterr().err
        assert status == 2, (argv, status, message)
        assert "ragmeter: error: " in message and "Traceback" not in message, (argv, message)
        walked[command] = walked.get(command, 0) + 1
        flags = _flags(command)
        named = set(_FLAG.findall(message)) - set(_TREC_EVAL.findall(message))
        if named - flags:
            problems.append(f"{' '.join(argv[:3])}: names {sorted(named - flags)}: {message}")
        if ADVICE.search(message):
            problems.append(f"{' '.join(argv[:3])}: advises a Python keyword: {message}")
    assert problems == []
    assert set(walked) == {"evaluate", "compare", "gate", "fuse"}


def test_the_advice_of_the_library_reaches_the_command_as_its_flags(tmp_path, capsys) -> None:
    f = _files(tmp_path)
    expected = {
        ("evaluate", f["qrels"], f["dup"]): "--duplicates first",
        ("evaluate", f["qrels"], f["lacks"]): "Pass -c to score them",
        ("compare", f["qrels"], f["dup"], f["full"]): "--duplicates first",
        ("fuse", f["lacks"], f["other"], "-o", f["out"]): "--missing empty",
    }
    for argv, words in expected.items():
        assert main(list(argv)) == 2
        assert words in capsys.readouterr().err


def test_every_flag_of_the_advice_table_exists() -> None:
    for command, table in FLAGS.items():
        flags = _flags(command)
        for flag in table.values():
            assert flag.split()[0] in flags, (command, flag)


@pytest.mark.parametrize(
    ("message", "command", "expected"),
    [
        ("Pass complete=True to score", "gate", "Pass -c to score"),
        ('pass missing="zero" (trec_eval -c)', "evaluate", "pass -c (trec_eval -c)"),
        ("or missing='intersect' to fuse", "fuse", "or --missing intersect to fuse"),
        # No flag for it in that command: left as written (and the walk above would fail).
        ("pass missing='empty'", "evaluate", "pass missing='empty'"),
        ("P(judged_only=True)@5 is a measure", "report", "P(judged_only=True)@5 is a measure"),
        ("or training judgments qrels= to learn", "fuse", "or training judgments --qrels to learn"),
        ("P(rel=2)@5", "fuse", "P(rel=2)@5"),
    ],
)
def test_cli_message(message: str, command: str, expected: str) -> None:
    assert cli_message(message, command) == expected
