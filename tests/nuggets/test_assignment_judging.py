"""Nugget assignment through the judge engine (issue 45 items 2 and 5, Proof: 0 invented
values): scripted judges with injected parse failures, truncations, wrong counts, timeouts and
empty answers give an error status with its reason where the judge gave no usable label, and
every value that exists is the value the same judge gives without faults."""

from __future__ import annotations

import json
import math
import re

import pytest

from ragmeter.judges import FaultyJudge, RuleJudge, ScriptedJudge
from ragmeter.nuggets import (
    Nugget,
    NuggetBank,
    RagAnswer,
    TopicNuggets,
    assign,
)

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
]


def _bank(topics: int = 6, nuggets: int = 20) -> NuggetBank:
    return NuggetBank(
        tuple(
            TopicNuggets(
                f"t{t}",
                f"query {WORDS[t]}",
                tuple(
                    Nugget(
                        f"{WORDS[(t + i) % 12]} {WORDS[(t + 2 * i) % 12]} fact{i}",
                        "vital" if i % 3 == 0 else "okay",
                    )
                    for i in range(nuggets)
                ),
            )
            for t in range(topics)
        ),
        {"source": "test"},
    )


def _answers(bank: NuggetBank, runs: int = 5) -> list[RagAnswer]:
    answers = []
    for r in range(runs):
        for t, topic in enumerate(bank):
            if r == 0 and t == 0:
                text = ""  # an empty answer: judged, every nugget not supported
            else:
                text = " ".join(
                    n.text for i, n in enumerate(topic.nuggets) if (i + r) % (r + 2) == 0
                )
            answers.append(RagAnswer.build(f"run{r}", topic.topic_id, [(text, [])]))
    return answers


def _by_key(assignments):
    return {(a.run_id, a.topic_id): a for a in assignments.answers}


def test_injected_failures_give_errors_with_reasons_and_no_invented_value():
    bank = _bank()
    answers = _answers(bank)
    clean = assign(bank, answers, judge=RuleJudge(), progress=False)
    assert clean.n_errors == 0
    faulty = FaultyJudge(
        RuleJudge(),
        seed=3,
        p_malformed=0.15,
        p_truncated=0.1,
        p_wrong_count=0.1,
        p_timeout=0.1,
    )
    noisy = assign(bank, answers, judge=faulty, progress=False, max_parse_retries=0)
    assert sum(faulty.injected.values()) > 20
    assert noisy.n_errors > 0
    clean_by, noisy_by = _by_key(clean), _by_key(noisy)
    invented = 0
    for key, answer in noisy_by.items():
        (judgement,) = answer.judgements
        if judgement.status == "ok":
            invented += judgement.labels != clean_by[key].judgements[0].labels
        else:
            assert judgement.status == "error"
            assert judgement.labels == (None,) * 20
            assert judgement.reason_code in (
                "judge_output_invalid",
                "judge_output_truncated",
                "judge_unavailable",
            )
            assert judgement.message
    assert invented == 0
    clean_scores, noisy_scores = clean.scores(), noisy.scores()
    for run in noisy_scores.runs:
        values = noisy_scores.per_query_results(run)
        reference = clean_scores.per_query_results(run)
        for metric in values.metric_names:
            failed = set(values.failed.get(metric, ()))
            for topic, value in values[metric].items():
                if topic in failed:
                    assert math.isnan(value)
                else:
                    assert value == reference[metric][topic]
    # The empty answer was judged (every nugget not supported), not skipped.
    (empty,) = clean_scores.score("run0", "t0", "nugget_all")
    assert empty.status == "ok" and empty.value == 0.0


@pytest.mark.parametrize(
    "reply",
    [
        "['support', 'not_support']",  # nuggetizer's Python list: not the JSON asked for
        "",
        '{"labels": []}',
        '{"labels": [{"id": 1, "label": "vital", "reason": "x"}]}',
    ],
)
def test_an_unusable_reply_is_an_error_never_a_label(reply):
    bank = _bank(topics=1, nuggets=2)
    judge = ScriptedJudge({"nugget_assignment_labels": reply})
    assignments = assign(bank, _answers(bank, runs=1), judge=judge, progress=False)
    (answer,) = assignments.answers
    (judgement,) = answer.judgements
    assert judgement.status == "error" and judgement.labels == (None, None)
    assert judgement.reason_code == "judge_output_invalid"
    (score,) = assignments.scores().score("run0", "t0", "nugget_vital")
    assert score.status == "error" and score.value is None


def test_ten_nuggets_a_call_topic_first_and_a_stable_prefix():
    bank = _bank(topics=2, nuggets=20)
    answers = _answers(bank, runs=3)
    estimate = assign(bank, answers, judge=RuleJudge(), dry_run=True)
    assert estimate.calls == len(answers) * 2
    seen: list = []
    judge = ScriptedJudge({"nugget_assignment_labels": lambda r: _all_supported(r, seen)})
    assign(bank, answers, judge=judge, progress=False, max_pending=1)
    prompts = [r.first_user_message() for r in seen]
    # Answers of one topic are asked one after another, and two calls for the same topic and
    # chunk of nuggets share everything up to the answer (the prompt cache's prefix).
    queries = [p.split("### Query", 1)[1].split("###", 1)[0] for p in prompts]
    assert queries == sorted(queries, key=queries.index)
    first, second = [p for p in prompts if '"id": 1,' in p and "query alpha" in p][:2]
    prefix = first.split("### Answer", 1)[0]
    assert second.startswith(prefix) and "### Nuggets" in prefix and first != second


def _all_supported(request, seen):
    seen.append(request)
    text = request.first_user_message().split("### Answer", 1)[0]
    ids = [int(i) for i in re.findall(r'"id": (\d+)', text)]
    return json.dumps({"labels": [{"id": i, "label": "support", "reason": "r"} for i in ids]})


def test_repeats_keep_each_judgement_and_the_interval_counts_the_judge_noise():
    bank = _bank(topics=4, nuggets=5)
    answers = _answers(bank, runs=2)
    assignments = assign(bank, answers, judge=RuleJudge(), repeats=3, progress=False)
    assert {len(a.judgements) for a in assignments.answers} == {3}
    scores = assignments.scores()
    values = scores.per_query_results("run1")
    assert values.repeat_counts("nugget_all")["t0"] == (3, 3)
    assert values.manifest.settings["judge_value"] == "mean of 3 repeats"
    summary = scores.interval("run1", "nugget_all")
    assert abs(summary.within) < 1e-20  # a deterministic judge has no noise


def test_the_manifest_names_the_bank_the_judge_and_blind_mode():
    bank = _bank(topics=2, nuggets=3)
    assignments = assign(
        bank, _answers(bank, runs=2), judge=RuleJudge(), blind=True, progress=False
    )
    values = assignments.scores().per_query_results("run0")
    manifest = values.manifest
    assert manifest.producer == "ragmeter.nuggets"
    assert manifest.settings["blind"] is True
    assert manifest.measures["nugget_vital"]["bank"]["content_hash"] == bank.content_hash
    assert manifest.judge is not None
    assert "nugget_assignment@1" in assignments.settings["prompts"]
