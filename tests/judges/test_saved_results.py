"""JudgeResults saved and read back (write/read, to_dict/from_dict): every row with its status,
reason, raw answers, repeats, claims and verdicts, usage and cost round-trips; the judges'
earlier files (reports of format 2, JSON lines) are read; a damaged or edited file is refused
naming the file and the field."""

from __future__ import annotations

import copy
import json
import math

import pytest
from _saved import unstamped

from ragmeter import InvalidInputError
from ragmeter.judges import CallStats, JudgeResults, Price, Sample, SampleResult, Score
from ragmeter.reports import SavedResult


class Grade:
    """A metric as JudgeResults needs it: a name and how a panel's judges are compared."""

    name = "grade"
    agreement_level = "ordinal"


class Support:
    name = "support"
    agreement_level = "interval"


SAMPLES = (
    Sample(
        "Who wrote Hamlet?",
        "Shakespeare.",
        ("Hamlet is a tragedy by Shakespeare.", "It is set in Denmark."),
        reference="William Shakespeare",
        id="s1",
        metadata={"split": "dev", "tags": ["drama", 1]},
    ),
    Sample("Where is Paris?", None, None, id="s2"),
)


def _usage(calls, prompt, completion, latency, **more):
    return CallStats(
        calls=calls,
        prompt_tokens=prompt,
        completion_tokens=completion,
        latency_s=latency,
        **more,
    )


def _rows():
    claims = {
        "claims": [
            {"claim": "Shakespeare wrote Hamlet.", "verdict": 1, "reason": "in context 1"},
            {"claim": "It is a comedy.", "verdict": 0, "reason": "context 1 says tragedy"},
        ],
        "raw_answers": ['{"verdicts": [1, 0]}'],
    }
    return [
        # A panel row: each judge's score, and what each judge's calls cost.
        SampleResult(
            "s1",
            "support",
            Score.ok(0.5, reasons=["one of two claims is supported"], evidence=claims),
            "panel",
            {
                "judge-a": Score.ok(0.5, reasons=["a"], evidence=claims),
                "judge-b": Score.ok(1.0, reasons=["b"]),
            },
            {
                "judge-a": _usage(2, 300, 40, 0.1234567891, tokens_estimated=True, retries=1),
                "judge-b": _usage(1, 150, 20, 0.0000014, cache_hits=1, reasks=2),
            },
        ),
        # Undefined: no value, the reason code and message say why.
        SampleResult(
            "s2",
            "support",
            Score.undefined("missing_answer", "the sample has no 'answer' field"),
            "panel",
            {
                "judge-a": Score.undefined("missing_answer"),
                "judge-b": Score.undefined("missing_answer"),
            },
            {"judge-a": CallStats(), "judge-b": CallStats()},
        ),
        # Repeats: the mean of three repeats with their spread, and an error among them.
        SampleResult(
            "s1",
            "grade",
            Score.ok(2.5, evidence={"repeats": 3, "spread": 1.0, "flaky": True}),
            "judge-a",
            None,
            {"judge-a": _usage(3, 900, 30, 1.5, replayed_failures=1)},
            (
                Score.ok(2.0, reasons=["good"]),
                Score.ok(3.0, reasons=["very good"]),
                Score.error(
                    "judge_output_invalid",
                    "not a grade: 'high'",
                    evidence={"raw_answer": '{"value": "high"}'},
                ),
            ),
        ),
        SampleResult(
            "s2",
            "grade",
            Score.error("transport", "HTTP 500", evidence={"attempts": 3}),
            "judge-a",
            None,
            {"judge-a": _usage(3, 0, 0, 2.0, retries=2)},
            (Score.error("transport"), Score.error("transport"), Score.error("transport")),
        ),
    ]


MANIFEST = {"library": "ragmeter", "version": "0.0.1", "n_samples": 2, "repeats": 3}
PRICES = {"model-a": Price(0.01, 0.03), "judge-b": Price(0.002)}
MODELS = {"judge-a": "model-a", "judge-b": "judge-b", "panel": "panel"}


def _results():
    return JudgeResults(
        _rows(),
        metrics=[Support(), Grade()],
        manifest=MANIFEST,
        prices=PRICES,
        judge_models=MODELS,
        samples=SAMPLES,
    )


def _assert_rows(found, expected, *, per_judge_usage=True):
    assert len(found) == len(expected)
    for got, want in zip(found, expected, strict=True):
        assert (got.sample_id, got.metric, got.judge) == (want.sample_id, want.metric, want.judge)
        assert got.score == want.score  # value, status, reason code, message, reasons, evidence
        assert got.judge_scores == want.judge_scores
        assert got.repeats == want.repeats
        if per_judge_usage:
            assert got.usage == want.usage  # every count, latency as measured
        else:
            assert got.total_usage().to_dict() == want.total_usage().to_dict()


