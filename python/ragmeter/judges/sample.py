"""What a judged sample holds, and the one place where user inputs become samples."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import InvalidInputError

__all__ = ["Sample", "coerce_samples"]

_FIELDS = ("question", "answer", "contexts", "reference", "answer_b", "id", "metadata")
_ALIASES = {
    "ground_truth": "reference",
    "reference_answer": "reference",
    "expected_output": "reference",
    "response": "answer",
    "user_input": "question",
    "query": "question",
    "retrieved_contexts": "contexts",
    "context": "contexts",
    "sample_id": "id",
}


@dataclass(frozen=True)
class Sample:
    """One generated answer to judge.

    ``contexts`` are the retrieved chunks in rank order; ``reference`` is a ground-truth answer
    (needed by context_precision and context_recall); ``answer_b`` is the second answer of a
    pairwise preference; ``id`` names the sample in reports (default: its position).
    """

    question: str
    answer: str | None = None
    contexts: tuple[str, ...] = ()
    reference: str | None = None
    answer_b: str | None = None
    id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.question, str):
            raise InvalidInputError(
                f"Sample.question must be a str, got {type(self.question).__name__}"
            )
        contexts = self.contexts
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


def _context_text(context: Any, index: int) -> str:
    if isinstance(context, str):
        return context
    if isinstance(context, Mapping):
        for key in ("text", "content", "page_content", "context"):
            if isinstance(context.get(key), str):
                return context[key]
    for attribute in ("text", "page_content", "content"):
        value = getattr(context, attribute, None)
        if isinstance(value, str):
            return value
    raise InvalidInputError(
        f"contexts[{index}] must be a str (or have a 'text'/'content'/'page_content' field), "
        f"got {type(context).__name__}"
    )


def _from_mapping(data: Mapping[str, Any], index: int) -> Sample:
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = _ALIASES.get(key, key)
        if name not in _FIELDS:
            continue
        if name in values and values[name] is not None:
            raise InvalidInputError(f"samples[{index}] gives {name!r} twice (as {key!r} too)")
        values[name] = value
    if "question" not in values:
        raise InvalidInputError(f"samples[{index}] has no 'question' (keys: {sorted(data)})")
    return Sample(**values)


def coerce_sample(item: Any, index: int) -> Sample:
    if isinstance(item, Sample):
        return item
    if isinstance(item, Mapping):
        return _from_mapping(item, index)
    if hasattr(item, "question"):
        fields = {
            name: getattr(item, name)
            for name in ("question", "answer", "contexts", "reference", "answer_b", "id")
            if getattr(item, name, None) is not None
        }
        ground_truth = getattr(item, "ground_truth", None)
        if "reference" not in fields and ground_truth is not None:
            fields["reference"] = ground_truth
        return Sample(**fields)
    raise InvalidInputError(
        f"samples[{index}] must be a Sample, an EvalData or a dict with 'question', got "
        f"{type(item).__name__}"
    )


def coerce_samples(samples: Any) -> list[Sample]:
    """A list of samples with unique ids from Samples, EvalData, dicts or a DataFrame."""
    if hasattr(samples, "to_dict") and hasattr(samples, "columns"):
        samples = samples.to_dict("records")
    if isinstance(samples, str | bytes) or not isinstance(samples, Iterable):
        raise InvalidInputError(
            f"samples must be a list of Sample/EvalData/dicts, got {type(samples).__name__}"
        )
    out: list[Sample] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(samples if isinstance(samples, Sequence) else list(samples)):
        sample = coerce_sample(item, index)
        if sample.id is None:
            sample = Sample(
                question=sample.question,
                answer=sample.answer,
                contexts=sample.contexts,
                reference=sample.reference,
                answer_b=sample.answer_b,
                id=str(index),
                metadata=sample.metadata,
            )
        assert sample.id is not None
        if sample.id in seen:
            raise InvalidInputError(
                f"samples[{index}] repeats the id {sample.id!r} of samples[{seen[sample.id]}]: "
                "sample ids must be unique"
            )
        seen[sample.id] = index
        out.append(sample)
    return out
