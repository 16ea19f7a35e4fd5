"""The JSON Schemas of the saved results (ragmeter.schemas) against files ragmeter writes:
every shape of result validates, and a damaged file does not (so the schemas can fail)."""

from __future__ import annotations

import copy
import json
import math

import jsonschema
import numpy as np
import pytest
from referencing import Registry, Resource

from ragmeter import InvalidInputError
from ragmeter.gate import gate
from ragmeter.judges import RubricMetric, Sample, ScriptedJudge, evaluate
from ragmeter.reports import saved_data
from ragmeter.schemas import RESULT_SCHEMAS, result_schema, schema_registry_documents
from ragmeter.stats import compare, compare_many


def _validator(kind: str) -> jsonschema.Draft202012Validator:
    registry = Registry().with_resources(
        (uri, Resource.from_contents(doc)) for uri, doc in schema_registry_documents().items()
    )
    schema = result_schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=registry)


def _systems(n_systems: int, n_queries: int = 12, seed: int = 0, hole: bool = False):
    rng = np.random.default_rng(seed)
    systems = {}
    for s in range(n_systems):
        by_metric = {}
        for metric in ("ndcg@10", "map"):
            values = {f"q{i}": float(rng.random()) for i in range(n_queries)}
            if hole and s == 0 and metric == "map":
                values["q3"] = math.nan  # an undefined value: q3 is left out of map's pairs
            by_metric[metric] = values
        systems[f"sys{s}"] = by_metric
    return systems


def _saved(result, tmp_path) -> dict:
    path = tmp_path / "result.json"
    result.write(path)
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"test": "t", "correction": "holm"},
        {"test": "bootstrap", "random_state": 3, "n_resamples": 999},
        {"test": "wilcoxon", "confidence_level": None},
        {"margin": 0.01},
    ],
)
@pytest.mark.parametrize("hole", [False, True])
def test_every_saved_comparison_validates(tmp_path, options, hole):
    systems = _systems(2, hole=hole)
    saved = _saved(compare(systems["sys0"], systems["sys1"], **options), tmp_path)
    _validator("ragmeter.comparison").validate(saved)
    if hole:
        # The undefined difference is null in the file, and the schema takes it.
        assert saved["differences"]["map"][3] is None
        assert [m["n_pairs"] for m in saved["metrics"]] == [12, 11]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"baseline": "sys0"},
        {"test": "tukey"},
        {"test": "t", "correction": "bonferroni"},
        {"test": "randomised-tukey", "n_resamples": 199},
    ],
)
def test_every_saved_multiple_comparison_validates(tmp_path, options):
    saved = _saved(compare_many(_systems(4, hole=True), **options), tmp_path)
    _validator("ragmeter.multiple_comparison").validate(saved)


def test_a_damaged_file_does_not_validate(tmp_path):
    systems = _systems(3)
    cases = {
        "ragmeter.comparison": _saved(compare(systems["sys0"], systems["sys1"]), tmp_path),
        "ragmeter.multiple_comparison": _saved(compare_many(systems), tmp_path),
    }
    for kind, saved in cases.items():
        validator = _validator(kind)
        validator.validate(saved)
        damaged = []
        wrong_kind = copy.deepcopy(saved)
        wrong_kind["kind"] = "ragmeter.something"
        damaged.append(wrong_kind)
        text_number = copy.deepcopy(saved)
        first = text_number["metrics"][0] if kind == "ragmeter.comparison" else None
        if first is None:
            first = text_number["comparisons"][0]["metrics"][0]
        first["p_value"] = "0.5"
        damaged.append(text_number)
        p_above_one = copy.deepcopy(saved)
        second = (
            p_above_one["metrics"][0]
            if kind == "ragmeter.comparison"
            else p_above_one["comparisons"][0]["metrics"][0]
        )
        second["p_value"] = 1.5
        damaged.append(p_above_one)
        missing = copy.deepcopy(saved)
        del missing["query_ids"]
        damaged.append(missing)
        unknown = copy.deepcopy(saved)
        unknown["extra_field"] = 1
        damaged.append(unknown)
        old = copy.deepcopy(saved)
        old["format_version"] = 2
        damaged.append(old)
        negative = copy.deepcopy(saved)
        third = (
            negative["metrics"][0]
            if kind == "ragmeter.comparison"
            else negative["comparisons"][0]["metrics"][0]
        )
        third["wins"] = -1
        damaged.append(negative)
        for document in damaged:
            assert not validator.is_valid(document)


