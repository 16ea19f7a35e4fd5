"""One file door (issue 44 item 3): every file ragmeter reads comes through ``ragmeter.io``.

* per-item tables (long and wide, CSV, TSV, Parquet, JSON lines): repeats only where a
  ``repeat`` column numbers them, clusters, systems, failures; a second row of one item
  without a repeat column is refused naming the item and file:line (issue 44: "repeated query
  rows in a CSV are averaged as judge repeats");
* PerQueryResults round-trips through every export and is read back equal (values, repeats,
  clusters, failures), and through every saved form with its manifest;
* one saved-result dispatcher whose kinds are the classes' own ``KIND``;
* an AST scan of the package: no second suffix table, no CSV/JSON/Parquet/YAML/TOML reader
  outside ``io/``, no second saved-result ``kind`` dispatcher.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

import ragmeter
from ragmeter import InvalidInputError, Manifest, PerQueryResults
from ragmeter.io import read_per_query, read_saved
from ragmeter.io._saved import SAVED_KINDS, saved_class

PACKAGE = Path(ragmeter.__file__).parent


def _values() -> PerQueryResults:
    return PerQueryResults(
        {
            "faithfulness": {"s1": [1.0, 0.0, 1.0], "s2": [math.nan, 1.0], "s3": 0.25},
            "relevance": {"s1": 0.5, "s2": math.nan, "s3": 1.0},
        },
        name="rag",
        clusters={"s1": "doc-a", "s2": "doc-a", "s3": "doc-b"},
        failed={"faithfulness": ["s2"]},
    )


def _same_values(a: PerQueryResults, b: PerQueryResults) -> None:
    """Equal as per-item values (a table records no settings: the manifests differ)."""
    assert a.name == b.name and a.metric_names == b.metric_names
    assert [str(q) for q in a.query_ids] == [str(q) for q in b.query_ids]
    np.testing.assert_array_equal(a.array(), b.array())
    assert {m: {str(q): r for q, r in by.items()} for m, by in a.repeats.items()} == {
        m: {str(q): r for q, r in by.items()} for m, by in b.repeats.items()
    } or _nan_repeats_equal(a, b)
    assert a.clusters == b.clusters and a.failed == b.failed


def _nan_repeats_equal(a: PerQueryResults, b: PerQueryResults) -> bool:
    def key(values: PerQueryResults) -> object:
        return {
            m: {str(q): tuple("nan" if math.isnan(v) else v for v in r) for q, r in by.items()}
            for m, by in values.repeats.items()
        }

    return key(a) == key(b)


# -- per-item tables ----------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["long", "wide"])
@pytest.mark.parametrize("suffix", ["csv", "tsv", "parquet", "jsonl"])
def test_exports_read_back_as_the_same_values(tmp_path, form, suffix):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    values = _values()
    frame = values.to_pandas(form)
    path = tmp_path / f"values.{suffix}"
    if suffix == "parquet":
        frame.to_parquet(path)
    elif suffix == "jsonl":
        rows = frame.replace({np.nan: None}).to_dict("records")
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    else:
        frame.to_csv(path, index=False, sep="," if suffix == "csv" else "\t")
    back = read_per_query(path)
    if form == "wide":
        # The wide form holds each item's value (its repeats' mean), not the repeats.
        expected = PerQueryResults(
            {m: values.array(m) for m in values.metric_names},
            values.query_ids,
            name="rag",
            clusters=values.clusters,
        )
        _same_values(back, expected)
    else:
        _same_values(back, values)
    assert back.manifest.producer == "table" and "settings" in back.manifest.unknown
    assert isinstance(pd, object)


def test_repeated_rows_without_a_repeat_column_are_refused_naming_the_item_and_line(tmp_path):
    path = tmp_path / "judged.csv"
    path.write_text("query_id,metric,value\ns1,faith,1\ns2,faith,1\ns1,faith,0\n")
    with pytest.raises(InvalidInputError) as caught:
        read_per_query(path)
    message = str(caught.value)
    assert f"{path}:4: a second value of 'faith' for 's1' (the first at {path}:2)" in message
    assert "repeat column" in message
    wide = tmp_path / "wide.csv"
    wide.write_text("query_id,faith\ns1,1\ns1,0\n")
    with pytest.raises(InvalidInputError, match=r"wide.csv:3: a second value of 'faith' for 's1'"):
        read_per_query(wide)


def test_a_repeat_column_makes_rows_repeats_whose_mean_is_the_value(tmp_path):
    path = tmp_path / "judged.csv"
    path.write_text(
        "query_id,metric,repeat,value\ns1,faith,0,1\ns1,faith,1,0\ns1,faith,2,\ns2,faith,,0.5\n"
    )
    values = read_per_query(path)
    assert values["faith"] == {"s1": 0.5, "s2": 0.5}
    assert values.repeat_counts("faith") == {"s1": (3, 2)}
    path.write_text("query_id,metric,repeat,value\ns1,faith,0,1\ns1,faith,0,0\n")
    with pytest.raises(
        InvalidInputError, match=r"judged.csv:3: repeat 0 of 'faith' for 's1' again"
    ):
        read_per_query(path)
    path.write_text("query_id,metric,repeat,value\ns1,faith,0,1\ns1,faith,,0\n")
    with pytest.raises(InvalidInputError, match="with and without a repeat number"):
        read_per_query(path)


def test_clusters_systems_and_bad_cells_are_checked(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("query_id,cluster,m\ns1,a,1\ns2,b,0\n")
    assert read_per_query(path).clusters == {"s1": "a", "s2": "b"}
    path.write_text("query_id,metric,value,cluster\ns1,m,1,a\ns1,n,1,b\n")
    with pytest.raises(InvalidInputError, match=r"t.csv:3: 's1' is in cluster 'b' here and 'a'"):
        read_per_query(path)
    path.write_text("system,query_id,m\nx,s1,1\ny,s1,0\n")
    with pytest.raises(InvalidInputError, match=r"2 systems \('x', 'y'\); name one"):
        read_per_query(path)
    assert read_per_query(path, system="y")["m"] == {"s1": 0.0}
    assert read_per_query(path, system="y").name == "y"
    path.write_text("query_id,m\ns1,high\n")
    with pytest.raises(InvalidInputError, match=r"t.csv:2: m holds 'high', not a number"):
        read_per_query(path)


# -- saved results -------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["json", "jsonl", "yaml", "toml"])
def test_values_with_a_manifest_round_trip_through_the_door(tmp_path, suffix):
    values = _values().with_manifest(
        Manifest("ragmeter.judges", "0.1.0", {}, {"judge_value": "mean of 3 repeats"})
    )
    path = values.write(tmp_path / f"v.{suffix}")
    back = read_per_query(path)
    assert back == values and back.manifest.verified is True
    saved = read_saved(path)
    assert saved.kind == "ragmeter.per_query" and saved.verified


def test_every_saved_kind_is_its_classes_own_kind():
    for kind in SAVED_KINDS:
        assert kind == saved_class(kind).KIND


def test_a_legacy_gate_baseline_reads_unverified_and_a_tampered_one_is_refused(tmp_path):
    legacy = {
        "kind": "ragmeter.gate-baseline",
        "schema_version": 1,
        "name": "base",
        "manifest": {
            "ragmeter_version": "0.1.0",
            "metrics": {"m": None},
            "settings": {},
            "judges": None,
        },
        "id_types": {"1": "int", "s": "str"},
        "values": {"m": {"1": [1.0, 0.0], "s": 0.5}},
        "failed": {},
    }
    path = tmp_path / "base.json"
    path.write_text(json.dumps(legacy))
    values = read_per_query(path)
    assert values["m"] == {1: 0.5, "s": 0.5} and values.repeat_counts("m") == {1: (2, 2)}
    assert values.manifest.verified is False
    path.write_text(json.dumps({**legacy, "id_types": ["1"]}))  # issue 44: a traceback before
    with pytest.raises(InvalidInputError, match=r"base.json: id_types: expected"):
        read_per_query(path)


def test_judge_rows_written_by_ragmeter_read_through_the_door(tmp_path):
    from ragmeter.judges import RuleJudge, Sample, evaluate

    samples = [
        Sample("Who wrote Hamlet?", "Shakespeare wrote Hamlet.", ["Hamlet is by Shakespeare."])
    ]
    results = evaluate(samples, ["groundedness"], judge=RuleJudge(), progress=False)
    path = tmp_path / "rows.jsonl"
    results.to_jsonl(path)
    values = read_per_query(path)
    assert values == results.per_query_results().renamed(None).with_manifest(values.manifest)
    assert values.manifest.producer == "ragmeter.judges" and "judge" in values.manifest.unknown


# -- the AST scan: one door, one format table, one dispatcher ----------------------------------

#: Modules that parse text that is not a file a user gives: the judges' answers, the cache's
#: rows, prompt templates, a schema shipped with the package.
PARSES_STRINGS = {
    "judges/parsing.py",
    "judges/engine/cache.py",
    "judges/prompts.py",
    "judges/offline_rules.py",
    "judges/clients/http.py",
    "judges/clients/batches.py",
    "judges/testing/batches.py",
    "judges/testing/faulty.py",
    "judges/testing/server.py",
    "schemas/__init__.py",
}
READER_CALLS = {
    ("csv", "reader"),
    ("csv", "DictReader"),
    ("json", "load"),
    ("json", "loads"),
    ("tomllib", "load"),
    ("tomllib", "loads"),
    ("yaml", "safe_load"),
    ("yaml", "load"),
    ("parquet", "read_table"),
    ("pq", "read_table"),
    ("pd", "read_csv"),
    ("pd", "read_parquet"),
    ("pd", "read_json"),
}
SUFFIXES = {
    *(".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".parquet", ".pq", ".yaml", ".yml"),
    *(".toml", ".arrow", ".feather", ".ipc", ".arrows", ".txt", ".trec", ".qrels", ".run"),
}
#: Optional modules that read a file format (reports.py imports PyYAML to write YAML).
READER_MODULES = ("pyarrow.parquet", "pyarrow.csv", "yaml")


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def _in_io(relative: str) -> bool:
    return relative.startswith("io/")


def _suffix_constants(node: ast.AST) -> list[str]:
    return [
        c.value
        for c in ast.walk(node)
        if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value in SUFFIXES
    ]


def _suffix_table(relative: str, node: ast.AST) -> str | None:
    """A literal container (or a comparison) holding two or more file suffixes."""
    if not isinstance(node, ast.Dict | ast.Set | ast.List | ast.Tuple | ast.Compare):
        return None
    suffixes = sorted(set(_suffix_constants(node)))
    if len(suffixes) >= 2 and relative != "io/_formats.py":
        return f"a suffix table {suffixes}"
    return None


def _reader(relative: str, node: ast.AST) -> str | None:
    """A call of a file format's reader (or the import of one) outside io/."""
    if _in_io(relative) or not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if (func.value.id, func.attr) in READER_CALLS and relative not in PARSES_STRINGS:
            return f"{func.value.id}.{func.attr}()"
        return None
    first = node.args[0] if node.args else None
    if (
        isinstance(func, ast.Name)
        and func.id == "import_optional"
        and isinstance(first, ast.Constant)
        and first.value in READER_MODULES
        and relative != "reports.py"
    ):
        return f"imports {first.value}"
    return None


