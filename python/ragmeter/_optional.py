"""Lazy imports of optional dependencies, with an error that names the extra to install (or,
when the memory ran out, the cause: a MemoryError saying so)."""

from __future__ import annotations

import importlib
from types import ModuleType

from .exceptions import MissingDependencyError

__all__ = ["import_optional", "memory_failure", "out_of_memory"]


def memory_failure(error: BaseException) -> bool:
    """Whether an import failed for lack of memory (a shared library that could not be
    mapped), not for a missing package."""
    text = str(error).lower()
    return isinstance(error, MemoryError) or any(
        marker in text
        for marker in ("cannot allocate memory", "failed to map segment", "out of memory")
    )


def out_of_memory(doing: str, error: BaseException) -> str:
    """The message of a MemoryError met ``doing`` something: what, the cause, what to do."""
    detail = "; ".join(str(a) for a in error.args) or type(error).__name__
    return (
        f"not enough memory for {doing} ({detail}): the memory this process may use is "
        "exhausted (the machine's, or a limit such as ulimit -v / RLIMIT_AS, a cgroup or a batch "
        "scheduler's); free memory or raise the limit"
    )


def import_optional(module: str, *, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingDependencyError` naming the extra to install
    (a MemoryError when the module is installed but could not be loaded for lack of memory)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if memory_failure(exc):
            # The package is installed: its shared library could not be mapped.
            raise MemoryError(
                f"{purpose}: {module!r} could not be loaded for lack of memory ({exc}): the "
                "memory this process may use is exhausted (the machine's, or a limit such as "
                "ulimit -v / RLIMIT_AS); free memory or raise the limit"
            ) from exc
        raise MissingDependencyError(
            f"{purpose} needs the optional dependency {module.split('.')[0]!r}: "
            f"install it with `pip install 'ragmeter[{extra}]'`"
        ) from exc
