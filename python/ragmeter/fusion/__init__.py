"""Fusion of several runs into one: ranx 0.3's 25 methods and 7 normalisations in the Rust core
(see :mod:`ragmeter.fusion.declarations`)."""

from ._fuse import FusedRun, fuse, train_fusion
from ._optimize import FusionSearch, fusion_grid, optimize_fusion
from .declarations import METHODS, NORMALIZATIONS, FusionMethod, Normalization

__all__ = [
    "METHODS",
    "NORMALIZATIONS",
    "FusedRun",
    "FusionMethod",
    "FusionSearch",
    "Normalization",
    "fuse",
    "fusion_grid",
    "optimize_fusion",
    "train_fusion",
]
