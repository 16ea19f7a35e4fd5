"""MLflow GenAI: ragmeter's metrics as scorers for ``mlflow.genai.evaluate``, and a paired
comparison of two evaluation runs (:func:`compare_runs`), which MLflow does not have.

Scorers (each an MLflow ``Scorer`` named ``ragmeter/<metric>`` (:func:`scorer_name`:
``ragmeter/ndcg_at_10``), computed by ragmeter):

* ranking (:func:`ranking_scorer`; :func:`ndcg`, :func:`recall`, :func:`mrr`,
  :func:`average_precision`): the retrieved ids against the expected ones, with trec_eval's
  semantics. The retrieved ids are ``outputs[retrieved_key]`` (default
  ``"retrieved_document_ids"``), ``outputs`` itself when it is a list of ids, else the
  documents of the trace's last ``RETRIEVER`` span (their ``id``, else ``metadata.doc_uri``).
  The expected ids are ``expectations[expected_key]`` (default ``"expected_document_ids"``): a
  list (each relevant, grade 1) or ``{doc_id: grade}``. The ranking is the order retrieved.
* answers (:func:`exact_match`, :func:`token_f1`, :func:`anls`): ``outputs`` (a string, or
  ``outputs["response"]``) against ``expectations["expected_response"]`` (a string or a list of
  acceptable strings), as :mod:`ragmeter.answers` computes them (SQuAD normalisation for EM and
  F1).
* judges (:func:`judge_scorer`): a metric of :mod:`ragmeter.judges` (``"faithfulness"``,
  ``"answer_relevance"``, ...) on the sample the row holds (question: ``inputs["question"]``
  or the inputs' only text; answer: the outputs; contexts: ``outputs["contexts"]`` or the
  retriever span's documents), returned as a ``Feedback`` with the judge's reason; a failed
  judgement is a ``Feedback`` with an error, never a score.

:func:`compare_runs` reads the assessments MLflow stored for every row (trace) of two
evaluation runs, pairs the rows by their inputs (or ``key=``), and compares the two runs with
:func:`ragmeter.compare` (the paired test, its interval and effect size, wins/ties/losses): the
rows become per-item values through :func:`ragmeter.io.per_item_values`, as any table of
per-item values does.

Example::

    import mlflow
    from ragmeter.integrations import mlflow as rm_mlflow

    scorers = [rm_mlflow.ndcg(10), rm_mlflow.exact_match(), rm_mlflow.token_f1()]
    a = mlflow.genai.evaluate(data=rows, predict_fn=system_a, scorers=scorers)
    b = mlflow.genai.evaluate(data=rows, predict_fn=system_b, scorers=scorers)
    rm_mlflow.compare_runs(a.run_id, b.run_id)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._optional import import_optional
from ..answers import anls_score, exact_match_score, token_f1_score
from ..exceptions import InvalidInputError
from ..io import Records, parse_json_text, per_item_values
from ..judges import Sample
from ..judges import evaluate as judge_evaluate
from ..manifest import Manifest
from ..per_query import PerQueryResults
from ..ranking.functions import ranking_metrics
from ..stats import Comparison, compare

mlflow = import_optional("mlflow", extra="mlflow", purpose="ragmeter.integrations.mlflow")

__all__ = [
    "PRODUCER",
    "anls",
    "average_precision",
    "compare_runs",
    "exact_match",
    "judge_scorer",
    "mrr",
    "ndcg",
    "ranking_scorer",
    "recall",
    "run_values",
    "scorer_name",
    "token_f1",
]

#: What a manifest of values read from an MLflow evaluation run calls its producer.
PRODUCER = "mlflow.genai.evaluate"


def scorer_name(metric: str) -> str:
    """The MLflow name of a metric's scorer: ``ragmeter/`` and the metric, ``@k`` written
    ``_at_k`` and other characters MLflow refuses in a metric name as ``_`` (MLflow names take
    letters, digits, ``_ - . : /`` and spaces).

    >>> scorer_name("ndcg@10"), scorer_name("P(rel=2)@5")
    ('ragmeter/ndcg_at_10', 'ragmeter/P_rel_2__at_5')
    """
    text = metric.replace("@", "_at_")
    return "ragmeter/" + re.sub(r"[^A-Za-z0-9_\-.: /]", "_", text)


def _feedback(
    value: float | None = None, rationale: str | None = None, error: str | None = None
) -> Any:
    entities = mlflow.entities
    if error is not None:
        return entities.Feedback(error=error)
    return entities.Feedback(value=value, rationale=rationale)


def _retrieved(outputs: Any, trace: Any, key: str) -> list[str] | None:
    if isinstance(outputs, Mapping) and key in outputs:
        return [str(d) for d in outputs[key]]
    if isinstance(outputs, list) and all(isinstance(d, str | int) for d in outputs):
        return [str(d) for d in outputs]
    if trace is None:
        return None
    spans = trace.search_spans(span_type="RETRIEVER")
    if not spans:
        return None
    ids = []
    for document in spans[-1].outputs or []:
        if not isinstance(document, Mapping):
            continue
        metadata = document.get("metadata") or {}
        found = document.get("id") or metadata.get("doc_uri") or metadata.get("id")
        if found is not None:
            ids.append(str(found))
    return ids


def _expected(expectations: Any, key: str) -> dict[str, float] | None:
    if not isinstance(expectations, Mapping) or key not in expectations:
        return None
    given = expectations[key]
    if isinstance(given, Mapping):
        return {str(d): float(g) for d, g in given.items()}
    return {str(d): 1.0 for d in given}


def ranking_scorer(
    metric: str,
    *,
    retrieved_key: str = "retrieved_document_ids",
    expected_key: str = "expected_document_ids",
) -> Any:
    """An MLflow scorer of one ranking measure (any name :func:`ragmeter.ranking_metrics`
    reads: ``"ndcg@10"``, ``"recall@5"``, ``"P@3"``, ``"map"``...).

    Parameters
    ----------
    metric
        The measure.
    retrieved_key, expected_key
        Where the retrieved and the expected ids are (module documentation).

    Returns
    -------
    mlflow.genai.scorers.Scorer
        Named ``ragmeter/<metric>``; a row without retrieved or expected ids gets a
        ``Feedback`` with an error saying which is missing.
    """
    ranking_metrics({"q": {"d": 1}}, {"q": ["d"]}, metrics=[metric])  # the name is checked now

    def score(outputs: Any = None, expectations: Any = None, trace: Any = None) -> Any:
        retrieved = _retrieved(outputs, trace, retrieved_key)
        if retrieved is None:
            return _feedback(
                error=f"no retrieved ids: outputs[{retrieved_key!r}], a list of ids or a "
                "RETRIEVER span"
            )
        judged = _expected(expectations, expected_key)
        if judged is None:
            return _feedback(error=f"no expected ids: expectations[{expected_key!r}]")
        ranking = list(dict.fromkeys(retrieved))
        values = ranking_metrics(
            {"row": judged}, {"row": ranking}, metrics=[metric], average=None, zero_division=0.0
        )
        value = float(values[metric]["row"])
        relevant = sum(1 for g in judged.values() if g >= 1)
        return _feedback(
            value,
            f"{metric} = {value:.4f}: {len(ranking)} retrieved, {relevant} relevant expected "
            "(trec_eval's semantics, computed by ragmeter)",
        )

    return mlflow.genai.scorers.scorer(name=scorer_name(metric))(score)


def ndcg(k: int = 10, **keys: str) -> Any:
    """The nDCG@k scorer (trec_eval's ``ndcg_cut``; see :func:`ranking_scorer`)."""
    return ranking_scorer(f"ndcg@{k}", **keys)


def recall(k: int = 10, **keys: str) -> Any:
    """The recall@k scorer (see :func:`ranking_scorer`)."""
    return ranking_scorer(f"recall@{k}", **keys)


def mrr(k: int | None = None, **keys: str) -> Any:
    """The reciprocal rank scorer (``mrr``, or ``mrr@k``; see :func:`ranking_scorer`)."""
    return ranking_scorer("mrr" if k is None else f"mrr@{k}", **keys)


def average_precision(k: int | None = None, **keys: str) -> Any:
    """The average precision scorer (``map``, or ``map@k``; see :func:`ranking_scorer`)."""
    return ranking_scorer("map" if k is None else f"map@{k}", **keys)


def _answer(outputs: Any) -> str | None:
    if isinstance(outputs, str):
        return outputs
    if isinstance(outputs, Mapping):
        for key in ("response", "answer", "output"):
            if isinstance(outputs.get(key), str):
                return str(outputs[key])
    return None


def _answer_scorer(name: str, function: Callable[..., Any], **options: Any) -> Any:
    def score(outputs: Any = None, expectations: Any = None) -> Any:
        answer = _answer(outputs)
        if answer is None:
            return _feedback(error="no answer: outputs is no string (nor holds 'response')")
        if not isinstance(expectations, Mapping) or "expected_response" not in expectations:
            return _feedback(error="no reference: expectations['expected_response']")
        reference = expectations["expected_response"]
        value = float(function([reference], [answer], **options))
        return _feedback(value, f"{name} = {value:.4f} (ragmeter.answers)")

    return mlflow.genai.scorers.scorer(name=scorer_name(name))(score)


def exact_match(normalize: str | None = "squad") -> Any:
    """The exact-match scorer (:func:`ragmeter.answers.exact_match_score`)."""
    return _answer_scorer("exact_match", exact_match_score, normalize=normalize)


def token_f1(normalize: str | None = "squad") -> Any:
    """The token F1 scorer (:func:`ragmeter.answers.token_f1_score`)."""
    return _answer_scorer("token_f1", token_f1_score, normalize=normalize)


def anls(threshold: float = 0.5) -> Any:
    """The ANLS scorer (:func:`ragmeter.answers.anls_score`)."""
    return _answer_scorer("anls", anls_score, threshold=threshold)


def _question(inputs: Any) -> str | None:
    if isinstance(inputs, str):
        return inputs
    if isinstance(inputs, Mapping):
        for key in ("question", "query", "input"):
            if isinstance(inputs.get(key), str):
                return str(inputs[key])
        texts = [v for v in inputs.values() if isinstance(v, str)]
        if len(texts) == 1:
            return texts[0]
    return None


def _contexts(outputs: Any, trace: Any) -> tuple[str, ...] | None:
    if isinstance(outputs, Mapping) and isinstance(outputs.get("contexts"), list):
        return tuple(str(c) for c in outputs["contexts"])
    if trace is None:
        return None
    spans = trace.search_spans(span_type="RETRIEVER")
    if not spans:
        return None
    return tuple(
        str(d.get("page_content", d.get("content", "")))
        for d in spans[-1].outputs or []
        if isinstance(d, Mapping)
    )


def judge_scorer(metric: str, *, judge: Any, **options: Any) -> Any:
    """An MLflow scorer of a ragmeter judge metric.

    Parameters
    ----------
    metric
        A metric of :mod:`ragmeter.judges` (by name) or a metric object.
    judge
        The judge (any judge :func:`ragmeter.judges.evaluate` takes).
    options
        Other options of :func:`ragmeter.judges.evaluate` (``cache``, ``temperature``...).

    Returns
    -------
    mlflow.genai.scorers.Scorer
        Named ``ragmeter/<metric>``: a ``Feedback`` with the value and the judge's reason, or
        with the error of a failed or undefined judgement (never a made-up score).
    """
    name = metric if isinstance(metric, str) else str(getattr(metric, "name", metric))

    def score(inputs: Any = None, outputs: Any = None, trace: Any = None) -> Any:
        question = _question(inputs)
        if question is None:
            return _feedback(error="no question: inputs['question'] or the inputs' only text")
        sample = Sample(question, _answer(outputs), _contexts(outputs, trace))
        results = judge_evaluate([sample], [metric], judge=judge, **options)
        (row,) = results.to_records()
        if row.get("status") != "ok" or row.get("value") is None:
            reason = row.get("reason") or row.get("error") or "no value"
            return _feedback(error=f"{name} {row.get('status')}: {reason}")
        return _feedback(float(row["value"]), row.get("reason"))

    return mlflow.genai.scorers.scorer(name=scorer_name(name))(score)


# -- comparing two evaluation runs -----------------------------------------------------------------


def _traces(run_id: str) -> list[Any]:
    run = mlflow.get_run(run_id)
    traces: list[Any] = mlflow.search_traces(
        locations=[run.info.experiment_id], run_id=run_id, return_type="list"
    )
    if not traces:
        raise InvalidInputError(f"run {run_id}: holds no evaluated rows (traces)")
    return traces


def _key_of(trace: Any, key: str | Callable[[Any], Any]) -> str:
    if callable(key):
        return str(key(trace))
    request = trace.data.request
    if isinstance(request, str):
        inputs = parse_json_text(request, f"trace {trace.info.trace_id}", "the request")
    else:
        inputs = request
    if key == "inputs":
        return json.dumps(inputs, sort_keys=True, ensure_ascii=False)
    if not isinstance(inputs, Mapping) or key not in inputs:
        raise InvalidInputError(
            f"key: the row of trace {trace.info.trace_id} has no input {key!r} (its inputs: "
            f"{sorted(inputs) if isinstance(inputs, Mapping) else inputs!r})"
        )
    return str(inputs[key])


def _assessment_value(assessment: Any) -> tuple[float, bool]:
    """The numeric value of a Feedback and whether it failed."""
    if getattr(assessment, "error", None) is not None:
        return math.nan, True
    value = assessment.value
    if isinstance(value, bool):
        return float(value), False
    if isinstance(value, int | float):
        return float(value), False
    if isinstance(value, str) and value.lower() in ("yes", "no", "pass", "fail", "true", "false"):
        return float(value.lower() in ("yes", "pass", "true")), False
    return math.nan, True


def run_values(
    run_id: str,
    *,
    key: str | Callable[[Any], Any] = "inputs",
    metrics: Sequence[str] | None = None,
    name: str | None = None,
) -> PerQueryResults:
    """The per-row assessments of one MLflow evaluation run as per-item values.

    Parameters
    ----------
    run_id
        The run of ``mlflow.genai.evaluate`` (its ``run_id``).
    key
        What identifies a row across runs: ``"inputs"`` (default: the row's inputs, as JSON
        with sorted keys), the name of one input (``"question_id"``), or a function of the
        trace.
    metrics
        The assessments to read (default: every Feedback with a numeric, boolean or yes/no
        value).
    name
        The system's name (default: the run's name).

    Returns
    -------
    PerQueryResults
        One value per row and assessment (a failed assessment is a failure, NaN); a row
        assessed several times under one name keeps every assessment as a repeat.

    Raises
    ------
    InvalidInputError
        A run without rows, two rows with one key (name ``key=``), a row without the key.
    """
    rows: list[dict[str, Any]] = []
    where: list[str] = []
    counts: dict[tuple[str, str], int] = {}
    seen: dict[str, str] = {}
    for trace in _traces(run_id):
        item = _key_of(trace, key)
        trace_id = str(trace.info.trace_id)
        first = seen.setdefault(item, trace_id)
        if first != trace_id:
            raise InvalidInputError(
                f"run {run_id}: two rows have the key {item[:80]!r} (traces {first} and "
                f"{trace_id}); pair the rows by an input that tells them apart (key=...)"
            )
        for assessment in trace.info.assessments or []:
            if type(assessment).__name__ != "Feedback":
                continue
            if metrics is not None and assessment.name not in metrics:
                continue
            value, failed = _assessment_value(assessment)
            repeat = counts.get((item, assessment.name), 0)
            counts[item, assessment.name] = repeat + 1
            rows.append(
                {
                    "query_id": item,
                    "metric": assessment.name,
                    "value": value,
                    "repeat": repeat,
                    "status": "failed" if failed else "ok",
                }
            )
            where.append(f"run {run_id}: trace {trace_id}")
    if not rows:
        raise InvalidInputError(f"run {run_id}: its rows hold no numeric assessment")
    if max(counts.values()) == 1:
        for row in rows:
            del row["repeat"]  # one assessment per row and name: no repeats
    values = per_item_values(Records(rows, where, table=False, text=False), f"run {run_id}")
    run_name = name or mlflow.get_run(run_id).info.run_name or run_id
    manifest = Manifest.unrecorded(PRODUCER, values.metric_names)
    return values.with_manifest(manifest).renamed(run_name)


def compare_runs(
    run_a: str,
    run_b: str,
    *,
    key: str | Callable[[Any], Any] = "inputs",
    metrics: Sequence[str] | None = None,
    **options: Any,
) -> Comparison:
    """Compare two MLflow evaluation runs row by row: ``run_a`` (the candidate) against
    ``run_b`` (the baseline), every assessment both hold.

    Parameters
    ----------
    run_a, run_b
        The runs of ``mlflow.genai.evaluate`` (``run_id``).
    key, metrics
        As in :func:`run_values`.
    options
        Options of :func:`ragmeter.compare` (``test``, ``confidence_level``, ``missing``...).

    Returns
    -------
    Comparison
        The paired comparison of every shared assessment.
    """
    candidate = run_values(run_a, key=key, metrics=metrics)
    baseline = run_values(run_b, key=key, metrics=metrics)
    return compare(candidate, baseline, **options)
