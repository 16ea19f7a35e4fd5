"""``ragmeter nuggets create|assign|score`` from files, offline with the rule judge: the bank
holds the pooled segments' nuggets, the scores written per run equal nuggetizer's own scoring
code (peers/, commit d00dc3e) on the saved assignments, and input errors exit 2 with a
message."""

from __future__ import annotations

import json
import math

from ragmeter.cli import main
from ragmeter.io import read_per_query
from ragmeter.nuggets import NuggetAssignments, NuggetBank, RagAnswer, write_rag_answers

from .peers.nuggetizer_metrics import calculate_nugget_scores

CORPUS = {
    "s1": "The Eiffel Tower was completed in 1889. It is 330 metres tall.",
    "s2": "Gustave Eiffel's company designed and built the tower for the World's Fair.",
    "s3": "Paris hosts many museums.",
    "s4": "Honey never spoils because of its low water content.",
    "s5": "Sealed honey jars found in Egyptian tombs were still edible.",
}


def _files(tmp_path):
    (tmp_path / "qrels.txt").write_text(
        "t1 0 s1 3\nt1 0 s2 2\nt1 0 s3 0\nt2 0 s4 3\nt2 0 s5 1\n", encoding="utf-8"
    )
    (tmp_path / "bm25.run").write_text(
        "t1 Q0 s1 1 9.1 bm25\nt1 Q0 s3 2 7.0 bm25\nt2 Q0 s4 1 5.5 bm25\nt2 Q0 s5 2 4.0 bm25\n",
        encoding="utf-8",
    )
    (tmp_path / "dense.run").write_text(
        "t1 Q0 s2 1 0.9 dense\nt1 Q0 s1 2 0.8 dense\n", encoding="utf-8"
    )
    (tmp_path / "topics.jsonl").write_text(
        json.dumps({"id": "t1", "title": "When was the Eiffel Tower built and by whom?"})
        + "\n"
        + json.dumps({"id": "t2", "title": "Why does honey not spoil?"})
        + "\n",
        encoding="utf-8",
    )
    (tmp_path / "corpus.jsonl").write_text(
        "".join(json.dumps({"docid": k, "segment": v}) + "\n" for k, v in CORPUS.items()),
        encoding="utf-8",
    )
    write_rag_answers(
        tmp_path / "answers.jsonl",
        [
            RagAnswer.build(
                "bm25", "t1", [("The Eiffel Tower was completed in 1889.", [0])], ["s1"]
            ),
            RagAnswer.build("bm25", "t2", [("Honey never spoils.", [0])], ["s4"]),
            RagAnswer.build("dense", "t1", [("Gustave Eiffel built the tower.", [0])], ["s2"]),
            RagAnswer.build("dense", "t2", [("I do not know.", [])], []),
        ],
    )


def test_create_assign_score_from_files(tmp_path, capsys):
    _files(tmp_path)
    bank_path, nuggets = tmp_path / "bank.json", tmp_path / "nuggets.jsonl"
    status = main(
        [
            "nuggets", "create", str(tmp_path / "bm25.run"), str(tmp_path / "dense.run"),
            "--qrels", str(tmp_path / "qrels.txt"), "--topics", str(tmp_path / "topics.jsonl"),
            "--corpus", str(tmp_path / "corpus.jsonl"), "-o", str(bank_path),
            "--nuggets", str(nuggets), "--judge", "rule",
        ]
    )  # fmt: skip
    assert status == 0, capsys.readouterr().err
    bank = NuggetBank.read(bank_path)
    assert bank.provenance["pooled_runs"] == ["bm25.run", "dense.run"]
    # Pooled: t1 s1 and s2 (grade >= 2), t2 s4 only (s5 is graded 1).
    assert [n.text for n in bank["t2"].nuggets] == [
        "Honey never spoils because of its low water content"
    ]
    assert NuggetBank.read_nuggets(nuggets).content_hash == bank.content_hash
    assignments_path = tmp_path / "assignments.json"
    status = main(
        [
            "nuggets", "assign", str(tmp_path / "answers.jsonl"), "--bank", str(nuggets),
            "-o", str(assignments_path), "--judge", "rule", "--blind",
        ]
    )  # fmt: skip
    assert status == 0, capsys.readouterr().err
    status = main(["nuggets", "score", str(assignments_path), "--output", str(tmp_path / "values")])
    printed = capsys.readouterr().out
    assert status == 0 and "nugget_vital_strict" in printed and "bm25" in printed
    assignments = NuggetAssignments.read(assignments_path)
    assert assignments.blind
    compared = 0
    for run in ("bm25", "dense"):
        values = read_per_query(tmp_path / "values" / f"{run}.json")
        for answer in (a for a in assignments.answers if a.run_id == run):
            nuggets_of = [
                {"importance": n.importance, "assignment": label}
                for n, label in zip(
                    bank[answer.topic_id].nuggets, answer.judgements[0].labels, strict=True
                )
            ]
            theirs = calculate_nugget_scores(answer.topic_id, nuggets_of)
            assert values["nugget_all"][answer.topic_id] == theirs.all_score
            vital = values["nugget_vital"][answer.topic_id]
            if any(n["importance"] == "vital" for n in nuggets_of):
                assert vital == theirs.vital_score
            else:
                assert math.isnan(vital)
            compared += 1
    assert compared == 4


def test_input_errors_exit_2_with_a_message(tmp_path, capsys):
    _files(tmp_path)
    (tmp_path / "corpus.jsonl").write_text(
        json.dumps({"docid": "s1", "segment": CORPUS["s1"]}) + "\n", encoding="utf-8"
    )
    status = main(
        [
            "nuggets", "create", str(tmp_path / "bm25.run"), "--qrels",
            str(tmp_path / "qrels.txt"), "--topics", str(tmp_path / "topics.jsonl"),
            "--corpus", str(tmp_path / "corpus.jsonl"), "-o", str(tmp_path / "b.json"),
            "--judge", "rule",
        ]
    )  # fmt: skip
    assert status == 2
    assert "no text for pooled segment 's4'" in capsys.readouterr().err
    status = main(["nuggets", "score", str(tmp_path / "absent.json")])
    assert status == 2 and "absent.json" in capsys.readouterr().err
