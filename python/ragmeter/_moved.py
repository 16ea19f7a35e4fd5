"""Old import paths of names that moved: a module's ``__getattr__`` that finds a moved name
in its new module and says so with a :class:`DeprecationWarning` (once per use site).

Usage, in the module the names left::

    from ._moved import moved_names

    __getattr__ = moved_names(__name__, {"kendall_tau": "ragmeter.stats.orderings"})
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["moved_names"]


def moved_names(old_module: str, moves: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the names of ``moves`` (``name -> new module``).

    Parameters
    ----------
    old_module
        The module the names left (its ``__name__``).
    moves
        Each moved name and the module that holds it now (``"module:other_name"`` when it
        was renamed).

    Returns
    -------
    callable
        ``__getattr__(name)``: the object, with a DeprecationWarning naming its new place;
        AttributeError for any other name.
    """

    def __getattr__(name: str) -> Any:
        if name not in moves:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        module_name, _, new_name = moves[name].partition(":")
        new_name = new_name or name
        warnings.warn(
            f"{old_module}.{name} moved to {module_name}.{new_name}; import it from there "
            "(the old path will be removed in a later release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(module_name), new_name)

    return __getattr__