def test_an_unknown_kind_names_the_known_ones():
    with pytest.raises(InvalidInputError, match=r"ragmeter\.comparison"):
        result_schema("ragmeter.nothing")
    assert set(RESULT_SCHEMAS) == {
        "ragmeter.comparison",
        "ragmeter.multiple_comparison",
        "ragmeter.gate",
        "ragmeter.judges",
        "ragmeter.evaluation",
        "ragmeter.retrieval_evaluation",
        "ragmeter.per_query",
        "ragmeter.nugget_bank",
        "ragmeter.nugget_assignments",
    }


@pytest.mark.parametrize(
    "setting",
    [
        {"margin": 0.02},
        {"margin": 0.0, "superiority": True},
        {"floors": {"ndcg@10": 0.4}},
        {"margin": 0.01, "test": "sign-flip", "n_resamples": 999},
        {"margins": {"ndcg@10": 0.01, "map": 0.02}, "correction": "holm"},
    ],
)
def test_every_gate_result_validates_and_a_damaged_one_does_not(setting):
    systems = _systems(2, n_queries=25, hole=True)
    candidate, baseline = systems["sys0"], systems["sys1"]
    if "floors" in setting:
        result = gate(candidate, **setting)
    else:
        result = gate(candidate, baseline, **setting)
    saved = json.loads(result.to_json())
    validator = _validator("ragmeter.gate")
    validator.validate(saved)
    assert saved["checks"]
    for field, bad in [("passed", "yes"), ("outcome", "maybe"), ("p_value", -0.1), ("n", 2.5)]:
        damaged = copy.deepcopy(saved)
        damaged["checks"][0][field] = bad
        assert not validator.is_valid(damaged), field
    damaged = copy.deepcopy(saved)
    damaged["test"] = 3  # any test of the table with a one-sided form is a name (issue 44)
    assert not validator.is_valid(damaged)


def _strict(value):
    # What a strict JSON writer stores: an undefined number (NaN) is null.
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(v) for v in value]
    return value


def _judge_results(repeats: int):
    metric = RubricMetric("grade", "Grade $answer.", allowed_values=[0, 1, 2, 3, 4])
    samples = [Sample("Q?", f"answer {i}.", id=str(i)) for i in range(4)]

    def answer(request):
        i = int(request.first_user_message().split("answer ")[1].split(".")[0])
        if i == 3:
            return {"value": "high", "reason": "not a grade"}  # an error row
        return {"value": (i + request.seed) % 5, "reason": "graded"}

    judge = ScriptedJudge({"rubric_grade": answer})
    return evaluate(samples, [metric], judge=judge, repeats=repeats, progress=False)


@pytest.mark.parametrize("repeats", [1, 3])
def test_judge_results_validate_and_a_fabricated_value_does_not(repeats):
    saved = json.loads(json.dumps(saved_data(_judge_results(repeats), "json")))
    validator = _validator("ragmeter.judges")
    validator.validate(saved)
    statuses = {row["status"] for row in saved["rows"]}
    assert statuses == {"ok", "error"}
    assert ("repeats" in saved) == (repeats > 1)
    failed = next(row for row in saved["rows"] if row["status"] == "error")
    fabricated = copy.deepcopy(saved)
    next(row for row in fabricated["rows"] if row["sample_id"] == failed["sample_id"])["value"] = (
        1.0
    )
    assert not validator.is_valid(fabricated)  # an error row never carries a score
    unexplained = copy.deepcopy(saved)
    next(row for row in unexplained["rows"] if row["status"] == "error")["reason_code"] = None
    assert not validator.is_valid(unexplained)
    ok_without_value = copy.deepcopy(saved)
    next(row for row in ok_without_value["rows"] if row["status"] == "ok")["value"] = None
    assert not validator.is_valid(ok_without_value)


def _retrieval_evaluation(zero_division):
    from ragmeter import evaluate_retrieval

    def retriever(text):
        if text == "boom":
            raise RuntimeError("down")
        return [] if text == "none" else ["d1", "d2"]

    queries = {1: "hello", 2: "boom", 3: "none", 4: "nothing relevant"}
    qrels = {1: {"d1": 1}, 2: {"d9": 1}, 3: {"d1": 1}, 4: {"d1": 0}}
    with pytest.warns(UserWarning):
        return evaluate_retrieval(
            retriever,
            queries,
            qrels,
            metrics=["ndcg@10", "recall@5"],
            zero_division=zero_division,
            on_degraded="warn",
            name="bm25",
        )


