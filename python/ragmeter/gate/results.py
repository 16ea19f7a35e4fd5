"""A gate's verdict: one :class:`GateCheck` per metric (and per floor), and the whole
:class:`GateResult` as text, Markdown (a CI step summary), JSON and JUnit XML.

Every name that comes from the input (metrics, systems, items, notes read from a stored
baseline) is rendered so that it cannot forge output: in text (the verdict lines a CI job
prints) characters that are not printable (newlines, escapes, U+0001, bidi overrides, line
separators) are written as Python escapes (``\\n``, ``\\x1b``), so a name cannot start a line
of its own (``::error::``, ``PASS``); in Markdown the same, and every character that makes
Markdown syntax (links, images, HTML, emphasis, tables) is backslash-escaped; in JUnit XML
the same escapes remove the characters XML cannot hold (U+0001, ESC, U+FFFE...), and the XML
writer escapes the rest. p-values below ``1e-16`` read ``< 1e-16``
(:mod:`ragmeter.stats.pvalues`); JSON holds the bound's number, ``1e-16``.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..stats.pvalues import format_p_value, is_bound
from ..stats.registry import TESTS

__all__ = ["CheckKind", "GateCheck", "GateResult", "Outcome", "markdown_text", "plain_text"]

CheckKind = Literal["non-inferiority", "superiority", "floor"]
#: ``pass``; ``worse`` (the candidate is shown worse than the threshold), ``below`` (a floor
#: is shown not met) or ``inconclusive`` (not enough evidence either way).
Outcome = Literal["pass", "worse", "below", "inconclusive"]

Escape = Callable[[str], str]

# Characters that make inline Markdown (CommonMark and GitHub's extensions: links, images,
# HTML, entities, emphasis, code, strikethrough, math, table cells, autolinks' "scheme:").
# A name never starts a line (newlines are escaped), so line-start markers need no escape.
_MARKDOWN_SPECIAL = frozenset("\\`*_[]<>!|~&$:")


def plain_text(text: str) -> str:
    """``text`` with every character that is not printable (controls, newlines, format and
    separator characters, surrogates, non-characters) written as its Python escape, so that
    it stays on one line and holds only characters text, terminals and XML can show.

    Examples
    --------
    >>> plain_text("ndcg\\n::error::x\\x1b[31m")
    'ndcg\\\\n::error::x\\\\x1b[31m'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def markdown_text(text: str) -> str:
    """:func:`plain_text` with Markdown's punctuation backslash-escaped: a name renders as
    the text it is, never as a link, an image, HTML, emphasis or a table cell.

    Examples
    --------
    >>> markdown_text("![x](http://e)")
    '\\\\!\\\\[x\\\\](http\\\\://e)'
    """
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in plain_text(text))


def _rounded(value: float) -> float:
    """``value`` to 4 decimals, without a sign on a rounded 0 (no "-0.0000")."""
    return round(value, 4) + 0.0


def _signed(value: float | None) -> str:
    return "nan" if value is None or math.isnan(value) else f"{_rounded(value):+.4f}"


def _plain(value: float | None) -> str:
    return "nan" if value is None or math.isnan(value) else f"{_rounded(value):.4f}"


def _p(value: float | None) -> str:
    return format_p_value(value, undefined="nan")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _test_name(test: str, floor: bool) -> str:
    """How captions name the gate's test: ``one-sided paired t-test``."""
    title = TESTS[test].title if test in TESTS else test
    title = title.replace("two-sided ", "one-sided ", 1)
    return title.replace("paired ", "", 1) if floor else title


