"""Systems keep distinct colours beyond ten (issue 50 item 6): the first twenty differ by at
least the CIE 1976 colour difference of tab10's own closest pair less 5%, and no colour repeats
among 300 systems (issue 52's campaign size). The colour difference is computed here from the
definitions (IEC 61966-2-1 sRGB to CIE XYZ, D65; CIE 1976 L*a*b*), not by the package."""

from __future__ import annotations

import itertools
import math

import matplotlib.colors

from ragmeter._colours import SYSTEM_COLOURS, system_colour


def _lab(colour: str) -> tuple[float, float, float]:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in matplotlib.colors.to_rgb(colour))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _difference(a: str, b: str) -> float:
    return math.dist(_lab(a), _lab(b))


def test_the_first_ten_are_matplotlibs_cycle() -> None:
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    assert [system_colour(i) for i in range(10)] == [matplotlib.colors.to_hex(c) for c in cycle]


def test_twenty_systems_have_colours_as_distinct_as_tab10s() -> None:
    tab10 = min(_difference(a, b) for a, b in itertools.combinations(SYSTEM_COLOURS[:10], 2))
    twenty = [system_colour(i) for i in range(20)]
    closest = min(_difference(a, b) for a, b in itertools.combinations(twenty, 2))
    assert closest >= 0.95 * tab10
    # Twelve systems (the campaign): none shares a colour with another.
    assert len({system_colour(i) for i in range(12)}) == 12


def test_no_colour_repeats_among_300_systems() -> None:
    colours = [system_colour(i) for i in range(300)]
    assert len(set(colours)) == 300
    assert all(matplotlib.colors.is_color_like(c) for c in colours)
