"""trec_eval's preference measures (``-R prefs`` and ``-R qrels_prefs``): the judgments are
preferences between documents, and a measure counts the preferences a ranking fulfils.

A ported copy of trec_eval 10's ``get_prefs.c``, ``get_qrels_prefs.c``,
``form_prefs_counts.c`` and ``m_prefs_*.c`` (C. Buckley, NIST), in Python: the judgment files
of this family are small (a few preferences per topic), and the values are counts and ratios
of counts, so the port is exact without trec_eval's order of floating-point operations
mattering beyond the few divisions kept as trec_eval writes them.

Judgments: lines ``topic jg jsg docno rel_level`` (``-R prefs``) or a qrels file read as
``topic jg docno rel_level`` with one sub-group per judgment group (``-R qrels_prefs``: the
iteration column is the judgment group). Within a judgment group (JG, one user's need),
documents of a sub-group (JSG) with a higher ``rel_level`` are preferred to those with a lower
one; a JG with several JSGs is a partial order closed under transitivity. ``rel_level`` 0
marks a non-relevant document.

For each topic the judged documents get an internal rank: the retrieved ones (ranking by
score descending, ties by doc id ascending as ``form_prefs_counts.c`` sorts them, cut at
``-M``) in rank order, then the others in doc id order. A preference A > B is *fulfilled*
when A ranks above B, *retrieved* when both are retrieved, *implied* when one is, and
*not occurring* when neither is. The measures (:data:`PREFS_MEASURES`) are ratios of those
counts, per preference, per document pair or per judgment group.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from .._files import read_regular_text, trec_fields
from ..exceptions import InvalidInputError

__all__ = [
    "PREFS_GROUPS",
    "PREFS_MEASURES",
    "JudgmentGroup",
    "PrefsCounts",
    "PrefsEvaluation",
    "PrefsLine",
    "PrefsMeasure",
    "evaluate_prefs",
    "prefs_counts",
    "prefs_lines",
    "prefs_measure_names",
    "read_prefs",
]

PrefsFormat = Literal["prefs", "qrels_prefs"]


@dataclass(frozen=True)
class PrefsLine:
    """One judgment: a document's ``rel_level`` in sub-group ``jsg`` of group ``jg``."""

    jg: str
    jsg: str
    docno: str
    rel_level: float


def _atof(text: str) -> float:
    """C's ``atof``: the longest leading decimal number, 0 without one (trec_eval reads
    ``rel_level`` so)."""
    match = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text)
    return float(match[0]) if match else 0.0


