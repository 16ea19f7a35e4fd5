"""Nugget assignments: which nuggets of its topic each answer of each run captures, with the
status of every judgement, and the scores they give.

:class:`NuggetAssignments` holds, per (run, topic) answer, one :class:`Judgement` per repeat:
the label of every nugget of the topic in the bank's order, or an ``error`` (the judge gave no
usable label: its reason kept, no label invented) or ``undefined`` (the topic has no nugget).
They come from the judge (:func:`ragmeter.nuggets.assign`), from nuggetizer's assignment files
(:meth:`NuggetAssignments.read_nuggetizer`: its ``failed`` label is read as an ``error``, never
as ``not_support``) or from a table of human assignments (:meth:`NuggetAssignments.from_table`).
:meth:`NuggetAssignments.scores` computes the scores of :mod:`ragmeter.nuggets.scores`.

It is a saved result (kind ``"ragmeter.nugget_assignments"``): the bank, every judgement and
what made them (the judge, the prompts' digests, the settings, ``blind``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..exceptions import InputTypeError, InvalidInputError
from ..io import read_records
from ..judges.score import STATUSES, Status
from ..reports import check_saved_head, load_report, saved_head, write_report
from .bank import Nugget, NuggetBank, TopicNuggets
from .results import NuggetScores
from .scores import CREDIT, LABELS, TWO_GRADE_LABELS

__all__ = ["ASSIGNMENTS_KIND", "AnswerAssignment", "Judgement", "NuggetAssignments"]

#: What a saved file's ``kind`` field says.
ASSIGNMENTS_KIND = "ragmeter.nugget_assignments"
#: nuggetizer's label of an assignment whose parse failed (read as an error).
_NUGGETIZER_FAILED = "failed"


@dataclass(frozen=True)
class Judgement:
    """One judgement of one answer: a label per nugget (in the bank's order) and a status.

    ``ok``: every nugget has a label. ``error``: the judge gave none usable (``labels`` all
    ``None``; ``reason_code`` and ``message`` say why). ``undefined``: nothing to judge (the
    topic has no nugget). ``reasons`` are the judge's, one per nugget, when it gave them.
    """

    labels: tuple[str | None, ...]
    status: Status = "ok"
    reason_code: str | None = None
    message: str | None = None
    reasons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise InvalidInputError(f"status must be one of {STATUSES}, got {self.status!r}")
        labels = tuple(self.labels)
        bad = [lb for lb in labels if lb is not None and lb not in CREDIT]
        if bad:
            raise InvalidInputError(
                f"labels: {bad[0]!r} is not an assignment label ({', '.join(LABELS)})"
            )
        if self.status == "ok" and any(lb is None for lb in labels):
            raise InvalidInputError("an ok judgement has a label for every nugget")
        if self.status != "ok" and any(lb is not None for lb in labels):
            raise InvalidInputError(f"a judgement with status {self.status!r} has no label")
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "reasons", tuple(self.reasons))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "labels": list(self.labels),
            "status": self.status,
            "reason_code": self.reason_code,
            "message": self.message,
            "reasons": list(self.reasons),
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Judgement:
        """A judgement from :meth:`to_dict` output (checked)."""
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"{where}: expected a judgement")
        unknown = [
            k for k in data if k not in ("labels", "status", "reason_code", "message", "reasons")
        ]
        if unknown:
            raise InvalidInputError(f"{where}.{unknown[0]}: a field ragmeter does not write")
        labels = data.get("labels")
        if not isinstance(labels, list):
            raise InvalidInputError(f"{where}.labels: expected a list")
        try:
            return cls(
                tuple(labels),
                data.get("status", "ok"),
                data.get("reason_code"),
                data.get("message"),
                tuple(str(r) for r in data.get("reasons") or ()),
            )
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}: {exc}") from None


@dataclass(frozen=True)
class AnswerAssignment:
    """The judgements (one per repeat) of one run's answer to one topic."""

    run_id: str
    topic_id: str
    judgements: tuple[Judgement, ...]
    flags: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "run_id": self.run_id,
            "topic_id": self.topic_id,
            "judgements": [j.to_dict() for j in self.judgements],
            "flags": dict(self.flags),
        }


