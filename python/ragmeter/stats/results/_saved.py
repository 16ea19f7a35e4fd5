"""What both saved comparison results share: their kinds and format version, and the
checks of a file being read back (a report may have been edited by hand)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ...exceptions import InvalidInputError
from ...reports import report_number
from .._arguments import check_level, check_seed, positive_int
from ..multiple import CORRECTIONS
from ..options import METHODS, ComparisonOptions
from ..registry import TESTS

__all__ = ["COMPARISON_KIND", "FORMAT_VERSION", "MULTIPLE_COMPARISON_KIND", "READABLE_VERSIONS"]

COMPARISON_KIND = "ragmeter.comparison"
MULTIPLE_COMPARISON_KIND = "ragmeter.multiple_comparison"
#: The format of comparison reports (2: any test, corrections, campaigns of many systems;
#: 3: the options as given, ``options``, and the correction's family size, ``n_tests``; the
#: one-way Tukey test is named ``"tukey-oneway"``). Reports of format 2 are read too.
FORMAT_VERSION = 3
#: The formats :meth:`Comparison.from_dict` and :meth:`MultipleComparison.from_dict` read.
READABLE_VERSIONS = (2, 3)


def _number(value: Any, field_name: str, *, minimum: float = -math.inf) -> float:
    return report_number(value, field_name, minimum=minimum)


def _check_mapping(data: Any, what: str) -> None:
    if not isinstance(data, Mapping):
        raise InvalidInputError(
            f"expected {what}: a mapping as to_dict() returns it, got {type(data).__name__}"
        )


def _check_name(value: Any, field_name: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{field_name}: expected the name of a system, got {value!r}")
    return value


def _check_query_ids(ids: Any) -> tuple[Any, ...]:
    if not isinstance(ids, list | tuple) or any(
        isinstance(q, bool) or not isinstance(q, str | int) for q in ids
    ):
        raise InvalidInputError("query_ids: every query id must be a str or an int")
    return tuple(ids)


def _check_excluded(value: Any) -> dict[str, tuple[Any, ...]]:
    if not isinstance(value, Mapping):
        raise InvalidInputError("excluded: expected {system: [query ids]}")
    return {_check_name(k, "excluded"): _check_query_ids(v) for k, v in value.items()}


def _check_version(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` in the current format: a report of an older readable format is upgraded
    (format 2 named the one-way Tukey test ``"tukey"``)."""
    version = data.get("format_version")
    if version not in READABLE_VERSIONS:
        raise InvalidInputError(
            f"format_version: {version!r}; this version of ragmeter reads comparison reports "
            f"of formats {', '.join(map(str, READABLE_VERSIONS))} (compare the systems again "
            "to write one)"
        )
    upgraded = dict(data)
    if version == 2 and upgraded.get("test") == "tukey":
        upgraded["test"] = "tukey-oneway"
    return upgraded


def _check_settings(data: Mapping[str, Any]) -> dict[str, Any]:
    test = data.get("test")
    if test not in TESTS:
        raise InvalidInputError(f"test: must be one of {list(TESTS)}, got {test!r}")
    spec = TESTS[test]
    method = data.get("method")
    if method not in spec.campaign_methods():
        raise InvalidInputError(
            f"method: must be one of {spec.campaign_methods()} for test {test!r}, got {method!r}"
        )
    correction = data.get("correction")
    if correction is not None and correction not in (*CORRECTIONS, spec.own_correction):
        raise InvalidInputError(f"correction: unknown correction {correction!r}")
    family = data.get("family", "all")
    if family not in ("all", "metric"):
        raise InvalidInputError(f"family: must be 'all' or 'metric', got {family!r}")
    level = data.get("confidence_level")
    if level is not None:
        check_level("confidence_level", level)
    seed = data.get("random_state")
    if seed is not None:
        check_seed(seed)
    return {
        "test": test,
        "method": method,
        "n_resamples": positive_int(
            "n_resamples", data["n_resamples"], allow_zero=not spec.resampled
        ),
        "random_state": seed,
        "confidence_level": level,
        "n_bootstrap": positive_int("n_bootstrap", data.get("n_bootstrap", 0), allow_zero=True),
        "alpha": check_level("alpha", data.get("alpha")),
        "correction": correction,
        "family": family,
    }


