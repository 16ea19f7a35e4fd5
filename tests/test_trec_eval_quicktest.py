"""trec_eval's own test suite (the ``quicktest`` target of its Makefile) through ``ragmeter
evaluate``: each of its 15 commands, with ``trec_eval`` replaced by ``ragmeter evaluate``, must
print the expected output trec_eval ships, byte for byte.

The commands are read from the Makefile of the vendored sources, third_party/trec_eval/src (so
a command is never retyped here); the expected outputs and inputs are trec_eval's own
(third_party/trec_eval/test).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from vendored import TREC_EVAL_SOURCES, TREC_EVAL_TESTS

from ragmeter.cli import main

SOURCES = TREC_EVAL_SOURCES
ORACLE = TREC_EVAL_TESTS


def quicktest_commands() -> list[tuple[list[str], str]]:
    """``(arguments, expected output file)`` of each ``./trec_eval ... | diff - test/OUT`` line
    of the Makefile's quicktest target."""
    lines = (SOURCES / "Makefile").read_text().splitlines()
    start = lines.index("quicktest: trec_eval")
    commands = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        if not line.strip().startswith("./trec_eval"):
            continue
        command, _, diff = line.partition("|")
        args = shlex.split(command)[1:]
        commands.append((args, diff.split()[-1].removeprefix("test/")))
    return commands


def test_the_makefile_has_fifteen_commands():
    assert len(quicktest_commands()) == 15


def test_data(name: str) -> Path:
    if (ORACLE / name).is_file():
        return ORACLE / name
    raise AssertionError(f"trec_eval test file {name} is not in {ORACLE}")


test_data.__test__ = False  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("args", "expected"),
    quicktest_commands(),
    ids=[" ".join(a) for a, _ in quicktest_commands()],
)
def test_quicktest_command(capsys, args, expected):
    argv = [str(test_data(a.removeprefix("test/"))) if a.startswith("test/") else a for a in args]
    code = main(["evaluate", *argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.out == test_data(expected).read_text(), out.err
