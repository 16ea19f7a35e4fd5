"""TREC RAG answer files (2024 and 2025 forms): ragnarok's own checkers (peers/, commit 7233fa7)
accept what ragmeter writes, ragmeter reads what they accept, round trips are byte-stable, and a
malformed line is refused naming the file and line."""

from __future__ import annotations

import json

import pytest

from ragmeter import InvalidInputError
from ragmeter.nuggets import RagAnswer, read_rag_answers, write_rag_answers

from .peers import ragnarok_rag24_validation as rag24
from .peers import ragnarok_rag25_validation as rag25

SEGMENTS = [
    "msmarco_v2.1_doc_13_1647729865#2_3617397938",
    "msmarco_v2.1_doc_51_766815931#0_1606878413",
]


class _Log:
    def __init__(self) -> None:
        self.error_count = 0
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, line: int, msg: str) -> None:
        self.error_count += 1
        self.errors.append(f"{line}: {msg}")

    def warn(self, line: int, msg: str) -> None:
        self.warnings.append(f"{line}: {msg}")


def _answers(form: int) -> list[RagAnswer]:
    return [
        RagAnswer.build(
            "ragmeter-run",
            topic,
            [
                ("The Eiffel Tower is 330 m tall \u2014 taller than planned.", [0, 1]),
                ("It was finished in 1889.", [1]),
                ("Its designer was Gustave Eiffel.", []),
            ],
            SEGMENTS,
            topic=f"topic text {topic}",
            team_id="rm",
            form=form,
        )
        for topic in ("2024-105741", "2024-96359")
    ]


def test_ragnaroks_2025_checker_accepts_what_ragmeter_writes(tmp_path):
    path = write_rag_answers(tmp_path / "run.jsonl", _answers(2025))
    topics = tmp_path / "topics.jsonl"
    topics.write_text(
        "".join(
            json.dumps({"id": t, "title": f"topic text {t}"}) + "\n"
            for t in ("2024-105741", "2024-96359")
        ),
        encoding="utf-8",
    )
    summary = rag25.validate_rag25_entries(input_path=str(path), topics_path=str(topics))
    assert summary["valid"] and summary["error_count"] == 0
    for line in path.read_text(encoding="utf-8").splitlines():
        errors, warnings = rag25.validate_entry(
            json.loads(line), 1, {"2024-105741": "", "2024-96359": ""}
        )
        assert errors == [] and "optional field 'type' is missing from metadata" not in warnings


def test_ragnaroks_2024_checker_accepts_what_ragmeter_writes(tmp_path):
    path = write_rag_answers(tmp_path / "run.jsonl", _answers(2024))
    topics = tmp_path / "topics.tsv"
    topics.write_text(
        "2024-105741\ttopic text 2024-105741\n2024-96359\ttopic text 2024-96359\n", encoding="utf-8"
    )
    log = _Log()
    rag24.check_rag24_run(topicfile=str(topics), runfile=str(path), log=log)
    assert log.error_count == 0, log.errors
    # Its length count (NFKC words) is the one ragmeter wrote: no "not equal" warning.
    assert not [w for w in log.warnings if "not equal" in w]


@pytest.mark.parametrize("form", [2024, 2025])
def test_round_trips_are_byte_stable(tmp_path, form):
    first = write_rag_answers(tmp_path / "a.jsonl", _answers(form))
    answers = read_rag_answers(first)
    second = write_rag_answers(tmp_path / "b.jsonl", answers)
    assert first.read_bytes() == second.read_bytes()
    assert [a.sentences[0].citations for a in answers] == [(0, 1), (0, 1)]
    assert {a.form for a in answers} == {form}


def test_a_file_ragnarok_wrote_is_written_back_byte_for_byte(tmp_path):
    """ragnarok writes json.dumps(entry) lines (rag25_validation's fixed file): keys it does not
    know (prompt, extra metadata) are kept, in their order."""
    entries = [
        {
            "metadata": {
                "team_id": "t",
                "run_id": "r",
                "narrative_id": "n1",
                "narrative": "caf\u00e9",
                "type": "automatic",
                "prompt": "You are ...",
            },
            "references": SEGMENTS,
            "answer": [{"text": "Un caf\u00e9.", "citations": [1]}],
            "extra": {"k": [1, 2.5, None]},
        }
    ]
    path = tmp_path / "ragnarok.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    again = write_rag_answers(tmp_path / "again.jsonl", read_rag_answers(path))
    assert again.read_bytes() == path.read_bytes()


def test_format_2_citations_are_read_as_indices(tmp_path):
    entry = {
        "metadata": {"team_id": "t", "run_id": "r", "narrative_id": "n1"},
        "references": SEGMENTS,
        "answer": [{"text": "x", "citations": [SEGMENTS[1]]}],
    }
    path = tmp_path / "f2.jsonl"
    path.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    assert rag25.validate_entry(entry, 2, {"n1": ""})[0] == []
    (answer,) = read_rag_answers(path)
    assert answer.sentences[0].citations == (1,)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"metadata": {"run_id": "r"}, "references": [], "answer": []}', "narrative_id"),
        (
            '{"metadata": {"run_id": "r", "narrative_id": "n"}, "references": ["a"], '
            '"answer": [{"text": "x", "citations": [1]}]}',
            "out of range",
        ),
        (
            '{"metadata": {"run_id": "r", "narrative_id": "n"}, "references": ["a"], '
            '"answer": [{"text": "x"}]}',
            "citations",
        ),
        (
            '{"run_id": "r", "topic_id": "t", "topic": "q", "references": [], "answer": [],'
            ' "answer": []}',
            "twice",
        ),
        ('{"run_id": "r", "topic_id": "t", "references": [], "answer": []}', "topic"),
        ("[1, 2]", "one JSON object"),
        (
            '{"metadata": {"run_id": "r", "narrative_id": "n"}, "references": ["a"], '
            '"answer": [{"text": "x", "citations": [true]}]}',
            "neither an index",
        ),
    ],
)
def test_a_malformed_line_is_refused_naming_file_and_line(tmp_path, line, message):
    good = json.dumps(
        {"metadata": {"run_id": "r", "narrative_id": "ok"}, "references": [], "answer": []}
    )
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as error:
        read_rag_answers(path)
    assert f"{path}:2" in str(error.value) and message in str(error.value)


def test_a_run_answering_a_topic_twice_is_refused(tmp_path):
    path = write_rag_answers(tmp_path / "run.jsonl", _answers(2025)[:1] * 2)
    with pytest.raises(InvalidInputError, match="answers topic '2024-105741' again"):
        read_rag_answers(path)


def test_an_answer_becomes_a_sample_with_its_citations():
    answer = _answers(2025)[0]
    sample = answer.sample("how tall", {SEGMENTS[0]: "seg zero", SEGMENTS[1]: "seg one"})
    assert sample.contexts == ("seg zero", "seg one")
    assert [c.citations for c in sample.citations] == [(0, 1), (1,), ()]
    assert sample.answer.startswith("The Eiffel Tower")
    assert answer.sample("how tall").contexts is None
