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
from functools import lru_cache
from typing import Any

from ..exceptions import RagmeterError
from ..ranking.declarations import FAMILIES
from ..ranking.names import parse_metric
from .pvalues import format_p_value

__all__ = [
    "PairRow",
    "PairsTable",
    "SystemsTable",
    "display_metric_name",
    "format_p_value",
    "latex_escape",
    "margin_verdict",
    "render_csv",
    "render_latex",
    "render_markdown",
    "render_text",
    "system_labels",
]


@lru_cache(maxsize=1024)
def display_metric_name(metric: str) -> str:
    """How papers name a measure, from its declaration: ir_measures' spelling of the family
    (``nDCG``, ``P``, ``AP``, ``RR``, ``R``; a trec_eval family without one, such as
    ``ndcg_cut``, takes that of the first family with the same kernel), then ``(rel=k)`` for
    its own relevance threshold and ``@k`` for its cutoff. A name ragmeter does not parse (a
    judge's metric), or a measure with other parameters (``iprec_at_recall_0.50``, gains), is
    returned unchanged.

    Parameters
    ----------
    metric
        The metric's name in the results.

    Returns
    -------
    str
        Its display name.

    Examples
    --------
    >>> [display_metric_name(m) for m in ("ndcg_cut_10", "P_5", "map", "recip_rank", "faith")]
    ['nDCG@10', 'P@5', 'AP', 'RR', 'faith']
    """
    try:
        measure = parse_metric(metric)
    except (RagmeterError, ValueError, TypeError):
        return metric
    family = measure.family
    if measure.params or measure.gains is not None or measure.judged_only is not None:
        # Parameters this spelling does not show: the name as evaluated stays unambiguous.
        return metric
    name = family.ir_measures_name
    if name is None and family.kernel is not None:
        name = next(
            (
                f.ir_measures_name
                for f in FAMILIES
                if f.kernel == family.kernel and f.ir_measures_name
            ),
            None,
        )
    if name is None:
        return metric
    if measure.relevance_threshold is not None:
        name += f"(rel={measure.relevance_threshold:g})"
    if measure.cutoff is not None:
        name += f"@{measure.cutoff}"
    return name


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
class PairRow:
    """One pair and metric of the table of differences: the p-value beside the size of the
    difference, its interval and the standardised effect.

    Parameters
    ----------
    candidate, baseline
        The systems.
    metric
        The metric's label.
    n_pairs
        The paired queries.
    delta
        The mean difference (candidate - baseline).
    ci_low, ci_high
        Its confidence interval (None: none).
    effect
        The standardised effect (None or NaN: undefined).
    p_value, p_value_adjusted
        The p-value and the corrected one (None: no correction).
    """

    candidate: str
    baseline: str
    metric: str
    n_pairs: int
    delta: float
    ci_low: float | None
    ci_high: float | None
    effect: float | None
    p_value: float
    p_value_adjusted: float | None


def margin_verdict(ci_low: float | None, ci_high: float | None, margin: float) -> str | None:
    """Where a difference's interval lies against the smallest difference that matters:
    ``"beyond"`` (entirely beyond ``+-margin``: a difference that matters), ``"within"``
    (entirely inside ``[-margin, margin]``: practically equivalent), ``"unclear"`` (it
    straddles a bound); None without an interval or a margin.

    Parameters
    ----------
    ci_low, ci_high
        The interval.
    margin
        The smallest difference that matters (0: none).

    Returns
    -------
    str or None
        The verdict.

    Examples
    --------
    >>> margin_verdict(0.02, 0.05, 0.01), margin_verdict(-0.005, 0.008, 0.01)
    ('beyond', 'within')
    """
    if margin <= 0 or ci_low is None or ci_high is None or math.isnan(ci_low):
        return None
    if ci_low > margin or ci_high < -margin:
        return "beyond"
    if -margin <= ci_low and ci_high <= margin:
        return "within"
    return "unclear"


