"""The metric author's API: subclass :class:`Metric` and implement ``score(sample, ctx)``.

``score`` receives one :class:`~ragmeter.judges.sample.Sample` and a
:class:`~ragmeter.judges.context.JudgeContext` (the judge, the embedder, the cache and the
accounting of this run) and returns a :class:`~ragmeter.judges.score.Score`. The engine checks
the fields a metric declares before calling it, so ``score`` only sees samples it can judge.
"""

from __future__ import annotations

from typing import Any, Literal

from ..context import JudgeContext
from ..prompts import PromptTemplate
from ..sample import Sample
from ..score import Score

__all__ = ["Metric"]


class Metric:
    """Base class of judge metrics.

    Subclasses set ``name``, ``required_fields`` (sample fields that must be non-empty, else
    the score is ``undefined`` with ``no_<field>``), ``needs_embedder``, ``agreement_level``
    (how panels compare their judges' values) and ``prompts``, and implement
    ``async score(sample, ctx)``.
    """

    name: str = "metric"
    required_fields: tuple[str, ...] = ()
    needs_embedder: bool = False
    agreement_level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval"
    prompts: tuple[PromptTemplate, ...] = ()

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        raise NotImplementedError

    def missing_field(self, sample: Sample) -> str | None:
        for field in self.required_fields:
            value = getattr(sample, field)
            if value is None or (isinstance(value, str) and not value.strip()):
                return field
            if isinstance(value, tuple) and not any(c.strip() for c in value):
                return field
        return None

    def params(self) -> dict[str, Any]:
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