# What the prices give, by hand: judge-a's model costs 0.01 + 0.03 per 1k tokens, judge-b 0.002
# per 1k prompt tokens (a priced row without tokens costs 0).
COSTS = [
    300 / 1000 * 0.01 + 40 / 1000 * 0.03 + 150 / 1000 * 0.002,
    0.0,
    900 / 1000 * 0.01 + 30 / 1000 * 0.03,
    0.0,
]


@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_every_field_round_trips(tmp_path, suffix):
    if suffix == "yaml":
        pytest.importorskip("yaml")
    results = _results()
    assert isinstance(results, SavedResult) and results.KIND == "ragmeter.judges"
    path = results.write(tmp_path / f"judged.{suffix}")
    read = JudgeResults.read(path)
    _assert_rows(read.rows, _rows())
    assert read.samples == SAMPLES
    assert read.manifest == MANIFEST and read.prices == PRICES
    assert read.metric_names == ["support", "grade"]
    assert read.to_dict()["agreement_levels"] == {"support": "interval", "grade": "ordinal"}
    assert read.to_dict()["judge_models"] == MODELS
    costs = [record["cost"] for record in read.to_records()]
    assert costs == pytest.approx(COSTS)
    assert read.total_cost() == pytest.approx(COSTS[0] + COSTS[2])
    # Derived figures are those of the rows: the undefined and error rows are counted apart.
    grade = read.summary("grade")
    assert (grade.mean, grade.n_ok, grade.n_error, grade.error_reasons) == (
        2.5,
        1,
        1,
        {"transport": 1},
    )
    assert read.summary("support").undefined_reasons == {"missing_answer": 1}
    assert read.flaky("grade") == ["s1"]
    # Written again, the same bytes.
    again = read.write(tmp_path / f"again.{suffix}")
    assert again.read_text() == path.read_text()


def test_a_file_without_nulls_round_trips_in_toml(tmp_path):
    pytest.importorskip("tomli_w")
    rows = _rows()[:1]
    results = JudgeResults(rows, metrics=[Support()], manifest={}, samples=SAMPLES[:1])
    read = JudgeResults.read(results.write(tmp_path / "judged.toml"))
    _assert_rows(read.rows, rows)
    assert read.samples == SAMPLES[:1]


def test_rows_in_json_lines_round_trip_what_rows_hold(tmp_path):
    results = _results()
    path = results.write(tmp_path / "rows.jsonl")
    assert path.read_text() == results.to_jsonl()  # the same lines as to_jsonl
    read = JudgeResults.read(path)
    # Rows hold a row's usage as its total and the cost it recorded, not the prices.
    _assert_rows(read.rows, _rows(), per_judge_usage=False)
    assert [r["cost"] for r in read.to_records()] == [r["cost"] for r in results.to_records()]
    assert read.total_cost() == results.total_cost()
    assert read.repeats == 3  # the number of repeats the rows carry
    assert read.write(tmp_path / "again.jsonl").read_text() == path.read_text()


def _format_2_report():
    # A judges' report as JudgeResults.to_report_dict() wrote it in format 2 (by hand).
    usage = {
        "calls": 2,
        "cache_hits": 0,
        "prompt_tokens": 120,
        "completion_tokens": 8,
        "tokens_estimated": False,
        "retries": 0,
        "reasks": 0,
        "split_fallbacks": 0,
        "capability_fallbacks": 0,
        "embedding_calls": 0,
        "embedding_cache_hits": 0,
        "embedding_tokens": 0,
        "latency_s": 0.25,
        "retried_failures": 0,
        "replayed_failures": 0,
    }
    row = {
        "sample_id": "s1",
        "metric": "groundedness",
        "value": 1.0,
        "status": "ok",
        "reason_code": None,
        "message": None,
        "reasons": ["supported"],
        "evidence": {"claims": [{"claim": "c", "verdict": 1}]},
        "judge": "judge-a",
        "judge_scores": None,
        **usage,
        "cost": 0.0015,
    }
    undefined = {
        **row,
        "sample_id": "s2",
        "value": None,
        "status": "undefined",
        "reason_code": "no_claims",
        "message": "the answer makes no claim",
        "reasons": [],
        "evidence": {},
        **{
            k: (0 if isinstance(v, int) and not isinstance(v, bool) else v)
            for k, v in usage.items()
        },
        "latency_s": 0.0,
        "cost": None,
    }
    return {
        "kind": "ragmeter.judges",
        "schema_version": 2,
        "manifest": {"library": "ragmeter", "version": "0.0.9", "repeats": 1},
        "metrics": {"groundedness": {"metric": "groundedness", "mean": 1.0, "n": 2}},
        "usage": {"by_judge_metric": [], "total": {**usage, "cost": 0.0015}},
        "agreement": {},
        "rows": [row, undefined],
    }


