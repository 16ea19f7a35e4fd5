"""Lazy imports of optional dependencies, with an error that names the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from .exceptions import MissingDependencyError

__all__ = ["import_optional"]


def import_optional(module: str, *, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingDependencyError` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{purpose} needs the optional dependency {module.split('.')[0]!r}: "
            f"install it with `pip install 'ragmeter[{extra}]'`"
        ) from exc
