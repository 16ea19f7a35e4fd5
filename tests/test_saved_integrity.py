"""Saved results carry a row count and a checksum (issue 44 item 3): a truncated or edited file
is refused, naming the file and what does not match, never read back as other values.

The hostile version of the issue's measurement ("78 of 1,161 one-flip or truncated saved files
read back changed; a JSONL cut at a line boundary is read as 6 of 10 rows"): every kind of saved
result ragmeter writes, in every format (JSON, JSONL, YAML, TOML), is damaged by seeded single
bit flips, seeded cuts and cuts at every line end; each damaged file must be refused with a
RagmeterError or read back equal to what was written (compared as saved forms, NaN equal to
NaN). The oracle is the object written: nothing here is a number copied from ragmeter's output.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from _saved import unstamped

from ragmeter import (
    InvalidInputError,
    Manifest,
    PerQueryResults,
    RagmeterError,
    RetrievalEvaluation,
    evaluate_retrieval,
)
from ragmeter._nan_equal import canonical
from ragmeter.io import means_and_per_query
from ragmeter.judges import JudgeResults, RuleJudge, Sample, evaluate
from ragmeter.per_query import SavedPerQueryResults
from ragmeter.ranking import RunEvaluations
from ragmeter.stats import Comparison, MultipleComparison, compare, compare_many

SEED = 44
N_FLIPS = 24
N_CUTS = 8
MAX_LINE_CUTS = 24
FORMATS = ("json", "jsonl", "yaml", "toml")


def _values(name: str, shift: float) -> PerQueryResults:
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    base = rng.uniform(0, 1, 12)
    return PerQueryResults(
        {"ndcg@10": np.clip(base + shift, 0, 1), "P@5": np.round(base * 5) / 5},
        [f"q{i}" for i in range(12)],
        name=name,
    )


def _run_evaluations() -> RunEvaluations:
    qrels = {f"q{i}": {f"d{j}": (i + j) % 3 for j in range(6)} for i in range(6)}
    run = {f"q{i}": {f"d{j}": 10.0 - j for j in range(6)} for i in range(5)}
    means, per_query = means_and_per_query(
        qrels, run, metrics=["map", "P.5", "ndcg_cut.10", "num_rel"], missing="zero"
    )
    return RunEvaluations({"bm25.txt": means}, {"bm25.txt": per_query})


def _retrieval() -> RetrievalEvaluation:
    queries = {f"q{i}": f"question {i}" for i in range(10)}
    qrels = {f"q{i}": {f"d{i}": 1, f"d{i + 1}": 2} for i in range(10)}

    def retriever(text: str) -> list[str]:
        i = int(text.split()[-1])
        return [f"x{i}", f"d{i + 1}", f"d{i}"]

    return evaluate_retrieval(retriever, queries, qrels, metrics=["mrr", "ndcg@3"], name="r")


def _judged() -> JudgeResults:
    samples = [
        Sample(f"Who wrote Hamlet {i}?", "Shakespeare wrote Hamlet.", ["Hamlet is by Shakespeare."])
        for i in range(4)
    ]
    return evaluate(samples, ["groundedness"], judge=RuleJudge(), repeats=2, progress=False)


def _per_query() -> SavedPerQueryResults:
    return SavedPerQueryResults(
        PerQueryResults(
            {"faithfulness": {"s1": [1.0, 0.0, 1.0], "s2": [None, 1.0, 1.0], "s3": 0.5}},
            name="rag",
            clusters={"s1": "a", "s2": "a", "s3": 3},
            failed={"faithfulness": ["s2"]},
            manifest=Manifest("ragmeter.judges", "0.1.0", {}, {"judge_value": "mean of 3 repeats"}),
        )
    )


def _comparisons() -> tuple[Comparison, MultipleComparison]:
    systems = {f"s{k}": _values(f"s{k}", 0.05 * k) for k in range(3)}
    return compare(systems["s1"], systems["s0"]), compare_many(systems, n_resamples=200)


def _made() -> dict[str, object]:
    comparison, multiple = _comparisons()
    return {
        "evaluation": _run_evaluations(),
        "retrieval_evaluation": _retrieval(),
        "comparison": comparison,
        "multiple_comparison": multiple,
        "judges": _judged(),
        "per_query": _per_query(),
    }


MADE = _made()


def _saved_form(result: object, suffix: str) -> object:
    data = result.to_rows() if suffix == "jsonl" else result.to_dict()  # type: ignore[attr-defined]
    return canonical(json.loads(json.dumps(data, default=str, allow_nan=True)))


def _cases(intact: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    n = len(intact)
    cases = [(f"cut at {k}", intact[:k]) for k in sorted(rng.sample(range(1, n), N_CUTS))]
    ends = [i + 1 for i, byte in enumerate(intact[:-1]) if byte == ord("\n")]
    if len(ends) > MAX_LINE_CUTS:
        ends = sorted(rng.sample(ends, MAX_LINE_CUTS))
    cases += [(f"cut at the line end {k}", intact[:k]) for k in ends]
    for _ in range(N_FLIPS):
        at, bit = rng.randrange(n), rng.randrange(8)
        flipped = bytearray(intact)
        flipped[at] ^= 1 << bit
        cases.append((f"flip bit {bit} of byte {at}", bytes(flipped)))
    return cases


@pytest.mark.parametrize("suffix", FORMATS)
@pytest.mark.parametrize("kind", list(MADE))
def test_every_damaged_saved_file_is_refused_or_reads_back_equal(tmp_path, kind, suffix):
    result = MADE[kind]
    cls = type(result)
    path = result.write(tmp_path / f"intact.{suffix}")  # type: ignore[attr-defined]
    intact = Path(path).read_bytes()
    # What the intact file reads back as (JSON lines of judge results, and TOML, which has no
    # null, hold less than the object: the file is the oracle of its own damaged copies).
    expected = _saved_form(cls.read(path), suffix)  # type: ignore[attr-defined]
    if suffix == "json":
        assert expected == _saved_form(result, suffix)
    rng = random.Random(f"{SEED}-{kind}-{suffix}")
    changed = []
    for label, data in _cases(intact, rng):
        damaged = tmp_path / f"damaged.{suffix}"
        damaged.write_bytes(data)
        try:
            back = cls.read(damaged)  # type: ignore[attr-defined]
        except RagmeterError as error:
            assert isinstance(error, ValueError | TypeError), (label, error)
            assert str(damaged) in str(error), (label, error)
            continue
        if _saved_form(back, suffix) != expected:
            changed.append(label)
    assert changed == [], f"{kind} {suffix}: read back other values after {changed}"


def test_a_jsonl_cut_at_a_line_end_is_refused_naming_the_rows(tmp_path):
    evaluation = _retrieval()
    path = evaluation.write(tmp_path / "ten.jsonl")
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 10
    path.write_text("".join(lines[:6]))
    with pytest.raises(
        InvalidInputError, match=r"ten.jsonl: holds 6 rows where it was written with 10"
    ):
        RetrievalEvaluation.read(path)


def test_an_edited_value_is_refused_by_the_checksum(tmp_path):
    values = _per_query().values
    path = values.write(tmp_path / "v.json")
    data = json.loads(path.read_text())
    data["values"]["faithfulness"][2] = 0.75
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match=r"v.json: its content does not match its checksum"):
        PerQueryResults.read(path)


def test_a_file_without_a_checksum_reads_unverified(tmp_path):
    from ragmeter.reports import load_report_verified

    values = _per_query()
    path = values.write(tmp_path / "v.json")
    assert load_report_verified(SavedPerQueryResults, path)[1] is True
    path.write_text(json.dumps(unstamped(json.loads(path.read_text()))))
    back, verified = load_report_verified(SavedPerQueryResults, path)
    assert back == values and verified is False


def test_the_checksum_is_of_the_content_whatever_the_text(tmp_path):
    digests = set()
    for suffix in ("json", "yaml"):
        path = _per_query().write(tmp_path / f"v.{suffix}")
        text = path.read_text()
        digests.add(
            next(line for line in text.splitlines() if "sha256" in line).split()[-1].strip('",')
        )
    assert len(digests) == 1


def test_nan_values_survive_and_are_counted(tmp_path):
    values = PerQueryResults({"m": [math.nan, 0.5]}, ["a", "b"], manifest=Manifest("x"))
    for suffix in FORMATS:
        assert PerQueryResults.read(values.write(tmp_path / f"nan.{suffix}")) == values