def _check_options(
    data: Mapping[str, Any], settings: Mapping[str, Any], baseline: str | None
) -> ComparisonOptions:
    """The saved options (format 3), or, for a report of format 2, the options its settings
    imply (the requested method and counts where they are known, seed 0 where none was
    used)."""
    saved = data.get("options")
    if saved is not None:
        if not isinstance(saved, Mapping):
            raise InvalidInputError("options: expected {option: value}")
        # An absent option is None: TOML has no null, so its writer leaves None values out.
        # A report written before ``alternative`` existed was two-sided.
        options = ComparisonOptions.from_dict(
            {name: saved.get(name) for name in ComparisonOptions.SAVED}
        )
        if options.test != settings["test"] or options.correction != settings["correction"]:
            raise InvalidInputError(
                f"options: test {options.test!r} and correction {options.correction!r} are not "
                f"those of the report ({settings['test']!r}, {settings['correction']!r})"
            )
        return options
    spec = TESTS[settings["test"]]
    return ComparisonOptions(
        test=settings["test"],
        correction=settings["correction"],
        family=settings["family"],
        alpha=settings["alpha"],
        confidence_level=settings["confidence_level"],
        method=settings["method"] if settings["method"] in METHODS else "auto",
        n_resamples=settings["n_resamples"] if spec.resampled else 9999,
        n_bootstrap=settings["n_bootstrap"],
        random_state=settings["random_state"] if settings["random_state"] is not None else 0,
        baseline=baseline,
    )


def _excluded_notes(excluded: Mapping[str, Sequence[Any]]) -> list[str]:
    notes = []
    for system, ids in excluded.items():
        if ids:
            shown = ", ".join(repr(q) for q in list(ids)[:5]) + (", ..." if len(ids) > 5 else "")
            notes.append(
                f"{len(ids)} queries of {system} are not in every system and were left out "
                f"(missing='skip', ragmeter compare --missing skip): {shown}."
            )
    return notes


def _describe(
    test: str,
    method: str,
    n_resamples: int,
    seed: int | None,
    correction: str | None,
    family: str,
    alpha: float,
    *,
    n_tests: int,
    n_pairs: int | None = None,
    confidence_level: float | None = None,
    n_bootstrap: int = 0,
    alternative: str = "two-sided",
) -> str:
    """The caption's sentence: the test and its alternative, how its p-values were computed
    (randomisations and seed), the correction and the size of its family, bootstrap intervals
    and their seed."""
    spec = TESTS[test]
    name = spec.title_for(alternative)
    if spec.resampled:
        name += (
            f", exact over all {n_resamples:,} {spec.exact_unit}"
            if method == "exact"
            else f", {n_resamples:,} {spec.sampled_unit} (seed {seed})"
        )
    if spec.own_correction is not None:
        adjustment = spec.own_correction_text + (
            f" ({n_pairs} pairs per metric)" if n_pairs is not None else ""
        )
    elif correction is None:
        adjustment = f"no correction for multiple tests ({n_tests} test{'s' * (n_tests != 1)})"
    else:
        scope = (
            ("over 1 test" if n_tests == 1 else f"over all {n_tests} tests")
            if family == "all"
            else f"per metric (over {n_pairs} pairs)"
            if n_pairs is not None and n_pairs != 1
            else "per metric"
        )
        adjustment = f"p-values adjusted by {CORRECTIONS[correction]} {scope}"
    intervals = ""
    if confidence_level is not None and spec.interval == "bootstrap" and n_bootstrap:
        intervals = (
            f"; {confidence_level:.0%} intervals: bootstrap percentiles of {n_bootstrap:,} "
            f"resamples (seed {seed})"
        )
    return f"{name}; {adjustment}{intervals}; α = {alpha:g}."
