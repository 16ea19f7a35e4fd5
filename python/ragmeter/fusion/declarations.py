"""The fusion methods and normalisations as the API, the command, the docs and the tests read
them (ranx 0.3's names, parameters and semantics).

Each method is declared once, in the Rust core's table (``fusion_methods!`` in
``rust/core/src/fusion/methods.rs``): its name, ranx's names for it, family, parameters with
ranx's defaults, what it learns from training judgments, formula and citation. This module reads
that table into :class:`FusionMethod` rows; nothing about a method is written here."""

from __future__ import annotations

from dataclasses import dataclass

from .. import _core

__all__ = [
    "DEFAULT_METHOD",
    "DEFAULT_NORM",
    "METHODS",
    "NORMALIZATIONS",
    "PARAMETERS",
    "FusionMethod",
    "Normalization",
]


@dataclass(frozen=True)
class FusionMethod:
    """A fusion method: its ranx name, family, parameters (with ranx's defaults where ranx
    has one), what it learns from training judgments, formula and citation, and the names
    of ranx's per-method function for it and of the run that function returns."""

    name: str
    title: str
    family: str
    parameters: tuple[str, ...]
    defaults: tuple[tuple[str, float], ...]
    #: What `train` learns for it (None: nothing), and the parameter that holds it.
    training: str | None
    trained_parameter: str | None
    formula: str
    citation: str
    ranx_function: str
    ranx_run_name: str


@dataclass(frozen=True)
class Normalization:
    name: str
    formula: str


def _number(value: float) -> float:
    # ranx writes its integral defaults as ints (``k=60``).
    return int(value) if value.is_integer() else value


def _methods() -> dict[str, FusionMethod]:
    out = {}
    for row in _core.fusion_method_table():
        parameters = row["parameters"]
        out[row["name"]] = FusionMethod(
            name=row["name"],
            title=row["title"],
            family=row["family"],
            parameters=tuple(p for p, _ in parameters),
            defaults=tuple((p, _number(d)) for p, d in parameters if d is not None),
            training=row["training"],
            trained_parameter=row["trained_parameter"],
            formula=row["formula"],
            citation=row["citation"],
            ranx_function=row["ranx_function"],
            ranx_run_name=row["ranx_run_name"],
        )
    return out


#: Every fusion method, by name, in the core's order.
METHODS: dict[str, FusionMethod] = _methods()

#: Every parameter a method or a training takes, and its form: ``number``, ``count`` (a whole
#: number), ``per_run`` (one number per run) or ``per_run_vectors`` (one list per run).
PARAMETERS: dict[str, str] = dict(_core.fusion_parameter_table())

NORMALIZATIONS: dict[str, Normalization] = {
    n.name: n
    for n in (
        Normalization("min-max", "(s - min) / max(max - min, 1e-9)"),
        Normalization("min-max-inverted", "(max - s) / max(max - min, 1e-9)"),
        Normalization("max", "s / max(max, 1e-9)"),
        Normalization("sum", "(s - min) / max(Σ s - n·min, 1e-9)"),
        Normalization("zmuv", "(s - mean) / max(std, 1e-9)"),
        Normalization("rank", "1 - (p - 1) / n"),
        Normalization("borda", "1 - (p - 1) / N; unranked: 0.5 - (n - 1) / (2N); N candidates"),
    )
}

#: ``fuse``'s defaults (ranx's): one declaration, which the function and the command read.
DEFAULT_METHOD = "rrf"
DEFAULT_NORM: str | None = "min-max"