def _dispatcher(relative: str, node: ast.AST) -> str | None:
    """A mapping keyed by the result classes' KIND, or by two or more "ragmeter.<kind>"."""
    if relative in ("io/_saved.py", "schemas/__init__.py"):
        return None
    if (
        isinstance(node, ast.DictComp)
        and isinstance(node.key, ast.Attribute)
        and node.key.attr == "KIND"
    ):
        return "a dispatcher keyed by .KIND"
    if isinstance(node, ast.Dict):
        kinds = [
            k.value
            for k in node.keys
            if isinstance(k, ast.Constant)
            and isinstance(k.value, str)
            and k.value.startswith("ragmeter.")
        ]
        if len(kinds) >= 2:
            return f"a table of kinds {kinds}"
    return None


def scan(modules: list[tuple[str, ast.Module]]) -> list[str]:
    found = []
    for relative, tree in modules:
        for node in ast.walk(tree):
            for check in (_suffix_table, _reader, _dispatcher):
                problem = check(relative, node)
                if problem:
                    found.append(f"{relative}:{getattr(node, 'lineno', 0)}: {problem}")
    return found


def test_no_second_suffix_table_reader_or_kind_dispatcher_outside_the_file_door():
    assert scan(_modules()) == []


@pytest.mark.parametrize(
    "source",
    [
        'SUFFIXES = {".csv": "csv", ".jsonl": "jsonl"}',
        'def f(path):\n    return path.suffix in (".parquet", ".pq")',
        "import csv\ndef f(text):\n    return list(csv.reader(text))",
        "import json\ndef f(text):\n    return json.loads(text)",
        "TYPES = {cls.KIND: cls for cls in (A, B)}",
        'TYPES = {"ragmeter.comparison": A, "ragmeter.judges": B}',
        'parquet = import_optional("pyarrow.parquet", extra="arrow", purpose="x")',
    ],
)
def test_the_scan_finds_each_kind_of_second_door(source):
    assert scan([("gate/inputs.py", ast.parse(source))]) != []


def test_no_consumer_looks_for_the_judges_class_in_sys_modules():
    # issue 44: two adapters found JudgeResults through sys.modules; the judges adapt their own
    # results (JudgeResults.per_query_results) and every consumer reads PerQueryResults.
    for relative in ("per_query.py", "gate/inputs.py", "html_report/_sources.py", "manifest.py"):
        tree = ast.parse((PACKAGE / relative).read_text(encoding="utf-8"))
        attributes = {
            (n.value.id, n.attr)
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
        }
        assert ("sys", "modules") not in attributes, relative


@pytest.mark.parametrize("exporter", ["polars", "arrow"])
def test_polars_and_arrow_exports_read_back_as_the_same_values(tmp_path, exporter):
    pytest.importorskip("pyarrow")
    values = _values()
    if exporter == "polars":
        pytest.importorskip("polars")
        path = tmp_path / "long.parquet"
        values.to_polars("long").write_parquet(path)
    else:
        import pyarrow.parquet as pq

        path = tmp_path / "long.parquet"
        pq.write_table(values.to_arrow("long"), path)
    _same_values(read_per_query(path), values)
