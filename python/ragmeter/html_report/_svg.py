"""The report's figures as plain SVG text (no script, no external font), deterministic.

* :func:`means_chart`: each system's mean of a metric with its confidence interval;
* :func:`deltas_chart`: one candidate's per-query differences from the baseline, sorted (the
  readable form of a per-topic plot of many systems: one small chart per candidate);
* :func:`distribution_chart`: each system's per-query values as a box (quartiles, whiskers at
  the 5th and 95th percentiles, the mean as a dot).

Colours follow the systems' order in :data:`COLOURS` (matplotlib's default cycle, the colours
:mod:`ragmeter.plots` gives the same systems), so a system has one colour in every figure.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

from .._colours import SYSTEM_COLOURS, system_colour
from ._names import name_svg, name_text

__all__ = ["COLOURS", "colour", "deltas_chart", "distribution_chart", "means_chart"]

COLOURS = SYSTEM_COLOURS
_WIDTH = 640
_LABEL = 170


colour = system_colour


def _f(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _svg(height: float, body: list[str], title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {_f(height)}" '
        f'width="{_WIDTH}" height="{_f(height)}" role="img" aria-label="{html.escape(title)}">'
        f"<title>{html.escape(title)}</title>" + "".join(body) + "</svg>"
    )


def _scale(low: float, high: float) -> tuple[float, float]:
    if not np.isfinite(low) or not np.isfinite(high):
        return 0.0, 1.0
    if high - low < 1e-12:
        return low - 0.5, high + 0.5
    pad = (high - low) * 0.05
    return low - pad, high + pad


def _axis(low: float, high: float, y: float, x0: float, x1: float) -> list[str]:
    body = [f'<line x1="{_f(x0)}" y1="{_f(y)}" x2="{_f(x1)}" y2="{_f(y)}" stroke="#999"/>']
    for tick in np.linspace(low, high, 5):
        x = x0 + (tick - low) / (high - low) * (x1 - x0)
        body.append(
            f'<text x="{_f(x)}" y="{_f(y + 14)}" font-size="11" text-anchor="middle" '
            f'fill="#444">{tick:.3g}</text>'
        )
    return body


def means_chart(
    metric: str,
    systems: Sequence[str],
    means: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    level: float,
    colours: Sequence[str] | None = None,
) -> str:
    """Each system's mean (a dot) with its interval (a line), one row per system, in the order
    given; ``colours``: each row's (default: by row, :func:`colour`)."""
    fill = list(colours) if colours is not None else [colour(i) for i in range(len(systems))]
    row = 24
    height = 30 + row * len(systems) + 24
    finite = [v for v in (*lows, *highs, *means) if np.isfinite(v)]
    low, high = _scale(min(finite, default=0.0), max(finite, default=1.0))
    x0, x1 = _LABEL, _WIDTH - 20

    def x(v: float) -> float:
        return x0 + (v - low) / (high - low) * (x1 - x0)

    body = [
        f'<text x="4" y="16" font-size="12" fill="#222">{name_svg(metric)}: mean and '
        f"{level:.0%} interval</text>"
    ]
    for i, name in enumerate(systems):
        y = 30 + row * i + row / 2
        body.append(
            f'<text x="{_LABEL - 8}" y="{_f(y + 4)}" font-size="12" text-anchor="end" '
            f'fill="#222">{name_svg(name)}</text>'
        )
        if np.isfinite(lows[i]) and np.isfinite(highs[i]):
            body.append(
                f'<line x1="{_f(x(lows[i]))}" y1="{_f(y)}" x2="{_f(x(highs[i]))}" y2="{_f(y)}" '
                f'stroke="{fill[i]}" stroke-width="3"/>'
            )
        if np.isfinite(means[i]):
            body.append(
                f'<circle cx="{_f(x(means[i]))}" cy="{_f(y)}" r="5" fill="{fill[i]}">'
                f"<title>{html.escape(name_text(name))}: {means[i]:.4f} "
                f"[{lows[i]:.4f}, {highs[i]:.4f}]</title></circle>"
            )
    body += _axis(low, high, 30 + row * len(systems) + 4, x0, x1)
    return _svg(height, body, f"{name_text(metric)}: means with intervals")


