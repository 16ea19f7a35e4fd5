"""Shared fixtures: trec_eval 10 built from its vendored sources, the oracle of the measure
tests; and the guard that the tests read nothing beside the repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from vendored import REPOSITORY, TREC_EVAL_SOURCES

# A fresh clone has nothing beside it: a test that reads a sibling of the repository (say
# ../shared) passes here and fails there. Every file and folder the test process opens or
# lists is checked; one beside the repository fails the session (pytest_sessionfinish).
_INSIDE = str(REPOSITORY) + os.sep
_BESIDE = str(REPOSITORY.parent) + os.sep
_READ_BESIDE: set[str] = set()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event not in ("open", "os.listdir", "os.scandir") or not args:
        return
    path = args[0]
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        return
    path = os.path.abspath(path)
    if path.startswith(_BESIDE) and not (path + os.sep).startswith(_INSIDE):
        _READ_BESIDE.add(path)


sys.addaudithook(_audit)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _READ_BESIDE:
        shown = "\n  ".join(sorted(_READ_BESIDE)[:20])
        sys.stderr.write(
            f"\nThe tests read {len(_READ_BESIDE)} path(s) beside the repository, which a fresh "
            f"clone does not have (carry them in the repository):\n  {shown}\n"
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def trec_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The trec_eval binary, built once per session in a temporary copy of its vendored
    sources (third_party/trec_eval/src stays clean). A build failure fails the tests that need
    it: without the oracle they would prove nothing."""
    assert (TREC_EVAL_SOURCES / "Makefile").is_file(), (
        f"trec_eval's sources are not at {TREC_EVAL_SOURCES}"
    )
    build = tmp_path_factory.mktemp("trec_eval") / "src"
    shutil.copytree(TREC_EVAL_SOURCES, build)
    done = subprocess.run(["make", "-s"], cwd=build, capture_output=True, text=True)
    binary = build / "trec_eval"
    assert done.returncode == 0 and binary.is_file(), f"building trec_eval failed:\n{done.stderr}"
    return binary