@dataclass(frozen=True, eq=False)
class NuggetAssignments:
    """Every answer's judgements against one bank, and what made them.

    Parameters
    ----------
    bank
        The :class:`~ragmeter.nuggets.NuggetBank` the nuggets are from.
    answers
        One :class:`AnswerAssignment` per (run, topic), each judgement with one label per
        nugget of its topic.
    grades
        3 (``support``, ``partial_support``, ``not_support``) or 2 (no ``partial_support``).
    source
        What assigned the labels: ``"judge"``, ``"nuggetizer file"``, ``"table"``, ...
    judge
        Who judged (a judge identity without endpoints, as manifests record it), or None.
    settings
        The settings that change the labels (``temperature``, ``language``, ``judge_value``).
    blind
        Whether the bank and prompts were kept from the evaluated systems (declared by the
        evaluator, recorded in every manifest of the scores).

    Raises
    ------
    InvalidInputError
        A topic not in the bank, a judgement with another number of labels than the topic
        has nuggets, an answer of a run to a topic given twice, a ``partial_support`` label in
        two-grade assignments.
    """

    bank: NuggetBank
    answers: tuple[AnswerAssignment, ...]
    grades: int = 3
    source: str = "judge"
    judge: Mapping[str, Any] | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    blind: bool = False

    KIND: ClassVar[str] = ASSIGNMENTS_KIND
    FORMAT_VERSION: ClassVar[int] = 1
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = (1,)

    def __post_init__(self) -> None:
        if not isinstance(self.bank, NuggetBank):
            raise InputTypeError(f"bank: expected a NuggetBank, got {type(self.bank).__name__}")
        if self.grades not in (2, 3):
            raise InvalidInputError(f"grades must be 2 or 3, got {self.grades!r}")
        if not isinstance(self.blind, bool):
            raise InvalidInputError(f"blind must be True or False, got {self.blind!r}")
        allowed = set(LABELS if self.grades == 3 else TWO_GRADE_LABELS)
        seen: set[tuple[str, str]] = set()
        answers = tuple(self.answers)
        for answer in answers:
            key = (answer.run_id, answer.topic_id)
            if key in seen:
                raise InvalidInputError(
                    f"run {answer.run_id!r} has two answers to topic {answer.topic_id!r}"
                )
            seen.add(key)
            if answer.topic_id not in self.bank:
                raise InvalidInputError(
                    f"run {answer.run_id!r} answers topic {answer.topic_id!r}, which is not in "
                    "the bank"
                )
            n = len(self.bank[answer.topic_id].nuggets)
            for judgement in answer.judgements:
                if len(judgement.labels) != n:
                    raise InvalidInputError(
                        f"run {answer.run_id!r}, topic {answer.topic_id!r}: "
                        f"{len(judgement.labels)} labels for the topic's {n} nuggets"
                    )
                wrong = [lb for lb in judgement.labels if lb is not None and lb not in allowed]
                if wrong:
                    raise InvalidInputError(
                        f"run {answer.run_id!r}, topic {answer.topic_id!r}: {wrong[0]!r} in "
                        f"{self.grades}-grade assignments"
                    )
        object.__setattr__(self, "answers", answers)
        object.__setattr__(self, "settings", dict(self.settings))

    # -- views --------------------------------------------------------------------------------

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs, in the order of their first answer."""
        return tuple(dict.fromkeys(a.run_id for a in self.answers))

    def __iter__(self) -> Iterator[AnswerAssignment]:
        return iter(self.answers)

    def __len__(self) -> int:
        return len(self.answers)

    @property
    def n_errors(self) -> int:
        """How many judgements failed."""
        return sum(j.status == "error" for a in self.answers for j in a.judgements)

    def labels(self) -> Iterator[tuple[str, str, int, int, str | None]]:
        """Every (run, topic, nugget index, repeat, label): None for a failed judgement."""
        for answer in self.answers:
            for repeat, judgement in enumerate(answer.judgements):
                for index, label in enumerate(judgement.labels):
                    yield answer.run_id, answer.topic_id, index, repeat, label

    def scores(self) -> NuggetScores:
        """The nugget scores of every answer (see :mod:`ragmeter.nuggets.scores`)."""
        return NuggetScores.of(self)

    def __repr__(self) -> str:
        return (
            f"NuggetAssignments({len(self.runs)} runs, {len(self.answers)} answers, "
            f"{self.n_errors} failed judgements, bank {self.bank.content_hash[:12]})"
        )

    # -- other sources ------------------------------------------------------------------------

    @classmethod
    def read_nuggetizer(
        cls, path: str | os.PathLike[str], *, bank: NuggetBank | None = None, grades: int = 3
    ) -> NuggetAssignments:
        """Assignments written by nuggetizer (``assign`` output: one answer a line with
        ``qid``, ``run_id`` and its nuggets' ``text``, ``importance`` and ``assignment``),
        read through :mod:`ragmeter.io`.

        nuggetizer's ``failed`` label (its parse failed) is read as an ``error`` judgement:
        nuggetizer counts it as ``not_support``, ragmeter never does. Without ``bank`` the
        bank is the file's nuggets (the first answer of each topic gives them; every other
        answer of the topic must list the same nuggets in the same order).

        Raises
        ------
        InvalidInputError
            A line of another form (file and line named), an answer whose nuggets are not its
            topic's, an unknown label.
        """
        records = read_records(
            path, format="nuggetizer", what="a nuggetizer assignments file", noun="answer"
        )
        topics: dict[str, TopicNuggets] = {}
        rows = []
        for row, where in zip(records.rows, records.where, strict=True):
            nuggets = row["nuggets"]
            if not all(isinstance(n, Mapping) and "assignment" in n for n in nuggets):
                raise InvalidInputError(f"{where}: every nugget needs its 'assignment'")
            topic_id = row["qid"]
            if topic_id not in topics:
                try:
                    topics[topic_id] = TopicNuggets(
                        topic_id,
                        row["query"],
                        tuple(Nugget(n["text"], n.get("importance")) for n in nuggets),
                    )
                except InvalidInputError as exc:
                    raise InvalidInputError(f"{where}: {exc}") from None
            rows.append((row, where))
        the_bank = bank or NuggetBank(
            tuple(topics.values()), {"source": "nuggetizer file", "file": os.fspath(path)}
        )
        answers = []
        for row, where in rows:
            topic_id = row["qid"]
            if topic_id not in the_bank:
                raise InvalidInputError(f"{where}: topic {topic_id!r} is not in the bank")
            expected = [n.text for n in the_bank[topic_id].nuggets]
            found = [n["text"] for n in row["nuggets"]]
            if found != expected:
                raise InvalidInputError(
                    f"{where}: the nuggets of topic {topic_id!r} are not the bank's (in the "
                    "bank's order)"
                )
            labels = [n["assignment"] for n in row["nuggets"]]
            if _NUGGETIZER_FAILED in labels:
                judgement = Judgement(
                    (None,) * len(labels),
                    "error",
                    "judge_output_invalid",
                    "nuggetizer could not parse the judge's labels (its 'failed' label)",
                )
            else:
                unknown = [lb for lb in labels if lb not in CREDIT]
                if unknown:
                    raise InvalidInputError(
                        f"{where}: {unknown[0]!r} is not an assignment label ({', '.join(LABELS)}"
                        ", or nuggetizer's 'failed')"
                    )
                judgement = Judgement(tuple(labels))
            run_id = str(row.get("run_id", os.path.basename(os.fspath(path))))
            answers.append(AnswerAssignment(run_id, topic_id, (judgement,)))
        try:
            return cls(the_bank, tuple(answers), grades, "nuggetizer file")
        except InvalidInputError as exc:
            raise InvalidInputError(f"{os.fspath(path)}: {exc}") from None

    @classmethod
    def from_table(
        cls,
        rows: Any,
        bank: NuggetBank,
        *,
        grades: int = 3,
        assessor: str = "human",
        format: str | None = None,
    ) -> NuggetAssignments:
        """Assignments from a table, one nugget of one answer a row: ``topic_id``, ``run_id``,
        ``nugget`` (the nugget's position in its topic, from 0, or its text) and
        ``assignment`` (a label). ``rows``: a path (CSV, TSV, JSON lines, Parquet, read
        through :mod:`ragmeter.io`) or a list of mappings. Every nugget of every answer
        listed needs a row; a missing one is an error naming the answer and nugget.

        Raises
        ------
        InvalidInputError
            A missing column or row, a label or nugget unknown, a row given twice.
        """
        if isinstance(rows, str | os.PathLike):
            records = read_records(rows, format=format, what="a table of assignments")
            table, where = records.rows, records.where
        else:
            table = list(rows)
            where = [f"rows[{i}]" for i in range(len(table))]
        found: dict[tuple[str, str], dict[int, str]] = {}
        for row, location in zip(table, where, strict=True):
            missing = [c for c in ("topic_id", "run_id", "nugget", "assignment") if c not in row]
            if missing:
                raise InvalidInputError(f"{location}: column {missing[0]!r} missing")
            topic_id, run_id = str(row["topic_id"]), str(row["run_id"])
            if topic_id not in bank:
                raise InvalidInputError(f"{location}: topic {topic_id!r} is not in the bank")
            texts = [n.text for n in bank[topic_id].nuggets]
            index = _nugget_index(row["nugget"], texts, location)
            label = str(row["assignment"]).strip()
            if label not in CREDIT:
                raise InvalidInputError(f"{location}: {label!r} is not an assignment label")
            labels = found.setdefault((run_id, topic_id), {})
            if index in labels:
                raise InvalidInputError(
                    f"{location}: nugget {index} of run {run_id!r}, topic {topic_id!r} again"
                )
            labels[index] = label
        answers = []
        for (run_id, topic_id), labels in found.items():
            n = len(bank[topic_id].nuggets)
            absent = [i for i in range(n) if i not in labels]
            if absent:
                raise InvalidInputError(
                    f"run {run_id!r}, topic {topic_id!r}: no row for nugget {absent[0]} (every "
                    "nugget of an answer assessed needs its label)"
                )
            answers.append(
                AnswerAssignment(run_id, topic_id, (Judgement(tuple(labels[i] for i in range(n))),))
            )
        return cls(
            bank,
            tuple(answers),
            grades,
            "table",
            judge={"judge": {"kind": "human", "name": assessor}},
        )

    # -- saved form ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The saved form (JSON, YAML, TOML)."""
        return {
            **saved_head(type(self)),
            "grades": self.grades,
            "source": self.source,
            "judge": None if self.judge is None else dict(self.judge),
            "settings": dict(self.settings),
            "blind": self.blind,
            "bank": {
                k: v
                for k, v in self.bank.to_dict().items()
                if k not in ("kind", "format_version", "ragmeter_version")
            },
            "answers": [a.to_dict() for a in self.answers],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NuggetAssignments:
        """Assignments from :meth:`to_dict` output (every field checked)."""
        check_saved_head(data, cls, "nugget assignments")
        fields = (
            "kind",
            "format_version",
            "ragmeter_version",
            "grades",
            "source",
            "judge",
            "settings",
            "blind",
            "bank",
            "answers",
        )
        for key in data:
            if key not in fields:
                raise InvalidInputError(f"{key}: a field ragmeter does not write")
        bank_data = data.get("bank")
        if not isinstance(bank_data, Mapping):
            raise InvalidInputError("bank: expected a mapping")
        bank = NuggetBank.from_dict({**saved_head(NuggetBank), **bank_data})
        answers = []
        for i, answer in enumerate(data.get("answers") or []):
            if not isinstance(answer, Mapping) or not isinstance(answer.get("judgements"), list):
                raise InvalidInputError(f"answers[{i}]: expected an answer with judgements")
            answers.append(
                AnswerAssignment(
                    str(answer.get("run_id")),
                    str(answer.get("topic_id")),
                    tuple(
                        Judgement.from_dict(j, f"answers[{i}].judgements[{k}]")
                        for k, j in enumerate(answer["judgements"])
                    ),
                    dict(answer.get("flags") or {}),
                )
            )
        judge = data.get("judge")
        settings = data.get("settings") or {}
        if judge is not None and not isinstance(judge, Mapping):
            raise InvalidInputError("judge: expected a mapping or null")
        if not isinstance(settings, Mapping):
            raise InvalidInputError("settings: expected a mapping")
        return cls(
            bank,
            tuple(answers),
            data.get("grades", 3),
            str(data.get("source", "judge")),
            judge,
            settings,
            data.get("blind", False),
        )

    def to_rows(self) -> list[dict[str, Any]]:
        """JSON lines: the whole form as one row (a bank and its answers belong together)."""
        return [self.to_dict()]

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> NuggetAssignments:
        """Assignments from :meth:`to_rows` output."""
        if len(rows) != 1:
            raise InvalidInputError(f"nugget assignments are one row, got {len(rows)}")
        return cls.from_dict(rows[0])

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
        """Write the assignments (with their bank), atomically, with a checksum."""
        return write_report(self, path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> NuggetAssignments:
        """Read assignments written by :meth:`write`."""
        return load_report(cls, path, format=format)


def _nugget_index(value: Any, texts: Sequence[str], where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        index = value
    elif isinstance(value, str) and value.strip().isdigit() and value not in texts:
        index = int(value)
    elif isinstance(value, str) and value in texts:
        return texts.index(value)
    else:
        raise InvalidInputError(
            f"{where}: nugget {value!r} is neither a position in its topic nor one of its nuggets"
        )
    if not 0 <= index < len(texts):
        raise InvalidInputError(
            f"{where}: nugget {index} is out of range (the topic has {len(texts)} nuggets)"
        )
    return index
