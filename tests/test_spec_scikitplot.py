"""Every example of the spec tests/data/spec/scikitplot-corpus-evaluation.rst, run as written.

The only change is the import: `scikitplot.corpus` is `ragmeter`. The blocks run in order in
one namespace, as a reader would run them, and every expression followed by a `# value`
comment (on its last line or the next one) must give that value; `0.666...` stands for any
digits after the shown ones.
"""

import ast
import re
from pathlib import Path

import pytest

SPEC = Path(__file__).resolve().parent / "data" / "spec" / "scikitplot-corpus-evaluation.rst"


def code_blocks(text):
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == ".. code-block:: python":
            i += 1
            body = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith("   ")):
                body.append(lines[i][3:])
                i += 1
            blocks.append("\n".join(body).strip("\n"))
        else:
            i += 1
    return blocks


def matches(value, expected):
    if "..." in expected:
        pattern = re.escape(expected).replace(re.escape("..."), r"\d*")
        return re.fullmatch(pattern, repr(value)) is not None
    return ast.literal_eval(expected) == value


def expected_comment(lines, stmt):
    last = lines[stmt.end_lineno - 1]
    if "# " in last and not last.lstrip().startswith("#"):
        return last.split("# ", 1)[1].strip()
    if stmt.end_lineno < len(lines) and lines[stmt.end_lineno].lstrip().startswith("# "):
        return lines[stmt.end_lineno].lstrip()[2:].strip()
    return None


def is_literal(text):
    try:
        ast.literal_eval(text.replace("...", ""))
    except (ValueError, SyntaxError):
        return False
    return True


def run_block(code, namespace):
    code = code.replace("from scikitplot.corpus import", "from ragmeter import")
    lines = code.splitlines()
    checked = 0
    for stmt in ast.parse(code).body:
        source = ast.get_source_segment(code, stmt)
        if isinstance(stmt, ast.Expr):
            value = eval(compile(ast.Expression(stmt.value), "<spec>", "eval"), namespace)
            comment = expected_comment(lines, stmt)
            if comment and is_literal(comment):
                assert matches(value, comment), (source, value, comment)
                checked += 1
        else:
            exec(compile(ast.Module([stmt], []), "<spec>", "exec"), namespace)
    return checked


def test_spec_is_present():
    assert SPEC.is_file(), f"spec not found at {SPEC}"


def test_every_example_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the Reports example writes baseline.json here
    blocks = code_blocks(SPEC.read_text())
    assert len(blocks) == 7
    namespace = {}
    checked = [run_block(block, namespace) for block in blocks]
    # ranking: 3; retriever: 2 (latency is described, not printed); reports: 0; compare: 1;
    # answers: 3; scorers: 1; GridSearchCV: 1.
    assert checked == [3, 2, 0, 1, 3, 1, 1]
    assert namespace["same"] == namespace["report"]
    assert set(namespace["report"].latency) >= {"mean", "p50", "p95", "max", "total"}
    assert (tmp_path / "baseline.jsonl").is_file()


@pytest.mark.parametrize(
    ("expected", "value", "ok"),
    [("0.666...", 2 / 3, True), ("0.666...", 0.67, False), ("{'a': 0.5}", {"a": 0.5}, True)],
)
def test_the_checker_can_fail(expected, value, ok):
    assert matches(value, expected) is ok
