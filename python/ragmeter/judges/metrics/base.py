"""The metric author's API: subclass :class:`Metric` and implement ``score(sample, ctx)``.

``score`` receives one :class:`~ragmeter.judges.sample.Sample` and a
:class:`~ragmeter.judges.context.JudgeContext` (the judge, the embedder, the cache and the
accounting of this run) and returns a :class:`~ragmeter.judges.score.Score`. The engine checks
the fields a metric declares before calling it, so ``score`` only sees samples it can judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ..context import JudgeContext
from ..parsing import check_labels, validate_schema
from ..prompts import PromptTemplate
from ..sample import Sample
from ..score import Score

__all__ = ["Metric", "answer_checker", "label_checker"]


def label_checker(
    default: PromptTemplate, list_key: str, field: str
) -> Callable[[Any], Sequence[str]]:
    """A validator of the ``field`` labels a built-in metric reads, under the schema of its
    ``default`` prompt: a replaced prompt with a looser schema still cannot pass JSON ``true``
    off as the verdict ``1`` (a wrong kind of label is re-asked, then an ``error`` row)."""
    items = default.schema["properties"][list_key]["items"]
    field_schema: Mapping[str, Any] = items["properties"][field]
    return lambda parsed: check_labels(parsed, list_key, field, field_schema)


def answer_checker(default: PromptTemplate, *fields: str) -> Callable[[Any], Sequence[str]]:
    """A validator of the top-level ``fields`` a built-in metric reads, under the schema of its
    ``default`` prompt (see :func:`label_checker`)."""
    schemas = {name: default.schema["properties"][name] for name in fields}

    def check(parsed: Any) -> list[str]:
        if not isinstance(parsed, Mapping):
            return ["$: expected a JSON object"]
        problems: list[str] = []
        for name, schema in schemas.items():
            if name not in parsed:
                problems.append(f"$: missing required field {name!r}")
            else:
                problems.extend(validate_schema(parsed[name], schema, f"$.{name}"))
        return problems

    return check


class Metric:
    """Base class of judge metrics: a name, the sample fields it needs, and ``score``.

    Subclasses set:

    - ``name``: the metric's name in results (and in ``evaluate(metrics=[...])``).
    - ``required_fields``: sample fields the metric needs. Before ``score`` is called, a field
      that is not given (``None``) makes the score ``undefined`` with reason
      ``missing_<field>``, and an empty one (blank text, no context) ``undefined`` with
      ``no_<field>``, unless the field is also in ``empty_allowed``: then ``score`` receives the
      empty value and decides (groundedness scores an answer against no context 0.0).
    - ``needs_embedder``: the run must have an embedder (``ctx.embed`` works).
    - ``agreement_level``: how a panel's judges are compared (``"interval"`` for fractions,
      ``"nominal"`` for labels).
    - ``prompts``: the :class:`~ragmeter.judges.PromptTemplate` objects it uses (their hashes go
      into the run manifest).
    - ``value_range``: ``(lowest, highest)`` value the metric can take, or ``None`` when it is
      not bounded or not known (a prediction-powered interval is bounded by it).
    - ``needs_judge``: ``False`` for a metric that never asks the judge (it only embeds, or
      only computes): ``evaluate`` then runs without ``judge=``.

    and implement ``async score(sample, ctx) -> Score``. ``ctx`` is a
    :class:`~ragmeter.judges.JudgeContext`; a judge failure raised inside ``score`` becomes an
    ``error`` row, so ``score`` need not catch it. Use ``asyncio.TaskGroup`` rather than
    ``asyncio.gather`` for concurrent calls, so that no call outlives a failed sibling.

    Examples
    --------
    >>> from ragmeter.judges import Metric, Sample, Score, evaluate
    >>> class AnswerLength(Metric):
    ...     name = "answer_length"
    ...     required_fields = ("answer",)
    ...     async def score(self, sample, ctx):
    ...         return Score.ok(len(sample.answer.split()))
    >>> results = evaluate([Sample("Q?", "Two words."), Sample("Q?")], [AnswerLength()],
    ...                    judge=lambda messages: "{}")
    >>> [(row.value, row.score.reason_code) for row in results]
    [(2.0, None), (None, 'missing_answer')]
    """

    name: str = "metric"
    required_fields: tuple[str, ...] = ()
    empty_allowed: tuple[str, ...] = ()
    needs_embedder: bool = False
    agreement_level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval"
    prompts: tuple[PromptTemplate, ...] = ()
    value_range: tuple[float, float] | None = None
    needs_judge: bool = True

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The metric's score on ``sample``, asking the judge through ``ctx``."""
        raise NotImplementedError

    def check_fields(self, sample: Sample) -> Score | None:
        """The ``undefined`` score of a sample that lacks a required field, else ``None``."""
        for name in self.required_fields:
            value = getattr(sample, name)
            if value is None:
                return Score.undefined(
                    f"missing_{name}",
                    f"the sample has no {name!r} field, which {self.name} needs (check the "
                    "input's field names)",
                )
            if name in self.empty_allowed:
                continue
            empty = (isinstance(value, str) and not value.strip()) or (
                isinstance(value, tuple) and not any(c.strip() for c in value)
            )
            if empty:
                return Score.undefined(f"no_{name}", f"the sample's {name} is empty")
        return None

    def params(self) -> dict[str, Any]:
        """The metric's parameters, for its repr and the run manifest."""
        return {}

    def describe(self) -> dict[str, Any]:
        """Name, parameters and prompt hashes, for the run manifest."""
        return {
            "name": self.name,
            "class": type(self).__name__,
            "params": self.params(),
            "prompts": {f"{p.name}@{p.version}": p.digest for p in self.prompts},
        }

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({params})"
