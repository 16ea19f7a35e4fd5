"""Nugget banks: the atomic facts a good answer to each topic covers, with their importance.

A :class:`NuggetBank` holds, per topic, its query and its nuggets in decreasing order of
importance (each ``vital``: must be present in a good answer, or ``okay``: worthwhile, not
essential; ``None`` before importance is labelled), and where they came from: the runs whose
relevant segments were pooled, the judge that wrote and labelled them and its prompts' digests,
the settings of the pooling. Its :attr:`~NuggetBank.content_hash` (SHA-256 of the topics,
queries and nuggets, nothing else) names the bank in every result scored against it: two sets
of scores are compared only when they were scored against the same bank.

It is a saved result (kind ``"ragmeter.nugget_bank"``, JSON, YAML or TOML, or JSON lines, one
topic a line), checksummed like every saved result, so a bank damaged or changed after it was
written is refused. To edit a bank by hand, write its nuggets in nuggetizer's form
(:meth:`NuggetBank.write_nuggets`: one ``{"qid", "query", "nuggets": [{"text",
"importance"}]}`` a line), edit that file, and read it back with
:meth:`NuggetBank.read_nuggets` (``based_on=`` the bank it was written from: the edited bank
keeps its provenance and records the hash it was edited from). Banks written by nuggetizer
(``create_nuggets.py``/``nuggetizer create``) and NIST's nugget files of that form are read the
same way.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from .._files import atomic_write_text
from ..exceptions import InputTypeError, InvalidInputError
from ..io import read_records
from ..reports import check_saved_head, load_report, saved_head, write_report

__all__ = [
    "BANK_KIND",
    "IMPORTANCES",
    "Importance",
    "Nugget",
    "NuggetBank",
    "TopicNuggets",
]

Importance = Literal["vital", "okay"]
#: The importance labels, most important first.
IMPORTANCES: tuple[str, ...] = ("vital", "okay")
#: What a saved bank's ``kind`` field says.
BANK_KIND = "ragmeter.nugget_bank"
_TOPIC_FIELDS = ("topic_id", "query", "nuggets")
_NUGGET_FIELDS = ("text", "importance")
_SAVED_FIELDS = (
    "kind",
    "format_version",
    "ragmeter_version",
    "content_hash",
    "provenance",
    "topics",
)


@dataclass(frozen=True)
class Nugget:
    """One atomic fact of a topic: its text and importance (``"vital"``, ``"okay"`` or
    ``None`` when not labelled).

    Raises
    ------
    InvalidInputError
        An empty text, an importance that is not ``vital``, ``okay`` or None.
    """

    text: str
    importance: Importance | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise InvalidInputError(
                f"a nugget's text must be a non-empty string, got {self.text!r}"
            )
        if self.importance is not None and self.importance not in IMPORTANCES:
            raise InvalidInputError(
                f"a nugget's importance must be 'vital', 'okay' or None, got {self.importance!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "importance"}`` (nuggetizer's form)."""
        return {"text": self.text, "importance": self.importance}


@dataclass(frozen=True)
class TopicNuggets:
    """One topic of a bank: its id, its query and its nuggets (most important first)."""

    topic_id: str
    query: str
    nuggets: tuple[Nugget, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.topic_id, str) or not self.topic_id:
            raise InvalidInputError(f"topic_id must be a non-empty string, got {self.topic_id!r}")
        if not isinstance(self.query, str):
            raise InvalidInputError(f"query of topic {self.topic_id!r} must be a string")
        nuggets = tuple(self.nuggets)
        for nugget in nuggets:
            if not isinstance(nugget, Nugget):
                raise InputTypeError(
                    f"nuggets of topic {self.topic_id!r} must be Nugget objects, got "
                    f"{type(nugget).__name__}"
                )
        texts = [n.text for n in nuggets]
        repeated = sorted({t for t in texts if texts.count(t) > 1})
        if repeated:
            raise InvalidInputError(
                f"topic {self.topic_id!r} lists the nugget {repeated[0]!r} twice: a nugget "
                "counted twice weighs twice in every score; remove the copy"
            )
        object.__setattr__(self, "nuggets", nuggets)

    @property
    def n_vital(self) -> int:
        """How many nuggets are vital."""
        return sum(1 for n in self.nuggets if n.importance == "vital")

    def to_dict(self) -> dict[str, Any]:
        """``{"topic_id", "query", "nuggets": [...]}``."""
        return {
            "topic_id": self.topic_id,
            "query": self.query,
            "nuggets": [n.to_dict() for n in self.nuggets],
        }


def _content_hash(topics: Iterable[TopicNuggets]) -> str:
    material = [t.to_dict() for t in topics]
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _nugget_from(data: Any, where: str) -> Nugget:
    if isinstance(data, str):
        return Nugget(data)
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"{where}: expected a nugget {{text, importance}}, got {data!r}")
    unknown = [k for k in data if k not in (*_NUGGET_FIELDS, "assignment", "reasoning")]
    if unknown:
        raise InvalidInputError(f"{where}.{unknown[0]}: not a field of a nugget")
    if "text" not in data:
        raise InvalidInputError(f"{where}.text: missing")
    try:
        return Nugget(data["text"], data.get("importance"))
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None


