"""One colour per system, the same in every figure (:mod:`ragmeter.plots`) and in the HTML report
(:mod:`ragmeter.html_report`), by the system's position.

The first ten are matplotlib's default cycle (tab10); the next ten were chosen, one at a time,
from Kelly's colours of maximum contrast and tab20's light and dark shades, as the candidate
farthest (CIE 1976 colour difference in CIELAB) from every colour already chosen: any two of
the twenty differ by at least 26 (tab10's own closest pair: 27.7). Beyond twenty, colours are
spread over the hue circle by the golden angle, in three lightnesses: every system still gets a
colour of its own (no repeat), though past twenty a legend or a label is what tells them apart.
"""

from __future__ import annotations

import colorsys

__all__ = ["SYSTEM_COLOURS", "system_colour"]

#: tab10, then ten colours as far as possible from the ones before them (see the module).
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
    "#ffbb78",
    "#637939",
    "#ff9896",
    "#98df8a",
    "#aec7e8",
    "#393b79",
    "#b3446c",
    "#008856",
    "#dbdb8d",
    "#882d17",
)

_GOLDEN = 0.381966  # 1 - 1/phi: successive hues as far apart as the ones before allow
_LIGHTNESS = (0.45, 0.65, 0.32)


def system_colour(index: int) -> str:
    """The colour of the ``index``-th system: :data:`SYSTEM_COLOURS` for the first twenty,
    then a golden-angle hue (never a repeat).

    Examples
    --------
    >>> system_colour(0), system_colour(10)
    ('#1f77b4', '#ffbb78')
    """
    if index < len(SYSTEM_COLOURS):
        return SYSTEM_COLOURS[index]
    extra = index - len(SYSTEM_COLOURS)
    hue = (0.11 + extra * _GOLDEN) % 1.0
    lightness = _LIGHTNESS[extra % len(_LIGHTNESS)]
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, 0.75)
    colour = "#" + "".join(f"{round(c * 255):02x}" for c in (red, green, blue))
    return colour
