"""Input rules shared by the answer metrics and ``ragmeter.levenshtein``.

Every check that needs no per-item loop happens here; the Rust bindings check each item (type,
valid Unicode) while they borrow it, so a million-item call never loops in Python.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from .exceptions import InputTypeError, InvalidInputError
from .options import check_n_threads

__all__ = [
    "NORMALIZATIONS",
    "NormalizeArg",
    "SymbolTable",
    "as_item_list",
    "check_n_threads",
    "check_unit_interval",
    "is_token_sequence",
    "normalize_callable",
    "resolve_normalize",
]

NormalizeArg: TypeAlias = Literal["squad", "bergen", "basic"] | Callable[[str], str] | None

#: The normalisations the Rust core implements, by name (``None`` is no normalisation).
NORMALIZATIONS = ("squad", "bergen", "basic")

_NORMALIZE_HELP = "use 'squad', 'bergen', 'basic', None, or a callable that maps a str to a str"


def resolve_normalize(normalize: object) -> tuple[str, Callable[[str], str] | None]:
    """Split ``normalize`` into the name the Rust core understands and a Python callable.

    A named normaliser runs in Rust (``"none"`` for no normalisation); a callable runs in Python
    first, and the core then compares its results as given.
    """
    if normalize is None:
        return "none", None
    if isinstance(normalize, str):
        if normalize in NORMALIZATIONS:
            return normalize, None
        raise InvalidInputError(f"normalize: unknown normaliser {normalize!r}; {_NORMALIZE_HELP}")
    if callable(normalize):
        return "none", normalize
    raise InputTypeError(f"normalize: got {type(normalize).__name__}; {_NORMALIZE_HELP}")


def normalize_callable(function: Callable[[str], Any], text: object, place: str) -> str:
    """``function(text)``, checking that the input and the result are ``str``."""
    if not isinstance(text, str):
        raise InputTypeError(f"{place} is {_type_name(text)}; expected a str")
    result = function(text)
    if not isinstance(result, str):
        raise InputTypeError(
            f"normalize returned {_type_name(result)} for {place}; a normalize callable must "
            "return a str"
        )
    return result


def _type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


def as_item_list(values: object, argument: str, what: str) -> list[Any]:
    """``values`` as a list of per-item values, refusing containers that are not one.

    A bare ``str`` would be read as a list of characters, a mapping as its keys and a set in no
    particular order, so each is refused with a TypeError that says what to pass instead.
    """
    if values is None:
        raise InputTypeError(f"{argument} is None; pass a list of {what}")
    if isinstance(values, str):
        raise InputTypeError(
            f"{argument} is a single str; pass a list of {what} (for one item, wrap it: "
            f"[{values[:30]!r}])"
        )
    if isinstance(values, (bytes, bytearray, memoryview)):
        raise InputTypeError(f"{argument} is {type(values).__name__}; pass a list of {what}")
    if isinstance(values, Mapping):
        raise InputTypeError(
            f"{argument} is a mapping; pass a list of {what} aligned by position with the "
            "other argument (e.g. [d[key] for key in keys])"
        )
    if isinstance(values, (set, frozenset)):
        raise InputTypeError(
            f"{argument} is a set, which has no order to pair items by; pass a list of {what}"
        )
    if isinstance(values, list):
        # A copy (of the references, not the strings): the Rust core reads the items while
        # the GIL is released between chunks, and another thread shrinking the caller's list
        # meanwhile must not change what is scored (nor make an index go out of range).
        return values.copy()
    if not isinstance(values, Iterable):
        raise InputTypeError(f"{argument} is {_type_name(values)}; pass a list of {what}")
    return list(values)


def check_unit_interval(value: object, argument: str, *, allow_zero: bool = True) -> float:
    """A real number in [0, 1] (or (0, 1] without ``allow_zero``), as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"{argument} must be a real number, got {_type_name(value)}")
    number = float(value)
    low_ok = number >= 0.0 if allow_zero else number > 0.0
    if not (low_ok and number <= 1.0):
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise InvalidInputError(f"{argument}: must lie in {interval}, got {value!r}")
    return number


def is_token_sequence(value: object) -> bool:
    """A sequence of items compared item by item (not a str, bytes or None)."""
    return isinstance(value, Sequence) and not isinstance(
        value, (str, bytes, bytearray, memoryview)
    )


# Code points that stand for items of token sequences: all of Unicode but the surrogates,
# which are not valid text.
_SURROGATES = 0xD800
_SURROGATE_COUNT = 0x800
_MAX_SYMBOLS = 0x110000 - _SURROGATE_COUNT


class SymbolTable:
    """Maps the distinct items of token sequences to distinct code points.

    Levenshtein distance only asks whether two items are equal, so a sequence of hashable items
    can be compared as the string of their code points. Items are equal when they are equal as
    dictionary keys (``==`` with equal hashes, so ``1 == 1.0 == True``).
    """

    def __init__(self) -> None:
        self._codes: dict[Hashable, str] = {}

    def encode(self, items: Iterable[Any], place: str) -> str:
        codes = self._codes
        symbols = []
        for item in items:
            try:
                symbol = codes.get(item)
            except TypeError:
                raise InputTypeError(
                    f"{place} holds an unhashable {type(item).__name__}; the items of a "
                    "sequence must be hashable to be compared"
                ) from None
            if symbol is None:
                number = len(codes)
                if number >= _MAX_SYMBOLS:
                    raise InvalidInputError(
                        f"{place}: more than {_MAX_SYMBOLS} distinct items in one comparison"
                    )
                symbol = chr(number if number < _SURROGATES else number + _SURROGATE_COUNT)
                codes[item] = symbol
            symbols.append(symbol)
        return "".join(symbols)