def _topic_from(data: Any, where: str) -> TopicNuggets:
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"{where}: expected a topic, got {type(data).__name__}")
    unknown = [k for k in data if k not in _TOPIC_FIELDS]
    if unknown:
        raise InvalidInputError(f"{where}.{unknown[0]}: a field ragmeter does not write")
    for key in _TOPIC_FIELDS:
        if key not in data:
            raise InvalidInputError(f"{where}.{key}: missing")
    nuggets = data["nuggets"]
    if not isinstance(nuggets, list):
        raise InvalidInputError(f"{where}.nuggets: expected a list")
    try:
        return TopicNuggets(
            data["topic_id"],
            data["query"],
            tuple(_nugget_from(n, f"{where}.nuggets[{i}]") for i, n in enumerate(nuggets)),
        )
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None


@dataclass(frozen=True, eq=False)
class NuggetBank:
    """The nuggets of every topic, with where they came from (see the module documentation).

    Parameters
    ----------
    topics
        The topics, in order (distinct ids).
    provenance
        JSON-ready facts about how the bank was made: ``source`` (``"ragmeter"``,
        ``"nuggetizer file"``, ...), ``pooled_runs``, ``judge``, ``prompts`` (name@version ->
        digest), ``settings`` (threshold, depth, window, maximum nuggets), ``edited_from``
        (the hash of the bank an edited one was written from).

    Raises
    ------
    InvalidInputError
        A topic given twice, provenance that is not a mapping.

    Examples
    --------
    >>> bank = NuggetBank([TopicNuggets("t1", "who wrote hamlet",
    ...                                 (Nugget("Shakespeare wrote Hamlet", "vital"),))])
    >>> bank["t1"].n_vital, len(bank.content_hash)
    (1, 64)
    """

    topics: tuple[TopicNuggets, ...]
    provenance: Mapping[str, Any] = field(default_factory=dict)

    #: What a saved bank's ``kind`` field says.
    KIND: ClassVar[str] = BANK_KIND
    #: The format :meth:`write` writes.
    FORMAT_VERSION: ClassVar[int] = 1
    #: The formats :meth:`read` reads.
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = (1,)

    def __post_init__(self) -> None:
        topics = tuple(self.topics)
        seen: set[str] = set()
        for topic in topics:
            if not isinstance(topic, TopicNuggets):
                raise InputTypeError(f"topics: expected TopicNuggets, got {type(topic).__name__}")
            if topic.topic_id in seen:
                raise InvalidInputError(f"topics: topic {topic.topic_id!r} is given twice")
            seen.add(topic.topic_id)
        if not isinstance(self.provenance, Mapping):
            raise InvalidInputError("provenance: expected a mapping")
        object.__setattr__(self, "topics", topics)
        object.__setattr__(self, "provenance", dict(self.provenance))
        object.__setattr__(self, "_by_id", {t.topic_id: t for t in topics})

    # -- views --------------------------------------------------------------------------------

    @property
    def content_hash(self) -> str:
        """SHA-256 of the topics' ids, queries and nuggets (text and importance), in order."""
        return _content_hash(self.topics)

    @property
    def topic_ids(self) -> tuple[str, ...]:
        """The topics' ids, in order."""
        return tuple(t.topic_id for t in self.topics)

    def __getitem__(self, topic_id: str) -> TopicNuggets:
        by_id: dict[str, TopicNuggets] = self.__dict__["_by_id"]
        if topic_id not in by_id:
            raise KeyError(f"topic {topic_id!r} is not in the bank")
        return by_id[topic_id]

    def __contains__(self, topic_id: object) -> bool:
        return topic_id in self.__dict__["_by_id"]

    def __iter__(self) -> Iterator[TopicNuggets]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NuggetBank):
            return NotImplemented
        return self.topics == other.topics and self.provenance == other.provenance

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        n = sum(len(t.nuggets) for t in self.topics)
        return f"NuggetBank({len(self.topics)} topics, {n} nuggets, {self.content_hash[:12]})"

    def describe(self) -> dict[str, Any]:
        """What results scored against the bank record of it: its hash, its size, and its
        provenance's source, judge and prompt digests."""
        return {
            "content_hash": self.content_hash,
            "n_topics": len(self.topics),
            "n_nuggets": sum(len(t.nuggets) for t in self.topics),
            **{
                key: self.provenance[key]
                for key in ("source", "judge", "prompts", "edited_from")
                if key in self.provenance
            },
        }

    # -- saved form ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The saved form (JSON, YAML, TOML)."""
        return {
            **saved_head(type(self)),
            "content_hash": self.content_hash,
            "provenance": dict(self.provenance),
            "topics": [t.to_dict() for t in self.topics],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NuggetBank:
        """A bank from :meth:`to_dict` output (every field checked; the recorded content hash
        must be the content's)."""
        check_saved_head(data, cls, "a nugget bank")
        for key in data:
            if key not in _SAVED_FIELDS:
                raise InvalidInputError(f"{key}: a field ragmeter does not write")
        topics = data.get("topics")
        if not isinstance(topics, list):
            raise InvalidInputError("topics: expected a list")
        provenance = data.get("provenance", {})
        if not isinstance(provenance, Mapping):
            raise InvalidInputError("provenance: expected a mapping")
        bank = cls(tuple(_topic_from(t, f"topics[{i}]") for i, t in enumerate(topics)), provenance)
        if data.get("content_hash") != bank.content_hash:
            raise InvalidInputError(
                f"content_hash: {data.get('content_hash')!r} recorded, {bank.content_hash!r} "
                "computed: the nuggets were changed"
            )
        return bank

    def to_rows(self) -> list[dict[str, Any]]:
        """One row per topic (JSON lines), the first with the head and provenance."""
        head = {**saved_head(type(self)), "provenance": dict(self.provenance)}
        return [
            {**(head if i == 0 else {"kind": self.KIND}), **t.to_dict()}
            for i, t in enumerate(self.topics)
        ]

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> NuggetBank:
        """A bank from :meth:`to_rows` output."""
        if not rows:
            raise InvalidInputError("a nugget bank's rows: none")
        check_saved_head(rows[0], cls, "a nugget bank")
        provenance = rows[0].get("provenance", {})
        topics = []
        for i, row in enumerate(rows):
            body = {k: v for k, v in row.items() if k in _TOPIC_FIELDS}
            extra = [
                k
                for k in row
                if k not in _TOPIC_FIELDS
                and k
                not in (
                    ("kind",) if i else ("kind", "format_version", "ragmeter_version", "provenance")
                )
            ]
            if extra:
                raise InvalidInputError(f"row {i + 1}.{extra[0]}: a field ragmeter does not write")
            topics.append(_topic_from(body, f"row {i + 1}"))
        if not isinstance(provenance, Mapping):
            raise InvalidInputError("row 1.provenance: expected a mapping")
        return cls(tuple(topics), provenance)

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
        """Write the bank, atomically, with its count and checksum (format from the suffix)."""
        return write_report(self, path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> NuggetBank:
        """Read a bank written by :meth:`write` (its checksum checked: a bank edited by hand
        is refused; see :meth:`read_nuggets`)."""
        return load_report(cls, path, format=format)

    # -- nuggetizer's form: what people edit --------------------------------------------------

    def write_nuggets(self, path: str | os.PathLike[str]) -> Path:
        """Write the nuggets in nuggetizer's form, one topic a line: ``{"qid", "query",
        "nuggets": [{"text", "importance"}]}`` (the form to edit by hand)."""
        lines = [
            json.dumps(
                {"qid": t.topic_id, "query": t.query, "nuggets": [n.to_dict() for n in t.nuggets]},
                ensure_ascii=False,
            )
            + "\n"
            for t in self.topics
        ]
        return atomic_write_text(path, "".join(lines))

    @classmethod
    def read_nuggets(
        cls, path: str | os.PathLike[str], *, based_on: NuggetBank | None = None
    ) -> NuggetBank:
        """A bank from a nuggets file in nuggetizer's form (written by nuggetizer, by NIST in
        that form, or by :meth:`write_nuggets` and edited), read through :mod:`ragmeter.io`.

        Each line: ``qid`` (or ``topic_id``), ``query`` (a string, or nuggetizer's
        ``{"qid", "text"}``), ``nuggets`` (``{"text", "importance"}`` objects or strings).
        ``based_on``: the bank the file was written from; the new bank keeps its provenance
        and records ``edited_from`` (its hash) when the nuggets differ.

        Raises
        ------
        InvalidInputError
            A line that is not such a topic (named by file and line), a topic given twice.
        """
        records = read_records(path, format="nuggetizer", what="a nuggets file", noun="topic")
        topics = []
        for row, where in zip(records.rows, records.where, strict=True):
            topic_id, query = row["qid"], row["query"]
            try:
                topics.append(
                    TopicNuggets(
                        topic_id,
                        query,
                        tuple(
                            _nugget_from(n, f"nuggets[{i}]") for i, n in enumerate(row["nuggets"])
                        ),
                    )
                )
            except InvalidInputError as exc:
                raise InvalidInputError(f"{where}: {exc}") from None
        provenance: dict[str, Any] = {"source": "nuggets file", "file": os.fspath(path)}
        if based_on is not None:
            provenance = {**based_on.provenance, "file": os.fspath(path)}
        try:
            bank = cls(tuple(topics), provenance)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{os.fspath(path)}: {exc}") from None
        if based_on is not None and bank.content_hash != based_on.content_hash:
            bank = cls(bank.topics, {**provenance, "edited_from": based_on.content_hash})
        return bank