@dataclass(frozen=True)
class GateCheck:
    """One decision of a gate.

    Parameters
    ----------
    metric
        The metric.
    kind
        ``"non-inferiority"`` (H0: mean(candidate - baseline) <= -margin), ``"superiority"``
        (H0: mean(candidate - baseline) <= margin) or ``"floor"`` (H0: mean(candidate) <=
        threshold).
    margin
        The margin (None for a floor).
    threshold
        What H0 says the mean is at most: ``-margin``, ``+margin`` or the floor.
    n
        Items tested (pairs with both values defined, or the candidate's defined values).
    n_left_out
        Items left out because a value was undefined or failed (NaN).
    mean
        The mean difference (candidate - baseline), or the candidate's mean for a floor.
    sd
        Their standard deviation.
    candidate_mean, baseline_mean
        Each system's mean over the tested items (None for a floor's baseline).
    ci_low, ci_high
        The t interval of the mean at ``confidence_level`` = 1 - 2 alpha: its low end is the
        one-sided 1 - alpha lower bound.
    confidence_level
        The interval's level.
    p_value, p_adjusted
        The one-sided p-value and the corrected one the decision uses.
    passed
        Whether H0 was rejected at alpha (after the correction).
    outcome
        ``"pass"``, ``"worse"``, ``"below"`` or ``"inconclusive"``.
    queries_needed
        For an inconclusive check: items the test would need to pass with the gate's power if
        the true mean were ``planning_mean`` (None when no number of items would do).
    planning_mean
        The true mean ``queries_needed`` assumes: the observed mean if it is above the
        threshold, else the baseline's (a difference of 0) for non-inferiority.
    method
        ``"t"``, ``"exact"`` or ``"sampled"``.
    worst
        The items that went most the wrong way: ``(item, difference, candidate, baseline)``
        (``(item, value, value, None)`` for a floor), up to 5.
    flaky
        Judged items whose repeats disagree: ``(system, item, repeats)``.
    judge_variance
        ``{system: mean variance of an item's repeats}`` for systems with repeats.
    failed
        ``{system: items}`` with a failed judge call.
    p_value_note
        What a reader must know of the p-value: why the test is undefined (its p-value NaN,
        the check failed: not enough queries for the test), or, for the t-test of
        differences that do not vary, that it is the exact sign-flip test's; None otherwise.
    """

    metric: str
    kind: CheckKind
    margin: float | None
    threshold: float
    n: int
    n_left_out: int
    mean: float
    sd: float
    candidate_mean: float
    baseline_mean: float | None
    ci_low: float
    ci_high: float
    confidence_level: float
    p_value: float
    p_adjusted: float
    passed: bool
    outcome: Outcome
    queries_needed: int | None
    planning_mean: float | None
    method: str
    worst: tuple[tuple[Any, float, float, float | None], ...] = ()
    flaky: tuple[tuple[str, Any, tuple[float, ...]], ...] = ()
    judge_variance: Mapping[str, float] = field(default_factory=dict)
    failed: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    p_value_note: str | None = None

    @property
    def title(self) -> str:
        """The check's name: ``ndcg@10 non-inferiority (margin 0.01)``, ``ndcg@10 >= 0.4``
        (the metric's name as :func:`plain_text`)."""
        return self.titled(plain_text)

    def titled(self, escape: Escape) -> str:
        """:attr:`title` with the metric's name written by ``escape``."""
        if self.kind == "floor":
            return f"{escape(self.metric)} >= {self.threshold:g}"
        return f"{escape(self.metric)} {self.kind} (margin {self.margin:g})"

    def _interval(self) -> str:
        level = f"{100 * self.confidence_level:g}%"
        if self.kind == "floor":
            return f"{level} CI {_plain(self.ci_low)} to {_plain(self.ci_high)}"
        return f"{level} CI {_signed(self.ci_low)} to {_signed(self.ci_high)}"

    def _estimate(self) -> str:
        unit = "queries" if self.n != 1 else "query"
        if self.kind == "floor":
            return f"mean {_plain(self.mean)} ({self._interval()}) over {self.n} {unit}"
        return (
            f"mean difference {_signed(self.mean)} (candidate {_plain(self.candidate_mean)}, "
            f"baseline {_plain(self.baseline_mean)}; {self._interval()}) over {self.n} paired "
            f"{unit}"
        )

    def _p_text(self, alpha: float) -> str:
        text = ("p " if is_bound(self.p_value) else "p = ") + _p(self.p_value)
        if self.p_adjusted != self.p_value and not (
            math.isnan(self.p_adjusted) and math.isnan(self.p_value)
        ):
            text += f" (corrected {_p(self.p_adjusted)})"
        relation = "<=" if self.passed else ">"
        return f"{text} {relation} alpha {alpha:g}"

    def reason(self, alpha: float) -> str:
        """Why the check passed or failed, in words, with the numbers."""
        threshold = _plain(self.threshold) if self.kind == "floor" else _signed(self.threshold)
        if self.p_value_note is not None and math.isnan(self.p_value):
            return (
                f"{self._estimate()}; no p-value: {self.p_value_note} (a gate never passes "
                "without evidence)"
            )
        if self.n < 2:
            return (
                f"{self.n} item(s) with defined values: a test needs at least 2, so nothing "
                "can be shown (a gate never passes without evidence)"
            )
        if self.outcome == "pass":
            if self.kind == "floor":
                what = f"the mean is above {self.threshold:g}"
            elif self.kind == "superiority":
                what = f"the candidate is better than the baseline by more than {self.margin:g}"
            else:
                what = f"the candidate is not worse than the baseline by {self.margin:g} or more"
            return f"{self._estimate()}; {self._p_text(alpha)}: {what}"
        if self.outcome == "worse":
            what = (
                "the candidate is worse than the baseline by more than the margin"
                if self.kind == "non-inferiority"
                else f"the candidate is not better than the baseline by {self.margin:g}"
            )
            return f"{what}: {self._estimate()}, entirely below {threshold}; {self._p_text(alpha)}"
        if self.outcome == "below":
            return (
                f"the mean is below the floor: {self._estimate()}, entirely below {threshold}; "
                f"{self._p_text(alpha)}"
            )
        text = (
            f"not enough evidence: {self._estimate()} includes {threshold}; {self._p_text(alpha)}"
        )
        if self.queries_needed is not None and self.planning_mean is not None:
            if self.kind == "floor":
                assumed = f"the true mean were {_plain(self.planning_mean)}"
            elif self.planning_mean == 0 and self.mean <= 0:
                assumed = "the true difference were 0"
            else:
                assumed = f"the true difference were {_signed(self.planning_mean)}"
            text += (
                f"; about {self.queries_needed} queries would be needed to pass if {assumed} "
                f"(there are {self.n})"
            )
        elif self.mean <= self.threshold:
            text += "; the estimate itself is below the threshold"
        return text

    def verdict(self, alpha: float) -> str:
        """One line: ``PASS``/``FAIL``, the check and the reason."""
        label = "PASS" if self.passed else "FAIL"
        return f"{label} {self.title}: {self.reason(alpha)}"

    def details(self, escape: Escape = plain_text) -> list[str]:
        """Lines about the worst items, flaky items and failed judge calls (system names
        written by ``escape``; items as their ``repr``, which escapes what is not printable)."""
        lines = [escape(line) for line in self._details()]
        return lines

    def _details(self) -> list[str]:
        lines = []
        if self.p_value_note is not None and not math.isnan(self.p_value):
            lines.append(self.p_value_note)
        if self.worst:
            if self.kind == "floor":
                shown = ", ".join(f"{item!r} {_plain(v)}" for item, v, _, _ in self.worst)
                lines.append(f"lowest items: {shown}")
            else:
                shown = ", ".join(
                    f"{item!r} {_signed(d)} ({_plain(c)} vs {_plain(b)})"
                    for item, d, c, b in self.worst
                )
                lines.append(f"worst queries (candidate - baseline): {shown}")
        if self.flaky:
            shown = ", ".join(
                f"{system} {item!r} {list(values)}" for system, item, values in self.flaky[:5]
            )
            more = f" and {len(self.flaky) - 5} more" if len(self.flaky) > 5 else ""
            lines.append(
                f"{len(self.flaky)} flaky items (their judge repeats disagree; the gate uses each "
                f"item's mean): {shown}{more}"
            )
        for system, variance in self.judge_variance.items():
            lines.append(f"judge variance within items of {system}: {variance:.4g}")
        for system, items in self.failed.items():
            if items:
                shown = ", ".join(map(repr, items[:5])) + (", ..." if len(items) > 5 else "")
                lines.append(
                    f"{len(items)} items of {system} with a failed judge call (left out where "
                    f"no repeat succeeded): {shown}"
                )
        if self.n_left_out:
            lines.append(f"{self.n_left_out} items left out: a value was undefined or failed")
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The check as JSON-ready data (NaN is None)."""
        return {
            "metric": self.metric,
            "kind": self.kind,
            "title": self.title,
            "margin": self.margin,
            "threshold": self.threshold,
            "n": self.n,
            "n_left_out": self.n_left_out,
            "mean": _number(self.mean),
            "sd": _number(self.sd),
            "candidate_mean": _number(self.candidate_mean),
            "baseline_mean": _number(self.baseline_mean),
            "ci_low": _number(self.ci_low),
            "ci_high": _number(self.ci_high),
            "confidence_level": self.confidence_level,
            "p_value": _number(self.p_value),
            "p_adjusted": _number(self.p_adjusted),
            "passed": self.passed,
            "outcome": self.outcome,
            "queries_needed": self.queries_needed,
            "planning_mean": self.planning_mean,
            "method": self.method,
            "worst": [
                {"item": item, "difference": d, "candidate": c, "baseline": b}
                for item, d, c, b in self.worst
            ],
            "flaky": [{"system": s, "item": item, "repeats": list(v)} for s, item, v in self.flaky],
            "judge_variance": dict(self.judge_variance),
            "failed": {s: list(items) for s, items in self.failed.items()},
            "p_value_note": self.p_value_note,
        }


@dataclass(frozen=True)
class GateResult:
    """Every check of a gate; the gate passes when every check passes.

    Parameters
    ----------
    checks
        The checks, comparisons first, then floors.
    candidate, baseline
        The systems' names (baseline None with floors only).
    test
        ``"t"`` or ``"sign-flip"``.
    alpha
        The level of every check (after the correction).
    correction
        The correction over the checks (``"holm"``...) or None.
    power
        The power ``queries_needed`` plans for.
    excluded
        ``{system: items}`` the other system lacks, left out (``missing="skip"``).
    notes
        What a reader should know (version differences...).
    n_resamples, random_state
        The sampled sign-flip test's sign vectors and seed.
    """

    checks: tuple[GateCheck, ...]
    candidate: str
    baseline: str | None
    test: str
    alpha: float
    correction: str | None
    power: float
    excluded: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    n_resamples: int = 9999
    random_state: int = 0

    @property
    def passed(self) -> bool:
        """Whether every check passed."""
        return bool(self.checks) and all(c.passed for c in self.checks)

    def __bool__(self) -> bool:
        return self.passed

    @property
    def failures(self) -> tuple[GateCheck, ...]:
        """The checks that failed."""
        return tuple(c for c in self.checks if not c.passed)

    def caption(self) -> str:
        """What was tested, how: the systems, the test, alpha, the correction (names as
        their ``repr``, which escapes what is not printable)."""
        against = f" against baseline {self.baseline!r}" if self.baseline else ""
        correction = (
            f"{self.correction} correction over {len(self.checks)} checks"
            if self.correction and len(self.checks) > 1
            else "no correction"
        )
        sampled = any(c.method == "sampled" for c in self.checks)
        unit = TESTS[self.test].sampled_unit if self.test in TESTS else "resamples"
        resamples = f", {self.n_resamples} {unit}, seed {self.random_state}" if sampled else ""
        return (
            f"candidate {self.candidate!r}{against}: "
            f"{_test_name(self.test, floor=not self.baseline)}"
            f"{resamples}, alpha {self.alpha:g}, {correction}"
        )

    def verdict_lines(self) -> list[str]:
        """One line per check (the CLI prints them on stderr); a name cannot break a line."""
        return [f"ragmeter gate: {c.verdict(self.alpha)}" for c in self.checks]

    def _excluded_lines(self) -> list[str]:
        lines = []
        for system, items in self.excluded.items():
            shown = ", ".join(map(repr, items[:5])) + (", ..." if len(items) > 5 else "")
            lines.append(f"{len(items)} items only {system} has were left out: {shown}")
        return lines

    def to_text(self) -> str:
        """The verdict, each check with its reason and details, and the notes."""
        lines = [f"gate {'PASSED' if self.passed else 'FAILED'}: {self.caption()}"]
        for check in self.checks:
            lines.append(f"  {check.verdict(self.alpha)}")
            lines += [f"    {line}" for line in check.details()]
        notes = [*self._excluded_lines(), *self.notes]
        lines += [f"  note: {plain_text(line)}" for line in notes]
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        """A Markdown summary for a CI step summary (``$GITHUB_STEP_SUMMARY``); every text
        from the input is escaped (:func:`markdown_text`)."""
        mark = "✅ passed" if self.passed else "❌ failed"
        lines = [
            f"### ragmeter gate {mark}",
            "",
            markdown_text(self.caption()),
            "",
            "| Check | Verdict | Estimate | Interval | p (corrected) | n | Queries needed |",
            "|---|---|---|---|---|---:|---:|",
        ]
        for c in self.checks:
            verdict = "pass" if c.passed else f"**fail: {c.outcome}**"
            estimate = _plain(c.mean) if c.kind == "floor" else _signed(c.mean)
            low = _plain(c.ci_low) if c.kind == "floor" else _signed(c.ci_low)
            high = _plain(c.ci_high) if c.kind == "floor" else _signed(c.ci_high)
            needed = "" if c.queries_needed is None or c.passed else str(c.queries_needed)
            p = _cell(markdown_text(f"{_p(c.p_value)} ({_p(c.p_adjusted)})"))
            lines.append(
                f"| {c.titled(markdown_text)} | {verdict} | {estimate} | "
                f"{100 * c.confidence_level:g}% [{low}, {high}] | {p} | {c.n} | {needed} |"
            )
        details = [
            f"- **{c.titled(markdown_text)}**: {markdown_text(c.reason(self.alpha))}"
            + "".join(f"\n  - {line}" for line in c.details(markdown_text))
            for c in self.checks
            if not c.passed or c.details()
        ]
        notes = [f"- {markdown_text(line)}" for line in [*self._excluded_lines(), *self.notes]]
        if details or notes:
            lines += ["", *details, *notes]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """The whole result as JSON-ready data."""
        return {
            "kind": "ragmeter.gate",
            "passed": self.passed,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "test": self.test,
            "alpha": self.alpha,
            "correction": self.correction,
            "power": self.power,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state,
            "caption": self.caption(),
            "checks": [c.to_dict() for c in self.checks],
            "excluded": {s: list(items) for s, items in self.excluded.items()},
            "notes": list(self.notes),
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as strict JSON."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False, default=str)

    def to_junit(self, suite: str = "ragmeter.gate") -> str:
        """JUnit XML: one ``testcase`` per check, a ``failure`` element for a failed one (the
        form pytest's ``--junitxml`` writes: ``testsuites/testsuite/testcase``); names hold
        no character XML cannot (:func:`plain_text`), and the writer escapes the rest."""
        root = ET.Element("testsuites")
        failures = len(self.failures)
        element = ET.SubElement(
            root,
            "testsuite",
            name=plain_text(suite),
            errors="0",
            failures=str(failures),
            skipped="0",
            tests=str(len(self.checks)),
            time="0",
        )
        for check in self.checks:
            case = ET.SubElement(element, "testcase", classname=suite, name=check.title, time="0")
            body = "\n".join([check.reason(self.alpha), *check.details()])
            if check.passed:
                ET.SubElement(case, "system-out").text = body
            else:
                failure = ET.SubElement(
                    case, "failure", message=check.verdict(self.alpha), type=check.outcome
                )
                failure.text = body
        ET.indent(root)
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            + ET.tostring(root, encoding="unicode")
            + "\n"
        )
