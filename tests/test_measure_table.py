"""The table of every measure on docs/measures/index.md is generated from the declarations: this
fails when it is stale (run ``python scripts/measure_table.py --write``)."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "measure_table.py"


def _script():
    spec = importlib.util.spec_from_file_location("measure_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_table_is_generated_from_the_declarations():
    script = _script()
    page = script.PAGE.read_text(encoding="utf-8")
    assert script.START in page and script.END in page
    assert script.page_with_table(page) == page, (
        "docs/measures/index.md's measure table is stale: "
        "run python scripts/measure_table.py --write"
    )


def test_every_family_has_a_row_linking_to_its_page():
    from ragmeter.ranking import FAMILIES

    table = _script().markdown_table()
    for fam in FAMILIES:
        assert f"| [{fam.title}]({fam.name}.md) |" in table