def read_prefs(path: str | Path, rel_format: PrefsFormat) -> dict[str, list[PrefsLine]]:
    """The judgments of a ``prefs`` or ``qrels_prefs`` file by topic, as trec_eval reads
    them: lines starting with ``#`` are comments; five fields (``prefs``) or four
    (``qrels_prefs``, the iteration column as judgment group and one sub-group ``"0"``)
    separated by whitespace, else an error naming the line."""
    text = read_regular_text(path, "judgments", "qrels")
    n_fields = 5 if rel_format == "prefs" else 4
    layout = "topic jg jsg docno rel_level" if rel_format == "prefs" else "topic jg docno rel"
    by_topic: dict[str, list[PrefsLine]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("#"):
            continue
        fields = trec_fields(line)
        if not fields:
            continue
        if len(fields) != n_fields:
            raise InvalidInputError(
                f"qrels: {path}:{number}: -R {rel_format} lines have {n_fields} fields "
                f"({layout}), got {len(fields)}: {line.strip()[:80]!r}"
            )
        if rel_format == "prefs":
            topic, jg, jsg, docno, level = fields
        else:
            topic, jg, docno, level = fields
            jsg = "0"
        by_topic.setdefault(topic, []).append(PrefsLine(jg, jsg, docno, _atof(level)))
    if not by_topic:
        raise InvalidInputError(f"qrels: {path} has no judgment (-R {rel_format})")
    return by_topic


def _key(text: str) -> bytes:
    # trec_eval compares ids with strcmp: by their bytes.
    return text.encode("utf-8", "surrogateescape")


@dataclass
class JudgmentGroup:
    """The counts of one judgment group (``JG`` in ``trec_eval.h``), and its preferences: the
    equivalence classes (internal ranks per ``rel_level``, highest first) of a group with one
    sub-group, else the preference matrix and the ``rel_level`` per internal rank (-1: not
    judged in this group)."""

    fulfilled_ret: int = 0
    possible_ret: int = 0
    fulfilled_imp: int = 0
    possible_imp: int = 0
    possible_notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    classes: list[np.ndarray] = field(default_factory=list)
    matrix: np.ndarray | None = None
    rel_array: np.ndarray | None = None


@dataclass
class PrefsCounts:
    """``RESULTS_PREFS`` of one topic: the groups, the number of judged documents (retrieved
    first) and ``counts[i, j]``, the number of groups preferring internal rank i to j."""

    groups: list[JudgmentGroup]
    num_judged: int
    num_judged_ret: int
    counts: np.ndarray


def _internal_ranks(
    lines: Sequence[PrefsLine], ranking: Mapping[str, float], max_docs: int | None
) -> tuple[dict[str, int], int]:
    """``form_prefs_and_ranks``: the internal rank of every judged document, and how many
    judged documents were retrieved."""
    ordered = sorted(ranking.items(), key=lambda item: (-item[1], _key(item[0])))
    if max_docs is not None:
        ordered = ordered[:max_docs]
    judged = {line.docno for line in lines}
    ranks: dict[str, int] = {}
    for docno, _score in ordered:
        if docno in judged:
            ranks[docno] = len(ranks)
    num_judged_ret = len(ranks)
    for docno in sorted(judged - ranks.keys(), key=_key):
        ranks[docno] = len(ranks)
    return ranks, num_judged_ret


def prefs_counts(
    topic: str,
    lines: Sequence[PrefsLine],
    ranking: Mapping[str, float],
    max_docs: int | None = None,
) -> PrefsCounts:
    """``form_prefs_counts`` for one topic: its judgments and its ranking ``{docno: score}``."""
    ranks, njr = _internal_ranks(lines, ranking, max_docs)
    n = len(ranks)
    counts = np.zeros((n, n), dtype=np.int64)
    rows = sorted(
        ((line, ranks[line.docno]) for line in lines),
        key=lambda item: (_key(item[0].jg), _key(item[0].jsg), -item[0].rel_level, item[1]),
    )
    groups: list[JudgmentGroup] = []
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end][0].jg == rows[start][0].jg:
            end += 1
        members = rows[start:end]
        sub_groups = len({line.jsg for line, _ in members})
        if sub_groups > 1:
            groups.append(_matrix_group(topic, members, n, njr, counts))
        else:
            groups.append(_class_group(topic, members, njr, counts))
        start = end
    return PrefsCounts(groups, n, njr, counts)


def _class_group(
    topic: str, members: list[tuple[PrefsLine, int]], njr: int, counts: np.ndarray
) -> JudgmentGroup:
    """``form_jg_ec`` and ``add_ec_pref_to_jg``: a group of one sub-group."""
    group = JudgmentGroup()
    levels: list[float] = []
    for line, rank in members:
        if not levels or line.rel_level != levels[-1]:
            levels.append(line.rel_level)
            group.classes.append(np.array([rank], dtype=np.int64))
        else:
            group.classes[-1] = np.append(group.classes[-1], rank)
    for index, (level, ranks) in enumerate(zip(levels, group.classes, strict=True)):
        retrieved = int(np.sum(ranks < njr))
        if level > 0.0:
            group.num_rel_ret += retrieved
            group.num_rel += ranks.size
        else:
            group.num_nonrel_ret += retrieved
            group.num_nonrel += ranks.size
        for lower in group.classes[index + 1 :]:
            first, second = np.meshgrid(ranks, lower, indexing="ij")
            if np.any(first == second):
                raise InvalidInputError(
                    f"qrels: topic {topic}: a document has two rel_levels in one judgment "
                    f"sub-group (trec_eval refuses it too)"
                )
            np.add.at(counts, (first.ravel(), second.ravel()), 1)
            above = first < second
            group.fulfilled_ret += int(np.sum(above & (second < njr)))
            group.fulfilled_imp += int(np.sum(above & (second >= njr) & (first < njr)))
            group.possible_notoccur += int(np.sum(above & (first >= njr)))
            below = ~above
            group.possible_ret += int(np.sum(below & (first < njr)))
            group.possible_imp += int(np.sum(below & (first >= njr) & (second < njr)))
            group.possible_notoccur += int(np.sum(below & (first >= njr) & (second >= njr)))
    group.possible_ret += group.fulfilled_ret
    group.possible_imp += group.fulfilled_imp
    return group


