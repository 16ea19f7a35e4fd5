"""Custom metrics: a decorator over a function, and a rubric metric from a prompt and a schema.

Both get the same machinery as the built-ins (cache, limits, retries, re-asks, accounting)
through the context they receive.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import re
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ...exceptions import InvalidInputError
from ..context import JudgeContext, SyncJudgeContext
from ..offline_rules import OfflineRule
from ..parsing import check_schema_supported
from ..prompts import DEFAULT_SYSTEM_PROMPT, PromptTemplate
from ..sample import FIELDS, Sample
from ..score import Score
from ..text import joined_contexts
from .base import Metric

__all__ = ["FunctionMetric", "RubricMetric", "metric"]

_FIELD_NAMES = tuple(f for f in FIELDS if f not in ("id", "metadata"))


def to_score(value: Any, where: str) -> Score:
    """A custom metric's return value as a :class:`Score` (never a made-up number)."""
    if isinstance(value, Score):
        return value
    if value is None:
        return Score.undefined("no_value", f"{where} returned None")
    if isinstance(value, bool):
        return Score.ok(1.0 if value else 0.0)
    if isinstance(value, int | float):
        if not math.isfinite(float(value)):
            return Score.undefined("not_finite", f"{where} returned {value!r}")
        return Score.ok(float(value))
    raise InvalidInputError(
        f"{where} must return a float, a bool, None or a Score, got {type(value).__name__}"
    )


class FunctionMetric(Metric):
    """A metric computed by ``fn(sample, ctx)``; build it with the :func:`metric` decorator.

    Raises
    ------
    InvalidInputError
        a required field that is not a sample field.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str,
        required_fields: Sequence[str] = ("question",),
        needs_embedder: bool = False,
        agreement_level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval",
        needs_judge: bool = True,
    ):
        unknown = [f for f in required_fields if f not in _FIELD_NAMES]
        if unknown:
            raise InvalidInputError(
                f"required_fields {unknown} are not sample fields; choose from {_FIELD_NAMES}"
            )
        self.fn = fn
        self.name = name
        self.required_fields = tuple(required_fields)
        self.needs_embedder = needs_embedder
        self.needs_judge = bool(needs_judge)
        self.agreement_level = agreement_level
        self._is_async = inspect.iscoroutinefunction(fn)

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """``fn(sample, ctx)`` as a :class:`Score` (a sync ``fn`` runs in a worker thread)."""
        if self._is_async:
            value = await self.fn(sample, ctx)
        else:
            sync_ctx = SyncJudgeContext(ctx, asyncio.get_running_loop())
            value = await asyncio.to_thread(self.fn, sample, sync_ctx)
        return to_score(value, f"metric {self.name!r}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the wrapped function directly (the decorator keeps it callable)."""
        return self.fn(*args, **kwargs)


def metric(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    required_fields: Sequence[str] = ("question",),
    needs_embedder: bool = False,
    agreement_level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval",
    needs_judge: bool = True,
) -> Any:
    """Turn ``fn(sample, ctx) -> float | bool | None | Score`` into a metric.

    ``ctx`` offers ``judge_json(messages, schema)``, ``ask(prompt_template, values)`` and
    ``embed(texts)``; an async ``fn`` awaits them, a sync ``fn`` (run in a worker thread) calls
    them directly. ``None`` and non-finite values become ``undefined`` scores. Use as
    ``@metric`` or ``@metric(name="...", required_fields=("question", "answer"))``.

    Parameters
    ----------
    fn
        The function (sync or async).
    name
        The metric's name (default: the function's).
    required_fields
        Sample fields it needs (a sample without one is ``undefined``).
    needs_embedder
        Whether ``ctx.embed`` must work.
    agreement_level
        How panels compare its values.
    needs_judge
        ``False`` for a metric that never asks the judge (it only embeds, or only
        computes): a run of such metrics needs no ``judge=``.

    Returns
    -------
    FunctionMetric
        A :class:`FunctionMetric` (still callable as the function).

    Examples
    --------
    >>> from ragmeter.judges import RuleJudge, Sample, evaluate, metric
    >>> @metric(required_fields=("answer",))
    ... def short_answer(sample, ctx):
    ...     return len(sample.answer.split()) <= 5
    >>> samples = [Sample("Q?", "Yes."), Sample("Q?", "It depends on a great many things.")]
    >>> evaluate(samples, [short_answer], judge=RuleJudge(), progress=False).values(
    ...     "short_answer")
    [1.0, 0.0]
    """

    def wrap(function: Callable[..., Any]) -> FunctionMetric:
        return FunctionMetric(
            function,
            name=name or function.__name__,
            required_fields=required_fields,
            needs_embedder=needs_embedder,
            agreement_level=agreement_level,
            needs_judge=needs_judge,
        )

    return wrap(fn) if fn is not None else wrap


def _placeholders(template: str) -> set[str]:
    return {
        m.group("named") or m.group("braced")
        for m in string.Template.pattern.finditer(template)
        if m.group("named") or m.group("braced")
    }