@pytest.mark.parametrize("zero_division", [math.nan, 0.0])
def test_a_saved_retrieval_evaluation_validates_and_a_damaged_one_does_not(tmp_path, zero_division):
    evaluation = _retrieval_evaluation(zero_division)
    saved = _saved(evaluation, tmp_path)
    validator = _validator("ragmeter.retrieval_evaluation")
    validator.validate(saved)
    assert {q["status"] for q in saved["queries"]} == {"success", "failed", "empty"}
    if math.isnan(zero_division):
        # Recall of query 4 (nothing relevant) is undefined: null in the file.
        assert saved["queries"][3]["values"]["recall@5"] is None
    damaged = []
    for path, bad in [
        (("kind",), "ragmeter.comparison"),
        (("format_version",), 2),
        (("queries", 0, "status"), "ok"),
        (("queries", 0, "values", "recall@5"), "1.0"),
        (("queries", 1, "latency"), -1.0),
        (("parameters", "duplicates"), "keep"),
        (("status_counts", "timeout"), 1),
        (("queries",), []),
    ]:
        document = copy.deepcopy(saved)
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = bad
        damaged.append(document)
    unknown_field = copy.deepcopy(saved)
    unknown_field["queries"][0]["score"] = 1.0
    damaged.append(unknown_field)
    for document in damaged:
        assert not validator.is_valid(document), document


def _command_json(tmp_path, *arguments):
    import subprocess
    import sys

    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq3 0 d1 0\nq4 0 d9 1\n")
    runs = []
    for name, lines in [
        ("a.run", "q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq2 Q0 d1 1 1.0 a\nq3 Q0 d1 1 1 a\n"),
        ("b.run", "q1 Q0 d2 1 3.0 b\nq2 Q0 d3 1 1.0 b\nq5 Q0 d1 1 1.0 b\n"),
    ]:
        (tmp_path / name).write_text(lines)
        runs.append(str(tmp_path / name))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragmeter",
            "evaluate",
            "--missing",
            "skip",
            *arguments,
            "--format",
            "json",
            str(qrels),
            *runs,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "arguments",
    [
        ["-m", "map", "-m", "ndcg_cut.10"],
        ["-q", "-m", "all_trec"],
        ["-q", "-m", "runid", "-m", "relstring", "-m", "num_q", "-m", "P.5"],
    ],
    ids=["means", "all_trec_per_query", "strings_and_counts"],
)
def test_the_evaluate_command_json_validates_and_a_damaged_one_does_not(tmp_path, arguments):
    saved = _command_json(tmp_path, *arguments)
    validator = _validator("ragmeter.evaluation")
    validator.validate(saved)
    b_run = str(tmp_path / "b.run")
    run = saved["runs"][b_run]
    # q3 and q4 are judged and absent from run b; q5 is in run b and not judged.
    assert run["missing_from_run"] == ["q3", "q4"] and run["unjudged"] == ["q5"]
    assert run["query_ids"] == ["q1", "q2"]
    assert ("per_query" in run) == ("-q" in arguments)
    damaged = []
    for field, bad in [
        ("means", {"map": "0.5"} if "-q" not in arguments else {"P_5": [0.2]}),
        ("n_queries", {"map": -1}),
        ("n_undefined", {"map": 0.5}),
        ("missing_from_run", "q4"),
        ("unjudged", [4.5]),
        ("query_ids", ["q1", "q1"]),
        ("per_query", {"map": {"q1": True}}),
        ("keyed", "yes"),
        ("undefined", {"map": ""}),
        ("tag", "b"),
    ]:
        document = copy.deepcopy(saved)
        document["runs"][b_run][field] = bad
        damaged.append(document)
    without = copy.deepcopy(saved)
    del without["runs"][str(tmp_path / "a.run")]["means"]
    if "per_query" in without["runs"][str(tmp_path / "a.run")]:
        del without["runs"][str(tmp_path / "a.run")]["per_query"]
    for key, bad in [("kind", "ragmeter.comparison"), ("format_version", 1), ("runs", {})]:
        document = copy.deepcopy(saved)
        document[key] = bad
        damaged.append(document)
    headless = copy.deepcopy(saved)
    del headless["kind"]
    damaged += [without, headless, saved["runs"], {}]
    for document in damaged:
        assert not validator.is_valid(document), document


def test_the_evaluation_schema_takes_text_exactly_for_the_text_measures():
    # Which measures have text values is declared once (value_type="str"): the schema's pattern
    # must name exactly those families, or a new text measure would fail validation.
    import re

    from ragmeter.ranking.declarations import FAMILIES

    schema = result_schema("ragmeter.evaluation")
    (pattern,) = schema["$defs"]["run"]["properties"]["means"]["patternProperties"]
    text = {f.trec_name for f in FAMILIES if f.value_type == "str"}
    numeric = {f.trec_name for f in FAMILIES if f.value_type != "str" and f.trec_name}
    assert text and all(re.search(pattern, name) for name in text)
    assert not any(re.search(pattern, name) for name in numeric), numeric