def _matrix_group(
    topic: str,
    members: list[tuple[PrefsLine, int]],
    n: int,
    njr: int,
    counts: np.ndarray,
) -> JudgmentGroup:
    """``form_jg_pa``, ``add_transitives`` and ``add_pa_pref_to_jg``: a group of several
    sub-groups, a partial order closed under transitivity."""
    matrix = np.zeros((n, n), dtype=bool)
    rel_array = np.full(n, -1.0)
    for i, (line, rank) in enumerate(members):
        known = rel_array[rank]
        if (known > 0.0 and line.rel_level == 0.0) or (known == 0.0 and line.rel_level > 0.0):
            raise InvalidInputError(
                f"qrels: topic {topic}: document {line.docno} has both 0 and a rel_level "
                f"above 0 in judgment group {line.jg} (trec_eval refuses it too)"
            )
        rel_array[rank] = line.rel_level
        j = i + 1
        while (
            j < len(members)
            and members[j][0].jsg == line.jsg
            and members[j][0].rel_level == line.rel_level
        ):
            j += 1
        while j < len(members) and members[j][0].jsg == line.jsg:
            matrix[rank, members[j][1]] = True
            j += 1
    # The reflexive-transitive closure (trec_eval multiplies the matrix by itself until it
    # stops changing), then the diagonal cleared.
    closure = matrix | np.eye(n, dtype=bool)
    while True:
        wider = (closure.astype(np.int64) @ closure.astype(np.int64)) > 0
        if np.array_equal(wider, closure):
            break
        closure = wider
    np.fill_diagonal(closure, False)
    if np.any(closure & closure.T):
        raise InvalidInputError(
            f"qrels: topic {topic}: the preferences of judgment group {members[0][0].jg} "
            f"contradict each other (trec_eval aborts on it)"
        )
    group = JudgmentGroup(matrix=closure, rel_array=rel_array)
    group.num_rel_ret = int(np.sum(rel_array[:njr] > 0.0))
    group.num_nonrel_ret = int(np.sum(rel_array[:njr] == 0.0))
    group.num_rel = int(np.sum(rel_array > 0.0))
    group.num_nonrel = int(np.sum(rel_array == 0.0))
    a = closure.astype(np.int64)
    counts += a
    group.possible_ret = int(np.tril(a[:njr, :njr], -1).sum())
    group.fulfilled_ret = int(np.triu(a[:njr, :njr], 1).sum())
    group.fulfilled_imp = int(a[:njr, njr:].sum())
    group.possible_imp = int(a[njr:, :njr].sum())
    group.possible_notoccur = int(a[njr:, njr:].sum())
    group.possible_ret += group.fulfilled_ret
    group.possible_imp += group.fulfilled_imp
    return group


def _ratio(numerator: float, denominator: float) -> float:
    """C's double division: x/0 is inf (NaN for 0/0) where trec_eval divides by 0."""
    if denominator == 0:
        return math.nan if numerator == 0 else math.copysign(math.inf, numerator)
    return numerator / denominator


def _total(c: PrefsCounts, part: Callable[[JudgmentGroup], int]) -> int:
    return sum(part(g) for g in c.groups)


def _ful(g: JudgmentGroup) -> int:
    return g.fulfilled_ret + g.fulfilled_imp


def _poss(g: JudgmentGroup) -> int:
    return g.possible_ret + g.possible_imp + g.possible_notoccur


def _poss_imp(g: JudgmentGroup) -> int:
    return g.possible_ret + g.possible_imp


def _simple(c: PrefsCounts, ful: Callable[[JudgmentGroup], int], poss: Callable[..., int]) -> float:
    total = _total(c, poss)
    return _total(c, ful) / total if total else 0.0


