"""The judge's part of nugget evaluation: pool the relevant segments, create the bank, assign
its nuggets to answers. Every call goes through the judge engine
(:func:`ragmeter.judges.evaluate`): its cache, repeats, dry runs, costs, statuses, injection
guard and batch mode apply as for any metric.

* :func:`pool_segments`: per topic, the segments the runs retrieved in their top ``depth``
  that the judgments grade at least ``threshold`` (TREC pools across runs: nuggets from one
  system's own retrieval measure what it retrieved, not what the topic needs).
* :func:`create_bank`: the nuggets of each topic from its pooled segments, then their
  importance (:class:`~ragmeter.judges.metrics.nuggets.NuggetCreationMetric`).
* :func:`assign`: every answer's labels
  (:class:`~ragmeter.judges.metrics.nuggets.NuggetAssignmentMetric`), answers of one topic
  asked one after another, so a provider's prompt cache reuses the topic's prefix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, overload

from ..exceptions import InputTypeError, InvalidInputError
from ..io import read_qrels, read_run
from ..judges import DryRunEstimate, evaluate
from ..judges.metrics.nuggets import NuggetAssignmentMetric, NuggetCreationMetric
from ..judges.results import JudgeResults
from ..judges.sample import Sample
from ..manifest import judge_identity_of
from .answers import RagAnswer
from .assignments import AnswerAssignment, Judgement, NuggetAssignments
from .bank import Nugget, NuggetBank, TopicNuggets

__all__ = ["assign", "assignments_from_results", "create_bank", "pool_segments"]


def pool_segments(
    qrels: Any,
    runs: Mapping[str, Any],
    *,
    threshold: float = 2,
    depth: int | None = None,
) -> dict[str, list[str]]:
    """The relevant segments of each topic, pooled across runs.

    A segment is pooled for a topic when some run ranks it in its top ``depth`` (every rank
    when None) and the judgments grade it at least ``threshold`` (nuggetizer's default 2 of
    UMBRELA's 0-3). Order: grade descending, then the number of runs that retrieved it
    (descending), then its best rank, then its id.

    Parameters
    ----------
    qrels
        Judgments, any source :func:`ragmeter.io.read_qrels` reads.
    runs
        ``{run name: run}``, each any source :func:`ragmeter.io.read_run` reads.
    threshold, depth
        See above.

    Returns
    -------
    dict
        ``{topic id: [segment ids]}`` for every judged topic some run retrieved.

    Examples
    --------
    >>> qrels = {"t1": {"s1": 3, "s2": 1, "s3": 2}}
    >>> runs = {"a": {"t1": {"s2": 0.9, "s3": 0.8}}, "b": {"t1": {"s1": 0.5, "s3": 0.4}}}
    >>> pool_segments(qrels, runs)
    {'t1': ['s1', 's3']}
    """
    if not isinstance(runs, Mapping) or not runs:
        raise InvalidInputError("runs: expected {run name: run} with at least one run")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise InvalidInputError(f"depth must be a positive integer or None, got {depth!r}")
    judged = {str(t): {str(d): g for d, g in docs.items()} for t, docs in read_qrels(qrels).items()}
    found: dict[str, dict[str, list[int]]] = {}
    for name, run in runs.items():
        ranking = read_run(run)
        for topic, scored in ranking.items():
            topic = str(topic)
            if topic not in judged:
                continue
            ordered = sorted(scored.items(), key=lambda kv: (-kv[1], str(kv[0])))
            for rank, (doc, _) in enumerate(ordered[:depth] if depth else ordered, 1):
                grade = judged[topic].get(str(doc))
                if grade is not None and grade >= threshold:
                    found.setdefault(topic, {}).setdefault(str(doc), []).append(rank)
        del name
    return {
        topic: sorted(
            docs,
            key=lambda d: (-judged[topic][d], -len(docs[d]), min(docs[d]), d),
        )
        for topic, docs in found.items()
    }


@overload
def create_bank(
    topics: Mapping[str, str],
    segments: Mapping[str, Sequence[str]],
    *,
    judge: Any = ...,
    max_nuggets: int = ...,
    window: int = ...,
    per_call: int = ...,
    pooled_runs: Sequence[str] = ...,
    pooling: Mapping[str, Any] | None = ...,
    on_failure: str = ...,
    dry_run: Literal[False] = ...,
    **options: Any,
) -> NuggetBank: ...


@overload
def create_bank(
    topics: Mapping[str, str],
    segments: Mapping[str, Sequence[str]],
    *,
    judge: Any = ...,
    max_nuggets: int = ...,
    window: int = ...,
    per_call: int = ...,
    pooled_runs: Sequence[str] = ...,
    pooling: Mapping[str, Any] | None = ...,
    on_failure: str = ...,
    dry_run: Literal[True],
    **options: Any,
) -> DryRunEstimate: ...


def create_bank(
    topics: Mapping[str, str],
    segments: Mapping[str, Sequence[str]],
    *,
    judge: Any = None,
    max_nuggets: int = 30,
    window: int = 10,
    per_call: int = 10,
    pooled_runs: Sequence[str] = (),
    pooling: Mapping[str, Any] | None = None,
    on_failure: str = "raise",
    dry_run: bool = False,
    **options: Any,
) -> NuggetBank | DryRunEstimate:
    """A nugget bank: each topic's nuggets from its segments, labelled vital or okay.

    Parameters
    ----------
    topics
        ``{topic id: query}``.
    segments
        ``{topic id: [segment texts]}``, most relevant first (from :func:`pool_segments`
        and a corpus).
    judge
        The judge (as :func:`ragmeter.judges.evaluate` takes it).
    max_nuggets, window, per_call
        At most this many nuggets a topic; segments per creation call; nuggets per
        importance call (nuggetizer: 30, 10, 10).
    pooled_runs, pooling
        Recorded in the bank's provenance (the runs pooled, the threshold and depth).
    on_failure
        ``"raise"``: a topic the judge failed on raises, naming it and why (a bank with a
        topic missing would score every answer to it as if it had no nugget); ``"skip"``:
        the topic is left out of the bank and listed in its provenance (``failed_topics``).
    dry_run
        Make no call: return the :class:`~ragmeter.judges.DryRunEstimate`.
    **options
        Passed to :func:`ragmeter.judges.evaluate` (``cache=``, ``repeats`` is refused: a bank
        is one set of nuggets).

    Raises
    ------
    InvalidInputError
        A topic without segments, ``repeats``, a failed topic with ``on_failure="raise"``.
    """
    if on_failure not in ("raise", "skip"):
        raise InvalidInputError(f"on_failure must be 'raise' or 'skip', got {on_failure!r}")
    if "repeats" in options:
        raise InvalidInputError("create_bank: repeats is not an option (a bank is one list)")
    absent = [t for t in topics if t not in segments]
    if absent:
        raise InvalidInputError(
            f"segments: no segments for topics {absent[:5]}; pool them first (pool_segments)"
        )
    metric = NuggetCreationMetric(max_nuggets=max_nuggets, window=window, per_call=per_call)
    samples = [
        Sample(str(query), contexts=tuple(segments[t]), id=str(t)) for t, query in topics.items()
    ]
    if dry_run:
        return evaluate(samples, [metric], judge=judge, dry_run=True, **options)
    results = evaluate(samples, [metric], judge=judge, **options)
    built: list[TopicNuggets] = []
    failed: dict[str, str] = {}
    for sample, row in zip(samples, results.rows, strict=True):
        score = row.score
        topic_id = str(sample.id)
        if score.status == "error":
            if on_failure == "raise":
                raise InvalidInputError(
                    f"topic {topic_id!r}: the judge gave no usable nuggets ({score.reason_code}: "
                    f"{score.message}); rerun (the cache keeps what succeeded) or pass "
                    "on_failure='skip'"
                )
            failed[topic_id] = f"{score.reason_code}: {score.message}"
            continue
        nuggets = tuple(
            Nugget(n["text"], n["importance"]) for n in score.evidence.get("nuggets", [])
        )
        built.append(TopicNuggets(topic_id, sample.question, nuggets))
    manifest = results.manifest
    provenance: dict[str, Any] = {
        "source": "ragmeter",
        "judge": judge_identity_of(manifest),
        "prompts": {k: v for m in manifest.get("metrics", []) for k, v in m["prompts"].items()},
        "settings": {
            "max_nuggets": max_nuggets,
            "window": window,
            "per_call": per_call,
            **dict(pooling or {}),
            "temperature": manifest.get("settings", {}).get("temperature"),
        },
        "pooled_runs": list(pooled_runs),
    }
    if failed:
        provenance["failed_topics"] = failed
    return NuggetBank(tuple(built), provenance)


def _answers(answers: Any) -> list[RagAnswer]:
    if isinstance(answers, RagAnswer):
        return [answers]
    items = list(answers)
    for item in items:
        if not isinstance(item, RagAnswer):
            raise InputTypeError(
                f"answers: expected RagAnswer objects (read_rag_answers), got {type(item).__name__}"
            )
    return items


def _samples(
    bank: NuggetBank, answers: Sequence[RagAnswer]
) -> tuple[list[Sample], dict[str, str], list[tuple[str, str]]]:
    outside = sorted({a.topic_id for a in answers if a.topic_id not in bank})
    if outside:
        raise InvalidInputError(
            f"answers: topics {outside[:5]} are not in the bank ({len(outside)} in all); "
            "assign only the answers to the bank's topics"
        )
    order = {t: i for i, t in enumerate(bank.topic_ids)}
    ordered = sorted(answers, key=lambda a: (order[a.topic_id], a.run_id))
    samples, topic_of, pairs = [], {}, []
    for answer in ordered:
        sample_id = f"{answer.run_id}/{answer.topic_id}"
        if sample_id in topic_of:
            raise InvalidInputError(
                f"answers: two answers are named {sample_id!r} (run/topic): run {answer.run_id!r} "
                f"answers topic {answer.topic_id!r} twice, or a run or topic id holds '/'"
            )
        topic_of[sample_id] = answer.topic_id
        pairs.append((answer.run_id, answer.topic_id))
        samples.append(Sample(bank[answer.topic_id].query, answer.text, id=sample_id))
    return samples, topic_of, pairs


@overload
def assign(
    bank: NuggetBank,
    answers: Any,
    *,
    judge: Any = ...,
    grades: int = ...,
    per_call: int = ...,
    blind: bool = ...,
    dry_run: Literal[False] = ...,
    **options: Any,
) -> NuggetAssignments: ...


@overload
def assign(
    bank: NuggetBank,
    answers: Any,
    *,
    judge: Any = ...,
    grades: int = ...,
    per_call: int = ...,
    blind: bool = ...,
    dry_run: Literal[True],
    **options: Any,
) -> DryRunEstimate: ...


def assign(
    bank: NuggetBank,
    answers: Any,
    *,
    judge: Any = None,
    grades: int = 3,
    per_call: int = 10,
    blind: bool = False,
    dry_run: bool = False,
    **options: Any,
) -> NuggetAssignments | DryRunEstimate:
    """Label every nugget of its topic for every answer, through the judge engine.

    Parameters
    ----------
    bank
        The :class:`~ragmeter.nuggets.NuggetBank`.
    answers
        :class:`~ragmeter.nuggets.RagAnswer` objects (:func:`read_rag_answers`), any runs.
    judge
        The judge, a panel, ... (as :func:`ragmeter.judges.evaluate` takes it).
    grades
        3 (support, partial_support, not_support) or 2.
    per_call
        Nuggets a call (nuggetizer's 10).
    blind
        Declare that the bank and prompts were kept from the evaluated systems (recorded
        with the bank's hash in every manifest of the scores and in the report).
    dry_run
        Make no call: return the :class:`~ragmeter.judges.DryRunEstimate`.
    **options
        Passed to :func:`ragmeter.judges.evaluate`: ``cache``, ``repeats``, ``batch``,
        ``temperature``, ``on_error``, ``prices``, ``progress``, ...

    Returns
    -------
    NuggetAssignments
        The labels; a judgement whose reply could not be read is an ``error`` with its
        reason (no label is invented).

    Raises
    ------
    InvalidInputError
        An answer to a topic not in the bank, two answers of a run to one topic.
    """
    answer_list = _answers(answers)
    samples, topic_of, pairs = _samples(bank, answer_list)
    bank_topics = {t.topic_id: (t.query, [n.text for n in t.nuggets]) for t in bank}
    metric = NuggetAssignmentMetric(
        bank_topics, topic_of, grades=grades, per_call=per_call, bank_hash=bank.content_hash
    )
    if dry_run:
        return evaluate(samples, [metric], judge=judge, dry_run=True, **options)
    results = evaluate(samples, [metric], judge=judge, **options)
    return assignments_from_results(results, bank, pairs, grades=grades, blind=blind)


def _judgement(score: Any, n: int) -> Judgement:
    if score.status == "ok":
        return Judgement(tuple(score.evidence["labels"]), reasons=tuple(score.reasons))
    return Judgement((None,) * n, score.status, score.reason_code, score.message)


def assignments_from_results(
    results: JudgeResults,
    bank: NuggetBank,
    pairs: Sequence[tuple[str, str]],
    *,
    grades: int = 3,
    blind: bool = False,
) -> NuggetAssignments:
    """:class:`NuggetAssignments` from the judge's results of :func:`assign` (``pairs``: the
    (run, topic) of each sample, in sample order)."""
    if len(results.rows) != len(pairs):
        raise InvalidInputError(
            f"results: {len(results.rows)} rows for {len(pairs)} answers (one metric expected)"
        )
    answers = []
    for (run_id, topic_id), row in zip(pairs, results.rows, strict=True):
        n = len(bank[topic_id].nuggets)
        scores = row.repeats if row.repeats is not None else (row.score,)
        flags = {"injection_suspected": True} if row.injection_suspected else {}
        answers.append(
            AnswerAssignment(run_id, topic_id, tuple(_judgement(s, n) for s in scores), flags)
        )
    manifest = results.manifest
    settings = manifest.get("settings") or {}
    return NuggetAssignments(
        bank,
        tuple(answers),
        grades,
        "judge",
        judge_identity_of(manifest),
        {
            "temperature": settings.get("temperature"),
            "language": settings.get("language"),
            "prompts": {k: v for m in manifest.get("metrics", []) for k, v in m["prompts"].items()},
            "repeats": manifest.get("repeats", 1),
        },
        blind,
    )
