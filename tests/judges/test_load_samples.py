"""load_samples: every format and naming convention, and hostile files refused by line."""

from __future__ import annotations

import csv
import json
import sys

import pytest

from ragmeter import (
    InputTypeError,
    InvalidInputError,
    MissingDependencyError,
    RagmeterError,
)
from ragmeter.judges import RuleJudge, Sample, evaluate, load_samples

EXPECTED = [
    Sample(
        "Where is Paris?",
        "Paris is in France.",
        ("Paris is the capital of France.", "France is in Europe."),
        "Paris is in France.",
        id="0",
    ),
    Sample("Who wrote Hamlet?", "Shakespeare.", (), "William Shakespeare.", id="1"),
]

# The columns of each convention, for (question, answer, contexts, reference).
CONVENTIONS = {
    "ragmeter": ("question", "answer", "contexts", "reference"),
    "ragas": ("user_input", "response", "retrieved_contexts", "reference"),
    "ragas 0.1": ("question", "answer", "contexts", "ground_truth"),
    "deepeval": ("input", "actual_output", "retrieval_context", "expected_output"),
    "deepeval context": ("input", "actual_output", "context", "expected_output"),
    "embedchain": ("question", "answer", "contexts", "ground_truth"),
}


def rows(convention="ragmeter"):
    names = CONVENTIONS[convention]
    return [
        dict(zip(names, (s.question, s.answer, list(s.contexts or ()), s.reference), strict=True))
        for s in EXPECTED
    ]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_csv(path, records, delimiter=","):
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(records[0]), delimiter=delimiter)
        writer.writeheader()
        for record in records:
            writer.writerow(
                {k: json.dumps(v) if isinstance(v, list) else v for k, v in record.items()}
            )
    return path