def _by_group(
    c: PrefsCounts, ful: Callable[[JudgmentGroup], int], poss: Callable[..., int]
) -> float:
    total = 0.0
    for g in c.groups:
        if poss(g):
            total += ful(g) / poss(g)
    return total / len(c.groups) if total > 0.0 else 0.0


def _pairs(c: PrefsCounts, areas: int) -> float:
    """``m_prefs_pair*.c``: the mean over document pairs with a preference of the share of
    groups preferring the higher-ranked one; ``areas`` 1 (both retrieved), 2 (and one
    retrieved) or 3 (and neither: counted as pairs that score 0)."""
    k, n = c.num_judged_ret, c.num_judged
    pc = c.counts.astype(float)
    both = pc + pc.T
    total = 0.0
    pairs = 0
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    retrieved = np.zeros((n, n), dtype=bool)
    retrieved[:k, :k] = True
    regions = [upper & retrieved]
    if areas >= 2:
        implied = np.zeros((n, n), dtype=bool)
        implied[:k, k:] = True
        regions.append(implied)
    for region in regions:
        chosen = region & (both > 0)
        # trec_eval adds the shares one by one in row-major order.
        for i, j in zip(*np.nonzero(chosen), strict=True):
            total += pc[i, j] / both[i, j]
        pairs += int(chosen.sum())
    if areas >= 3:
        rest = np.zeros((n, n), dtype=bool)
        rest[k:, k:] = True
        pairs += int((upper & rest & (both > 0)).sum())
    return total / pairs if pairs else 0.0


def _rnonrel(c: PrefsCounts, retrieved_only: bool) -> float:
    """``m_prefs_avgjg_Rnonrel*.c``: prefs_avgjg with the number of non-relevant documents
    of each group set to its number of relevant ones (R)."""
    total = 0.0
    for g in c.groups:
        if retrieved_only:
            r, n_nonrel = g.num_rel_ret, g.num_nonrel_ret
        else:
            r, n_nonrel = g.num_rel, g.num_nonrel
        if r >= n_nonrel:
            if retrieved_only:
                ful = g.fulfilled_ret + g.num_rel_ret * (r - n_nonrel)
                poss = g.possible_ret + g.num_rel * (r - n_nonrel)
            else:
                ful = _ful(g) + g.num_rel_ret * (r - n_nonrel)
                poss = _poss(g) + g.num_rel * (r - n_nonrel)
        else:
            ful, poss = _recalculate(g, c, retrieved_only)
        total += _ratio(ful, poss)
    return total / len(c.groups) if total > 0.0 else 0.0


def _recalculate(g: JudgmentGroup, c: PrefsCounts, retrieved_only: bool) -> tuple[int, int]:
    """The ``recalculate`` of ``m_prefs_avgjg_Rnonrel.c`` (``retrieved_only``: of
    ``m_prefs_avgjg_Rnonrel_ret.c``), kept as trec_eval writes it: the non-relevant class cut
    to its first R documents, pairs counted fulfilled when the first ranks above the second
    (and, in the whole-ranking variant, is retrieved)."""
    njr = c.num_judged_ret
    ful = poss = 0
    if g.matrix is None:
        classes = g.classes
        if retrieved_only:
            classes = [ranks[ranks < njr] for ranks in classes]
            kept = classes[-1][: g.num_rel_ret]
        else:
            kept = classes[-1][: g.num_rel]

        def count(first: np.ndarray, second: np.ndarray) -> tuple[int, int]:
            a, b = np.meshgrid(first, second, indexing="ij")
            won = (a < b) if retrieved_only else ((a < b) & (a < njr))
            return int(won.sum()), int(won.size - won.sum())

        for index, ranks in enumerate(classes):
            for other in classes[index + 1 : len(classes) - 1]:
                won, lost = count(ranks, other)
                ful, poss = ful + won, poss + lost
        for ranks in classes:
            won, lost = count(ranks, kept)
            ful, poss = ful + won, poss + lost
        return ful, poss + ful
    assert g.rel_array is not None
    rel = g.rel_array
    limit = njr if retrieved_only else c.num_judged
    seen = 0
    first_discarded = limit
    for i in range(limit):
        if rel[i] == 0.0:
            seen += 1
            if seen == g.num_rel + 1:
                first_discarded = i
                break
    keep = ~((np.arange(c.num_judged) >= first_discarded) & (rel == 0.0))
    a = g.matrix & keep[:, None] & keep[None, :]
    poss += int(np.tril(a[:njr, :njr], -1).sum())
    ful += int(np.triu(a[:njr, :njr], 1).sum())
    if not retrieved_only:
        ful += int(a[:njr, njr:].sum())
        poss += int(a[njr:, :].sum())
    return ful, poss + ful


