"""Token and cost accounting of judge and embedding calls.

Tokens come from the endpoint's ``usage``; when it reports none they are estimated as
``ceil(characters / 4)`` and flagged ``tokens_estimated``. Cache hits cost nothing and are
counted apart. Prompt tokens the provider served from its own prompt cache (OpenAI's
``usage.prompt_tokens_details.cached_tokens``, Anthropic's ``cache_read_input_tokens``) are
counted in ``cached_prompt_tokens``, a part of ``prompt_tokens``, and priced at
``Price.cached_input_per_1k`` when one is given. Prices are the user's (no built-in table to go
stale): ``{name: (input per 1k tokens, output per 1k tokens[, cached input per 1k tokens])}``
where ``name`` is a judge's model (or, failing that, its name) or an embedder's model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..exceptions import InvalidInputError

__all__ = ["CallStats", "Price", "PriceTable", "cost_of", "normalize_prices"]


@dataclass
class CallStats:
    """What one metric on one sample cost with one judge (or a total of such rows).

    ``calls`` and ``embedding_calls`` reached an endpoint (an attempt whose connection was
    refused sent nothing and is no call; retried, it counts in ``retries``); ``cache_hits``
    and ``embedding_cache_hits`` did not. ``retries`` are transport retries, ``reasks``
    re-asks after an unusable answer, ``split_fallbacks`` labelling calls split into one call
    per item (a replay of a split that failed replays its failure: no split, no call),
    ``capability_fallbacks`` structured-output forms an endpoint refused. ``retried_failures``
    counts calls whose failure an earlier run recorded in the cache and that were made again;
    ``replayed_failures`` those whose recorded failure was replayed instead
    (``retry_errors=False``). ``cached_prompt_tokens`` are the part of ``prompt_tokens`` the
    provider read from its prompt cache (priced apart).
    """

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    retries: int = 0
    reasks: int = 0
    split_fallbacks: int = 0
    capability_fallbacks: int = 0
    embedding_calls: int = 0
    embedding_cache_hits: int = 0
    embedding_tokens: int = 0
    latency_s: float = 0.0
    retried_failures: int = 0
    replayed_failures: int = 0
    cached_prompt_tokens: int = 0

    def add(self, other: CallStats) -> None:
        """Add ``other``'s counts to these (``tokens_estimated`` if either's are)."""
        # The field names are looked up once (_SUMMED): this runs several times per judge call.
        for name in _SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.tokens_estimated = self.tokens_estimated or other.tokens_estimated

    def to_dict(self, *, exact: bool = False) -> dict[str, Any]:
        """The counts as a JSON-ready dict (latency rounded to microseconds; ``exact``: as
        measured, so that the counts of a saved result add up to the same totals when read)."""
        # Numbers and a flag only: no deep copy (dataclasses.asdict) needed.
        out = {name: getattr(self, name) for name in _FIELDS}
        if not exact:
            out["latency_s"] = round(self.latency_s, 6)
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> CallStats:
        """The counts of :meth:`to_dict` read from a file, every field checked (``where`` names
        them in errors).

        Raises
        ------
        InvalidInputError
            a missing or unknown field, a count that is not an int >= 0, a
            flag that is not a bool, a latency that is not a number of seconds >= 0.
        """
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"{where}: expected usage counts (a mapping)")
        for key in data:
            if key not in _FIELDS:
                raise InvalidInputError(f"{where}.{key}: a field ragmeter does not write")
        values: dict[str, Any] = {}
        for name in _FIELDS:
            if name not in data and name in _ADDED_SINCE:
                # A field newer than the file: what such a file's run could not have counted.
                values[name] = _ADDED_SINCE[name]
                continue
            if name not in data:
                raise InvalidInputError(f"{where}.{name}: missing")
            value = data[name]
            if name == "tokens_estimated":
                ok = isinstance(value, bool)
            elif name == "latency_s":
                ok = (
                    not isinstance(value, bool)
                    and isinstance(value, int | float)
                    and math.isfinite(value)
                    and value >= 0
                )
                value = float(value) if ok else value
            else:
                ok = not isinstance(value, bool) and isinstance(value, int) and value >= 0
            if not ok:
                raise InvalidInputError(f"{where}.{name}: {value!r} is not a valid {name}")
            values[name] = value
        return cls(**values)


_FIELDS = tuple(f.name for f in fields(CallStats))
_SUMMED = tuple(name for name in _FIELDS if name != "tokens_estimated")
# Fields added after files were written without them, and the value such a file stands for.
_ADDED_SINCE = {"cached_prompt_tokens": 0}


@dataclass(frozen=True)
class Price:
    """Price of 1,000 input (prompt) and output (completion) tokens, in the user's currency.

    ``cached_input_per_1k`` prices the prompt tokens a provider read from its prompt cache
    (OpenAI bills them at half the input price or less, Anthropic at a tenth); ``None``
    prices them as other input tokens. ``evaluate(prices={model: Price(...)})`` also takes a
    pair ``(input, output)``, a triple ``(input, output, cached input)`` or one number (input
    only).

    Examples
    --------
    >>> cost_of(2000, 500, Price(input_per_1k=0.01, output_per_1k=0.03))  # 0.02 + 0.015
    0.035
    >>> price = Price(0.01, 0.03, cached_input_per_1k=0.001)  # 1,500 of the 2,000 were cached
    >>> round(cost_of(2000, 500, price, cached_prompt_tokens=1500), 6)  # .005 + .0015 + .015
    0.0215
    """

    input_per_1k: float
    output_per_1k: float = 0.0
    cached_input_per_1k: float | None = None


PriceTable = Mapping[str, Price]


def normalize_prices(prices: Mapping[str, Any] | None) -> dict[str, Price]:
    """``{name: Price | (in, out) | in}`` to ``{name: Price}``, refusing negative prices."""
    table: dict[str, Price] = {}
    for name, value in (prices or {}).items():
        if isinstance(value, Price):
            price = value
        elif isinstance(value, int | float):
            price = Price(float(value), 0.0)
        elif isinstance(value, tuple | list) and len(value) in (2, 3):
            price = Price(*(float(v) for v in value))
        else:
            raise InvalidInputError(
                f"prices[{name!r}] must be (input_per_1k, output_per_1k) or (input_per_1k, "
                f"output_per_1k, cached_input_per_1k), got {value!r}"
            )
        cached = price.cached_input_per_1k
        if price.input_per_1k < 0 or price.output_per_1k < 0 or (cached is not None and cached < 0):
            raise InvalidInputError(f"prices[{name!r}] must not be negative, got {value!r}")
        table[str(name)] = price
    return table


def cost_of(
    prompt_tokens: int,
    completion_tokens: int,
    price: Price | None,
    *,
    cached_prompt_tokens: int = 0,
) -> float | None:
    """``(prompt - cached) / 1000 * input_per_1k + cached / 1000 * cached_input_per_1k +
    completion / 1000 * output_per_1k`` (cached tokens at the input price when the price has
    no cached one); None without price."""
    if price is None:
        return None
    cached = min(max(cached_prompt_tokens, 0), prompt_tokens)
    cached_rate = (
        price.input_per_1k if price.cached_input_per_1k is None else (price.cached_input_per_1k)
    )
    return (
        (prompt_tokens - cached) / 1000.0 * price.input_per_1k
        + cached / 1000.0 * cached_rate
        + completion_tokens / 1000.0 * price.output_per_1k
    )
