"""What the engine needs of a metric: :class:`ScoringMetric`.

The engine scores the metric objects it is given and never imports the metrics: the built-in
metrics (``metrics/``) are written against the engine, and the names of ``evaluate(metrics=
[...])`` are turned into metric objects above it (:mod:`ragmeter.judges.registry`).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..context import JudgeContext
from ..sample import Sample
from ..score import Score

__all__ = ["ScoringMetric"]


class ScoringMetric(Protocol):
    """A metric as the engine runs it (:class:`~ragmeter.judges.Metric` is one).

    The engine reads ``name`` and ``needs_embedder``, calls ``check_fields`` before
    ``score``, and puts ``describe()`` in the run manifest. The results read
    ``agreement_level`` and ``summarize_extra`` when a metric has them.
    """

    @property
    def name(self) -> str:
        """The metric's name in results."""
        ...

    @property
    def needs_embedder(self) -> bool:
        """The run must have an embedder."""
        ...

    def check_fields(self, sample: Sample) -> Score | None:
        """The ``undefined`` score of a sample the metric cannot judge, else ``None``."""
        ...

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The metric's score on ``sample``, asking the judge through ``ctx``."""
        ...

    def describe(self) -> dict[str, Any]:
        """Name, parameters and prompt hashes, for the run manifest."""
        ...