@dataclass(frozen=True)
class PairsTable:
    """The table of differences of every compared pair and metric.

    Parameters
    ----------
    rows
        One :class:`PairRow` per pair and metric.
    confidence_level
        The intervals' level (None: no interval column).
    effect_name
        The standardised effect's label (``d_z``, ``ES_E``).
    effect_text
        What it is (for the caption).
    caption
        What the table shows.
    margin
        The smallest difference that matters (0: no margin column).
    """

    rows: Sequence[PairRow]
    confidence_level: float | None
    effect_name: str
    effect_text: str
    caption: str
    margin: float = 0.0


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
    pairs
        The table of differences (None: not shown).
    """

    systems: Sequence[str]
    metrics: Sequence[str]
    means: Sequence[Sequence[float]]
    beats: Sequence[Sequence[Sequence[int]]]
    bold: Sequence[Sequence[bool]]
    caption: str
    notes: Sequence[str] = field(default_factory=tuple)
    digits: int = 4
    pairs: PairsTable | None = None

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


def _signed(value: float | None, digits: int) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:+.{digits}f}"


def pair_cells(table: SystemsTable) -> tuple[list[str], list[list[str]]]:
    """The header and the cells of the table of differences, as every renderer prints
    them (the p-value never without the difference, its interval and the effect).

    Parameters
    ----------
    table
        A table with :attr:`SystemsTable.pairs`.

    Returns
    -------
    tuple
        ``(header, rows)`` of strings.
    """
    pairs = table.pairs
    assert pairs is not None
    digits = table.digits
    adjusted = any(r.p_value_adjusted is not None for r in pairs.rows)
    header = ["candidate", "baseline", "metric", "n", "delta"]
    if pairs.confidence_level is not None:
        header.append(f"{pairs.confidence_level:.0%} CI")
    with_margin = pairs.margin > 0 and pairs.confidence_level is not None
    if with_margin:
        header.append(f"vs ±{pairs.margin:g}")
    header += [pairs.effect_name, "p-value"] + (["adjusted p"] if adjusted else [])
    rows = []
    for r in pairs.rows:
        cells = [r.candidate, r.baseline, r.metric, str(r.n_pairs), _signed(r.delta, digits)]
        if pairs.confidence_level is not None:
            cells.append(
                "n/a"
                if r.ci_low is None or r.ci_high is None or math.isnan(r.ci_low)
                else f"[{r.ci_low:+.{digits}f}, {r.ci_high:+.{digits}f}]"
            )
        if with_margin:
            cells.append(margin_verdict(r.ci_low, r.ci_high, pairs.margin) or "n/a")
        cells += [_signed(r.effect, 2), format_p_value(r.p_value)]
        if adjusted:
            cells.append(format_p_value(r.p_value_adjusted))
        rows.append(cells)
    return header, rows


def _aligned(rows: list[list[str]], left: int) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(w) if i < left else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


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
    text = "\n".join([*lines, "", *footer])
    if table.pairs is not None and table.pairs.rows:
        pair_header, pair_body = pair_cells(table)
        pair_lines = _aligned([pair_header, *pair_body], left=3)
        text += "\n\n" + "\n".join(pair_lines) + "\n" + table.pairs.caption
    return text


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
    out = "\n".join(lines) + "\n\n" + " ".join(_markdown_cell(t) for t in text) + "\n"
    if table.pairs is not None and table.pairs.rows:
        pair_header, pair_body = pair_cells(table)
        right = len(pair_header) - 3
        out += (
            "\n| "
            + " | ".join(_markdown_cell(h) for h in pair_header)
            + " |\n|"
            + "|".join([":--"] * 3 + ["--:"] * right)
            + "|\n"
            + "".join(
                "| " + " | ".join(_markdown_cell(c) for c in row) + " |\n" for row in pair_body
            )
            + "\n"
            + _markdown_cell(table.pairs.caption)
            + "\n"
        )
    return out


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
    "±": r"$\pm$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    # A bare < or > prints as an inverted exclamation or question mark in LaTeX's default
    # font encoding (a p-value bound: "< 1e-16").
    "<": r"$<$",
    ">": r"$>$",
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


#: Above this many systems the systems table is a ``longtable`` too (a float taller than the
#: page loses its last rows).
LATEX_FLOAT_ROWS = 40


def _short_caption(text: str) -> str:
    """The caption's first sentence or clause (up to ``". "`` or ``": "``), for ``\\caption``;
    the whole text goes in a note under the table."""
    cut = [i for i in (text.find(". "), text.find(": ")) if i > 0]
    return (text[: min(cut)] if cut else text.rstrip(".")) + "."


def _latex_note(text: str) -> list[str]:
    return [r"\par\smallskip", r"{\footnotesize\raggedright " + latex_escape(text) + r"\par}"]


def _longtable(
    columns: str, header: str, rows: list[str], caption: str, label: str, note: str
) -> list[str]:
    """A ``longtable`` (rows break across pages, never lost): a short caption, the header
    repeated on every page, "continued" at each break, the full explanation under it."""
    width = len(columns)
    return [
        r"\begingroup\footnotesize\setlength{\tabcolsep}{2pt}",
        r"\begin{longtable}{" + columns + "}",
        r"\caption{" + latex_escape(caption) + r"}\label{" + latex_escape(label) + r"}\\",
        r"\toprule",
        header,
        r"\midrule",
        r"\endfirsthead",
        r"\multicolumn{" + str(width) + r"}{l}{\emph{(continued)}}\\",
        r"\toprule",
        header,
        r"\midrule",
        r"\endhead",
        r"\midrule",
        r"\multicolumn{" + str(width) + r"}{r}{\emph{(continued on the next page)}}\\",
        r"\endfoot",
        r"\bottomrule",
        r"\endlastfoot",
        *rows,
        r"\end{longtable}",
        r"\endgroup",
        *_latex_note(note),
    ]


def render_latex(
    table: SystemsTable, *, label: str = "tab:comparison", standalone: bool = False
) -> str:
    """The systems table and the table of differences in LaTeX, with ``booktabs`` rules
    (``\\toprule``, ``\\midrule``, ``\\bottomrule``): the best mean of each metric in
    ``\\textbf``, the marks as superscripts. Each table has a short ``\\caption`` (its first
    sentence) and, under it, the full explanation (test, correction, alpha, what the marks
    mean) and the notes.

    The systems table is a float (``table``, placed at the top) up to
    :data:`LATEX_FLOAT_ROWS` systems, a ``longtable`` beyond; the table of differences (one row
    per pair and metric: 198 rows for 12 systems and 3 metrics) is always a ``longtable``,
    which breaks across pages with its header repeated, so no row is lost. The document needs
    ``\\usepackage{booktabs,longtable}`` (the first line of the output says so; in a two-column
    class, put a long table in a one-column section or appendix).

    Parameters
    ----------
    table
        What to print.
    label
        The table's ``\\label`` (``-pairs`` appended for the table of differences).
    standalone
        Wrap it in a compilable document (``\\usepackage{booktabs,longtable}``).

    Returns
    -------
    str
        The LaTeX source.
    """
    caption = table.caption + " Bold: the best mean of each metric."
    note = caption + ("" if not table.notes else " " + " ".join(table.notes))
    columns = "cl" + "r" * len(table.metrics)
    header = " & System & " + " & ".join(latex_escape(m) for m in table.metrics) + r" \\"
    body = []
    for s, system in enumerate(table.systems):
        cells = [table.labels[s], latex_escape(system)]
        for m in range(len(table.metrics)):
            value = table.number(table.means[s][m])
            if table.bold[s][m]:
                value = r"\textbf{" + value + "}"
            marks = table.marks(s, m)
            cells.append(value + (r"$^{\mathrm{" + marks + "}}$" if marks else ""))
        body.append(" & ".join(cells) + r" \\")
    lines = [r"% needs \usepackage{booktabs,longtable}"]
    if len(table.systems) <= LATEX_FLOAT_ROWS:
        lines += [
            r"\begin{table}[t]",
            r"\centering",
            r"\caption{" + latex_escape(_short_caption(caption)) + "}",
            r"\label{" + latex_escape(label) + "}",
            r"\begin{tabular}{" + columns + "}",
            r"\toprule",
            header,
            r"\midrule",
            *body,
            r"\bottomrule",
            r"\end{tabular}",
            *_latex_note(note),
            r"\end{table}",
        ]
    else:
        lines += _longtable(columns, header, body, _short_caption(caption), label, note)
    if table.pairs is not None and table.pairs.rows:
        pair_header, pair_body = pair_cells(table)
        lines += _longtable(
            "lll" + "r" * (len(pair_header) - 3),
            " & ".join(latex_escape(h) for h in pair_header) + r" \\",
            [" & ".join(latex_escape(c) for c in row) + r" \\" for row in pair_body],
            _short_caption(table.pairs.caption),
            label + "-pairs",
            table.pairs.caption,
        )
    text = "\n".join(lines) + "\n"
    if not standalone:
        return text
    return (
        "\\documentclass{article}\n\\usepackage{booktabs,longtable}\n\\begin{document}\n"
        + text
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
