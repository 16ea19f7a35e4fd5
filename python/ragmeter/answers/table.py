"""Many answer metrics of one system at once, as the per-sample values comparisons read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core import __version__
from .._text import as_item_list
from ..exceptions import InputTypeError, InvalidInputError
from ..manifest import Manifest
from ..per_query import PerQueryResults
from . import abstention, edit, matching, overlap
from .declarations import SACREBLEU_VERSION, AnswerMetricDeclaration, declaration

__all__ = ["answer_metrics"]

_FUNCTIONS = {
    "exact_match_score": matching.exact_match_score,
    "token_f1_score": matching.token_f1_score,
    "substring_match_score": matching.substring_match_score,
    "anls_score": edit.anls_score,
    "edit_similarity_score": edit.edit_similarity_score,
    "rouge_score": overlap.rouge_score,
    "sentence_bleu_score": overlap.sentence_bleu_score,
    "no_answer_score": abstention.no_answer_score,
    "claim_recall_score": abstention.claim_recall_score,
}

#: The options of ROUGE that decide how the answers are tokenised: one pass per distinct set.
_ROUGE_PASS_OPTIONS = ("use_stemmer",)


def _entries(metrics: object) -> list[tuple[AnswerMetricDeclaration, dict[str, Any]]]:
    if isinstance(metrics, str) or not isinstance(metrics, Sequence):
        raise InputTypeError(
            "metrics: expected a list of answer metric names (or (name, {option: value}) "
            f"pairs), got {metrics!r}"
        )
    entries = []
    seen: set[str] = set()
    for i, entry in enumerate(metrics):
        if isinstance(entry, str):
            name, options = entry, {}
        elif (
            isinstance(entry, tuple)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and isinstance(entry[1], Mapping)
        ):
            name, options = entry[0], dict(entry[1])
        else:
            raise InputTypeError(
                f"metrics[{i}]: expected a name or a (name, {{option: value}}) pair, got {entry!r}"
            )
        found = declaration(name)
        if name in seen:
            raise InvalidInputError(
                f"metrics: {name!r} is listed twice; one system's values have one definition per "
                "metric (call answer_metrics again for other options)"
            )
        seen.add(name)
        fixed = dict(found.options)
        clash = [k for k in options if k in ("rouge_type", "measure") and k in fixed]
        if clash:
            raise InvalidInputError(
                f"metrics[{i}]: {clash[0]!r} is part of the name {name!r}; choose the metric by "
                "its name (rouge1, rouge2_precision, rougeL_recall, ...)"
            )
        if "average" in options or "n_threads" in options:
            raise InvalidInputError(
                f"metrics[{i}]: 'average' and 'n_threads' are not options of one metric"
            )
        entries.append((found, {**fixed, **options}))
    if not entries:
        raise InvalidInputError("metrics: give at least one answer metric")
    return entries


def _definition(found: AnswerMetricDeclaration, options: Mapping[str, Any]) -> dict[str, Any]:
    """What a column means: the function, its options (defaults filled in) and the
    normalisation, as JSON-friendly values."""
    definition: dict[str, Any] = {"function": found.function}
    if found.function not in ("rouge_score", "sentence_bleu_score"):
        normalize = options.get("normalize", found.normalize)
        if callable(normalize):
            # A function is recorded by its name: two systems normalised by the same function
            # compare; two different lambdas cannot be told apart by name (both "<lambda>").
            module = getattr(normalize, "__module__", None) or "?"
            qualname = getattr(normalize, "__qualname__", None) or type(normalize).__qualname__
            normalize = f"callable {module}.{qualname}"
        definition["normalize"] = normalize
    for key, value in sorted(options.items()):
        if key == "normalize":
            continue
        definition[key] = list(value) if isinstance(value, tuple) else value
    if found.function == "sentence_bleu_score":
        definition["sacrebleu_version"] = SACREBLEU_VERSION
    return definition


def answer_metrics(
    references: Any,
    answers: Any,
    metrics: Sequence[str | tuple[str, Mapping[str, Any]]],
    *,
    sample_ids: Sequence[str | int] | None = None,
    claims: Any = None,
    name: str | None = None,
    n_threads: int | None = None,
) -> PerQueryResults:
    """Per-sample values of several answer metrics, ready for :func:`~ragmeter.compare` and
    the gate.

    Each metric is named as in :data:`~ragmeter.answers.declarations.ANSWER_METRICS`
    (``"exact_match"``, ``"token_f1"``, ``"substring_match"``, ``"anls"``,
    ``"edit_similarity"``, ``"rouge1"``, ``"rouge1_precision"``, ``"rougeL_recall"``,
    ``"rougeLsum"``, ``"bleu"``, ``"no_answer"``, ``"claim_recall"``), alone or with options
    for its function: ``("rougeL", {"use_stemmer": True})``, ``("substring_match", {"regex":
    True})``, ``("exact_match", {"normalize": "bergen"})``. Each runs as its function of
    :mod:`ragmeter.answers` would, with ``average=None``; the ROUGE columns that share their
    tokenisation come from one pass. The results' manifest (producer
    ``"ragmeter.answer_metrics"``) carries each column's definition (function, normalisation,
    options) in ``manifest.measures``: :func:`~ragmeter.compare` and the gate refuse to pair
    two systems whose same-named columns were defined differently. A callable ``normalize`` is
    recorded by its module and qualified name.

    Parameters
    ----------
    references
        One entry per answer (a string or a list of acceptable strings); may be ``None`` when
        only ``no_answer`` and ``claim_recall`` are asked.
    answers
        The answers, one string each.
    metrics
        The metrics: names, or ``(name, {option: value})`` pairs.
    sample_ids
        The samples' ids (distinct), by which systems are paired; default the positions
        ``0, 1, ...`` (two systems are then paired by position: give ids when the order may
        differ).
    claims
        One list of reference claims per answer, for ``claim_recall``.
    name
        The system's name.
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    PerQueryResults
        One row per metric, one column per sample (NaN where a value is undefined).

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown or repeated metric, references or claims missing for a
        metric that needs them, ids that are not distinct or not one per answer, and every
        error of the metrics' functions.
    InputTypeError
        A ``TypeError``: ``metrics`` not a list of names or pairs, and the type errors of the
        metrics' functions.

    Examples
    --------
    >>> values = answer_metrics(
    ...     [["Paris", "City of Paris"], "1889"],
    ...     ["Paris, France", "It opened in 1889."],
    ...     ["exact_match", "substring_match", "rouge1"],
    ...     sample_ids=["q1", "q2"], name="rag-v2")
    >>> values["substring_match"]
    {'q1': 1.0, 'q2': 1.0}
    >>> dict(values.manifest.measures["exact_match"])
    {'function': 'exact_match_score', 'normalize': 'squad'}
    """
    entries = _entries(metrics)
    answer_list = as_item_list(answers, "answers", "answers (one str each)")
    if sample_ids is None:
        ids: list[Any] = list(range(len(answer_list)))
    else:
        ids = list(as_item_list(sample_ids, "sample_ids", "sample ids"))
        if len(ids) != len(answer_list):
            raise InvalidInputError(
                f"sample_ids: one id per answer, got {len(ids)} ids and {len(answer_list)} answers"
            )
    if not answer_list:
        raise InvalidInputError("answers: no answer to evaluate")
    inputs = {"references": references, "claims": claims}
    for found, _ in entries:
        if found.inputs != "none" and inputs[found.inputs] is None:
            raise InvalidInputError(
                f"{found.inputs}: {found.name!r} needs the {found.inputs} of the answers"
            )
    values: dict[str, NDArray[np.float64]] = {}
    rouge_passes: dict[tuple[Any, ...], list[tuple[str, str]]] = {}
    for found, options in entries:
        if found.function == "rouge_score":
            key = tuple(options.get(k, False) for k in _ROUGE_PASS_OPTIONS)
            extra = set(options) - {"rouge_type", "measure", *_ROUGE_PASS_OPTIONS}
            if extra:
                raise InvalidInputError(
                    f"metrics: {found.name!r} has no option {sorted(extra)[0]!r} (ROUGE takes "
                    "use_stemmer)"
                )
            rouge_passes.setdefault(key, []).append((found.name, options["rouge_type"]))
            continue
        function: Any = _FUNCTIONS[found.function]
        if found.inputs == "none":
            values[found.name] = function(answer_list, average=None, n_threads=n_threads, **options)
        else:
            values[found.name] = function(
                inputs[found.inputs], answer_list, average=None, n_threads=n_threads, **options
            )
    for key, columns in rouge_passes.items():
        types = list(dict.fromkeys(rouge_type for _, rouge_type in columns))
        table = overlap.rouge_scores(
            references,
            answer_list,
            rouge_types=types,
            n_threads=n_threads,
            **dict(zip(_ROUGE_PASS_OPTIONS, key, strict=True)),
        )
        for column, _ in columns:
            values[column] = table[column]
    ordered = {found.name: values[found.name] for found, _ in entries}
    definitions = {found.name: _definition(found, options) for found, options in entries}
    manifest = Manifest("ragmeter.answer_metrics", __version__, measures=definitions)
    return PerQueryResults(ordered, ids, name=name, manifest=manifest)
