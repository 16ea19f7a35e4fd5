"""Generated answers in the TREC RAG format (2024 and 2025), read and written byte for byte.

:func:`read_rag_answers` reads a file through :mod:`ragmeter.io` (the row ``trec_rag`` of its
format table: every line checked, errors naming the file and line) into :class:`RagAnswer`
objects; :func:`write_rag_answers` writes them back as ragnarok writes them, so a file written
by ragnarok or by ragmeter and read back is written again unchanged, byte for byte (every key
of a line is kept, in its order, in :attr:`RagAnswer.raw`).

A :class:`RagAnswer` gives its sentences and their citations (indices into ``references``;
the 2025 format 2, segment ids, is read as the indices of those ids) and becomes a judged
:class:`~ragmeter.judges.Sample` with :meth:`RagAnswer.sample` (the answer's text, the cited
segments' texts as contexts, the citations).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._files import atomic_write_text
from ..exceptions import InvalidInputError
from ..io import dumps_trec_rag, read_records, trec_rag_form
from ..judges.sample import CitedSentence, Sample

__all__ = ["RagAnswer", "read_rag_answers", "write_rag_answers"]


@dataclass(frozen=True, eq=False)
class RagAnswer:
    """One generated answer of one run to one topic, as a TREC RAG answer file holds it.

    Attributes
    ----------
    run_id, topic_id
        Which run answered which topic (2025: ``metadata.run_id`` and
        ``metadata.narrative_id``).
    topic
        The topic's text when the line gives it (2024 ``topic``, 2025
        ``metadata.narrative``), else ``None``.
    references
        The segment ids the answer cites from.
    sentences
        The answer's sentences, each with the indices into ``references`` it cites.
    form
        2024 or 2025.
    raw
        The line as read (every key, in order): what :func:`write_rag_answers` writes.
    """

    run_id: str
    topic_id: str
    topic: str | None
    references: tuple[str, ...]
    sentences: tuple[CitedSentence, ...]
    form: int = 2025
    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Mapping[str, Any], where: str = "answer") -> RagAnswer:
        """An answer from one parsed line (either form).

        Raises
        ------
        InvalidInputError
            Not a TREC RAG answer (the message names ``where`` and the field).
        """
        try:
            form = trec_rag_form(row)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}: {exc}") from None
        if form == 2025:
            metadata = row["metadata"]
            run_id, topic_id = metadata["run_id"], metadata["narrative_id"]
            topic = metadata.get("narrative")
        else:
            run_id, topic_id, topic = row["run_id"], row["topic_id"], row.get("topic")
        references = tuple(row.get("references") or ())
        position = {ref: i for i, ref in reversed(list(enumerate(references)))}
        sentences = []
        for i, sentence in enumerate(row.get("answer") or ()):
            cited = tuple(
                c if isinstance(c, int) else position.get(c, -1) for c in sentence["citations"]
            )
            if any(c < 0 or c >= len(references) for c in cited):
                raise InvalidInputError(f"{where}: answer[{i}].citations: not in references")
            sentences.append(CitedSentence(sentence["text"], cited))
        return cls(
            str(run_id),
            str(topic_id),
            topic if isinstance(topic, str) else None,
            references,
            tuple(sentences),
            form,
            dict(row),
        )

    @classmethod
    def build(
        cls,
        run_id: str,
        topic_id: str,
        sentences: Iterable[tuple[str, Sequence[int]] | CitedSentence],
        references: Sequence[str] = (),
        *,
        topic: str = "",
        team_id: str = "",
        form: int = 2025,
    ) -> RagAnswer:
        """A new answer in the 2025 form (``metadata``, ``references``, ``answer``) or the
        2024 one (``run_id``, ``topic_id``, ``topic``, ``references``, ``response_length``,
        ``answer``; the length counted as ragnarok's checker counts it)."""
        cited = [CitedSentence(s[0], tuple(s[1])) for s in sentences]
        answer = [{"text": s.text, "citations": list(s.citations)} for s in cited]
        row: dict[str, Any]
        if form == 2025:
            row = {
                "metadata": {
                    "team_id": team_id,
                    "run_id": run_id,
                    "narrative_id": topic_id,
                    "narrative": topic,
                    "type": "automatic",
                },
                "references": list(references),
                "answer": answer,
            }
        elif form == 2024:
            length = sum(len(unicodedata.normalize("NFKC", s.text.strip()).split()) for s in cited)
            row = {
                "run_id": run_id,
                "topic_id": topic_id,
                "topic": topic,
                "references": list(references),
                "response_length": length,
                "answer": answer,
            }
        else:
            raise InvalidInputError(f"form must be 2024 or 2025, got {form!r}")
        return cls.from_row(row)

    @property
    def text(self) -> str:
        """The answer's sentences joined by spaces."""
        return " ".join(s.text.strip() for s in self.sentences)

    def sample(self, query: str, segments: Mapping[str, str] | None = None) -> Sample:
        """The answer as a judged :class:`~ragmeter.judges.Sample`: its text, its sentences
        with their citations, and (with ``segments``, ``{segment id: text}``) the texts of its
        references as contexts (a reference without a text leaves the contexts ``None``: a
        citation metric is then ``undefined``, ``missing_contexts``)."""
        contexts: tuple[str, ...] | None = None
        if segments is not None and all(r in segments for r in self.references):
            contexts = tuple(segments[r] for r in self.references)
        return Sample(
            query,
            self.text,
            contexts,
            id=f"{self.run_id}/{self.topic_id}",
            citations=self.sentences,
        )


def read_rag_answers(path: str | os.PathLike[str]) -> list[RagAnswer]:
    """Every answer of a TREC RAG answer file (2024 or 2025 form), read through
    :mod:`ragmeter.io`.

    Raises
    ------
    InvalidInputError
        A line that is not such an answer, named by file and line; an answer of a run to a
        topic given twice.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
    >>> answer = RagAnswer.build("r1", "t1", [("Paris is in France.", [0])], ["seg_0"])
    >>> _ = write_rag_answers(path, [answer])
    >>> [(a.run_id, a.topic_id, a.sentences[0].citations) for a in read_rag_answers(path)]
    [('r1', 't1', (0,))]
    """
    records = read_records(path, format="trec_rag", what="a TREC RAG answer file", noun="answer")
    answers = []
    seen: dict[tuple[str, str], str] = {}
    for row, where in zip(records.rows, records.where, strict=True):
        answer = RagAnswer.from_row(row, where)
        key = (answer.run_id, answer.topic_id)
        if key in seen:
            raise InvalidInputError(
                f"{where}: run {answer.run_id!r} answers topic {answer.topic_id!r} again (first "
                f"at {seen[key]}); keep one answer per run and topic"
            )
        seen[key] = where
        answers.append(answer)
    return answers


def write_rag_answers(path: str | os.PathLike[str], answers: Iterable[RagAnswer]) -> Path:
    """Write answers as a TREC RAG answer file, one line each as ragnarok writes it
    (``json.dumps`` defaults), atomically; a line read keeps its keys and their order."""
    return atomic_write_text(path, "".join(dumps_trec_rag(a.raw) for a in answers))
