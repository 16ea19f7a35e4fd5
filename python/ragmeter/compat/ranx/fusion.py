"""``ranx.fusion``: ranx's fusion of runs (``fuse``, ``optimize_fusion``), built by the fusion
helper of ragmeter (``ragmeter.compat._ranx_fusion``) where that is installed; without it,
each function raises an error naming the missing part."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from .._unsupported import unsupported

__all__ = ["fuse", "optimize_fusion"]

_HELPER = "ragmeter.compat._ranx_fusion"
_AVAILABLE = importlib.util.find_spec(_HELPER) is not None


def _missing(name: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise unsupported(
            "ranx",
            f"ranx.fusion.{name} (ranx's per-method function)",
            "fuse with ragmeter.compat.ranx.fuse(runs, method=..., params=...) (ranx's fuse), "
            "which has every method, or optimize_fusion(...)",
        )

    refuse.__name__ = name
    refuse.__doc__ = f"ranx's ``{name}``: not in this ragmeter (raises naming the part)."
    return refuse


if _AVAILABLE:
    _fusion = importlib.import_module(_HELPER)
    fuse = getattr(_fusion, "fuse", None) or _missing("fuse")
    optimize_fusion = getattr(_fusion, "optimize_fusion", None) or _missing("optimize_fusion")
else:
    fuse = _missing("fuse")
    optimize_fusion = _missing("optimize_fusion")


def __getattr__(name: str) -> Any:
    # ranx's fusion methods by name (comb_sum, rrf, ...): each raises naming the part.
    if name.startswith("__"):
        raise AttributeError(name)
    return _missing(name)
