"""Nugget scores against the peers' own scoring code (issue 45, Proof: oracles).

nuggetizer's ``calculate_nugget_scores`` (tests/nuggets/peers/nuggetizer_metrics.py, commit
d00dc3e) and ragnarok's ``score_assignment_file`` (peers/ragnarok_scoring.py, commit 9d1c5a6)
score the same assignment files ragmeter reads, in each peer's own file form: a seeded campaign
of 6 runs x 30 topics (topics without nuggets, without vital nuggets, answers whose parse
failed), and nuggetizer's own test fixtures. Every score equals theirs to 1e-12 wherever theirs
is defined; where theirs invents a value (a topic without a vital nugget scores 0.0, a failed
parse counts as not supported, an empty set scores 0.0, every value divided by ``n + 1e-5``)
ours is ``undefined`` or ``error``, and those records are counted here and listed in the
guide's table of differences (docs/guides/nuggets.md).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from ragmeter.nuggets import NuggetAssignments

from .peers.nuggetizer_metrics import calculate_global_metrics, calculate_nugget_scores
from .peers.ragnarok_scoring import score_assignment_file

LABELS = ["support", "partial_support", "not_support"]
PAIRS = {
    "strict_vital_score": "nugget_vital_strict",
    "strict_all_score": "nugget_all_strict",
    "vital_score": "nugget_vital",
    "all_score": "nugget_all",
}


def _campaign(seed: int = 45, runs: int = 6, topics: int = 30) -> list[dict]:
    """nuggetizer's assignment records: topic 0 has no nugget, topics 1-3 no vital one, about
    one answer in 15 failed to parse (nuggetizer's 'failed' on every nugget)."""
    rng = random.Random(seed)
    banks = []
    for t in range(topics):
        n = 0 if t == 0 else rng.randint(1, 14)
        importance = (
            ["okay"] * n if t in (1, 2, 3) else [rng.choice(["vital", "okay"]) for _ in range(n)]
        )
        banks.append([(f"nugget {t}.{i} fact", importance[i]) for i in range(n)])
    records = []
    for r in range(runs):
        for t, nuggets in enumerate(banks):
            failed = rng.random() < 1 / 15
            records.append(
                {
                    "query": f"query {t}",
                    "qid": f"t{t}",
                    "answer_text": f"answer of run {r} to topic {t}",
                    "response_length": 6,
                    "run_id": f"run{r}",
                    "nuggets": [
                        {
                            "text": text,
                            "importance": importance,
                            "assignment": "failed" if failed else rng.choice(LABELS),
                        }
                        for text, importance in nuggets
                    ],
                }
            )
    return records


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _ours(path: Path):
    return NuggetAssignments.read_nuggetizer(path).scores()


def test_every_score_equals_nuggetizer_where_it_is_defined(tmp_path):
    records = _campaign()
    scores = _ours(_write(tmp_path / "assignments.jsonl", records))
    compared = invented = 0
    invented_kinds: dict[str, int] = {}
    for record in records:
        theirs = calculate_nugget_scores(record["qid"], record["nuggets"])
        failed = any(n["assignment"] == "failed" for n in record["nuggets"])
        n_vital = sum(n["importance"] == "vital" for n in record["nuggets"])
        for their_name, our_name in PAIRS.items():
            (ours,) = scores.score(record["run_id"], record["qid"], our_name)
            their_value = getattr(theirs, their_name)
            vital = their_name.endswith("vital_score")
            defined = record["nuggets"] and not (vital and n_vital == 0)
            if failed and record["nuggets"]:
                # nuggetizer counts a failed parse as not supported: a number it invented.
                assert ours.status == "error" and ours.value is None
                invented += 1
                invented_kinds["failed parse scored"] = (
                    invented_kinds.get("failed parse scored", 0) + 1
                )
            elif not defined:
                assert their_value == 0.0  # nuggetizer's invented 0.0
                assert ours.status == "undefined" and ours.value is None
                assert ours.reason_code == (
                    "no_nuggets" if not record["nuggets"] else "no_vital_nuggets"
                )
                invented += 1
                key = "no nugget" if not record["nuggets"] else "no vital nugget"
                invented_kinds[key] = invented_kinds.get(key, 0) + 1
            else:
                assert ours.status == "ok"
                assert abs(ours.value - their_value) <= 1e-12
                compared += 1
    assert compared > 400 and invented > 40
    assert set(invented_kinds) == {"failed parse scored", "no nugget", "no vital nugget"}


def test_run_means_are_nuggetizers_over_the_topics_where_its_scores_are_defined(tmp_path):
    records = _campaign(seed=7)
    scores = _ours(_write(tmp_path / "assignments.jsonl", records))
    for run in {r["run_id"] for r in records}:
        kept = [
            r
            for r in records
            if r["run_id"] == run
            and r["nuggets"]
            and not any(n["assignment"] == "failed" for n in r["nuggets"])
        ]
        means = scores.per_query_results(run).means()
        theirs_all = calculate_global_metrics(kept)
        assert abs(float(means["nugget_all"]) - theirs_all["all_score"]) <= 1e-12
        assert means["nugget_all"].n_queries == len(kept)
        with_vital = [r for r in kept if any(n["importance"] == "vital" for n in r["nuggets"])]
        theirs_vital = calculate_global_metrics(with_vital)
        assert abs(float(means["nugget_vital"]) - theirs_vital["vital_score"]) <= 1e-12
        assert means["nugget_vital"].n_queries == len(with_vital)
        # nuggetizer's own run mean over every record mixes in its invented zeros.
        everything = calculate_global_metrics([r for r in records if r["run_id"] == run])
        assert everything["vital_score"] != pytest.approx(float(means["nugget_vital"]), abs=1e-9)


def _ragnarok_records(records: list[dict]) -> list[dict]:
    return [
        {
            "qid": f"{r['qid']}_0",
            "text": r["query"],
            "nuggets": [n["text"] for n in r["nuggets"]],
            "nugget_labels": [n["importance"] for n in r["nuggets"]],
            "nugget_assignment": [n["assignment"] for n in r["nuggets"]],
        }
        for r in records
    ]


def test_strict_scores_equal_ragnaroks_once_its_1e5_is_taken_out(tmp_path, capsys):
    records = [r for r in _campaign(seed=11) if r["run_id"] == "run0"]
    theirs = score_assignment_file(
        str(_write(tmp_path / "ragnarok.jsonl", _ragnarok_records(records)))
    )
    capsys.readouterr()
    scores = _ours(_write(tmp_path / "assignments.jsonl", records))
    assert len(theirs) == len(records)
    invented = 0
    for record, their in zip(records, theirs, strict=True):
        assert their["qid"] == record["qid"]
        n_vital, n_okay = their["vital_nuggets"], their["okay_nuggets"]
        failed = any(n["assignment"] == "failed" for n in record["nuggets"])
        pairs = {
            "nugget_vital_strict": ("vital_score", n_vital),
            "nugget_all_strict": ("total_score", n_vital + n_okay),
            "nugget_weighted_strict": ("weighted_score", 2 * n_vital + n_okay),
        }
        for ours_name, (their_name, denominator) in pairs.items():
            (ours,) = scores.score("run0", record["qid"], ours_name)
            if failed and record["nuggets"]:
                assert ours.status == "error"
                invented += 1
            elif denominator == 0:
                assert their[their_name] == 0.0 and ours.status == "undefined"
                invented += 1
            else:
                # ragnarok divides by n + 1e-5: ours times n / (n + 1e-5) is theirs exactly.
                assert ours.status == "ok"
                assert (
                    abs(ours.value * denominator / (denominator + 1e-5) - their[their_name])
                    <= 1e-12
                )
                assert ours.value != their[their_name] or ours.value == 0.0
    assert invented > 5


def test_nuggetizers_own_fixtures(tmp_path):
    """The assignment records of nuggetizer's tests/test_cli_main.py (commit d00dc3e):
    test_no_color_env_suppresses_ansi_codes and the A/B/C trace fixture of
    test_direct_assign_text_output_prints_unique_reasoning_traces, scored by both."""
    fixtures = [
        {
            "query": "What is Python?",
            "qid": "q1",
            "answer_text": "Python is used for web development.",
            "response_length": 12,
            "run_id": "demo-run",
            "nuggets": [
                {
                    "text": "Python is used for web development.",
                    "importance": "vital",
                    "assignment": "support",
                }
            ],
        },
        {
            "query": "q",
            "qid": "q2",
            "run_id": "demo-run",
            "nuggets": [
                {"text": "A", "importance": "vital", "assignment": "support"},
                {"text": "B", "importance": "okay", "assignment": "partial_support"},
                {"text": "C", "importance": "okay", "assignment": "not_support"},
            ],
        },
    ]
    scores = _ours(_write(tmp_path / "fixtures.jsonl", fixtures))
    for record in fixtures:
        theirs = calculate_nugget_scores(record["qid"], record["nuggets"])
        for their_name, our_name in PAIRS.items():
            (ours,) = scores.score("demo-run", record["qid"], our_name)
            assert abs(ours.value - getattr(theirs, their_name)) <= 1e-12
    (weighted,) = scores.score("demo-run", "q2", "nugget_weighted")
    assert math.isclose(weighted.value, (1 + 0.5 * 0.5) / (1 + 0.5 * 2))