@dataclass(frozen=True)
class PrefsMeasure:
    """One preference measure of trec_eval: its name, whether it is a count (summed over
    topics, printed as an integer) or a ratio (averaged), what it is, and its value from a
    topic's counts."""

    name: str
    value_type: Literal["int", "float"]
    description: str
    value: Callable[[PrefsCounts], float]


#: trec_eval's preference measures, in its order (``-m all_prefs``).
PREFS_MEASURES: tuple[PrefsMeasure, ...] = (
    PrefsMeasure(
        "prefs_num_prefs_poss",
        "int",
        "preferences possible, retrieved or not",
        lambda c: _total(c, _poss),
    ),
    PrefsMeasure(
        "prefs_num_prefs_ful",
        "int",
        "preferences fulfilled (one of the pair retrieved counts, neither fails)",
        lambda c: _total(c, _ful),
    ),
    PrefsMeasure(
        "prefs_num_prefs_ful_ret",
        "int",
        "preferences fulfilled among retrieved documents",
        lambda c: _total(c, lambda g: g.fulfilled_ret),
    ),
    PrefsMeasure(
        "prefs_simp",
        "float",
        "preferences fulfilled / possible",
        lambda c: _simple(c, _ful, _poss),
    ),
    PrefsMeasure(
        "prefs_pair",
        "float",
        "mean over document pairs of the share of groups whose preference is fulfilled",
        lambda c: _pairs(c, 3),
    ),
    PrefsMeasure(
        "prefs_avgjg",
        "float",
        "prefs_simp per judgment group, averaged over groups",
        lambda c: _by_group(c, _ful, _poss),
    ),
    PrefsMeasure(
        "prefs_avgjg_Rnonrel",
        "float",
        "prefs_avgjg with each group's non-relevant documents set to its relevant count R",
        lambda c: _rnonrel(c, retrieved_only=False),
    ),
    PrefsMeasure(
        "prefs_simp_ret",
        "float",
        "prefs_simp over pairs both retrieved",
        lambda c: _simple(c, lambda g: g.fulfilled_ret, lambda g: g.possible_ret),
    ),
    PrefsMeasure(
        "prefs_pair_ret",
        "float",
        "prefs_pair over pairs both retrieved",
        lambda c: _pairs(c, 1),
    ),
    PrefsMeasure(
        "prefs_avgjg_ret",
        "float",
        "prefs_avgjg over pairs both retrieved",
        lambda c: _by_group(c, lambda g: g.fulfilled_ret, lambda g: g.possible_ret),
    ),
    PrefsMeasure(
        "prefs_avgjg_Rnonrel_ret",
        "float",
        "prefs_avgjg_Rnonrel over pairs both retrieved",
        lambda c: _rnonrel(c, retrieved_only=True),
    ),
    PrefsMeasure(
        "prefs_simp_imp",
        "float",
        "prefs_simp over pairs with at least one retrieved",
        lambda c: _simple(c, _ful, _poss_imp),
    ),
    PrefsMeasure(
        "prefs_pair_imp",
        "float",
        "prefs_pair over pairs with at least one retrieved",
        lambda c: _pairs(c, 2),
    ),
    PrefsMeasure(
        "prefs_avgjg_imp",
        "float",
        "prefs_avgjg over pairs with at least one retrieved",
        lambda c: _by_group(c, _ful, _poss_imp),
    ),
)

