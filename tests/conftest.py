"""Shared fixtures: trec_eval 10 built from its sources, the oracle of the measure tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from shared_data import SHARED

TREC_EVAL_SOURCES = SHARED / "trec_eval_src"


@pytest.fixture(scope="session")
def trec_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The trec_eval binary, built once per session in a temporary copy of its sources (the
    shared sources are read-only). A build failure fails the tests that need it: without the
    oracle they would prove nothing."""
    assert (TREC_EVAL_SOURCES / "Makefile").is_file(), (
        f"trec_eval's sources are not at {TREC_EVAL_SOURCES}"
    )
    build = tmp_path_factory.mktemp("trec_eval") / "src"
    shutil.copytree(TREC_EVAL_SOURCES, build)
    done = subprocess.run(["make", "-s"], cwd=build, capture_output=True, text=True)
    binary = build / "trec_eval"
    assert done.returncode == 0 and binary.is_file(), f"building trec_eval failed:\n{done.stderr}"
    return binary
