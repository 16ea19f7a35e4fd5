"""Traces of RAG applications as runs and judge samples, and results written back as trace
events and Phoenix evaluation frames.

Reading (the exports are read by :func:`ragmeter.io.read_spans`: OTLP/JSON, Phoenix's spans
dataframe, Langfuse observations), a retrieval is a span of one of three conventions:

* OpenTelemetry GenAI (``gen_ai.operation.name = "retrieval"``, or a span with
  ``gen_ai.retrieval.documents``): the documents are ``gen_ai.retrieval.documents``, a list
  (or its JSON text) of ``{"id", "score", "content"}``; the query ``gen_ai.retrieval.query.text``;
* OpenInference (Phoenix, Arize; ``openinference.span.kind = "RETRIEVER"``): the documents are
  ``retrieval.documents.N.document.id`` / ``.score`` / ``.content`` / ``.metadata`` (flattened
  in OTLP, one list in Phoenix's table); the query ``input.value``;
* Langfuse (an observation of type ``RETRIEVER``, or a ``SPAN`` named like a retriever whose
  output is a list of documents): ``id`` / ``score`` / ``page_content`` or ``content`` of each
  document (or of its ``metadata``); the query its ``input``.

A document's id is its ``id``, else ``id``, ``doc_id`` or ``document_id`` of its metadata
(``document_id=`` names another metadata key); a document without one is refused, naming the
span. The retrieved list is ranked as the application used it (``order="rank"``, the default:
each document scored ``-position``) or by the recorded scores (``order="score"``, trec_eval's
rule, ties by document id). A document retrieved twice keeps its first position.

An item (a query of the run, a judge sample) is a trace (``query_id="trace"``, the default: a
trace with two retrievals is refused, naming them), a retrieval span (``"span"``) or the value of
an attribute of the retrieval span or of its trace's root (any other text, e.g.
``"gen_ai.retrieval.query.text"`` or an application's own ``"app.query_id"``).

:func:`run_from_traces` gives ``{query_id: {doc_id: score}}``, which every evaluation reads;
:func:`samples_from_traces` the judges' samples (question: the retrieval's query, else the
root span's input; answer: the root span's output; contexts: the documents' text in rank order);
:func:`evaluate_traces` the per-query values of a run against judgments
(:class:`~ragmeter.PerQueryResults`), with Phoenix's retrieved-list nDCG beside trec_eval's
when asked (:func:`retrieved_list_ndcg`: its ideal is the best reordering of what was
retrieved, so it is not trec_eval's nDCG; both are labelled).

Writing back: :func:`evaluation_events` gives an OTLP/JSON logs export of
``gen_ai.evaluation.result`` events (``gen_ai.evaluation.name``,
``gen_ai.evaluation.score.value``, ``gen_ai.evaluation.score.label``,
``gen_ai.evaluation.explanation``, ``error.type`` for a failed judgement), each parented to the
evaluated span (its trace and span ids); :func:`phoenix_span_evaluations` and
:func:`phoenix_document_evaluations` the frames Phoenix's ``SpanEvaluations`` and
``DocumentEvaluations`` take (index ``context.span_id``, and ``document_position``; columns
``score``, ``label``, ``explanation``).

Sources: OpenTelemetry semantic conventions for generative AI (``gen_ai.retrieval.*``
attributes of the retrieval span; the ``gen_ai.evaluation.result`` event, "SHOULD be parented
to the GenAI operation span being evaluated"); OpenInference semantic conventions
(``openinference-semantic-conventions`` 0.1: ``retrieval.documents``, ``document.id``,
``document.score``, ``document.content``, ``input.value``, ``output.value``); Phoenix
(``phoenix.trace.SpanEvaluations``, ``DocumentEvaluations``; its retrieved-list nDCG in
``phoenix/metrics/retrieval_metrics.py``); Langfuse's public API (observations).
"""

from __future__ import annotations

from ._evaluate import evaluate_traces, retrieved_list_ndcg
from ._read import (
    EVALUATION_EVENT,
    PRODUCER,
    Document,
    Retrieval,
    retrievals,
    run_from_traces,
    samples_from_traces,
)
from ._write import (
    evaluation_events,
    phoenix_document_evaluations,
    phoenix_span_evaluations,
    write_evaluation_events,
)

__all__ = [
    "EVALUATION_EVENT",
    "PRODUCER",
    "Document",
    "Retrieval",
    "evaluate_traces",
    "evaluation_events",
    "phoenix_document_evaluations",
    "phoenix_span_evaluations",
    "retrievals",
    "retrieved_list_ndcg",
    "run_from_traces",
    "samples_from_traces",
    "write_evaluation_events",
]
