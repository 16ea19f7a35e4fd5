"""What a judged sample holds, and the one place where user inputs become samples.

Inputs are :class:`Sample` objects, dicts, DataFrames (one row per sample), or objects with
fields (dataclasses such as embedchain's ``EvalData``, pydantic models such as ragas'
``SingleTurnSample`` or DeepEval's ``LLMTestCase``). Every field is read or refused: a key that
is neither a field of :class:`Sample` nor one of the aliases below is an error naming it, the
known names and the closest one, so that a misspelt ``passages`` never silently leaves the
contexts empty. Fields of objects that are unset (``None``) are skipped.

======================  ==========  =====================================================
field                   alias of    used by
======================  ==========  =====================================================
``user_input``          question    ragas
``response``            answer      ragas
``retrieved_contexts``  contexts    ragas
``reference``           reference   ragas (ragmeter's own name)
``input``               question    DeepEval
``actual_output``       answer      DeepEval
``expected_output``     reference   DeepEval
``retrieval_context``   contexts    DeepEval
``context``             contexts    DeepEval (its ideal context), embedchain's prompts
``ground_truth``        reference   embedchain's ``EvalData``, ragas 0.1
``query``               question    common
``reference_answer``    reference   common
``sample_id``           id          common
======================  ==========  =====================================================

A field a sample does not have stays ``None`` ("not given"), which is not the same as empty:
``contexts=None`` means the input holds no contexts at all (a metric that needs them gives
``undefined`` with reason ``missing_contexts``), ``contexts=[]`` means the retriever found
nothing (groundedness and faithfulness score that 0.0).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..exceptions import InvalidInputError
from .score import jsonable

__all__ = [
    "FIELDS",
    "FIELD_ALIASES",
    "CitedSentence",
    "Sample",
    "coerce_samples",
    "sample_from_dict",
    "unknown_field",
]

FIELDS: tuple[str, ...] = (
    "question",
    "answer",
    "contexts",
    "reference",
    "answer_b",
    "id",
    "metadata",
    "citations",
)
FIELD_ALIASES: dict[str, str] = {
    "user_input": "question",
    "response": "answer",
    "retrieved_contexts": "contexts",
    "input": "question",
    "actual_output": "answer",
    "expected_output": "reference",
    "retrieval_context": "contexts",
    "context": "contexts",
    "ground_truth": "reference",
    "query": "question",
    "reference_answer": "reference",
    "sample_id": "id",
}
# Names people use for a field that are not accepted (they are ambiguous elsewhere), only
# suggested: "did you mean 'contexts'?" beats difflib's nearest spelling for "passages".
_SUGGESTIONS: dict[str, str] = {
    **dict.fromkeys(
        (
            "passages",
            "passage",
            "documents",
            "document",
            "docs",
            "chunks",
            "retrieved",
            "retrieved_documents",
            "retrieved_passages",
            "sources",
            "ctx",
            "contexts_list",
        ),
        "contexts",
    ),
    **dict.fromkeys(
        ("prediction", "output", "generated_answer", "generation", "completion", "answers"),
        "answer",
    ),
    **dict.fromkeys(
        ("ground_truths", "gold", "gold_answer", "expected", "target", "label", "references"),
        "reference",
    ),
    **dict.fromkeys(("prompt", "user_query", "questions", "q"), "question"),
}


class CitedSentence(NamedTuple):
    """One sentence of an answer and the contexts it cites (indices into the sample's
    ``contexts``), as a TREC RAG answer gives it (``{"text", "citations"}``)."""

    text: str
    citations: tuple[int, ...] = ()


def _cited_sentences(value: Any) -> tuple[CitedSentence, ...]:
    """``Sample.citations`` from sentences given as ``CitedSentence``, ``{"text",
    "citations"}`` mappings or ``(text, citations)`` pairs."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise InvalidInputError(
            "Sample.citations must be a list of sentences, each {'text': ..., 'citations': "
            f"[context indices]}}, got {type(value).__name__}"
        )
    sentences = []
    for i, item in enumerate(value):
        if isinstance(item, Mapping):
            text, cited = item.get("text"), item.get("citations", ())
        elif isinstance(item, tuple | list) and len(item) == 2:
            text, cited = item
        else:
            raise InvalidInputError(
                f"Sample.citations[{i}] must be {{'text': ..., 'citations': [...]}}, got "
                f"{type(item).__name__}"
            )
        if not isinstance(text, str):
            raise InvalidInputError(f"Sample.citations[{i}].text must be a str")
        if isinstance(cited, str | bytes) or not isinstance(cited, Iterable):
            raise InvalidInputError(f"Sample.citations[{i}].citations must be a list of indices")
        indices = tuple(cited)
        bad = [c for c in indices if isinstance(c, bool) or not isinstance(c, int) or c < 0]
        if bad:
            raise InvalidInputError(
                f"Sample.citations[{i}].citations: {bad[0]!r} is not an index into the "
                "sample's contexts (a non-negative integer)"
            )
        sentences.append(CitedSentence(text, indices))
    return tuple(sentences)


