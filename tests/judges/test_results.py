"""Exports (records, JSONL, pandas, report dict), the manifest, and cost accounting."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from _saved import unstamped

from ragmeter import InvalidInputError, __version__
from ragmeter.judges import Price, RuleJudge, Sample, ScriptedJudge, evaluate
from ragmeter.judges.prompts import CLAIMS_PROMPT, GROUNDEDNESS_PROMPT

SAMPLES = [
    Sample("Where is Paris?", "Paris is in France.", ("Paris is in France.",), id="s1"),
    Sample("Where is Paris?", "Berlin is large.", ("Paris is in France.",), id="s2"),
    Sample("Where is Paris?", "", ("Paris is in France.",), id="s3"),
]


@pytest.fixture(scope="module")
def results():
    return evaluate(SAMPLES, ["groundedness", "context_relevancy"], judge=RuleJudge())


def test_records_hold_value_status_evidence_and_usage(results):
    records = results.to_records()
    assert [(r["sample_id"], r["metric"]) for r in records] == [
        ("s1", "groundedness"),
        ("s1", "context_relevancy"),
        ("s2", "groundedness"),
        ("s2", "context_relevancy"),
        ("s3", "groundedness"),
        ("s3", "context_relevancy"),
    ]
    first = records[0]
    assert (first["value"], first["status"], first["judge"]) == (1.0, "ok", "rule-judge")
    assert first["evidence"]["claims"][0] == {
        "claim": "Paris is in France.",
        "verdict": 1,
        "reason": "its words occur in the context",
    }
    assert first["calls"] == 2 and first["tokens_estimated"] is True
    assert (records[4]["status"], records[4]["reason_code"], records[4]["value"]) == (
        "undefined",
        "no_answer",
        None,
    )


def test_jsonl_round_trips_the_records(results, tmp_path):
    path = tmp_path / "rows.jsonl"
    results.to_jsonl(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    # Each row carries the file's row count and checksum besides its record.
    assert unstamped([json.loads(line) for line in lines]) == json.loads(
        json.dumps(results.to_records())
    )
    assert {json.loads(line)["n_rows"] for line in lines} == {len(results.rows)}
    buffer = io.StringIO()
    results.to_jsonl(buffer)
    assert buffer.getvalue() == path.read_text(encoding="utf-8") == results.to_jsonl()


def test_pandas_export(results):
    frame = results.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert frame.shape[0] == 6
    assert {
        "sample_id",
        "metric",
        "value",
        "status",
        "reason_code",
        "evidence",
        "calls",
        "cost",
    } <= set(frame.columns)
    means = frame[frame.status == "ok"].groupby("metric")["value"].mean()
    assert means["groundedness"] == pytest.approx(results.summary("groundedness").mean)


def test_report_dict_is_stable_and_json_ready(results):
    report = results.to_report_dict()
    assert report == results.to_dict()  # the saved form, what write() writes
    assert list(report) == [
        "kind",
        "format_version",
        "ragmeter_version",
        "manifest",
        "metrics",
        "agreement_levels",
        "usage",
        "agreement",
        "prices",
        "judge_models",
        "samples",
        "rows",
    ]
    assert (report["kind"], report["format_version"]) == ("ragmeter.judges", 3)
    grounded = report["metrics"]["groundedness"]
    assert (grounded["mean"], grounded["n"], grounded["n_ok"], grounded["n_undefined"]) == (
        0.5,
        3,
        2,
        1,
    )
    assert grounded["undefined_reasons"] == {"no_answer": 1}
    assert report["usage"]["total"]["calls"] == sum(r["calls"] for r in report["rows"])
    assert report["agreement"] == {}
    json.loads(json.dumps(report))


def test_manifest_records_versions_prompts_and_judges(results):
    manifest = results.manifest
    assert manifest["version"] == __version__ and manifest["n_samples"] == 3
    assert manifest["judge"] == {"kind": "rule", "name": "rule-judge", "threshold": 0.5}
    grounded = next(m for m in manifest["metrics"] if m["name"] == "groundedness")
    assert grounded["prompts"] == {
        f"claims@{CLAIMS_PROMPT.version}": CLAIMS_PROMPT.digest,
        f"groundedness@{GROUNDEDNESS_PROMPT.version}": GROUNDEDNESS_PROMPT.digest,
    }
    assert manifest["settings"]["temperature"] == 0.0 and manifest["settings"]["seed"] == 0
    assert manifest["cache"]["mode"] == "off"


def test_summary_text_carries_the_counts(results):
    assert str(results.summary("groundedness")) == (
        "groundedness: 0.5000 (mean over 2 of 3 samples); 1 undefined: no_answer=1"
    )
    assert "groundedness: 0.5000" in repr(results)
    assert results.values("groundedness") == [1.0, 0.0, None]
    assert results.means() == {"groundedness": 0.5, "context_relevancy": 1.0}
    with pytest.raises(InvalidInputError, match="no metric named"):
        results.summary("faithfulness")


def test_cost_from_a_user_price_table():
    # 1,000 prompt + 500 completion tokens per call at (0.01, 0.03) per 1k: 0.01 + 0.015 = 0.025
    # per call; groundedness makes two calls per sample.
    judge = ScriptedJudge(
        {
            "claims": {"claims": ["c"]},
            "groundedness_verdicts": {"verdicts": [{"id": 1, "verdict": 1, "reason": "r"}]},
        },
        usage=(1000, 500),
        name="priced",
    )
    samples = [Sample("Q?", "A.", ("ctx one",), id="x"), Sample("Q?", "B.", ("ctx two",), id="y")]
    results = evaluate(samples, ["groundedness"], judge=judge, prices={"priced": (0.01, 0.03)})
    assert [r["cost"] for r in results.to_records()] == [pytest.approx(0.05), pytest.approx(0.05)]
    assert results.total_cost() == pytest.approx(0.1)
    usage = results.usage()[0]
    assert (usage["calls"], usage["prompt_tokens"], usage["completion_tokens"]) == (4, 4000, 2000)
    assert usage["cost"] == pytest.approx(0.1)
    # print(results) shows what the run cost (independent arithmetic: 4 calls x 1,000 + 500).
    assert "usage: 4 calls, 4,000 prompt + 2,000 completion tokens, cost 0.1000" in repr(results)
    unpriced = evaluate(samples, ["groundedness"], judge=judge, prices={"other": Price(1.0, 1.0)})
    assert unpriced.total_cost() is None
    assert "usage: 4 calls, 4,000 prompt + 2,000 completion tokens\n" in repr(unpriced) + "\n"
    with pytest.raises(InvalidInputError, match="negative"):
        evaluate(samples, ["groundedness"], judge=judge, prices={"priced": (-1, 0)})


def test_evaluate_is_typed_by_what_it_returns():
    import typing

    from ragmeter.judges import DryRunEstimate, JudgeResults, aevaluate

    overloads = typing.get_overloads(evaluate)
    returns = {
        typing.get_type_hints(o)["dry_run"]: typing.get_type_hints(o)["return"] for o in overloads
    }
    assert returns == {
        typing.Literal[False]: JudgeResults,
        typing.Literal[True]: DryRunEstimate,
    }
    assert typing.get_type_hints(aevaluate)["return"] is JudgeResults


def test_wide_pandas_has_one_row_per_sample_with_inputs_and_a_column_per_metric(results):
    wide = results.to_pandas(form="wide")
    assert list(wide["sample_id"]) == ["s1", "s2", "s3"]
    assert {"question", "answer", "contexts", "reference"} <= set(wide.columns)
    assert list(wide["groundedness"].isna()) == [False, False, True]
    assert list(wide["groundedness_status"]) == ["ok", "ok", "undefined"]
    long = results.to_pandas()
    for metric in ("groundedness", "context_relevancy"):
        by_sample = long[long.metric == metric].set_index("sample_id")["value"]
        assert wide.set_index("sample_id")[metric].equals(by_sample.rename(metric))
    with pytest.raises(InvalidInputError, match="form"):
        results.to_pandas(form="tall")
