"""The README's table of measures is generated from the declarations: this fails when it is
stale (run ``python scripts/measure_table.py --write``)."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "measure_table.py"


def _script():
    spec = importlib.util.spec_from_file_location("measure_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_table_is_generated_from_the_declarations():
    script = _script()
    readme = script.README.read_text()
    assert script.readme_with_table(readme) == readme, (
        "README.md's measure table is stale: run python scripts/measure_table.py --write"
    )


def test_every_family_has_a_row():
    from ragmeter.ranking import FAMILIES

    table = _script().markdown_table()
    for fam in FAMILIES:
        assert f"| {fam.title} |" in table
