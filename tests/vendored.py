"""Where trec_eval's vendored sources and test files are (third_party/trec_eval, carried in the
repository so that a fresh clone needs nothing beside it)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["REPOSITORY", "TREC_EVAL_SOURCES", "TREC_EVAL_TESTS"]

REPOSITORY = Path(__file__).resolve().parents[1]
TREC_EVAL_SOURCES = REPOSITORY / "third_party" / "trec_eval" / "src"
#: trec_eval's own test folder: inputs and expected outputs (test/ORACLE.md lists the commands).
TREC_EVAL_TESTS = REPOSITORY / "third_party" / "trec_eval" / "test"