def test_a_report_of_format_2_is_read_with_what_it_holds(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_format_2_report()))
    read = JudgeResults.read(path)
    assert [(r.sample_id, r.status, r.score.reason_code) for r in read.rows] == [
        ("s1", "ok", None),
        ("s2", "undefined", "no_claims"),
    ]
    assert read.rows[0].score.evidence == {"claims": [{"claim": "c", "verdict": 1}]}
    assert read.rows[0].usage["judge-a"].prompt_tokens == 120
    assert read.manifest["version"] == "0.0.9"
    # No prices in that format: the costs stay as recorded.
    assert [r["cost"] for r in read.to_records()] == [0.0015, None]
    assert read.total_cost() == 0.0015
    # Upgraded: written again it is of format 3, and reads back the same.
    again = JudgeResults.read(read.write(tmp_path / "new.json"))
    assert json.loads((tmp_path / "new.json").read_text())["format_version"] == 3
    assert again.to_records() == read.to_records()


def _edited(tmp_path, edit):
    path = _results().write(tmp_path / "judged.json")
    data = json.loads(path.read_text())
    edit(data)
    bad = tmp_path / "bad.json"
    # Edited as by hand, without the checksum (which would refuse any edit first).
    bad.write_text(json.dumps(unstamped(data)))
    return bad


def _set(*path_and_value):
    *path, value = path_and_value

    def edit(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _delete(*path):
    def edit(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return edit


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        # a changed row value: the summary no longer its rows'
        (_set("rows", 2, "value", 3.0), r"metrics\.grade\.mean: 2\.5 where ragmeter would write"),
        # a changed summary
        (_set("metrics", "grade", "mean", 3.0), r"metrics\.grade\.mean: 3\.0 where"),
        # a row's total usage no longer the sum of its judges'
        (_set("rows", 0, "calls", 9), r"rows\[0\]\.calls: 9 where ragmeter would write 3"),
        # a cost the prices do not give
        (_set("rows", 2, "cost", 1.0), r"rows\[2\]\.cost: 1\.0 where"),
        (_set("rows", 1, "status", "fine"), r"rows\[1\]: status must be one of"),
        (_set("rows", 1, "value", 0.5), r"rows\[1\]: a undefined score has no value"),
        (_set("rows", 0, "value", "0.5"), r"rows\[0\]\.value: expected a number"),
        (_set("rows", 0, "usage", "judge-a", "calls", -1), r"rows\[0\]\.usage\.judge-a\.calls"),
        (_set("rows", 0, "colour", "red"), r"rows\[0\]\.colour: a field ragmeter does not write"),
        (_set("extra", 1), r"extra: a field ragmeter does not write"),
        (_delete("samples"), r"samples: missing"),
        (_set("samples", 0, "question", 3), r"samples\[0\]: Sample\.question must be a str"),
        (_set("prices", "model-a", "input_per_1k", -1), r"prices\.model-a: .*must not be negative"),
        (_set("agreement_levels", "grade", "loud"), r"agreement_levels\.grade: 'loud'"),
        (_set("kind", "ragmeter.comparison"), r"kind: 'ragmeter\.comparison'"),
        (_set("format_version", 4), r"format_version: 4; .*upgrade ragmeter"),
    ],
)
def test_a_damaged_or_edited_file_is_refused_naming_the_file_and_the_field(tmp_path, edit, field):
    bad = _edited(tmp_path, edit)
    with pytest.raises(InvalidInputError, match=field) as caught:
        JudgeResults.read(bad)
    assert str(caught.value).startswith(f"{bad}: ")


def test_a_damaged_row_of_json_lines_is_refused(tmp_path):
    path = _results().write(tmp_path / "rows.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for edit, field in [
        (_set(0, "status", "fine"), r"rows\[0\]: status must be one of"),
        (_set(1, "judge_scores", "none"), r"rows\[1\]\.judge_scores: expected"),
        (_delete(2, "sample_id"), r"rows\[2\]\.sample_id: missing"),
    ]:
        damaged = copy.deepcopy(lines)
        edit(damaged)
        bad = tmp_path / "bad.jsonl"
        bad.write_text("".join(json.dumps(line) + "\n" for line in unstamped(damaged)))
        with pytest.raises(InvalidInputError, match=field) as caught:
            JudgeResults.read(bad)
        assert str(caught.value).startswith(f"{bad}: ")


def test_undefined_numbers_in_the_evidence_are_null_and_read_back_as_none(tmp_path):
    row = SampleResult(
        "s1", "support", Score.ok(0.5, evidence={"cosine": math.nan}), "judge-a", None, {}
    )
    results = JudgeResults([row], metrics=[Support()], manifest={})
    read = JudgeResults.read(results.write(tmp_path / "judged.json"))
    assert read.rows[0].score.evidence == {"cosine": None}
