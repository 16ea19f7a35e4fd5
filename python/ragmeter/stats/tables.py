"""Comparison tables as text: the terminal, Markdown, LaTeX (booktabs) and CSV.

The renderers read plain data (:class:`SystemsTable`, rows of dicts), so this module knows
nothing of how comparisons are computed. The systems table is the one papers print (ranx's
layout): one row per system with a label (``a``, ``b``, ...), its mean of every metric, the
best mean of each metric in bold, and after each mean the labels of the systems it beats
significantly (a higher mean and a rejected null hypothesis).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SystemsTable",
    "latex_escape",
    "render_csv",
    "render_latex",
    "render_markdown",
    "render_text",
    "system_labels",
]


def system_labels(n: int) -> list[str]:
    """Labels of ``n`` systems: ``a`` to ``z`` up to 26 systems (as ranx), ``1`` to ``n``
    beyond (then significance marks are separated by commas).

    Parameters
    ----------
    n
        The number of systems.

    Returns
    -------
    list of str
        The labels, in order.

    Examples
    --------
    >>> system_labels(3), system_labels(28)[-2:]
    (['a', 'b', 'c'], ['27', '28'])
    """
    if n <= 26:
        return [chr(ord("a") + i) for i in range(n)]
    return [str(i + 1) for i in range(n)]


@dataclass(frozen=True)
class SystemsTable:
    """What the systems table shows.

    Parameters
    ----------
    systems, metrics
        The rows' systems and the columns' metrics.
    means
        ``means[s][m]``: system ``s``'s mean of metric ``m`` (NaN: no defined value).
    beats
        ``beats[s][m]``: the indices of the systems ``s`` beats significantly on ``m``.
    bold
        ``bold[s][m]``: whether the mean is the best of its column (as printed).
    caption
        What the marks mean (test, correction, alpha).
    notes
        What else a reader must know (excluded queries, failures, undefined p-values).
    digits
        Decimals of the means.
    """

    systems: Sequence[str]
    metrics: Sequence[str]
    means: Sequence[Sequence[float]]
    beats: Sequence[Sequence[Sequence[int]]]
    bold: Sequence[Sequence[bool]]
    caption: str
    notes: Sequence[str] = field(default_factory=tuple)
    digits: int = 4

    @property
    def labels(self) -> list[str]:
        """The systems' labels (:func:`system_labels`)."""
        return system_labels(len(self.systems))

    def number(self, value: float) -> str:
        """A mean as printed.

        Parameters
        ----------
        value
            The mean.

        Returns
        -------
        str
            ``digits`` decimals, or ``n/a`` when undefined.
        """
        return "n/a" if math.isnan(value) else f"{value:.{self.digits}f}"

    def marks(self, system: int, metric: int) -> str:
        """The labels of the systems one system beats on one metric.

        Parameters
        ----------
        system, metric
            Indices of the row and the column.

        Returns
        -------
        str
            The labels, joined (by commas beyond 26 systems).
        """
        labels = self.labels
        beaten = [labels[j] for j in self.beats[system][metric]]
        return ("" if len(self.systems) <= 26 else ",").join(beaten)


def render_text(table: SystemsTable) -> str:
    """An aligned plain-text table: the marks follow each mean after a space, the best mean of
    each metric is starred, and the caption and notes follow the table.

    Parameters
    ----------
    table
        What to print.

    Returns
    -------
    str
        The text.
    """
    header = ["", "system", *table.metrics]
    rows = [header]
    for s, system in enumerate(table.systems):
        cells = [table.labels[s], system]
        for m in range(len(table.metrics)):
            value = table.number(table.means[s][m]) + ("*" if table.bold[s][m] else "")
            marks = table.marks(s, m)
            cells.append(f"{value} {marks}".rstrip())
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    footer = [table.caption + " * marks the best mean of each metric.", *table.notes]
    return "\n".join([*lines, "", *footer])


def _markdown_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def render_markdown(table: SystemsTable) -> str:
    """A GitHub-flavoured Markdown table (the best mean in bold, the marks as
    ``<sup>...</sup>``), then the caption and notes as a paragraph.

    Parameters
    ----------
    table
        What to print.

    Returns
    -------
    str
        The Markdown text.
    """
    header = ["", "System", *(_markdown_cell(m) for m in table.metrics)]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":--", ":--", *(["--:"] * len(table.metrics))]) + "|",
    ]
    for s, system in enumerate(table.systems):
        cells = [table.labels[s], _markdown_cell(system)]
        for m in range(len(table.metrics)):
            value = table.number(table.means[s][m])
            if table.bold[s][m]:
                value = f"**{value}**"
            marks = table.marks(s, m)
            cells.append(value + (f"<sup>{marks}</sup>" if marks else ""))
        lines.append("| " + " | ".join(cells) + " |")
    text = [table.caption + " Bold: the best mean of each metric.", *table.notes]
    return "\n".join(lines) + "\n\n" + " ".join(_markdown_cell(t) for t in text) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "α": r"$\alpha$",
    "×": r"$\times$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "–": "--",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped and a few symbols (α, ×, ≤, ≥) written
    as math, so that pdflatex compiles it.

    Parameters
    ----------
    text
        Plain text.

    Returns
    -------
    str
        LaTeX source.

    Examples
    --------
    >>> print(latex_escape("ndcg_cut_10 & P@5 (α = 5%)"))
    ndcg\\_cut\\_10 \\& P@5 ($\\alpha$ = 5\\%)
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def render_latex(
    table: SystemsTable, *, label: str = "tab:comparison", standalone: bool = False
) -> str:
    """A ``table`` environment with a ``booktabs`` tabular (``\\toprule``, ``\\midrule``,
    ``\\bottomrule``): the best mean of each metric in ``\\textbf``, the marks as superscripts,
    the caption (test, correction, alpha, what the marks mean) and the notes in ``\\caption``.

    Parameters
    ----------
    table
        What to print.
    label
        The table's ``\\label``.
    standalone
        Wrap it in a compilable document (``\\usepackage{booktabs}``).

    Returns
    -------
    str
        The LaTeX source.
    """
    columns = "cl" + "r" * len(table.metrics)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{"
        + latex_escape(table.caption + " Bold: the best mean of each metric.")
        + ("" if not table.notes else " " + latex_escape(" ".join(table.notes)))
        + "}",
        r"\label{" + latex_escape(label) + "}",
        r"\begin{tabular}{" + columns + "}",
        r"\toprule",
        " & System & " + " & ".join(latex_escape(m) for m in table.metrics) + r" \\",
        r"\midrule",
    ]
    for s, system in enumerate(table.systems):
        cells = [table.labels[s], latex_escape(system)]
        for m in range(len(table.metrics)):
            value = table.number(table.means[s][m])
            if table.bold[s][m]:
                value = r"\textbf{" + value + "}"
            marks = table.marks(s, m)
            cells.append(value + (r"$^{\mathrm{" + marks + "}}$" if marks else ""))
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    body = "\n".join(lines) + "\n"
    if not standalone:
        return body
    return (
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        + body
        + "\\end{document}\n"
    )


def render_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """Rows of dicts as CSV (RFC 4180, a header row from the first row's keys; NaN and None as
    empty cells).

    Parameters
    ----------
    rows
        The rows (every row with the first row's keys).

    Returns
    -------
    str
        The CSV text (empty without rows).
    """
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                key: ""
                if value is None or (isinstance(value, float) and math.isnan(value))
                else value
                for key, value in row.items()
            }
        )
    return buffer.getvalue()
