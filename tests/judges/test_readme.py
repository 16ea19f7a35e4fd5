"""The offline example of the README's "LLM judges" section runs and prints what it shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_example_runs_offline(tmp_path, monkeypatch):
    section = README.read_text(encoding="utf-8").split("## LLM judges", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    assert printed.getvalue().splitlines() == expected
    assert (tmp_path / "judge-cache.sqlite").exists()
