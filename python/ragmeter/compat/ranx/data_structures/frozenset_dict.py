"""ranx's ``FrozensetDict``: a mapping keyed by unordered collections, so that
``comparisons["a", "b"]`` and ``comparisons["b", "a"]`` are the same pair (ranx's
``Report.comparisons``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

from ....exceptions import InputTypeError

__all__ = ["FrozensetDict"]


def _key(key: object) -> frozenset[Any]:
    # A str is iterable but is one name, not a pair: frozenset("ab") would be {"a", "b"}.
    if isinstance(key, str | bytes) or not isinstance(key, Iterable):
        raise InputTypeError(
            f"key: a FrozensetDict key is a collection of names such as ('a', 'b'), got {key!r}"
        )
    return frozenset(key)


class FrozensetDict(MutableMapping[frozenset[Any], Any]):
    """ranx's ``FrozensetDict``: keys are collections (``("a", "b")``, ``{"a", "b"}``) stored as
    frozensets, so their order does not matter.

    Parameters
    ----------
    arg
        Initial ``{key: value}`` (or ``(key, value)`` pairs), keys collections as above.

    Examples
    --------
    >>> pairs = FrozensetDict({("a", "b"): 0.5})
    >>> pairs["b", "a"], len(pairs)
    (0.5, 1)
    """

    def __init__(self, arg: Mapping[Any, Any] | Iterable[tuple[Any, Any]] | None = None) -> None:
        self._map: dict[frozenset[Any], Any] = {}
        if arg is not None:
            self.update(arg)

    def __getitem__(self, key: Iterable[Any]) -> Any:
        return self._map[_key(key)]

    def __setitem__(self, key: Iterable[Any], value: Any) -> None:
        self._map[_key(key)] = value

    def __delitem__(self, key: Iterable[Any]) -> None:
        del self._map[_key(key)]

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str | bytes) or not isinstance(key, Iterable):
            return False
        return frozenset(key) in self._map

    def __iter__(self) -> Iterator[frozenset[Any]]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __repr__(self) -> str:
        return f"FrozensetDict({self._map!r})"