#: trec_eval's groups of preference measures (``measures.c``), with ``runid`` and ``num_q``.
PREFS_GROUPS: dict[str, tuple[str, ...]] = {
    "all_prefs": ("runid", "num_q", *(m.name for m in PREFS_MEASURES)),
    "prefs": (
        "runid",
        "num_q",
        "prefs_num_prefs_poss",
        "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret",
        "prefs_simp",
        "prefs_pair",
        "prefs_avgjg",
    ),
}


_BY_NAME = {m.name: m for m in PREFS_MEASURES}
_ORDER = ("runid", "num_q", *(m.name for m in PREFS_MEASURES))


def prefs_measure_names(texts: Sequence[str]) -> list[str]:
    """The measures of ``-m`` options under ``-R prefs``: preference measures, their groups
    (``all_prefs``, ``prefs``), ``runid`` and ``num_q``, once each, in trec_eval's order."""
    chosen: set[str] = set()
    for text in texts:
        for name in text.split(","):
            if name in PREFS_GROUPS:
                chosen.update(PREFS_GROUPS[name])
            elif name in _BY_NAME or name in ("runid", "num_q"):
                chosen.add(name)
            else:
                raise InvalidInputError(
                    f"metrics: {name!r} is not a preference measure; with -R prefs or -R "
                    f"qrels_prefs the measures are {', '.join(_ORDER)} and the groups "
                    f"{', '.join(PREFS_GROUPS)}"
                )
    return [name for name in _ORDER if name in chosen]


@dataclass(frozen=True)
class PrefsEvaluation:
    """The values of one run: per topic (trec_eval's topic order) and over topics."""

    measures: list[str]
    per_topic: dict[str, dict[str, float]]
    summary: dict[str, float | int | str]


def evaluate_prefs(
    judgments: Mapping[str, Sequence[PrefsLine]],
    run: Mapping[str, Mapping[str, float]],
    measures: Sequence[str],
    *,
    run_tag: str,
    max_docs: int | None = None,
    complete: bool = False,
) -> PrefsEvaluation:
    """Evaluate a run against preference judgments as trec_eval does: the judged topics in
    byte order; a judged topic missing from the run is an error, or with ``complete`` (-c) an
    empty ranking; run topics without judgments are ignored. Counts are summed over topics,
    ratios averaged."""
    topics = sorted(judgments, key=_key)
    missing = [t for t in topics if t not in run]
    if missing and not complete:
        raise InvalidInputError(
            f"{len(missing)} judged topics missing from the run (first: {missing[0]!r}); pass "
            f"-c to score them as empty rankings, as trec_eval -c"
        )
    per_topic: dict[str, dict[str, float]] = {}
    numeric = [_BY_NAME[name] for name in measures if name in _BY_NAME]
    for topic in topics:
        counts = prefs_counts(topic, judgments[topic], run.get(topic, {}), max_docs)
        per_topic[topic] = {m.name: m.value(counts) for m in numeric}
    summary: dict[str, float | int | str] = {}
    for name in measures:
        if name == "runid":
            summary[name] = run_tag
        elif name == "num_q":
            summary[name] = len(topics)
        elif _BY_NAME[name].value_type == "int":
            summary[name] = int(sum(int(v[name]) for v in per_topic.values()))
        else:
            total = 0.0
            for values in per_topic.values():
                total += values[name]
            summary[name] = total / len(topics) if topics else 0.0
    return PrefsEvaluation(list(measures), per_topic, summary)


def prefs_lines(evaluation: PrefsEvaluation, *, per_topic: bool, summary: bool) -> list[str]:
    """The evaluation as trec_eval prints it (``%-22s\\t%s\\t%6.4f``, counts as integers)."""

    def shown(name: str, value: float | int | str) -> str:
        if isinstance(value, str):
            return value
        if name == "num_q" or _BY_NAME[name].value_type == "int":
            return str(int(value))
        return f"{value:6.4f}"

    lines = []
    if per_topic:
        for topic, values in evaluation.per_topic.items():
            for name in evaluation.measures:
                if name in values:
                    lines.append(f"{name:<22}\t{topic}\t{shown(name, values[name])}")
    if summary:
        for name in evaluation.measures:
            lines.append(f"{name:<22}\tall\t{shown(name, evaluation.summary[name])}")
    return lines