def refused(source, *fragments, error=InvalidInputError, **options):
    with pytest.raises(error) as raised:
        load_samples(source, **options)
    assert isinstance(raised.value, RagmeterError)
    assert isinstance(raised.value, ValueError | TypeError)
    message = str(raised.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_each_naming_convention_gives_the_same_samples(tmp_path, convention):
    path = write_jsonl(tmp_path / "samples.jsonl", rows(convention))
    assert load_samples(path) == EXPECTED
    named = convention.replace(" context", "")
    assert load_samples(path, convention=named) == EXPECTED


def test_each_format_gives_the_same_samples(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pd = pytest.importorskip("pandas")
    records = rows("ragas")
    write_jsonl(tmp_path / "s.jsonl", records)
    (tmp_path / "s.json").write_text(json.dumps(records), encoding="utf-8")
    columns = {k: [r[k] for r in records] for k in records[0]}
    (tmp_path / "columns.json").write_text(json.dumps(columns), encoding="utf-8")
    write_csv(tmp_path / "s.csv", records)
    write_csv(tmp_path / "s.tsv", records, delimiter="\t")
    table = pa.Table.from_pylist(records)
    pq.write_table(table, tmp_path / "s.parquet")
    sources = [
        tmp_path / "s.jsonl",
        str(tmp_path / "s.json"),
        tmp_path / "columns.json",
        tmp_path / "s.csv",
        tmp_path / "s.tsv",
        tmp_path / "s.parquet",
        table,
        pd.DataFrame(records),
        pd.read_parquet(tmp_path / "s.parquet"),  # contexts as numpy arrays
        records,
    ]
    for source in sources:
        assert load_samples(source) == EXPECTED, type(source)
    # A suffix that does not say the format, and format= saying it.
    (tmp_path / "s.txt").write_text((tmp_path / "s.jsonl").read_text(), encoding="utf-8")
    assert load_samples(tmp_path / "s.txt", format="jsonl") == EXPECTED


def test_loaded_samples_are_what_evaluate_takes(tmp_path):
    path = write_jsonl(tmp_path / "samples.jsonl", rows("deepeval"))
    results = evaluate(load_samples(path), ["groundedness"], judge=RuleJudge(), progress=False)
    assert [r.sample_id for r in results.rows] == ["0", "1"]


def test_ids_and_metadata_go_with_any_convention(tmp_path):
    records = [{**r, "id": f"q{i}", "metadata": {"split": "dev"}} for i, r in enumerate(rows())]
    records[0]["metadata"] = {"split": "test"}
    samples = load_samples(write_jsonl(tmp_path / "s.jsonl", records))
    assert [s.id for s in samples] == ["q0", "q1"]
    assert samples[0].metadata == {"split": "test"}
    write_csv(tmp_path / "s.csv", [{**r, "metadata": json.dumps(r["metadata"])} for r in records])
    assert load_samples(tmp_path / "s.csv")[1].metadata == {"split": "dev"}


def test_a_bad_json_line_is_refused_with_its_line_number(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = [json.dumps(r) for r in rows()]
    path.write_text(f"{lines[0]}\n\n{{'question': 'single quotes'}}\n{lines[1]}\n")
    refused(path, f"{path}:3:", "not valid JSON")
    path.write_text(f"{lines[0]}\n[1, 2]\n")
    refused(path, f"{path}:2:", "one JSON object", "list")
    path.write_text('{"question": "a", "question": "b"}\n')
    refused(path, f"{path}:1:", "'question' twice")


def test_mixed_conventions_are_refused(tmp_path):
    ragas, old = rows("ragas"), rows("ragas 0.1")
    path = write_jsonl(tmp_path / "s.jsonl", [ragas[0], old[1]])
    message = refused(path, f"{path}:2:", "one naming convention", "'question'", "ragas")
    assert "rename it 'user_input'" in message
    # Within one row: user_input with answer.
    path = write_jsonl(tmp_path / "one.jsonl", [{"user_input": "Q?", "answer": "A."}])
    refused(path, f"{path}:1:", "'answer'", "'user_input'", "rename it 'response'")
    # A DataFrame's columns alike; a required convention is held to.
    pd = pytest.importorskip("pandas")
    refused(pd.DataFrame([{"input": "Q?", "response": "A."}]), "DataFrame row 0", "'response'")
    refused(
        write_jsonl(tmp_path / "r.jsonl", rows("ragas")),
        "convention='embedchain'",
        "'user_input'",
        convention="embedchain",
    )


def test_a_missing_question_and_an_unknown_column_are_refused(tmp_path):
    records = rows()
    del records[1]["question"]
    path = write_jsonl(tmp_path / "s.jsonl", records)
    refused(path, f"{path}:2", "no 'question'", "'user_input'")
    records = rows()
    records[1]["passages"] = records[1].pop("contexts")
    path = write_jsonl(tmp_path / "u.jsonl", records)
    refused(path, f"{path}:2", "'passages'", "did you mean 'contexts'", "Known fields")
    write_csv(tmp_path / "u.csv", [{**r, "score": "1"} for r in rows()])
    refused(tmp_path / "u.csv", f"{tmp_path / 'u.csv'}:2", "column 'score'", "aliases")


def test_contexts_that_are_not_a_list_are_refused(tmp_path):
    records = rows()
    records[1]["contexts"] = "Hamlet is a play. It is by Shakespeare."
    path = write_jsonl(tmp_path / "s.jsonl", records)
    refused(path, f"{path}:2:", "'contexts' must be a list of strings", "JSON list")
    csv_path = tmp_path / "s.csv"
    csv_path.write_text(
        "question,contexts\nWhere is Paris?,Paris is in France.\n", encoding="utf-8"
    )
    refused(csv_path, f"{csv_path}:2:", "must hold a JSON list", "json.dumps", "not JSON")
    csv_path.write_text('question,contexts\nWhere is Paris?,"""one passage"""\n')
    refused(csv_path, f"{csv_path}:2:", "JSON str, not a list")
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([{"question": "Q?", "contexts": '["a", "b"]'}])  # read_csv's text
    refused(frame, "DataFrame row 0", "map(json.loads)")


def test_csv_lines_are_counted_across_quoted_line_breaks(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text(
        'question,answer\n"Where is\nParis?",France.\nWho?,Me.,extra\n', encoding="utf-8"
    )
    refused(path, f"{path}:4:", "3 cells for 2 columns")
    path.write_text("question,question\nA?,B?\n")
    refused(path, f"{path}:1:", "repeats ['question']")
    path.write_text("question,answer\nA?,\n")
    assert load_samples(path) == [Sample("A?", id="0")]  # an empty cell is not given


def test_other_hostile_inputs(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    refused(empty, "holds no samples")
    refused(tmp_path / "samples.xlsx", "'.xlsx'", "format=")
    refused(tmp_path / "missing.jsonl", "path_or_table", error=FileNotFoundError)
    refused(42, "path_or_table", "int", error=InputTypeError)
    refused(["question"], "path_or_table[0]", "dict", error=InputTypeError)
    refused(rows(), "format='json' applies to a path", format="json")
    refused(rows(), "convention must be", "'ragas'", convention="langchain")
    twice = [{**r, "id": "same"} for r in rows()]
    path = write_jsonl(tmp_path / "ids.jsonl", twice)
    refused(path, f"{path}:2 repeats the id 'same' of {path}:1")
    both = [{"input": "Q?", "retrieval_context": ["a"], "context": ["b"]}]
    refused(both, "'contexts' twice", "'retrieval_context'", "'context'")
    path = write_jsonl(tmp_path / "type.jsonl", [{"question": 7}])
    refused(path, f"{path}:1:", "Sample.question must be a str")


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    (tmp_path / "s.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # as if not installed
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragmeter\[arrow\]'") as e:
        load_samples(tmp_path / "s.parquet")
    assert isinstance(e.value, ImportError) and "Parquet" in str(e.value)


def test_a_file_that_is_not_parquet_is_refused_naming_it(tmp_path):
    pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "s.parquet"
    path.write_bytes(b"not parquet at all")
    refused(path, str(path), "cannot be read as Parquet")


def test_columns_that_are_no_sample_field_are_kept_under_metadata_on_request(tmp_path):
    # issue 50: an export's retrieved_ids was refused with "did you mean 'contexts'?", which
    # would have judged document ids as passages.
    records = [
        {**r, "retrieved_ids": ["d3", "d7"], "latency_ms": 12.5, "metadata": {"split": "dev"}}
        for r in rows()
    ]
    path = write_jsonl(tmp_path / "export.jsonl", records)
    with pytest.raises(InvalidInputError) as refusal:
        load_samples(path)
    message = str(refusal.value)
    assert f"{path}:1" in message and "column 'retrieved_ids'" in message
    assert "did you mean" not in message and "extra_columns='metadata'" in message
    samples = load_samples(path, extra_columns="metadata")
    assert [s.metadata for s in samples] == [
        {"split": "dev", "retrieved_ids": ["d3", "d7"], "latency_ms": 12.5}
    ] * 2
    assert [s.contexts for s in samples] == [s.contexts for s in EXPECTED]
    # CSV: an empty cell of such a column is not given; a column that is also a metadata key
    # is refused rather than overwritten.
    write_csv(
        tmp_path / "e.csv",
        [{**r, "run": "bm25" if i == 0 else ""} for i, r in enumerate(rows())],
    )
    loaded = load_samples(tmp_path / "e.csv", extra_columns="metadata")
    assert [s.metadata for s in loaded] == [{"run": "bm25"}, {}]
    clash = [{**rows()[0], "split": "test", "metadata": {"split": "dev"}}]
    with pytest.raises(InvalidInputError, match="'split' is also a key of the row's metadata"):
        load_samples(clash, extra_columns="metadata")
    with pytest.raises(InvalidInputError, match="extra_columns must be"):
        load_samples(records, extra_columns="ignore")  # type: ignore[arg-type]
