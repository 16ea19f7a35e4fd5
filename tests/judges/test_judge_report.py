"""The judge integrity report (issue 49 item 4): self-judging by model family, drift under a
second judge, length bias and position flips.

Oracles: scipy (the paired t-test, the regression slope), statsmodels (the Wilson interval),
hand counts of scripted verdicts, and simulation: with a length bias planted in a scripted
pairwise judge the slope's interval excludes 0 and the longer-wins interval excludes 50%;
with none, they cover 0 and 50% at their nominal rate over 400 simulated campaigns.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from ragmeter.exceptions import InvalidInputError
from ragmeter.judges import (
    JudgeResults,
    RubricMetric,
    RuleJudge,
    Sample,
    SampleResult,
    Score,
    ScriptedJudge,
    evaluate,
)
from ragmeter.judges.integrity import judge_report, model_family
from ragmeter.judges.metrics import PairwisePreferenceMetric

WORDS = ["the", "tower", "was", "built", "with", "iron", "and", "stands", "in", "the", "city"]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _pairs(n: int, seed: int) -> list[Sample]:
    rng = random.Random(seed)
    return [
        Sample(
            f"Question {i}?",
            _text(rng, rng.randint(5, 120)),
            answer_b=_text(rng, rng.randint(5, 120)),
            id=f"p{i}",
        )
        for i in range(n)
    ]


def _length_biased(bias: float, seed: int) -> ScriptedJudge:
    """Picks the longer response with probability ``bias`` (whatever its seat), else a seat
    at random: a length-biased judge that is position-consistent when it follows length."""

    def answer(request):
        text = request.first_user_message()
        one = text.split("<data:response_1>\n")[1].split("\n</data:response_1>")[0]
        two = text.split("<data:response_2>\n")[1].split("\n</data:response_2>")[0]
        draw = random.Random(f"{seed}/{text}")
        if draw.random() < bias:
            winner = "1" if len(one.split()) > len(two.split()) else "2"
        else:
            winner = draw.choice(["1", "2"])
        return {"winner": winner, "reason": "scripted"}

    return ScriptedJudge({"pairwise_preference": answer}, name="biased")


def test_a_planted_length_bias_is_found_end_to_end():
    samples = _pairs(150, seed=1)
    results = evaluate(
        samples, [PairwisePreferenceMetric()], judge=_length_biased(0.8, 1), progress=False
    )
    report = judge_report(results)
    bias = report.length_bias["pairwise_preference"]
    assert bias["slope"]["ci"][0] > 0  # A wins more the longer A is than B
    longer = bias["longer_wins"]
    assert longer["ci"][0] > 0.5
    # The counts by hand, and statsmodels' Wilson interval of them.
    wins = total = 0
    for row, sample in zip(results.rows, samples, strict=True):
        a, b = len(sample.answer.split()), len(sample.answer_b.split())
        winner = row.score.evidence["winner"]
        if winner in ("A", "B") and a != b:
            total += 1
            wins += (winner == "A") == (a > b)
    assert (longer["successes"], longer["n"]) == (wins, total)
    assert longer["ci"] == pytest.approx(list(proportion_confint(wins, total, method="wilson")))
    assert any("longer answer wins" in line for line in report.flagged)


def _synthetic_pairwise(rng: np.random.Generator, n: int, bias: float) -> JudgeResults:
    """Pairwise rows built directly (what the metric's evidence holds), to run the report's
    own code over hundreds of campaigns quickly."""
    samples, rows = [], []
    for i in range(n):
        a, b = int(rng.integers(5, 120)), int(rng.integers(5, 120))
        sample = Sample(f"Q{i}?", "w " * a, answer_b="w " * b, id=f"p{i}")
        if rng.random() < bias:
            winner = "A" if a > b else "B"
        else:
            winner = "A" if rng.random() < 0.5 else "B"
        flipped = bool(rng.random() < 0.1)
        if flipped:
            winner = "tie"
        value = {"A": 1.0, "B": 0.0, "tie": 0.5}[winner]
        score = Score.ok(
            value,
            evidence={
                "winner": winner,
                "position_inconsistent": flipped,
                "first_position_wins": 1,
                "n_verdicts": 2,
            },
        )
        samples.append(sample)
        rows.append(SampleResult(sample.id, "pairwise_preference", score, "synthetic"))
    return JudgeResults(
        rows,
        metrics=[PairwisePreferenceMetric()],
        manifest={"judges": [{"name": "synthetic", "model": "synthetic"}]},
        samples=samples,
    )


def test_without_a_bias_the_intervals_cover_no_bias_at_their_nominal_rate():
    rng = np.random.default_rng(49)
    campaigns = 400
    slope_covers = longer_covers = 0
    for _ in range(campaigns):
        report = judge_report(_synthetic_pairwise(rng, 100, bias=0.0))
        bias = report.length_bias["pairwise_preference"]
        slope_covers += bias["slope"]["ci"][0] <= 0 <= bias["slope"]["ci"][1]
        longer_covers += bias["longer_wins"]["ci"][0] <= 0.5 <= bias["longer_wins"]["ci"][1]
    # Within three binomial standard errors of 95% (one: 1.1% at 400 campaigns).
    se = (0.95 * 0.05 / campaigns) ** 0.5
    for covered in (slope_covers, longer_covers):
        assert abs(covered / campaigns - 0.95) <= 3 * se, covered / campaigns
    biased = judge_report(_synthetic_pairwise(rng, 200, bias=0.5))
    assert biased.length_bias["pairwise_preference"]["longer_wins"]["ci"][0] > 0.5


def test_position_flips_are_counted_with_their_interval():
    def first_seat(request):
        return {"winner": "1", "reason": "always the first"}

    samples = _pairs(40, seed=2)
    results = evaluate(
        samples,
        [PairwisePreferenceMetric()],
        judge=ScriptedJudge({"pairwise_preference": first_seat}),
        progress=False,
    )
    flips = judge_report(results).position["pairwise_preference"]["flips"]
    # A judge that always picks the first seat flips on every pair.
    assert (flips["successes"], flips["n"], flips["rate"]) == (40, 40, 1.0)
    assert flips["ci"] == pytest.approx(list(proportion_confint(40, 40, method="wilson")))


def test_a_score_growing_with_the_answers_length_has_a_slope_excluding_zero():
    grade = RubricMetric("long", "Grade $answer.", allowed_values=[0, 1, 2, 3, 4])

    def by_length(request):
        words = len(request.first_user_message().split("<data:answer>\n")[1].split())
        return {"value": min(4, words // 30), "reason": "scripted"}

    samples = _pairs(60, seed=3)
    results = evaluate(
        samples, [grade], judge=ScriptedJudge({"rubric_long": by_length}), progress=False
    )
    slope = judge_report(results).length_bias["long"]["slope"]
    x = [len(s.answer.split()) / 100 for s in samples]
    reference = stats.linregress(x, results.values("long"))
    assert slope["slope"] == pytest.approx(reference.slope)
    assert slope["ci"][0] > 0


def test_self_judging_is_flagged_by_model_family_and_can_be_refused():
    assert model_family("gpt-4o-mini") == model_family("openai/gpt-4.1") == "openai-gpt"
    assert model_family("Qwen/Qwen2.5-7B-Instruct") == "qwen"
    assert model_family("o3-mini") == "openai-gpt" and model_family("olmo-2") is None
    results = JudgeResults(
        [],
        metrics=[],
        manifest={"judges": [{"kind": "openai_compatible", "name": "j", "model": "gpt-4o"}]},
    )
    report = judge_report(results, generator=["gpt-4o-mini", "claude-3-5-haiku", "my-model"])
    same = {s["generator"]: s["same_family"] for s in report.self_judging}
    assert same == {"gpt-4o-mini": True, "claude-3-5-haiku": False, "my-model": None}
    assert any("self-judging" in line for line in report.flagged)
    with pytest.raises(InvalidInputError, match="self-judging"):
        judge_report(results, generator="gpt-4o-mini", refuse_self_judging=True)


def test_drift_is_a_paired_t_test_of_the_second_judge_against_the_first():
    grade = RubricMetric("grade", "Grade $answer.", allowed_values=[0, 1, 2, 3, 4])
    samples = [Sample("Q?", f"answer {i}.", id=f"s{i}") for i in range(50)]

    def judge(lenient: bool) -> ScriptedJudge:
        def answer(request):
            i = int(request.first_user_message().split("answer ")[1].split(".")[0])
            base = i % 4
            return {"value": base + (1 if lenient and i % 3 == 0 else 0), "reason": "s"}

        return ScriptedJudge({"rubric_grade": answer}, name="second" if lenient else "first")

    first = evaluate(samples, [grade], judge=judge(False), progress=False)
    second = evaluate(samples, [grade], judge=judge(True), progress=False)
    drift = judge_report(first, regrade=second).drift["grade"]
    reference = stats.ttest_rel(second.values("grade"), first.values("grade"))
    assert drift["p_value"] == pytest.approx(reference.pvalue)
    assert drift["mean"] == pytest.approx(
        np.mean(second.values("grade")) - np.mean(first.values("grade"))
    )
    low, high = reference.confidence_interval(0.95)
    assert drift["ci"] == pytest.approx([low, high])
    # The same with the second judge given: the samples are judged again here.
    again = judge_report(first, regrade_judge=judge(True))
    assert again.drift["grade"]["mean"] == pytest.approx(drift["mean"])


def test_the_report_names_the_judge_and_the_prompt_digests_it_read():
    samples = [Sample("Who wrote Hamlet?", "Shakespeare.", ["By Shakespeare."], id="a")]
    results = evaluate(samples, ["faithfulness"], judge=RuleJudge(), progress=False)
    report = judge_report(results)
    from ragmeter.judges.prompts import CLAIMS_PROMPT, FAITHFULNESS_PROMPT

    digests = report.identity["prompts"]["faithfulness"]
    assert digests == {
        f"{p.name}@{p.version}": p.digest for p in (CLAIMS_PROMPT, FAITHFULNESS_PROMPT)
    }
    assert report.identity["judges"][0]["kind"] == "offline_rules" or report.identity["judges"]
    text = str(report)
    assert "prompts of faithfulness" in text and "no generator declared" in text
    assert report.to_dict()["identity"]["kept"]
