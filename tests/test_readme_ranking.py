"""The README's runnable examples print what the README says they print."""

import ast
import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def python_block_after(heading: str) -> str:
    section = README[README.index(heading) :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, f"no python block after {heading!r}"
    return match.group(1)


def expected_repr(comment: str) -> str | None:
    """The literal an example comment promises (`0.75`, `{'mrr': 0.75}`), if it is one."""
    text = comment.split(":")[0].strip() if not comment.strip().startswith("{") else comment.strip()
    text = text.split("  ")[0]
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return text


def check_block(code: str) -> int:
    """Run the block; an expression followed by `# literal` (same or next line) must equal it."""
    namespace: dict = {}
    checked = 0
    lines = code.splitlines()
    for i, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        statement, _, comment = line.partition("  # ")
        tree = ast.parse(statement.strip())
        if not (tree.body and isinstance(tree.body[0], ast.Expr)):
            exec(statement, namespace)
            continue
        value = eval(statement.strip(), namespace)
        if not comment and i + 1 < len(lines) and lines[i + 1].startswith("# "):
            comment = lines[i + 1][2:]
        expected = expected_repr(comment) if comment else None
        if expected is not None:
            assert ast.literal_eval(expected) == value, (statement, value, expected)
            checked += 1
    return checked


def test_ranking_metrics_example():
    assert check_block(python_block_after("## Ranking metrics")) == 5