def test_every_saved_result_type_declares_the_kind_and_format_its_schema_has(tmp_path):
    from ragmeter import MetricResults, RetrievalEvaluation, ranking_metrics
    from ragmeter.judges import JudgeResults
    from ragmeter.nuggets import NuggetAssignments, NuggetBank
    from ragmeter.per_query import SavedPerQueryResults
    from ragmeter.ranking import RunEvaluations
    from ragmeter.reports import SavedResult
    from ragmeter.stats import Comparison, MultipleComparison

    systems = _systems(3)
    qrels, run = {"q1": {"d1": 1}, "q2": {"d9": 0}}, {"q1": ["d2", "d1"], "q2": ["d1"]}
    means = ranking_metrics(qrels, run, metrics=["mrr", "recall@1"], zero_division=np.nan)
    made = {
        Comparison: compare(systems["sys0"], systems["sys1"]),
        MultipleComparison: compare_many(systems),
        RetrievalEvaluation: _retrieval_evaluation(0.0),
        MetricResults: means,
        RunEvaluations: RunEvaluations({"bm25": means}),
        JudgeResults: _judge_results(3),
        SavedPerQueryResults: SavedPerQueryResults(_judge_results(3).per_query_results("j")),
        NuggetBank: _nugget_assignments().bank,
        NuggetAssignments: _nugget_assignments(),
    }
    assert {cls.KIND for cls in made} == set(RESULT_SCHEMAS) - {"ragmeter.gate"}
    for cls, result in made.items():
        assert isinstance(result, SavedResult), cls
        saved = _saved(result, tmp_path)
        assert saved["kind"] == cls.KIND and saved["format_version"] == cls.FORMAT_VERSION
        assert cls.KIND in RESULT_SCHEMAS and cls.FORMAT_VERSION in cls.READABLE_VERSIONS
        _validator(cls.KIND).validate(saved)
        read = cls.read(tmp_path / "result.json")
        if cls is MetricResults:  # a dict: NaN-free here, and the run is named in the file
            assert read == result and read.name == "run"
        elif cls in (JudgeResults, NuggetAssignments):  # no equality: the same saved form
            assert read.to_dict() == result.to_dict()
        else:
            assert read == result


def _nugget_assignments():
    """Assignments of two runs (one judgement failed, one judged twice) against a bank of two
    topics, one nugget of which is not labelled by importance."""
    from ragmeter.nuggets import (
        AnswerAssignment,
        Judgement,
        Nugget,
        NuggetAssignments,
        NuggetBank,
        TopicNuggets,
    )

    bank = NuggetBank(
        (
            TopicNuggets(
                "t1", "who wrote hamlet", (Nugget("Shakespeare", "vital"), Nugget("1600"))
            ),
            TopicNuggets("t2", "boiling point", (Nugget("100 C", "okay"),)),
        ),
        {"source": "test", "pooled_runs": ["a", "b"]},
    )
    answers = (
        AnswerAssignment("a", "t1", (Judgement(("support", "not_support"), reasons=("x", "y")),)),
        AnswerAssignment(
            "a",
            "t2",
            (Judgement(("partial_support",)), Judgement((None,), "error", "judge_timeout", "t")),
        ),
        AnswerAssignment("b", "t1", (Judgement((None, None), "error", "judge_output_invalid"),)),
    )
    return NuggetAssignments(bank, answers, 3, "judge", {"judge": {"name": "j"}}, {}, True)


def test_nugget_files_validate_and_damaged_ones_do_not(tmp_path):
    assignments = _nugget_assignments()
    for kind, result in (
        ("ragmeter.nugget_bank", assignments.bank),
        ("ragmeter.nugget_assignments", assignments),
    ):
        validator = _validator(kind)
        saved = _saved(result, tmp_path)
        validator.validate(saved)
        topics = saved["topics"] if "topics" in saved else saved["bank"]["topics"]
        damaged = []
        for edit in (
            lambda d, t: t[0]["nuggets"][0].update(importance="essential"),
            lambda d, t: t[0]["nuggets"][0].update(text=""),
            lambda d, t: t[0].pop("query"),
            lambda d, t: d.update(content_hash="abc") if "content_hash" in d else d.update(blind=1),
        ):
            document = copy.deepcopy(saved)
            edit(
                document, document["topics"] if "topics" in document else document["bank"]["topics"]
            )
            damaged.append(document)
        if kind == "ragmeter.nugget_assignments":
            for edit in (
                lambda d: d["answers"][0]["judgements"][0]["labels"].__setitem__(0, None),
                lambda d: d["answers"][2]["judgements"][0]["labels"].__setitem__(0, "support"),
                lambda d: d["answers"][0]["judgements"][0].update(status="failed"),
                lambda d: d["answers"][0]["judgements"][0]["labels"].__setitem__(0, "failed"),
                lambda d: d.update(grades=5),
            ):
                document = copy.deepcopy(saved)
                edit(document)
                damaged.append(document)
        assert topics
        for document in damaged:
            assert not validator.is_valid(document), document
