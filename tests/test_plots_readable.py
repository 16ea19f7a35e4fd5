"""Figures that stay readable (issue 28): means with their t intervals, one panel of sorted
differences per system beyond two, one colour per system everywhere, `compare --plot DIR`."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from matplotlib.colors import to_hex
from matplotlib.container import BarContainer
from scipy import stats as scipy_stats

from ragmeter import InvalidInputError
from ragmeter._colours import system_colour
from ragmeter.html_report._svg import colour as report_colour
from ragmeter.plots import plot_metrics, plot_per_query

RNG = np.random.default_rng(11)
QUERIES = [f"q{i}" for i in range(25)]
SYSTEMS = {
    name: {
        "map": dict(zip(QUERIES, RNG.random(25).tolist(), strict=True)),
        "P_10": dict(zip(QUERIES, (RNG.integers(0, 11, 25) / 10).tolist(), strict=True)),
    }
    for name in ("bm25", "dense", "hybrid", "splade")
}


def test_the_means_carry_their_t_intervals_and_the_systems_colours():
    figure = plot_metrics(SYSTEMS, metrics=["map", "P_10"])
    axes = figure.axes[0]
    containers = [c for c in axes.containers if isinstance(c, BarContainer)]
    for i, (name, bars) in enumerate(zip(SYSTEMS, containers, strict=True)):
        segments = bars.errorbar.lines[2][0].get_segments()
        for metric, segment in zip(["map", "P_10"], segments, strict=True):
            values = np.array(list(SYSTEMS[name][metric].values()))
            low, high = scipy_stats.t.interval(
                0.95, values.size - 1, loc=values.mean(), scale=scipy_stats.sem(values)
            )
            assert segment[0][1] == pytest.approx(low, rel=1e-9)
            assert segment[1][1] == pytest.approx(high, rel=1e-9)
        assert to_hex(bars.patches[0].get_facecolor()) == system_colour(i) == report_colour(i)
    assert "95% t intervals" in axes.get_ylabel()
    no_bars = plot_metrics(SYSTEMS, metrics=["map"], confidence_level=None)
    assert all(
        c.errorbar is None for c in no_bars.axes[0].containers if isinstance(c, BarContainer)
    )


def test_more_than_two_systems_are_small_multiples_of_sorted_differences():
    figure = plot_per_query(SYSTEMS, "map", sort_by="dense")
    others = [n for n in SYSTEMS if n != "dense"]
    assert len(figure.axes) == len(others)
    base = SYSTEMS["dense"]["map"]
    for panel, name in zip(figure.axes, others, strict=True):
        d = np.array([SYSTEMS[name]["map"][q] - base[q] for q in QUERIES])
        heights = [bar.get_height() for bar in panel.patches]
        assert heights == pytest.approx(sorted(d, reverse=True), abs=1e-12)
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        assert f"W/T/L {wins}/{25 - wins - losses}/{losses}" in panel.get_title()
        colour = to_hex(panel.patches[0].get_facecolor())
        assert colour == system_colour(list(SYSTEMS).index(name))
    two = plot_per_query({n: SYSTEMS[n] for n in ("bm25", "dense")}, "map")
    assert [line.get_label() for line in two.axes[0].get_lines()] == ["bm25", "dense"]
    with pytest.raises(InvalidInputError, match="one panel per system"):
        plot_per_query(SYSTEMS, "map", ax=two.axes[0])


def test_compare_writes_its_figures(tmp_path):
    rng = np.random.default_rng(5)
    with (tmp_path / "qrels.txt").open("w") as f:
        for q in range(20):
            for d in range(12):
                f.write(f"q{q} 0 d{d} {rng.integers(0, 3)}\n")
    runs = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.run"
        with path.open("w") as f:
            for q in range(20):
                for rank, d in enumerate(rng.permutation(12)[:8]):
                    f.write(f"q{q} Q0 d{d} {rank + 1} {20 - rank} {name}\n")
        runs.append(path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragmeter",
            "compare",
            "-m",
            "map",
            "-m",
            "ndcg_cut.10",
            tmp_path / "qrels.txt",
            *runs,
            "--baseline",
            "a.run",
            "--plot",
            tmp_path / "figs",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    written = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert written == ["map-per-query.png", "means.png", "ndcg_cut_10-per-query.png"]
    assert all((tmp_path / "figs" / n).stat().st_size > 1000 for n in written)
    assert "wrote 3 figures" in done.stderr


def _texts_are_legible(figure) -> None:
    """Every text of ``figure`` is inside it (nothing clipped) and no two overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    page = figure.bbox
    texts = [figure._suptitle] if figure._suptitle is not None else []
    for axes in figure.axes:
        texts += [axes.title, axes.xaxis.label, axes.yaxis.label, *axes.texts]
        legend = axes.get_legend()
        texts += [] if legend is None else legend.get_texts()
        for axis in (axes.xaxis, axes.yaxis):
            low, high = sorted(axis.get_view_interval())
            texts += [t.label1 for t in axis.get_major_ticks() if low <= t.get_loc() <= high]
    boxes = []
    for text in texts:
        if not text.get_visible() or not text.get_text().strip():
            continue
        box = text.get_window_extent(renderer)
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1, text.get_text()
        assert page.y0 - 1 <= box.y0 and box.y1 <= page.y1 + 1, text.get_text()
        boxes.append((text.get_text(), box))
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            overlap_x = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            overlap_y = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            assert overlap_x <= 1 or overlap_y <= 1, (a, b)


def test_twelve_systems_of_one_metric_stay_legible(tmp_path):
    # issue 50: `compare --plot` with one metric and 12 runs had its legend clipped and its
    # value labels over each other.
    rng = np.random.default_rng(3)
    queries = [f"t{i}" for i in range(500)]
    systems = {
        f"system_{s:02d}.run": {
            "ndcg_cut_10": dict(zip(queries, rng.uniform(0, 1, 500).tolist(), strict=True))
        }
        for s in range(12)
    }
    figure = plot_metrics(systems, metrics=["ndcg_cut_10"], path=tmp_path / "means.png")
    _texts_are_legible(figure)
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    means = {name: np.mean(list(v["ndcg_cut_10"].values())) for name, v in systems.items()}
    best_first = sorted(means, key=means.get, reverse=True)
    # One row per system, named on its row with its query count, the best at the top.
    assert labels[::-1] == [f"{name} (500)" for name in best_first]
    # Each system keeps its colour (its position's), as in the report.
    for line in figure.axes[0].lines:
        assert to_hex(line.get_color()) in {system_colour(i) for i in range(12)}
    grouped = plot_metrics(dict(list(systems.items())[:4]), metrics=["ndcg_cut_10"])
    _texts_are_legible(grouped)
