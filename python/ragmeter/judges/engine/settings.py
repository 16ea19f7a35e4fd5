"""The settings of one evaluation run, built once from the arguments of ``evaluate``.

:class:`RunSettings` are what every request of the run carries (temperature, seed, token limit,
re-ask budget); :class:`RunOptions` adds what the run itself needs (judge, embedder, cache, error
policy, prices, progress). ``evaluate`` and ``aevaluate`` each build one :class:`RunOptions` from
their arguments and hand it on whole.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final, Literal

from ..._progress import Progress
from ...exceptions import InvalidInputError
from ...options import shorten
from ..accounting import Price, normalize_prices
from .batch import BatchMode
from .cache import CACHE_MODES, CacheMode, JudgeCache

__all__ = [
    "NO_MAX_TOKENS",
    "MaxTokens",
    "OnError",
    "ProgressOption",
    "RunOptions",
    "RunSettings",
    "resolve_progress",
]

OnError = Literal["record", "raise"]
ProgressOption = Progress | Literal["auto"]
MaxTokens = int | Literal["auto", "unlimited"] | None
#: ``max_tokens=NO_MAX_TOKENS`` sends no token limit (the answer may run until the model's
#: context is full); ``None`` means the default, ``"auto"``.
NO_MAX_TOKENS: Final = "unlimited"
# The default caps of "auto". A verdict with its reason, or a short list of claims or
# questions, fits in DEFAULT_MAX_TOKENS (the longest answer of a small local model that ended
# by itself took 137 tokens); a labelling call needs a few tokens per item it labels.
DEFAULT_MAX_TOKENS = 512
TOKENS_PER_ITEM = 48
TOKENS_PER_CALL = 128


@dataclass(frozen=True)
class RunSettings:
    """What every request of a run carries (recorded in the run manifest).

    Parameters
    ----------
    temperature
        Sampling temperature; 0 (the default) for repeatable judgements.
    seed
        Sent to endpoints that accept one (others are found out and not sent it again).
    max_tokens
        The answer's token limit. ``"auto"`` (the default; ``None`` means the
        same) is 512 for a call that labels no items (a verdict with its reason, a list
        of claims or questions) and ``128 + 48 x items`` for a labelling call; an answer
        cut off there is an ``error`` row with reason ``judge_output_truncated`` (raise
        ``max_tokens`` or lower ``max_items_per_call``). A finite limit keeps a small
        local model from generating until its context is full. An integer >= 1 is sent
        as is; :data:`NO_MAX_TOKENS` (``"unlimited"``) sends no limit.
    max_parse_retries
        Re-asks after an unusable answer (stopped early when the judge
        repeats itself word for word).
    max_items_per_call
        How many items (sentences, claims) one labelling call carries.
    language
        The language of generated text (answer_relevancy's questions); default:
        the answer's.
    retry_errors
        With a cache, a call that failed in an earlier run (its failure and the
        raw answers are recorded) is made again (``True``, the default) or its failure is
        replayed without a call (``False``: a rerun makes zero calls).

    Raises
    ------
    InvalidInputError
        a value out of range.

    Examples
    --------
    >>> settings = RunSettings()
    >>> settings.token_limit(0), settings.token_limit(1), settings.token_limit(40)
    (512, 176, 2048)
    >>> RunSettings(max_tokens=300).token_limit(40)
    300
    >>> RunSettings(max_tokens=None).max_tokens  # None is the default
    'auto'
    >>> print(RunSettings(max_tokens=NO_MAX_TOKENS).token_limit(40))  # no limit sent
    None
    """

    temperature: float | None = 0.0
    seed: int | None = 0
    max_tokens: MaxTokens = "auto"
    max_parse_retries: int = 2
    max_items_per_call: int = 40
    language: str | None = None
    retry_errors: bool = True

    def seed_of_repeat(self, repeat: int) -> int | None:
        """The seed sent on repeat ``repeat`` of ``evaluate(repeats=N)``: ``seed + repeat``
        (wrapped to 64 bits), so that a sampling endpoint draws anew; ``None`` stays ``None``."""
        if self.seed is None:
            return None
        return (self.seed + repeat + 2**63) % 2**64 - 2**63

    def token_limit(self, n_items: int = 0) -> int | None:
        """The ``max_tokens`` of a request whose answer labels ``n_items`` items."""
        if self.max_tokens == NO_MAX_TOKENS:
            return None
        if isinstance(self.max_tokens, int):
            return self.max_tokens
        if n_items <= 0:
            return DEFAULT_MAX_TOKENS
        return TOKENS_PER_CALL + TOKENS_PER_ITEM * n_items

    def __post_init__(self) -> None:
        temperature = self.temperature
        if temperature is not None and (
            isinstance(temperature, bool)
            or not isinstance(temperature, int | float)
            or not math.isfinite(temperature)
            or temperature < 0
        ):
            raise InvalidInputError(
                f"temperature must be None or a finite number >= 0 (0 for repeatable "
                f"judgements), got {temperature!r}"
            )
        seed = self.seed
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not -(2**63) <= seed < 2**63
        ):
            raise InvalidInputError(
                f"seed must be None or an integer of 64 bits (sent to the endpoint), got "
                f"{shorten(seed)}"
            )
        for name in ("max_parse_retries", "max_items_per_call"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidInputError(f"{name} must be an integer, got {shorten(value)}")
        if self.language is not None and (not isinstance(self.language, str) or not self.language):
            raise InvalidInputError(
                f"language must be None (the answer's language) or a language name such as "
                f"'French', got {shorten(self.language)}"
            )
        if not isinstance(self.retry_errors, bool):
            raise InvalidInputError(
                f"retry_errors must be True or False, got {self.retry_errors!r}"
            )
        if self.max_tokens is None:
            object.__setattr__(self, "max_tokens", "auto")  # None: the default, recorded so
        if self.max_tokens not in ("auto", NO_MAX_TOKENS) and (
            not isinstance(self.max_tokens, int)
            or isinstance(self.max_tokens, bool)
            or self.max_tokens < 1
        ):
            raise InvalidInputError(
                f"max_tokens must be 'auto' (the default; None means the same), an integer "
                f">= 1, or NO_MAX_TOKENS ({NO_MAX_TOKENS!r}) to send no limit, got "
                f"{shorten(self.max_tokens)}"
            )
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
    progress: ProgressOption = "auto"
    max_pending: int = 256
    repeats: int = 1
    flaky_threshold: float = 0.5
    batch: BatchMode | None = None

    def __post_init__(self) -> None:
        if isinstance(self.repeats, bool) or not isinstance(self.repeats, int) or self.repeats < 1:
            raise InvalidInputError(
                f"repeats must be an integer >= 1 (each sample and metric judged that many "
                f"times), got {shorten(self.repeats)}"
            )
        if (
            isinstance(self.flaky_threshold, bool)
            or not isinstance(self.flaky_threshold, int | float)
            or not math.isfinite(self.flaky_threshold)
        ):
            raise InvalidInputError(
                f"flaky_threshold must be a finite number (a value at or above it passes), got "
                f"{shorten(self.flaky_threshold)}"
            )
        if self.cache_mode is not None and self.cache_mode not in CACHE_MODES:
            raise InvalidInputError(
                f"cache_mode must be None or one of {', '.join(map(repr, CACHE_MODES))}, got "
                f"{shorten(self.cache_mode)}"
            )
        if self.prices is not None and not isinstance(self.prices, Mapping):
            raise InvalidInputError(
                f"prices must be a mapping {{model name: (input_per_1k, output_per_1k)}}, got "
                f"{type(self.prices).__name__}"
            )
        if self.on_error not in ("record", "raise"):
            raise InvalidInputError(f"on_error must be 'record' or 'raise', got {self.on_error!r}")
        if (
            isinstance(self.max_pending, bool)
            or not isinstance(self.max_pending, int)
            or self.max_pending < 1
        ):
            raise InvalidInputError(
                f"max_pending must be an integer >= 1, got {self.max_pending!r}"
            )
        object.__setattr__(self, "prices", normalize_prices(self.prices))
        if self.batch is not None:
            if not isinstance(self.batch, BatchMode):
                raise InvalidInputError(
                    f"batch must be None or a BatchMode('folder', ...), got "
                    f"{type(self.batch).__name__}"
                )
            if self.cache is None or self.cache_mode in ("off", "read_only"):
                raise InvalidInputError(
                    "batch mode reads the batches' answers back through the cache: pass "
                    "cache='judge-cache.sqlite' (read_write or refresh)"
                )


def resolve_progress(progress: ProgressOption) -> Progress:
    """``"auto"``: a bar when tqdm is installed and stderr is a terminal, else none."""
    if progress != "auto":
        return progress
    try:
        on_terminal = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        on_terminal = False
    return on_terminal and importlib.util.find_spec("tqdm") is not None
