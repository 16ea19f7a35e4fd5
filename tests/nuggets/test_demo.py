"""``ragmeter demo --nuggets``: the pipeline offline with the rule judge. Its files read back
through ragmeter.io, its nugget scores equal nuggetizer's own scoring code (peers/, commit
d00dc3e) wherever nuggetizer's are defined, and its answer files pass ragnarok's 2025 checker
(peers/, commit 7233fa7)."""

from __future__ import annotations

import json
import math

from ragmeter.cli import main
from ragmeter.io import read_per_query
from ragmeter.nuggets import NuggetAssignments, NuggetBank, read_rag_answers

from .peers import ragnarok_rag25_validation as rag25
from .peers.nuggetizer_metrics import calculate_nugget_scores

PAIRS = {"all_score": "nugget_all", "vital_score": "nugget_vital"}


def test_the_nugget_demo_runs_offline_and_its_files_are_right(tmp_path, capsys):
    assert main(["demo", "--nuggets", "--output", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "rule judge" in printed and "nugget_all" in printed and "citation_recall" in printed
    bank = NuggetBank.read(tmp_path / "nuggets-bank.json")
    assert bank.provenance["pooled_runs"] == ["keyword", "strict"]
    assert "edited_from" in bank.provenance
    assert NuggetBank.read_nuggets(tmp_path / "nuggets.jsonl").content_hash == bank.content_hash
    assignments = NuggetAssignments.read(tmp_path / "nuggets-assignments.json")
    assert assignments.bank == bank and assignments.blind
    compared = 0
    for system in ("keyword", "strict"):
        values = read_per_query(tmp_path / f"{system}-nuggets.json")
        assert values.manifest.measures["nugget_all"]["bank"]["content_hash"] == bank.content_hash
        for answer in assignments.answers:
            if answer.run_id != system:
                continue
            nuggets = [
                {"importance": n.importance, "assignment": label}
                for n, label in zip(
                    bank[answer.topic_id].nuggets, answer.judgements[0].labels, strict=True
                )
            ]
            theirs = calculate_nugget_scores(answer.topic_id, nuggets)
            for their_name, ours in PAIRS.items():
                value = values[ours][answer.topic_id]
                if math.isnan(value):
                    assert not nuggets or not any(n["importance"] == "vital" for n in nuggets)
                else:
                    assert value == getattr(theirs, their_name)
                    compared += 1
        citations = read_per_query(tmp_path / f"{system}-citations.json")
        assert set(citations.query_ids) == set(values.query_ids)
    assert compared > 40


def test_the_demos_answer_files_pass_ragnaroks_checker(tmp_path, capsys):
    assert main(["demo", "--nuggets", "--output", str(tmp_path)]) == 0
    capsys.readouterr()
    for system in ("keyword", "strict"):
        path = tmp_path / f"{system}-answers.jsonl"
        answers = read_rag_answers(path)
        assert len(answers) == 24
        topics = tmp_path / "topics.jsonl"
        topics.write_text(
            "".join(json.dumps({"id": a.topic_id, "title": a.topic_id}) + "\n" for a in answers),
            encoding="utf-8",
        )
        summary = rag25.validate_rag25_entries(input_path=str(path), topics_path=str(topics))
        assert summary["valid"] and summary["error_count"] == 0, summary