@dataclass(frozen=True)
class Sample:
    """One generated answer to judge.

    Parameters
    ----------
    question
        The user's question (required).
    answer
        The generated answer; ``None`` when not given.
    contexts
        The retrieved chunks in rank order (strings, or objects with a ``text``,
        ``content`` or ``page_content`` field); ``None`` when not given, ``()`` when the
        retriever found nothing.
    reference
        A ground-truth answer (needed by ``context_precision`` and
        ``context_recall``).
    answer_b
        The second answer of a pairwise preference.
    id
        Names the sample in reports (default: its position in the input).
    metadata
        Anything to carry along; never read by a metric.
    citations
        The answer's sentences with the contexts each cites (:class:`CitedSentence`, or
        ``{"text", "citations": [indices into contexts]}``, as a TREC RAG answer has them);
        ``None`` when not given (citation metrics are then ``undefined``,
        ``missing_citations``), ``()`` for an answer without sentences.

    Raises
    ------
    InvalidInputError
        a field has the wrong type.

    Examples
    --------
    >>> Sample("Who wrote Hamlet?", "Shakespeare.", ["Hamlet is by Shakespeare."]).contexts
    ('Hamlet is by Shakespeare.',)
    """

    question: str
    answer: str | None = None
    contexts: tuple[str, ...] | None = None
    reference: str | None = None
    answer_b: str | None = None
    id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    citations: tuple[CitedSentence, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.question, str):
            raise InvalidInputError(
                f"Sample.question must be a str, got {type(self.question).__name__}"
            )
        contexts = self.contexts
        if contexts is not None:
            if isinstance(contexts, str):
                contexts = (contexts,)
            if not isinstance(contexts, Iterable):
                raise InvalidInputError(
                    f"Sample.contexts must be a list of strings, got {type(contexts).__name__}"
                )
            cleaned = tuple(_context_text(c, i) for i, c in enumerate(contexts))
            object.__setattr__(self, "contexts", cleaned)
        for name in ("answer", "reference", "answer_b"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise InvalidInputError(
                    f"Sample.{name} must be a str or None, got {type(value).__name__}"
                )
        if self.id is not None:
            object.__setattr__(self, "id", str(self.id))
        if self.citations is not None:
            object.__setattr__(self, "citations", _cited_sentences(self.citations))

    def to_dict(self) -> dict[str, Any]:
        """The sample as a JSON-ready dict, every field of :data:`FIELDS` (``contexts`` a list
        or None; ``metadata`` made JSON-ready: what is not JSON becomes its text; ``citations``
        only when given, so that results saved before samples had them read back unchanged)."""
        data = {
            "question": self.question,
            "answer": self.answer,
            "contexts": None if self.contexts is None else list(self.contexts),
            "reference": self.reference,
            "answer_b": self.answer_b,
            "id": self.id,
            "metadata": jsonable(self.metadata),
        }
        if self.citations is not None:
            data["citations"] = [
                {"text": c.text, "citations": list(c.citations)} for c in self.citations
            ]
        return data


def sample_from_dict(data: Any, where: str) -> Sample:
    """A :class:`Sample` from :meth:`Sample.to_dict` output read from a file: exactly its
    fields (no alias, nothing missing), each checked (``where`` names it in errors).

    Raises
    ------
    InvalidInputError
        a missing or unknown field, a field of the wrong type.
    """
    if not isinstance(data, Mapping):
        raise InvalidInputError(
            f"{where}: expected a sample (a mapping), got {type(data).__name__}"
        )
    for key in data:
        if key not in FIELDS:
            raise InvalidInputError(f"{where}.{key}: a field ragmeter does not write")
    for key in ("question", "metadata"):
        if key not in data:
            raise InvalidInputError(f"{where}.{key}: missing")
    # An absent field is None (TOML has no null: it leaves None values out).
    data = {key: data.get(key) for key in FIELDS}
    contexts = data["contexts"]
    if contexts is not None and (
        not isinstance(contexts, list | tuple) or not all(isinstance(c, str) for c in contexts)
    ):
        raise InvalidInputError(f"{where}.contexts: expected a list of strings or null")
    if data["id"] is not None and not isinstance(data["id"], str):
        raise InvalidInputError(f"{where}.id: expected a string or null, got {data['id']!r}")
    if not isinstance(data["metadata"], Mapping):
        raise InvalidInputError(f"{where}.metadata: expected a mapping")
    try:
        return Sample(**{key: data[key] for key in FIELDS})
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None


def _context_text(context: Any, index: int) -> str:
    if isinstance(context, str):
        return context
    if isinstance(context, Mapping):
        for key in ("text", "content", "page_content", "context"):
            if isinstance(context.get(key), str):
                result: str = context[key]
                return result
    for attribute in ("text", "page_content", "content"):
        value = getattr(context, attribute, None)
        if isinstance(value, str):
            return value
    raise InvalidInputError(
        f"contexts[{index}] must be a str (or have a 'text'/'content'/'page_content' field), "
        f"got {type(context).__name__}"
    )


def _is_missing(value: Any) -> bool:
    """``None``, or the NaN a DataFrame puts in an empty cell."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def _closest(key: str) -> str | None:
    """The field a misnamed one probably means: a known synonym, or a close spelling (a
    name like nothing known, such as ``retrieved_ids``, gets no guess: ids are no contexts)."""
    lowered = key.lower().strip()
    if lowered in _SUGGESTIONS:
        return _SUGGESTIONS[lowered]
    known = [*FIELDS, *FIELD_ALIASES]
    match = difflib.get_close_matches(lowered, known, n=1, cutoff=0.8)
    return FIELD_ALIASES.get(match[0], match[0]) if match else None


def unknown_field(key: str, where: str, fix: str = "") -> InvalidInputError:
    """The error for a column or field that is no sample field: the closest known name when
    there is one, the known names, and what to do (``fix``: a caller's own way out)."""
    aliases = ", ".join(f"{alias} -> {name}" for alias, name in FIELD_ALIASES.items())
    closest = _closest(key)
    guess = "." if closest is None else f"; did you mean {closest!r}?"
    return InvalidInputError(
        f"{where} {key!r} is not a sample field{guess} Known fields: "
        f"{', '.join(FIELDS)}; aliases: {aliases}. Rename it, drop it, or move it under "
        f"'metadata'{fix} (nothing is ignored silently, so a misnamed field cannot leave one "
        "empty)"
    )


def _from_mapping(data: Mapping[str, Any], where: str, *, column: bool) -> Sample:
    values: dict[str, Any] = {}
    given_as: dict[str, str] = {}
    for key, value in data.items():
        name = FIELD_ALIASES.get(str(key), str(key))
        if name not in FIELDS:
            raise unknown_field(str(key), f"{where}: column" if column else f"{where}: field")
        if _is_missing(value):
            continue
        if name in values:
            raise InvalidInputError(
                f"{where} gives {name!r} twice (as {given_as[name]!r} and {key!r}): keep one"
            )
        values[name] = value
        given_as[name] = str(key)
    if "question" not in values:
        raise InvalidInputError(
            f"{where} has no 'question' (keys: {sorted(map(str, data))}); name the question "
            "field 'question' (or 'user_input', 'input', 'query')"
        )
    try:
        return Sample(**values)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None


def _fields_of(item: Any) -> Mapping[str, Any] | None:
    """The fields of a dataclass or pydantic-style object, or ``None`` for other objects."""
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return {f.name: getattr(item, f.name) for f in dataclasses.fields(item)}
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, Mapping):
            return dumped
    return None


def coerce_sample(
    item: Any, index: int, *, column: bool = False, where: str | None = None
) -> Sample:
    """One sample from a :class:`Sample`, a dict or an object with fields.

    ``where`` names the item in errors (default ``samples[index]``; a file's ``path:line``).
    """
    where = where or f"samples[{index}]"
    if isinstance(item, Sample):
        return item
    if isinstance(item, Mapping):
        return _from_mapping(item, where, column=column)
    fields = _fields_of(item)
    if fields is not None:
        # An object's unset fields are its class's defaults, not the user's input.
        return _from_mapping(
            {k: v for k, v in fields.items() if v is not None}, where, column=False
        )
    raise InvalidInputError(
        f"{where} must be a Sample, a dict, a dataclass (such as EvalData) or a pydantic model, "
        f"got {type(item).__name__}"
    )


def coerce_samples(
    samples: Any, *, where: Sequence[str] | None = None, column: bool | None = None
) -> list[Sample]:
    """A list of samples with unique ids from Samples, dicts, objects or a DataFrame.

    Parameters
    ----------
    samples
        The items (or a DataFrame, one row per sample).
    where
        How errors name each item (default ``samples[i]``), e.g. ``path:line``.
    column
        Call an unknown key a "column" (default: for a DataFrame).

    Raises
    ------
    InvalidInputError
        an unknown or repeated field, no question, a repeated id.
    """
    is_frame = hasattr(samples, "to_dict") and hasattr(samples, "columns")
    if is_frame:
        samples = samples.to_dict("records")
    if isinstance(samples, str | bytes) or not isinstance(samples, Iterable):
        raise InvalidInputError(
            f"samples must be a list of Sample/EvalData/dicts or a DataFrame, got "
            f"{type(samples).__name__}"
        )
    out: list[Sample] = []
    seen: dict[str, int] = {}
    items = samples if isinstance(samples, Sequence) else list(samples)
    names = list(where) if where is not None else [f"samples[{i}]" for i in range(len(items))]
    if len(names) != len(items):
        raise InvalidInputError(
            f"where names {len(names)} items but samples holds {len(items)}: give one name each"
        )
    for index, item in enumerate(items):
        sample = coerce_sample(
            item, index, column=is_frame if column is None else column, where=names[index]
        )
        if sample.id is None:
            sample = dataclasses.replace(sample, id=str(index))
        assert sample.id is not None
        if sample.id in seen:
            raise InvalidInputError(
                f"{names[index]} repeats the id {sample.id!r} of {names[seen[sample.id]]}: "
                "sample ids must be unique"
            )
        seen[sample.id] = index
        out.append(sample)
    return out
