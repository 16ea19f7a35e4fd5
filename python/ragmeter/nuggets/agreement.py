"""Agreement of automatic nugget assignments with human ones, and signs that a bank leaked.

:func:`agreement_with` compares two :class:`~ragmeter.nuggets.NuggetAssignments` over one bank
in one call: over every nugget of every answer both assessed, Cohen's kappa and Krippendorff's
alpha of the labels (ordinal for three grades) and of each label against the others; over the
runs, Kendall's tau-b and tau_ap between the orderings of the runs by each score, each run's
mean taken over the answers both assessed. The statistics are ragmeter's own
(:func:`ragmeter.stats.cohen_kappa`, :func:`ragmeter.stats.krippendorff_alpha`,
:func:`ragmeter.stats.orderings.kendall_tau`, :func:`ragmeter.stats.orderings.tau_ap`).

:func:`verbatim_quotes` measures how much of the bank's nugget text each run's answers quote
word for word: a system that saw the bank (or was tuned to the prompts) can score near-perfect
nugget recall by quoting it ("Insider Knowledge", arXiv:2601.13227), which
:class:`NuggetLeakWarning` flags.
"""

from __future__ import annotations

import math
import re
import unicodedata
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import InvalidInputError
from ..stats.orderings import kendall_tau, tau_ap
from ..stats.raters import cohen_kappa, krippendorff_alpha
from .assignments import AnswerAssignment, NuggetAssignments
from .bank import NuggetBank
from .scores import NUGGET_METRICS

__all__ = [
    "NuggetAgreement",
    "NuggetLeakWarning",
    "agreement_with",
    "verbatim_quotes",
]

_ORDER = {"not_support": 0, "partial_support": 1, "support": 2}


class NuggetLeakWarning(UserWarning):
    """A run's answers quote the bank's nuggets word for word beyond the threshold: its
    nugget scores may measure that it saw the bank, not what it knows."""


@dataclass(frozen=True)
class NuggetAgreement:
    """Agreement of automatic with human nugget assignments (see :func:`agreement_with`).

    Attributes
    ----------
    n_labels
        Nugget labels compared (both assessed, neither failed).
    kappa, alpha
        Cohen's kappa and Krippendorff's alpha of the labels (NaN when undefined).
    per_label
        ``{label: {"kappa", "alpha", "n_human", "n_auto"}}``: each label against the others.
    orderings
        ``{score: {"kendall_tau", "tau_ap", "n_runs"}}`` between the run orderings (tau_ap
        takes the human ordering as the reference).
    n_runs, n_answers
        Runs and answers both assessed.
    """

    n_labels: int
    kappa: float
    alpha: float
    per_label: Mapping[str, Mapping[str, float]]
    orderings: Mapping[str, Mapping[str, float]]
    n_runs: int
    n_answers: int
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN as None)."""

        def clean(value: Any) -> Any:
            if isinstance(value, float) and math.isnan(value):
                return None
            if isinstance(value, Mapping):
                return {k: clean(v) for k, v in value.items()}
            return value

        cleaned: dict[str, Any] = clean(
            {
                "n_labels": self.n_labels,
                "kappa": self.kappa,
                "alpha": self.alpha,
                "per_label": self.per_label,
                "orderings": self.orderings,
                "n_runs": self.n_runs,
                "n_answers": self.n_answers,
                "notes": list(self.notes),
            }
        )
        return cleaned


def _quiet(function: Any, *args: Any, **kwargs: Any) -> float:
    """A statistic that is NaN (with a warning) when undefined, without the warning: the
    result says NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(function(*args, **kwargs))


def _first_usable(answer: AnswerAssignment) -> tuple[str | None, ...] | None:
    for judgement in answer.judgements:
        if judgement.status == "ok":
            return judgement.labels
    return None


def _restricted(assignments: NuggetAssignments, keys: set[tuple[str, str]]) -> NuggetAssignments:
    kept = tuple(a for a in assignments.answers if (a.run_id, a.topic_id) in keys)
    return NuggetAssignments(
        assignments.bank,
        kept,
        assignments.grades,
        assignments.source,
        assignments.judge,
        assignments.settings,
        assignments.blind,
    )


