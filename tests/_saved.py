"""Saved files as a hand would edit them: without their count and checksum (the fields
``ragmeter.reports.with_integrity`` adds), so that the field-by-field checks of a file written
before saved results had a checksum are what refuses an edit. With the checksum, any edit is
refused by it first (tests/test_saved_integrity.py)."""

from __future__ import annotations

import json
import re
from typing import Any

from ragmeter.reports import INTEGRITY_FIELDS, ROW_INTEGRITY_FIELDS


def unstamped(data: Any) -> Any:
    """``data`` (a parsed saved file: a dict, or JSONL rows) without its integrity fields."""
    if isinstance(data, list):
        return [{k: v for k, v in row.items() if k not in ROW_INTEGRITY_FIELDS} for row in data]
    return {k: v for k, v in data.items() if k not in INTEGRITY_FIELDS}


def unstamped_text(text: str) -> str:
    """The text of a saved JSON, JSONL, YAML or TOML file without its integrity fields (in the
    whole-report formats, the top-level lines that hold them)."""
    if text.lstrip().startswith("{") and "\n{" in text.strip():  # JSON lines
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in unstamped(rows))
    return "".join(line for line in text.splitlines(keepends=True) if not _TOP_LEVEL.match(line))


#: A top-level integrity line: pretty JSON (two spaces, quoted), YAML and TOML (no indent).
_TOP_LEVEL = re.compile(r'^(?:  "(?:n_values|sha256)":|(?:n_values|sha256)\s*[:=])')