class RubricMetric(Metric):
    """A prompt-only metric: a ``$placeholder`` template, an answer schema and a scoring rule.

    Placeholders: ``$question``, ``$answer``, ``$contexts`` (joined by blank lines),
    ``$reference`` and ``$answer_b``; the fields used are required. By default the answer
    schema is ``{"value": one of allowed_values, "reason": string}`` and the score is
    ``float(value)``; pass ``score_fn(parsed) -> float | Score`` for non-numeric values or your
    own ``schema``. The analogue of ragas' DiscreteMetric and DeepEval's GEval rubric.

    Parameters
    ----------
    name
        The metric's name (letters, digits, ``_``, ``.``, ``-``).
    prompt_template
        The prompt, with the placeholders above.
    allowed_values
        The values the judge may give (numbers, or labels with ``score_fn``).
    schema
        An answer schema of your own instead (the validated subset: type, properties,
        required, additionalProperties, items, enum, const, min/max, min/maxItems,
        min/maxLength).
    score_fn
        ``parsed -> float | bool | None | Score``.
    system
        The system message.
    agreement_level
        Default ``ordinal`` for numeric values, else ``nominal``.
    version
        Recorded with the prompt's hash in the manifest.
    offline_rule
        How :class:`~ragmeter.judges.RuleJudge` answers the rubric offline
        (``OfflineRequest -> answer``, reading the fenced values from ``request.data``, such
        as ``request.data["answer"]``; see :mod:`ragmeter.judges.offline_rules`). Without
        one the ``RuleJudge`` refuses the rubric (``NoOfflineRuleError``): ragmeter does not
        know what your grades mean.

    Raises
    ------
    InvalidInputError
        an unknown placeholder, no values and no schema, labels without a
        ``score_fn``, an unsupported schema keyword.

    Examples
    --------
    >>> from ragmeter.judges import RubricMetric, Sample, ScriptedJudge, evaluate
    >>> concise = RubricMetric("concise", "Is this answer concise? $answer",
    ...                        allowed_values=[0, 1, 2])
    >>> judge = ScriptedJudge({"rubric_concise": {"value": 2, "reason": "one short line"}})
    >>> row = evaluate([Sample("Q?", "Yes.")], [concise], judge=judge, progress=False).rows[0]
    >>> row.value, row.score.reasons
    (2.0, ('one short line',))
    """

    def __init__(
        self,
        name: str,
        prompt_template: str,
        *,
        allowed_values: Sequence[Any] | None = None,
        schema: Mapping[str, Any] | None = None,
        score_fn: Callable[[Any], Any] | None = None,
        system: str = DEFAULT_SYSTEM_PROMPT,
        agreement_level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None,
        version: str = "1",
        offline_rule: OfflineRule | None = None,
    ):
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise InvalidInputError(f"name must use letters, digits, '_', '.' or '-', got {name!r}")
        used = _placeholders(prompt_template)
        unknown = sorted(used - set(_FIELD_NAMES))
        if unknown:
            raise InvalidInputError(
                f"prompt_template uses unknown placeholders {unknown}; available: "
                f"{['$' + f for f in _FIELD_NAMES]}"
            )
        if schema is None:
            if not allowed_values:
                raise InvalidInputError(
                    "RubricMetric needs allowed_values (for example [0, 1, 2]) or a schema"
                )
            schema = {
                "title": f"rubric_{name}",
                "type": "object",
                "properties": {
                    "value": {"enum": list(allowed_values)},
                    "reason": {"type": "string"},
                },
                "required": ["value", "reason"],
                "additionalProperties": False,
            }
        check_schema_supported(schema)
        if score_fn is None:
            numeric = allowed_values is not None and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in allowed_values
            )
            if not numeric:
                raise InvalidInputError(
                    "RubricMetric needs score_fn(parsed) -> float unless allowed_values are all "
                    "numbers"
                )
        self.name = name
        self.allowed_values = None if allowed_values is None else list(allowed_values)
        self.score_fn = score_fn
        self.required_fields = tuple(f for f in _FIELD_NAMES if f in used)
        numeric_values = self.allowed_values is not None and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in self.allowed_values
        )
        self.agreement_level = agreement_level or ("ordinal" if numeric_values else "nominal")
        if numeric_values and score_fn is None and self.allowed_values:
            self.value_range = (
                float(min(self.allowed_values)),
                float(max(self.allowed_values)),
            )
        self.prompt = PromptTemplate(
            name=f"rubric.{name}",
            version=version,
            template=prompt_template,
            schema=schema,
            system=system,
            strict=False,
            offline_rule=offline_rule,
        )
        self.prompts = (self.prompt,)

    def params(self) -> dict[str, Any]:
        """``allowed_values``, for the repr and the run manifest."""
        return {"allowed_values": self.allowed_values}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """Ask the rubric and score the answer (``float(value)`` or ``score_fn(parsed)``)."""
        values = {
            "question": sample.question,
            "answer": sample.answer or "",
            "contexts": joined_contexts(sample.contexts),
            "reference": sample.reference or "",
            "answer_b": sample.answer_b or "",
        }
        parsed = await ctx.ask(self.prompt, values)
        reason = parsed.get("reason") if isinstance(parsed, Mapping) else None
        if self.score_fn is not None:
            result = self.score_fn(parsed)
            if inspect.isawaitable(result):
                result = await result
            score = to_score(result, f"score_fn of {self.name!r}")
        else:
            value = parsed["value"]
            # JSON true/false or a string is not a grade: bool is an int in Python, so a schema
            # without a "type" would otherwise let `true` through as the score 1.0.
            if isinstance(value, bool) or not isinstance(value, int | float):
                return Score.error(
                    "judge_output_invalid",
                    f"{self.name}: the judge answered value={json.dumps(value)[:80]}, not a "
                    f"number; a rubric without score_fn needs a numeric value "
                    f"(allowed_values={self.allowed_values})",
                    evidence={"answer": parsed},
                )
            score = to_score(float(value), self.name)
        if score.status == "ok" and isinstance(reason, str) and not score.reasons:
            return Score.ok(
                score.value if score.value is not None else 0.0,
                reasons=[reason],
                evidence={"answer": parsed, **score.evidence},
                reason_code=score.reason_code,
            )
        return score