def agreement_with(
    automatic: NuggetAssignments,
    human: NuggetAssignments,
    *,
    metrics: Sequence[str] = tuple(NUGGET_METRICS),
) -> NuggetAgreement:
    """How far automatic nugget assignments agree with human ones (see the module
    documentation).

    Parameters
    ----------
    automatic, human
        Assignments over the same bank (the same content hash).
    metrics
        The scores whose run orderings are compared.

    Returns
    -------
    NuggetAgreement
        The agreement.

    Raises
    ------
    InvalidInputError
        Banks that differ, no answer assessed by both.
    """
    if automatic.bank.content_hash != human.bank.content_hash:
        raise InvalidInputError(
            "automatic and human assignments are over different banks "
            f"({automatic.bank.content_hash[:12]} vs {human.bank.content_hash[:12]}): agreement "
            "is measured on the same nuggets"
        )
    unknown = [m for m in metrics if m not in NUGGET_METRICS]
    if unknown:
        raise InvalidInputError(f"metrics: {unknown[0]!r} is not a nugget score")
    human_by = {(a.run_id, a.topic_id): a for a in human.answers}
    auto_by = {(a.run_id, a.topic_id): a for a in automatic.answers}
    both = [k for k in auto_by if k in human_by]
    if not both:
        raise InvalidInputError("no answer was assessed by both: nothing to compare")
    auto_labels: list[str] = []
    human_labels: list[str] = []
    notes = []
    failed = 0
    for key in both:
        a, h = _first_usable(auto_by[key]), _first_usable(human_by[key])
        if a is None or h is None:
            failed += 1
            continue
        auto_labels.extend(str(x) for x in a)
        human_labels.extend(str(x) for x in h)
    if failed:
        notes.append(f"{failed} answers left out: a judgement failed on one side")
    ordinal = automatic.grades == 3 and human.grades == 3
    rows = [[_ORDER[h], _ORDER[a]] for h, a in zip(human_labels, auto_labels, strict=True)]
    per_label: dict[str, dict[str, float]] = {}
    for label in sorted(set(human_labels) | set(auto_labels), key=lambda x: -_ORDER[x]):
        h_bin = [x == label for x in human_labels]
        a_bin = [x == label for x in auto_labels]
        per_label[label] = {
            "kappa": _quiet(cohen_kappa, h_bin, a_bin),
            "alpha": _quiet(
                krippendorff_alpha, [[h, a] for h, a in zip(h_bin, a_bin, strict=True)]
            ),
            "n_human": float(sum(h_bin)),
            "n_auto": float(sum(a_bin)),
        }
    keys = set(both)
    auto_scores = _restricted(automatic, keys).scores()
    human_scores = _restricted(human, keys).scores()
    runs = [r for r in auto_scores.runs if r in set(human_scores.runs)]
    orderings: dict[str, dict[str, float]] = {}
    for metric in metrics:
        auto_order = auto_scores.ordering(metric)
        human_order = human_scores.ordering(metric)
        shared = [
            r for r in runs if not math.isnan(auto_order[r]) and not math.isnan(human_order[r])
        ]
        x = {r: human_order[r] for r in shared}
        y = {r: auto_order[r] for r in shared}
        # tau_ap is defined for strict orderings: NaN with a note when one ties two runs
        # (Kendall's tau-b counts ties).
        ap = math.nan
        if len(shared) >= 2:
            try:
                ap = _quiet(tau_ap, x, y)
            except InvalidInputError as error:
                notes.append(f"{metric}: tau_ap undefined ({error})")
        orderings[metric] = {
            "kendall_tau": _quiet(kendall_tau, x, y) if len(shared) >= 2 else math.nan,
            "tau_ap": ap,
            "n_runs": float(len(shared)),
        }
    return NuggetAgreement(
        len(auto_labels),
        _quiet(cohen_kappa, human_labels, auto_labels),
        _quiet(krippendorff_alpha, rows, level="ordinal" if ordinal else "nominal"),
        per_label,
        orderings,
        len(runs),
        len(both) - failed,
        tuple(notes),
    )


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())


def verbatim_quotes(
    bank: NuggetBank,
    answers: Sequence[Any],
    *,
    min_words: int = 4,
    threshold: float = 0.5,
    warn: bool = True,
) -> dict[str, float]:
    """Per run, the share of the nuggets (of at least ``min_words`` words) of the topics it
    answered whose words appear in its answer as one contiguous run, word for word (case
    and punctuation aside); a run over ``threshold`` gets a :class:`NuggetLeakWarning`.

    Short nuggets are left out: a two-word nugget ("in Paris") is quoted by any answer that
    covers it. The measure cannot prove a leak, only show answers that copy the bank.

    Parameters
    ----------
    bank
        The bank.
    answers
        :class:`~ragmeter.nuggets.RagAnswer` objects.
    min_words, threshold, warn
        See above.

    Returns
    -------
    dict
        ``{run: share}`` (NaN for a run none of whose topics has a nugget that long).

    Examples
    --------
    >>> from ragmeter.nuggets import Nugget, RagAnswer, TopicNuggets
    >>> bank = NuggetBank([TopicNuggets("t", "q", (Nugget("the tower is 330 m tall"),))])
    >>> answer = RagAnswer.build("copy", "t", [("The tower is 330 m tall.", [])])
    >>> verbatim_quotes(bank, [answer], warn=False)
    {'copy': 1.0}
    """
    if not 0.0 <= threshold <= 1.0:
        raise InvalidInputError(f"threshold must lie in [0, 1], got {threshold!r}")
    quoted: dict[str, list[int]] = {}
    for answer in answers:
        if answer.topic_id not in bank:
            continue
        text = " " + " ".join(_words(answer.text)) + " "
        counts = quoted.setdefault(answer.run_id, [0, 0])
        for nugget in bank[answer.topic_id].nuggets:
            words = _words(nugget.text)
            if len(words) < min_words:
                continue
            counts[1] += 1
            counts[0] += f" {' '.join(words)} " in text
    shares = {run: (q / n if n else math.nan) for run, (q, n) in quoted.items()}
    if warn:
        for run, share in shares.items():
            if share > threshold:
                warnings.warn(
                    f"run {run!r} quotes {share:.0%} of the bank's nuggets of {min_words} words "
                    f"or more word for word (threshold {threshold:.0%}): its nugget scores may "
                    "measure that it saw the bank or the prompts; evaluate it with a bank it "
                    "could not see",
                    NuggetLeakWarning,
                    stacklevel=2,
                )
    return shares