def deltas_chart(metric: str, candidate: str, baseline: str, deltas: np.ndarray, index: int) -> str:
    """The candidate's per-query differences from the baseline, sorted from worst to best: an
    area below zero for the queries it lost, above for those it won."""
    height = 150
    top, bottom = 24, 120
    d = np.sort(deltas[np.isfinite(deltas)])
    body = [
        f'<text x="4" y="16" font-size="12" fill="#222">{name_svg(metric)}: '
        f"{name_svg(candidate)} − {name_svg(baseline)} per query, sorted "
        f"({d.size} queries)</text>"
    ]
    if d.size:
        bound = max(float(np.max(np.abs(d))), 1e-12)
        x0, x1 = 40, _WIDTH - 10

        def y(v: float) -> float:
            return top + (bound - v) / (2 * bound) * (bottom - top)

        step = (x1 - x0) / d.size
        points = [f"{_f(x0)},{_f(y(0))}"]
        for i, v in enumerate(d):
            points.append(f"{_f(x0 + i * step)},{_f(y(float(v)))}")
            points.append(f"{_f(x0 + (i + 1) * step)},{_f(y(float(v)))}")
        points.append(f"{_f(x1)},{_f(y(0))}")
        body.append(
            f'<polygon points="{" ".join(points)}" fill="{colour(index)}" fill-opacity="0.7" '
            'stroke="none"/>'
        )
        body.append(f'<line x1="{x0}" y1="{_f(y(0))}" x2="{x1}" y2="{_f(y(0))}" stroke="#444"/>')
        for v in (bound, -bound):
            body.append(
                f'<text x="{x0 - 4}" y="{_f(y(v) + 4)}" font-size="10" text-anchor="end" '
                f'fill="#444">{v:+.3g}</text>'
            )
        losses, wins = int(np.sum(d < 0)), int(np.sum(d > 0))
        body.append(
            f'<text x="{x0}" y="{bottom + 20}" font-size="11" fill="#444">worse on {losses}, '
            f"better on {wins}, equal on {d.size - losses - wins}</text>"
        )
    return _svg(
        height, body, f"{name_text(metric)}: per-query differences of {name_text(candidate)}"
    )


def distribution_chart(metric: str, systems: Sequence[str], values: Sequence[np.ndarray]) -> str:
    """Each system's per-query values as a box: quartiles, whiskers at the 5th and 95th
    percentiles, the mean as a dot."""
    row = 24
    height = 30 + row * len(systems) + 24
    finite = [v[np.isfinite(v)] for v in values]
    pooled = np.concatenate(finite) if finite else np.array([])
    low, high = _scale(
        float(pooled.min()) if pooled.size else 0.0, float(pooled.max()) if pooled.size else 1.0
    )
    x0, x1 = _LABEL, _WIDTH - 20

    def x(v: float) -> float:
        return x0 + (v - low) / (high - low) * (x1 - x0)

    body = [
        f'<text x="4" y="16" font-size="12" fill="#222">{name_svg(metric)}: per-query '
        "values (box: quartiles; whiskers: 5th-95th percentile; dot: mean)</text>"
    ]
    for i, (name, v) in enumerate(zip(systems, finite, strict=True)):
        y = 30 + row * i + row / 2
        body.append(
            f'<text x="{_LABEL - 8}" y="{_f(y + 4)}" font-size="12" text-anchor="end" '
            f'fill="#222">{name_svg(name)}</text>'
        )
        if not v.size:
            continue
        p5, q1, q2, q3, p95 = np.percentile(v, [5, 25, 50, 75, 95])
        c = colour(i)
        body.append(
            f'<line x1="{_f(x(p5))}" y1="{_f(y)}" x2="{_f(x(p95))}" y2="{_f(y)}" stroke="{c}"/>'
            f'<rect x="{_f(x(q1))}" y="{_f(y - 7)}" width="{_f(max(x(q3) - x(q1), 1))}" '
            f'height="14" fill="{c}" fill-opacity="0.35" stroke="{c}"/>'
            f'<line x1="{_f(x(q2))}" y1="{_f(y - 7)}" x2="{_f(x(q2))}" y2="{_f(y + 7)}" '
            f'stroke="{c}" stroke-width="2"/>'
            f'<circle cx="{_f(x(float(np.mean(v))))}" cy="{_f(y)}" r="3" fill="#222"/>'
        )
    body += _axis(low, high, 30 + row * len(systems) + 4, x0, x1)
    return _svg(height, body, f"{name_text(metric)}: distribution of per-query values")
