"""Fusion of several runs into one: ranx 0.3's 25 methods and 7 normalisations in the Rust core
(see :mod:`ragmeter.fusion.declarations`)."""

from ._fuse import FusedRun, fuse, train_fusion
from .declarations import METHODS, NORMALIZATIONS, FusionMethod, Normalization

__all__ = [
    "METHODS",
    "NORMALIZATIONS",
    "FusedRun",
    "FusionMethod",
    "Normalization",
    "fuse",
    "train_fusion",
]
