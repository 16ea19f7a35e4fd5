"""ranx's ``Report`` (what ``ranx.compare`` returns) over ragmeter's
:class:`~ragmeter.MultipleComparison`: ranx's attributes (``model_names``, ``results``,
``comparisons``, ``metrics``, ``max_p``, ``win_tie_loss``, ``rounding_digits``,
``show_percentages``, ``stat_test``) and ranx's outputs (``print(report)``, ``to_latex()``,
``to_dict()``, ``to_dataframe()``, ``save(path)``), with ranx's labels, rounding and
superscript letters. The numbers are ragmeter's: the means, p-values and wins, ties and
losses of the comparison, which ``multiple_comparison`` holds with the rest of ragmeter's
results (intervals, effect sizes, its own tables).

A model is significantly better than another on a metric when its mean is higher and the
pair's p-value (adjusted, when the comparison corrected them) is at most ``max_p``; the table
marks it with the other model's letter, as ranx does.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

from ...._files import atomic_write_text
from ...._optional import import_optional
from ....exceptions import InputTypeError, InvalidInputError
from ....stats import MultipleComparison
from ....stats.results import MetricComparison
from .frozenset_dict import FrozensetDict

__all__ = ["METRIC_LABELS", "STAT_TESTS", "Report"]

#: The letters of the models, as ranx labels them (so at most 26 models in a table).
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: The same letters as superscripts, ranx's characters (ranx writes q as "۹").
_SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"

#: ranx's labels of its metric names (a name it has no label for is shown as it is).
METRIC_LABELS: dict[str, str] = {
    "hits": "Hits",
    "hit_rate": "Hit Rate",
    "precision": "P",
    "recall": "Recall",
    "f1": "F1",
    "r-precision": "R-Prec",
    "mrr": "MRR",
    "map": "MAP",
    "dcg": "DCG",
    "dcg_burges": "DCG Burges",
    "ndcg": "NDCG",
    "ndcg_burges": "NDCG Burges",
    "bpref": "BPref",
    **{f"rbp.{i}": f"RBP.{i}" for i in range(1, 100)},
}

#: ranx's ``stat_test`` names: ragmeter's test (a key of :data:`ragmeter.stats.TESTS`), the
#: correction compare asks for (``"auto"``: Tukey's own adjustment over all pairs; None: the
#: p-values as they are, as ranx reports them) and ranx's label.
STAT_TESTS: dict[str, tuple[str, str | None, str]] = {
    "student": ("t", None, "paired Student's t-test"),
    "fisher": ("sign-flip", None, "Fisher's randomization test"),
    "tukey": ("tukey-oneway", "auto", "Tukey's HSD test"),
}


def _p_value(item: MetricComparison) -> float:
    """The p-value the report shows: the adjusted one when the comparison corrected them (the
    one :meth:`MetricComparison.significant` reads)."""
    return item.p_value if item.p_value_adjusted is None else item.p_value_adjusted


def _cell_type(cell: str) -> int:
    """How tabulate, which ranx prints its table with, reads a cell: 0 empty, 1 bool, 2 int,
    3 float, 4 text (the more general wins in a column)."""
    if not cell:
        return 0
    if cell in ("True", "False"):
        return 1
    try:
        int(cell)
        return 2
    except ValueError:
        pass
    try:
        value = float(cell)
    except ValueError:
        return 4
    # tabulate takes "inf" and "nan" as numbers, not text that overflows to them ("1e999").
    finite = not (math.isinf(value) or math.isnan(value))
    return 3 if finite or cell.lower() in ("inf", "-inf", "nan") else 4


def _after_point(cell: str) -> int:
    """Characters after the decimal point (or the exponent) of a number, -1 without one:
    where tabulate aligns a column of numbers."""
    if _cell_type(cell) != 3:
        return -1
    position = cell.rfind(".")
    position = cell.lower().rfind("e") if position < 0 else position
    return len(cell) - position - 1 if position >= 0 else -1


def _general(cell: str) -> str:
    """A cell of a column of numbers as tabulate shows it: a number in ``"g"`` format, other
    cells (empty, True/False) as they are."""
    try:
        return format(float(cell), "g")
    except ValueError:
        return cell


def _simple_table(headers: list[str], rows: list[list[str]]) -> str:
    """``tabulate(rows, headers=headers)`` as ranx prints it (tabulate's "simple" format):
    columns at least their header plus 2 wide, 2 spaces apart, text flush left; a column of
    numbers is reformatted as tabulate does (floats with ``format(x, "g")``, so 0.530 shows
    as 0.53), aligned on the decimal point and flush right, header too. (Not followed:
    tabulate's reading of thousands separators, a model named "1,000".)"""
    columns: list[list[str]] = []
    numeric: list[bool] = []
    for index in range(len(headers)):
        cells = [row[index] for row in rows]
        kind = max((_cell_type(c) for c in cells), default=0)
        if kind in (2, 3):
            if kind == 3:
                cells = [_general(c) for c in cells]
            points = [_after_point(c) for c in cells]
            most = max(points)
            cells = [c + " " * (most - p) for c, p in zip(cells, points, strict=True)]
        else:
            cells = [c.strip() for c in cells]
        columns.append(cells)
        numeric.append(kind in (2, 3))
    widths = [
        max(len(h) + 2, *(len(c) for c in cells)) for h, cells in zip(headers, columns, strict=True)
    ]

    def line(cells: list[str]) -> str:
        padded = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(cells, widths, numeric, strict=True)
        ]
        return "  ".join(padded).rstrip()

    lines = [line(headers), "  ".join("-" * w for w in widths)]
    lines += [line([column[r] for column in columns]) for r in range(len(rows))]
    return "\n".join(lines)


class Report:
    """ranx's ``Report``: the comparison of several models, what ``compare`` returns.

    Parameters
    ----------
    multiple_comparison
        Every pair of the models compared (``ragmeter.compare_many(..., baseline=None)``) by a
        test ranx has (``"t"``, ``"sign-flip"`` or ``"tukey-oneway"``; :data:`STAT_TESTS`):
        its ``alpha`` is ranx's ``max_p``.
    rounding_digits
        Digits of the scores shown (ranx's; 3 by default).
    show_percentages
        Show the scores as percentages, with ``rounding_digits - 2`` digits.

    Raises
    ------
    InvalidInputError
        A comparison against one baseline (ranx compares every pair), with a test ranx does
        not have.

    Examples
    --------
    >>> from ragmeter import compare_many
    >>> a = {"map": {"q1": 0.9, "q2": 0.8, "q3": 0.7}}
    >>> b = {"map": {"q1": 0.2, "q2": 0.25, "q3": 0.3}}
    >>> report = Report(compare_many({"bm25": b, "dense": a}, test="t", correction=None))
    >>> print(report)
    #    Model    MAP
    ---  -------  ------
    a    bm25     0.250
    b    dense    0.800ᵃ
    >>> report.stat_test, report.win_tie_loss["dense", "bm25"]["map"]
    ('student', {'W': 3, 'T': 0, 'L': 0})
    """

    def __init__(
        self,
        multiple_comparison: MultipleComparison,
        rounding_digits: int = 3,
        show_percentages: bool = False,
    ) -> None:
        if not isinstance(multiple_comparison, MultipleComparison):
            raise InputTypeError(
                "multiple_comparison: expected ragmeter's MultipleComparison (compare_many), got "
                f"{type(multiple_comparison).__name__}"
            )
        comparison = multiple_comparison
        if comparison.baseline is not None:
            raise InvalidInputError(
                f"multiple_comparison: compares every model with the baseline "
                f"{comparison.baseline!r}; a ranx report compares every pair: "
                "compare_many(..., baseline=None)"
            )
        by_test = {test: name for name, (test, _, _) in STAT_TESTS.items()}
        if comparison.test not in by_test:
            raise InvalidInputError(
                f"multiple_comparison: made with the test {comparison.test!r}, which ranx does "
                f"not have; a ranx report shows {', '.join(map(repr, by_test))} (ranx's "
                f"{', '.join(by_test.values())}); use the comparison's own tables for others"
            )
        #: The comparison the report shows (ragmeter's, with intervals and effect sizes).
        self.multiple_comparison = comparison
        #: ranx's name of the test: ``"student"``, ``"fisher"`` or ``"tukey"``.
        self.stat_test = by_test[comparison.test]
        self.model_names = list(comparison.systems)
        self.metrics = list(comparison.metric_names)
        #: The significance level (the comparison's ``alpha``).
        self.max_p = comparison.alpha
        #: ``{model: {metric: mean}}``.
        self.results = comparison.means()
        #: ``{(model_1, model_2): {metric: {"p_value": p, "significant": bool}}}``, the pair in
        #: either order (a :class:`FrozensetDict`; ranx's Tukey reports also hold each model
        #: paired with itself, p = 1, which this one does not).
        self.comparisons = FrozensetDict()
        #: ``{(model, other): {metric: {"W": wins, "T": ties, "L": losses}}}``, each query
        #: counted from ``model``'s side.
        self.win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
        for model in self.model_names:
            for other in self.model_names:
                if model == other:
                    continue
                pair = comparison[model, other]
                items = [pair[metric] for metric in self.metrics]
                self.win_tie_loss[model, other] = {
                    item.metric: {"W": item.wins, "T": item.ties, "L": item.losses}
                    for item in items
                }
                if frozenset((model, other)) not in self.comparisons:
                    self.comparisons[model, other] = {
                        item.metric: {
                            "p_value": _p_value(item),
                            "significant": item.significant(self.max_p),
                        }
                        for item in items
                    }
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages
        self._digits()

    # -- ranx's formatting ---------------------------------------------------------------------

    def _digits(self) -> int:
        """``rounding_digits``, checked (it may be changed after the report is made)."""
        digits = self.rounding_digits
        if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
            raise InvalidInputError(f"rounding_digits: must be an int >= 0, got {digits!r}")
        if self.show_percentages and digits < 2:
            raise InvalidInputError(
                f"rounding_digits: {digits} with show_percentages=True; percentages show "
                "rounding_digits - 2 digits, so give 2 or more"
            )
        return digits

    def _letters(self) -> None:
        if len(self.model_names) > len(_LETTERS):
            raise InvalidInputError(
                f"the report labels its models a to z, and compares {len(self.model_names)}; "
                "use to_dict(), or the tables of multiple_comparison, for more than 26"
            )

    def format_score(self, score: float) -> str:
        """A score as ranx shows it: rounded to ``rounding_digits`` (as a percentage with
        ``rounding_digits - 2`` digits when ``show_percentages``)."""
        digits = self._digits()
        if self.show_percentages:
            return f"{round(score * 100, digits - 2):.{digits - 2}f}"
        return f"{round(score, digits):.{digits}f}"

    def _beaten(self, model: str, metric: str) -> list[int]:
        """The positions of the models ``model`` is significantly better than on ``metric``."""
        self._letters()
        return [
            j
            for j, other in enumerate(self.model_names)
            if other != model
            and self.comparisons[model, other][metric]["significant"]
            and self.results[model][metric] > self.results[other][metric]
        ]

    def get_superscript_for_table(self, model: str, metric: str) -> str:
        """The superscript letters of the models ``model`` beats significantly on ``metric``."""
        return "".join(_SUPERSCRIPTS[j] for j in self._beaten(model, metric))

    def get_superscript_for_latex(self, model: str, metric: str) -> str:
        """The letters of the models ``model`` beats significantly on ``metric``."""
        return "".join(_LETTERS[j] for j in self._beaten(model, metric))

    def get_phantoms_for_latex(self, model: str, metric: str) -> str:
        """The letters of the other models, those ``model`` does not beat significantly (ranx
        reserves their width in LaTeX, so that the columns align)."""
        beaten = set(self._beaten(model, metric))
        return "".join(
            _LETTERS[j]
            for j, other in enumerate(self.model_names)
            if other != model and j not in beaten
        )

    def get_metric_label(self, m: str) -> str:
        """ranx's label of a metric name (``ndcg@10-l2``: ``NDCG@10-l2``)."""
        name, suffix, level = m.rpartition("-l") if "-l" in m else (m, "", "")
        base, at, cutoff = name.partition("@")
        return f"{METRIC_LABELS.get(base, base)}{at}{cutoff}{suffix}{level}"

    def get_stat_test_label(self, stat_test: str) -> str:
        """ranx's label of a ``stat_test`` name (``"student"``: ``paired Student's t-test``)."""
        if stat_test not in STAT_TESTS:
            raise InvalidInputError(
                f"stat_test: one of {', '.join(map(repr, STAT_TESTS))}, got {stat_test!r}"
            )
        return STAT_TESTS[stat_test][2]

    # -- ranx's outputs ------------------------------------------------------------------------

    def to_table(self) -> str:
        """ranx's text table: a letter, the model and its scores, each with the superscript
        letters of the models it beats significantly."""
        self._letters()
        rows = [
            [
                _LETTERS[i],
                model,
                *(
                    self.format_score(self.results[model][m])
                    + self.get_superscript_for_table(model, m)
                    for m in self.metrics
                ),
            ]
            for i, model in enumerate(self.model_names)
        ]
        headers = ["#", "Model", *(self.get_metric_label(m) for m in self.metrics)]
        return _simple_table(headers, rows)

    def to_latex(self) -> str:
        """ranx's LaTeX table (booktabs), the best score of each metric in bold and the
        letters of the models each beats significantly as superscripts.

        Returns
        -------
        str
            The preamble lines to add and the table.
        """
        self._letters()
        digits = self._digits()
        best: dict[str, str | None] = {}
        for m in self.metrics:
            best_model, best_score = None, 0.0
            for model in self.model_names:
                if best_score < round(self.results[model][m], digits):
                    best_score = round(self.results[model][m], digits)
                    best_model = model
            best[m] = best_model
        preamble = (
            "========================\n% Add in preamble\n\\usepackage{graphicx}\n"
            "\\usepackage{booktabs}\n========================\n\n"
        )
        prefix = (
            "% To change the table size, act on the resizebox argument `0.8`.\n"
            "\\begin{table*}[ht]\n\\centering\n\\caption{\nOverall effectiveness of the models.\n"
            "The best results are highlighted in boldface.\n"
            "Superscripts denote significant differences in "
            + self.get_stat_test_label(self.stat_test)
            + " with $p \\le "
            + str(self.max_p)
            + "$.\n}\n\\resizebox{0.8\\textwidth}{!}{\n\\begin{tabular}{c|l"
            + "|c" * len(self.metrics)
            + "}\n\\toprule\n\\textbf{\\#}\n& \\textbf{Model}"
            + "".join(f"\n& \\textbf{{{self.get_metric_label(m)}}}" for m in self.metrics)
            + " \\\\ \n\\midrule"
        )
        rows = []
        for i, model in enumerate(self.model_names):
            scores = []
            for m in self.metrics:
                score = self.format_score(self.results[model][m])
                score = f"\\textbf{{{score}}}" if best[m] == model else score
                superscript = self.get_superscript_for_latex(model, m)
                phantoms = self.get_phantoms_for_latex(model, m)
                scores.append(f"{score}$^{{{superscript}}}$\\hphantom{{$^{{{phantoms}}}$}} &")
            scores[-1] = scores[-1][:-1]  # no "&" after the last column
            rows.append(f"{_LETTERS[i]} &\n{model} &\n" + "\n".join(scores) + "\\\\")
        content = "\n".join(rows).replace("_", "\\_").replace("$^{}$", "")
        suffix = "\\bottomrule\n\\end{tabular}\n}\n\\label{tab:results}\n\\end{table*}"
        return preamble + "\n" + prefix + "\n" + content + "\n" + suffix

    def to_dict(self) -> dict[str, Any]:
        """ranx's dict of the report: ``stat_test``, ``metrics``, ``model_names`` and, per
        model, ``scores`` (``{metric: mean}``), ``comparisons`` (``{other: {metric:
        p_value}}``) and ``win_tie_loss`` (``{other: {metric: {"W", "T", "L"}}}``)."""
        out: dict[str, Any] = {
            "stat_test": self.stat_test,
            "metrics": self.metrics,
            "model_names": self.model_names,
        }
        for model in self.model_names:
            others = [o for o in self.model_names if o != model]
            out[model] = {
                "scores": self.results[model],
                "comparisons": {
                    o: {m: self.comparisons[model, o][m]["p_value"] for m in self.metrics}
                    for o in others
                },
                "win_tie_loss": {
                    o: {m: self.win_tie_loss[model, o][m] for m in self.metrics} for o in others
                },
            }
        return out

    def to_dataframe(self) -> Any:
        """ranx's DataFrame of the scores: a ``model_names`` column and one column per metric
        (needs ``ragmeter[pandas]``)."""
        pandas = import_optional("pandas", extra="pandas", purpose="Report.to_dataframe")
        scores = {model: self.results[model] for model in self.model_names}
        frame = pandas.DataFrame.from_dict(scores, orient="index")
        return frame.reset_index().rename(columns={"index": "model_names"})

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` as JSON (indented by 4, as ranx), atomically."""
        atomic_write_text(path, json.dumps(self.to_dict(), indent=4))

    def print_results(self) -> None:
        """Print the scores, ``{model: {metric: mean}}``, as JSON (ranx's)."""
        print(json.dumps(self.results, indent=4))

    def __repr__(self) -> str:
        return self.to_table()

    def __str__(self) -> str:
        return self.to_table()
