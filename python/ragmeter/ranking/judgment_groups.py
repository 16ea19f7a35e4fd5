"""trec_eval's judgment-group measures (``-R qrels_jg``): qrels whose iteration column names
a judgment group (a user, an assessor), each measure computed per group and averaged over the
topic's groups. A port of trec_eval 10's ``get_qrels_jg.c``, ``form_res_rels_jg.c``,
``m_map_avgjg.c``, ``m_P_avgjg.c`` and ``m_Rprec_mult_avgjg.c`` (C. Buckley, NIST), keeping
trec_eval's order of floating-point operations.

Rankings are ordered as trec_eval orders them (score descending, ties by doc id descending),
cut at ``-M``; with ``-J`` unjudged documents are removed first. A document is relevant in a
group when its grade there is at least ``-l``; grades are integers (trec_eval reads them with
``atol``), a negative grade marks a pooled document left unjudged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._files import read_regular_text, trec_fields
from ..exceptions import InvalidInputError

__all__ = [
    "JG_GROUPS",
    "JG_MEASURES",
    "JgEvaluation",
    "evaluate_judgment_groups",
    "jg_lines",
    "jg_measures",
    "read_qrels_jg",
]

NONPOOL = -1
UNJUDGED = -2

#: The families of ``-R qrels_jg``, in trec_eval's order, with their default parameters.
JG_MEASURES: dict[str, tuple[float, ...]] = {
    "map_avgjg": (),
    "P_avgjg": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "Rprec_mult_avgjg": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}
#: trec_eval's group ``-m qrels_jg``.
JG_GROUPS: dict[str, tuple[str, ...]] = {"qrels_jg": ("runid", "num_q", *JG_MEASURES)}


def _atol(text: str) -> int:
    match = re.match(r"\s*[+-]?\d+", text)
    return int(match[0]) if match else 0


def _key(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def read_qrels_jg(path: str | Path) -> dict[str, dict[str, dict[str, int]]]:
    """``{topic: {group: {docno: grade}}}`` of a qrels_jg file (``topic group docno grade``;
    lines starting with ``#`` are comments), refusing a line of another shape by file:line."""
    text = read_regular_text(path, "judgments", "qrels")
    topics: dict[str, dict[str, dict[str, int]]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("#"):
            continue
        fields = trec_fields(line)
        if not fields:
            continue
        if len(fields) != 4:
            raise InvalidInputError(
                f"qrels: {path}:{number}: -R qrels_jg lines have 4 fields (topic group docno "
                f"grade), got {len(fields)}: {line.strip()[:80]!r}"
            )
        topic, group, docno, grade = fields
        topics.setdefault(topic, {}).setdefault(group, {})[docno] = _atol(grade)
    if not topics:
        raise InvalidInputError(f"qrels: {path} has no judgment (-R qrels_jg)")
    return topics


@dataclass(frozen=True)
class JgMeasure:
    """One printed measure: its family, its column name and its parameter (cutoff or
    multiple of R)."""

    family: str
    name: str
    param: float | None


def jg_measures(texts: Sequence[str]) -> list[JgMeasure | str]:
    """The measures of ``-m`` options under ``-R qrels_jg``: ``map_avgjg``, ``P_avgjg``,
    ``Rprec_mult_avgjg`` (with trec_eval's parameter lists: ``P_avgjg.5,10``), the group
    ``qrels_jg``, ``runid`` and ``num_q``, in trec_eval's order."""
    params: dict[str, tuple[float, ...]] = {}
    chosen: set[str] = set()
    for text in texts:
        head, dot, rest = text.partition(".")
        names = JG_GROUPS.get(head, (head,)) if not dot else (head,)
        for name in names:
            if name not in JG_MEASURES and name not in ("runid", "num_q"):
                raise InvalidInputError(
                    f"metrics: {text!r} is not a judgment-group measure; with -R qrels_jg "
                    f"the measures are runid, num_q, {', '.join(JG_MEASURES)} and the group "
                    f"qrels_jg"
                )
            chosen.add(name)
            if dot and name == "P_avgjg":
                cutoffs = sorted({_atol(v) for v in rest.split(",")})
                if cutoffs[0] <= 0:
                    raise InvalidInputError(f"metrics: {text!r}: cutoffs must be positive")
                params.setdefault(name, tuple(cutoffs))
            elif dot and name == "Rprec_mult_avgjg":
                try:
                    params.setdefault(name, tuple(sorted(float(v) for v in rest.split(","))))
                except ValueError:
                    raise InvalidInputError(
                        f"metrics: {text!r}: the multiples of R must be numbers"
                    ) from None
            elif dot:
                raise InvalidInputError(f"metrics: {text!r}: {name} takes no parameters")
    measures: list[JgMeasure | str] = []
    for name in ("runid", "num_q", *JG_MEASURES):
        if name not in chosen:
            continue
        if name in ("runid", "num_q"):
            measures.append(name)
        elif name == "map_avgjg":
            measures.append(JgMeasure(name, name, None))
        else:
            for value in params.get(name, JG_MEASURES[name]):
                shown = f"{int(value)}" if name == "P_avgjg" else f"{value:3.2f}"
                measures.append(JgMeasure(name, f"{name}_{shown}", value))
    return measures


@dataclass
class _Group:
    rel_list: list[int]
    num_rel: int
    num_rel_ret: int


def _groups(
    groups: Mapping[str, Mapping[str, int]],
    ranking: Mapping[str, float],
    level: int,
    max_docs: int | None,
    judged_only: bool,
) -> list[_Group]:
    ordered = sorted(ranking.items(), key=lambda item: (-item[1], _reversed_key(item[0])))
    if max_docs is not None:
        ordered = ordered[:max_docs]
    out = []
    for group in sorted(groups, key=_key):
        grades = groups[group]
        rels = []
        for docno, _score in ordered:
            grade = grades.get(docno)
            rels.append(NONPOOL if grade is None else (UNJUDGED if grade < 0 else grade))
        if judged_only:
            rels = [r for r in rels if r >= 0]
        num_rel = sum(1 for g in grades.values() if g >= 0 and g >= level)
        out.append(_Group(rels, num_rel, sum(1 for r in rels if r >= level)))
    return out


class _Descending(bytes):
    def __lt__(self, other: bytes) -> bool:
        return bytes.__gt__(self, other)


def _reversed_key(text: str) -> _Descending:
    # trec_eval's ties: doc ids compared with strcmp, descending.
    return _Descending(_key(text))


def _values(measures: Sequence[JgMeasure], groups: list[_Group], level: int) -> dict[str, float]:
    values = {m.name: 0.0 for m in measures}
    for m in measures:
        for g in groups:
            if m.family == "map_avgjg":
                so_far, total = 0, 0.0
                for i, rel in enumerate(g.rel_list):
                    if rel >= level:
                        so_far += 1
                        total += so_far / (i + 1)
                if so_far:
                    values[m.name] += total / g.num_rel
            elif m.family == "P_avgjg":
                assert m.param is not None
                k = int(m.param)
                so_far = sum(1 for rel in g.rel_list[:k] if rel >= level)
                values[m.name] += so_far / k
            else:
                values[m.name] += _rprec_mult(g, m.param or 0.0, level)
        if len(groups) > 1:
            values[m.name] /= len(groups)
    return values


def _rprec_mult(g: _Group, multiple: float, level: int) -> float:
    """``m_Rprec_mult_avgjg.c`` for one multiple of R: precision at ``(long)(m R + 0.9)``
    documents, the relevant retrieved over the cutoff when fewer are retrieved."""
    cutoff = int(multiple * g.num_rel + 0.9)
    num_ret = len(g.rel_list)
    if cutoff > num_ret:
        return g.num_rel_ret / cutoff
    so_far = g.num_rel_ret
    for i in range(num_ret, 0, -1):
        if so_far <= 0:
            break
        if i == cutoff:
            return so_far / i
        if g.rel_list[i - 1] >= level:
            so_far -= 1
    return 0.0


@dataclass(frozen=True)
class JgEvaluation:
    """The values of one run, per topic (trec_eval's topic order) and over topics."""

    measures: list[JgMeasure | str]
    per_topic: dict[str, dict[str, float]]
    summary: dict[str, float | int | str]


def evaluate_judgment_groups(
    judgments: Mapping[str, Mapping[str, Mapping[str, int]]],
    run: Mapping[str, Mapping[str, float]],
    measures: Sequence[JgMeasure | str],
    *,
    run_tag: str,
    relevance_level: int = 1,
    max_docs: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
) -> JgEvaluation:
    """Evaluate a run against qrels_jg judgments as trec_eval does: judged topics in byte
    order, a judged topic missing from the run an error (or with ``complete`` an empty
    ranking counted in the mean), values averaged over topics."""
    topics = sorted(judgments, key=_key)
    missing = [t for t in topics if t not in run]
    if missing and not complete:
        raise InvalidInputError(
            f"{len(missing)} judged topics missing from the run (first: {missing[0]!r}); pass "
            f"-c to score them as empty rankings, as trec_eval -c"
        )
    numeric = [m for m in measures if isinstance(m, JgMeasure)]
    per_topic = {}
    for topic in topics:
        groups = _groups(
            judgments[topic], run.get(topic, {}), relevance_level, max_docs, judged_only
        )
        per_topic[topic] = _values(numeric, groups, relevance_level)
    summary: dict[str, float | int | str] = {}
    for m in measures:
        if m == "runid":
            summary["runid"] = run_tag
        elif m == "num_q":
            summary["num_q"] = len(topics)
        else:
            assert isinstance(m, JgMeasure)
            total = 0.0
            for values in per_topic.values():
                total += values[m.name]
            summary[m.name] = total / len(topics) if topics else 0.0
    return JgEvaluation(list(measures), per_topic, summary)


def jg_lines(evaluation: JgEvaluation, *, per_topic: bool, summary: bool) -> list[str]:
    """The evaluation as trec_eval prints it."""
    lines = []
    names = [m if isinstance(m, str) else m.name for m in evaluation.measures]
    if per_topic:
        for topic, values in evaluation.per_topic.items():
            for name in names:
                if name in values:
                    lines.append(f"{name:<22}\t{topic}\t{values[name]:6.4f}")
    if summary:
        for name in names:
            value = evaluation.summary[name]
            shown = (
                value
                if isinstance(value, str)
                else (str(value) if name == "num_q" else f"{value:6.4f}")
            )
            lines.append(f"{name:<22}\tall\t{shown}")
    return lines
