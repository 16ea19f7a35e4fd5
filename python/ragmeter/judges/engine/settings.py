"""The settings of one evaluation run, built once from the arguments of ``evaluate``.

:class:`RunSettings` are what every request of the run carries (temperature, seed, token limit,
re-ask budget); :class:`RunOptions` adds what the run itself needs (judge, embedder, cache, error
policy, prices, progress). ``evaluate`` and ``aevaluate`` each build one :class:`RunOptions` from
their arguments and hand it on whole.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..._progress import Progress
from ...exceptions import InvalidInputError
from ..accounting import Price, normalize_prices
from .cache import CacheMode, JudgeCache

__all__ = ["OnError", "RunOptions", "RunSettings"]

OnError = Literal["record", "raise"]


@dataclass(frozen=True)
class RunSettings:
    """Per-run request parameters (recorded in the manifest).

    ``temperature`` 0 and a fixed ``seed`` by default for repeatable judgements;
    ``max_parse_retries`` re-asks after an unusable answer; ``max_items_per_call`` bounds how
    many items (sentences, claims) one labelling call carries; ``language`` is the language in
    which generated text (answer_relevancy's questions) is written, default: the answer's.
    """

    temperature: float | None = 0.0
    seed: int | None = 0
    max_tokens: int | None = None
    max_parse_retries: int = 2
    max_items_per_call: int = 40
    language: str | None = None

    def __post_init__(self) -> None:
        if self.max_parse_retries < 0:
            raise InvalidInputError(
                f"max_parse_retries must be >= 0, got {self.max_parse_retries!r}"
            )
        if self.max_items_per_call < 1:
            raise InvalidInputError(
                f"max_items_per_call must be >= 1, got {self.max_items_per_call!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict (recorded in the run manifest)."""
        return asdict(self)


@dataclass(frozen=True)
class RunOptions:
    """Everything a run needs besides its samples and metrics, checked once.

    ``judge`` and ``embedder`` are as given to ``evaluate`` (resolved when the run starts);
    ``prices`` are normalised to :class:`~ragmeter.judges.Price` objects.
    """

    judge: Any = None
    embedder: Any = None
    cache: JudgeCache | str | os.PathLike[str] | None = None
    cache_mode: CacheMode | None = None
    settings: RunSettings = field(default_factory=RunSettings)
    on_error: OnError = "record"
    prices: Mapping[str, Price] = field(default_factory=dict)
    progress: Progress = None
    max_pending: int = 256

    def __post_init__(self) -> None:
        if self.on_error not in ("record", "raise"):
            raise InvalidInputError(f"on_error must be 'record' or 'raise', got {self.on_error!r}")
        if not isinstance(self.max_pending, int) or self.max_pending < 1:
            raise InvalidInputError(
                f"max_pending must be an integer >= 1, got {self.max_pending!r}"
            )
        object.__setattr__(self, "prices", normalize_prices(self.prices))
