"""One colour per system, the same in every figure (:mod:`ragmeter.plots`) and in the HTML report
(:mod:`ragmeter.html_report`): matplotlib's default cycle (tab10), by the system's position."""

from __future__ import annotations

__all__ = ["SYSTEM_COLOURS", "system_colour"]

#: matplotlib's default colour cycle (tab10).
SYSTEM_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def system_colour(index: int) -> str:
    """The colour of the ``index``-th system (the cycle repeats after ten)."""
    return SYSTEM_COLOURS[index % len(SYSTEM_COLOURS)]
