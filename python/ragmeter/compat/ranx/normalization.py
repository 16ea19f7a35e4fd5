"""``ranx.normalization``: ranx's score normalisations (``norm``), built by the fusion helper
of ragmeter (``ragmeter.compat._ranx_fusion``) where that is installed; without it, the
function raises an error naming the missing part."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from .._unsupported import unsupported

__all__ = ["norm"]

_HELPER = "ragmeter.compat._ranx_fusion"

_helper_norm = (
    getattr(importlib.import_module(_HELPER), "normalize", None)
    if importlib.util.find_spec(_HELPER) is not None
    else None
)
if _helper_norm is not None:
    norm = _helper_norm
else:

    def norm(*args: Any, **kwargs: Any) -> Any:
        """ranx's ``norm``: not in this ragmeter (raises naming the part)."""
        raise unsupported(
            "ranx",
            "ranx.normalization.norm (score normalisation of runs)",
            "this ragmeter has no fusion module (ragmeter.compat._ranx_fusion)",
        )


def __getattr__(name: str) -> Any:
    # ranx's normalisations by name (min_max_norm, zmuv_norm, ...): each raises naming the part.
    if name.startswith("__"):
        raise AttributeError(name)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise unsupported(
            "ranx",
            f"ranx.normalization.{name} (ranx's per-normalisation function)",
            "normalise with ragmeter.compat.ranx.normalize(run, norm=...) (ranx's norm), or "
            "pass norm= to fuse(...)",
        )

    refuse.__name__ = name
    return refuse
