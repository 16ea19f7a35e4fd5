"""The README's answer-metric examples run as written and print what their comments say."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def section_code(title: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def is_expression(code: str) -> bool:
    try:
        ast.parse(code, mode="eval")
    except SyntaxError:
        return False
    return True


def test_answer_metrics_examples_print_their_comments():
    blocks = section_code("Answer metrics")
    assert len(blocks) == 2
    checked = 0
    for block in blocks:
        namespace: dict[str, object] = {"np": np}
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if not line.strip() or line.startswith("#"):
                continue
            code, _, comment = line.partition("  # ")
            expected = comment.strip()
            if not expected and i + 1 < len(lines) and lines[i + 1].startswith("# "):
                expected = lines[i + 1][2:].strip()
            if expected and is_expression(code):
                assert repr(eval(code, namespace)) == expected, line
                checked += 1
            else:
                exec(code, namespace)
    assert checked == 8
