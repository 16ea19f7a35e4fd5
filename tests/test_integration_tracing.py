"""Traces as runs and samples, results as gen_ai.evaluation.result events and Phoenix frames.

The OpenInference export is recorded in the test from a real instrumented pipeline: a small
LangChain RAG chain (a retriever, a prompt, langchain-core's FakeListLLM) instrumented by
openinference-instrumentation-langchain, its spans taken by the OpenTelemetry SDK's in-memory
exporter and encoded by the SDK's own OTLP encoder (opentelemetry-exporter-otlp-proto-common),
written as OTLP/JSON (hex ids, as the OTLP specification's JSON encoding says). The GenAI
retrieval spans are made with the OpenTelemetry SDK and the attribute names of the semantic
conventions package (opentelemetry-semantic-conventions); Langfuse and Phoenix exports are
constructed after their documented shapes (Langfuse's public API observations; Phoenix's spans
dataframe columns) and say so.

Oracles: what the retriever returned (recorded beside the trace), pytrec_eval for the ranking
measures, Phoenix's retrieved-list nDCG as Phoenix computes it (sklearn.metrics.ndcg_score on the
retrieved list's relevance, ``phoenix/metrics/retrieval_metrics.py`` at Arize-ai/phoenix commit
3dfb7bdfba3eb61e57dba503efcc761511479a90), the OTLP protobuf schema (the events parse into
``ExportLogsServiceRequest``) and the semantic conventions package's attribute names.
"""

from __future__ import annotations

import base64
import json
import math
import zlib

import numpy as np
import pytest
import pytrec_eval
from sklearn.metrics import ndcg_score

import ragmeter
from ragmeter.integrations import tracing

QUESTIONS = ["what is bm25?", "who wrote trec_eval?", "what is ndcg?", "why rag?"]
CORPUS = {f"d{i}": f"document {i} text" for i in range(12)}


def _ranked_for(question: str) -> list[tuple[str, float]]:
    """The retriever: a deterministic ranking of 5 documents per question."""
    rng = np.random.default_rng(zlib.crc32(question.encode()))
    ids = rng.choice(sorted(CORPUS), size=5, replace=False)
    scores = np.sort(rng.random(5))[::-1]
    return [(str(d), float(s)) for d, s in zip(ids, scores, strict=True)]


def _hex_ids(request: dict) -> dict:
    """protobuf's JSON printer writes bytes as base64; OTLP/JSON writes trace and span ids as
    hex (the OTLP specification, JSON Protobuf Encoding)."""
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64decode(span[key]).hex()
    return request


def _export(spans) -> dict:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return _hex_ids(MessageToDict(encode_spans(spans)))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """An OTLP/JSON export of a real LangChain RAG chain instrumented by OpenInference."""
    pytest.importorskip("openinference.instrumentation.langchain")
    from langchain_core.documents import Document
    from langchain_core.language_models.fake import FakeListLLM
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import PromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnablePassthrough
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    class Retriever(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager=None):
            return [
                Document(page_content=CORPUS[d], metadata={"id": d, "score": s})
                for d, s in _ranked_for(query)
            ]

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    answers = [f"answer {i}" for i in range(len(QUESTIONS))]
    try:
        llm = FakeListLLM(responses=answers)
        prompt = PromptTemplate.from_template("Context: {context}\nQuestion: {question}")
        chain = (
            {"context": Retriever(), "question": RunnablePassthrough()}
            | prompt
            | llm
            | StrOutputParser()
        )
        produced = [chain.invoke(q) for q in QUESTIONS]
    finally:
        instrumentor.uninstrument()
    assert produced == answers
    path = tmp_path_factory.mktemp("traces") / "otlp.json"
    path.write_text(json.dumps(_export(exporter.get_finished_spans()), indent=2))
    return path, answers


def _expected_run(path):
    """What the retriever returned, keyed by trace id (the trace of each question)."""
    spans = ragmeter.io.read_spans(path).rows
    by_question = {}
    for span in spans:
        if span["attributes"].get("openinference.span.kind") == "RETRIEVER":
            by_question[span["attributes"]["input.value"]] = span["trace_id"]
    return {by_question[q]: [d for d, _ in _ranked_for(q)] for q in QUESTIONS}, by_question


QRELS_GRADES = {"d0": 2, "d3": 1, "d5": 3, "d7": 1, "d9": 2, "d11": 1}


def _qrels(trace_ids):
    """Every document judged (Phoenix leaves a span with an unevaluated document undefined),
    and one relevant document no query retrieves (d100: in trec_eval's ideal ranking only)."""
    return {t: {**dict.fromkeys(CORPUS, 0), **QRELS_GRADES, "d100": 1} for t in trace_ids}


def test_a_recorded_openinference_export_is_a_run(recorded):
    path, _ = recorded
    expected, _ = _expected_run(path)
    run = tracing.run_from_traces(path)
    assert {q: sorted(docs, key=lambda d: -docs[d]) for q, docs in run.items()} == expected
    by_score = tracing.run_from_traces(path, order="score")
    for q, docs in by_score.items():
        assert sorted(docs, key=lambda d: -docs[d]) == expected[q]
    assert tracing.run_from_traces(path, query_id="input.value").keys() == set(QUESTIONS)


def test_recorded_traces_evaluate_as_pytrec_eval_and_phoenix(recorded):
    path, _ = recorded
    expected, _ = _expected_run(path)
    qrels = _qrels(expected)
    values = tracing.evaluate_traces(
        path, qrels, metrics=["ndcg@10", "recall@10", "mrr"], phoenix_ndcg=10, name="rag"
    )
    assert values.manifest.producer == "ragmeter.integrations.tracing"
    ranked = {q: {d: float(len(ds) - i) for i, d in enumerate(ds)} for q, ds in expected.items()}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "recall_10", "recip_rank"})
    theirs = oracle.evaluate(ranked)
    for q in expected:
        assert values["ndcg@10 (trec_eval)"][q] == pytest.approx(theirs[q]["ndcg_cut_10"])
        assert values["recall@10"][q] == pytest.approx(theirs[q]["recall_10"])
        assert values["mrr"][q] == pytest.approx(theirs[q]["recip_rank"])
        # Phoenix: sklearn's ndcg_score over the retrieved list's relevance (its RetrievalMetrics).
        relevance = [QRELS_GRADES.get(d, 0) for d in expected[q]]
        phoenix = ndcg_score([relevance], [list(range(len(relevance), 0, -1))], k=10)
        assert values["ndcg@10 (Phoenix: retrieved list)"][q] == pytest.approx(phoenix)
        if any(relevance):
            assert values["ndcg@10 (Phoenix: retrieved list)"][q] > theirs[q]["ndcg_cut_10"]
    # The report shows both, each labelled.
    page = ragmeter.report(values)
    assert "ndcg@10 (trec_eval)" in page and "ndcg@10 (Phoenix: retrieved list)" in page


def test_retrieved_list_ndcg_undefined_and_zero_as_phoenix():
    # A retrieved document without a judgment: Phoenix's NaN; nothing relevant: 0.
    values = tracing.retrieved_list_ndcg(
        {"a": {"x": 1}, "b": {"x": 0, "y": 0}}, {"a": {"x": 2.0, "u": 1.0}, "b": {"x": 1.0}}, 5
    )
    assert math.isnan(values["a"]) and values["b"] == 0.0
    assert ndcg_score([[0.0, 0.0]], [[2, 1]], k=5) == 0.0


def test_samples_hold_question_answer_and_contexts(recorded):
    path, answers = recorded
    samples = tracing.samples_from_traces(path)
    assert [s.question for s in samples] == QUESTIONS
    assert [s.answer for s in samples] == answers
    for sample in samples:
        ranked = _ranked_for(sample.question)
        assert sample.contexts == tuple(CORPUS[d] for d, _ in ranked)
        assert sample.metadata["retrieved_ids"] == [d for d, _ in ranked]


def _parse_logs(export):
    """The events through the OTLP protobuf schema (ids back to protobuf's base64)."""
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    copy = json.loads(json.dumps(export))
    for resource in copy["resourceLogs"]:
        for scope in resource["scopeLogs"]:
            for record in scope["logRecords"]:
                for key in ("traceId", "spanId"):
                    record[key] = base64.b64encode(bytes.fromhex(record[key])).decode()
    return ParseDict(copy, ExportLogsServiceRequest())


def test_evaluation_events_validate_against_otlp_and_the_conventions(recorded, tmp_path):
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

    path, _ = recorded
    expected, _ = _expected_run(path)
    values = tracing.evaluate_traces(path, _qrels(expected), metrics=["ndcg@10", "mrr"])
    written = tracing.write_evaluation_events(tmp_path / "events.json", values, path)
    export = json.loads(written.read_text())
    request = _parse_logs(export)
    records = request.resource_logs[0].scope_logs[0].log_records
    assert len(records) == 2 * len(QUESTIONS)
    allowed = {
        gen_ai.GEN_AI_EVALUATION_NAME,
        gen_ai.GEN_AI_EVALUATION_SCORE_VALUE,
        gen_ai.GEN_AI_EVALUATION_SCORE_LABEL,
        gen_ai.GEN_AI_EVALUATION_EXPLANATION,
        "error.type",
    }
    spans = {(s["trace_id"], s["span_id"]): s for s in ragmeter.io.read_spans(path).rows}
    for record in records:
        assert record.event_name == "gen_ai.evaluation.result"
        keys = {a.key for a in record.attributes}
        assert keys <= allowed and gen_ai.GEN_AI_EVALUATION_NAME in keys
        span = spans[(record.trace_id.hex(), record.span_id.hex())]
        # Ranking measures are parented to the retrieval span they evaluate.
        assert span["attributes"]["openinference.span.kind"] == "RETRIEVER"
        name = next(a.value.string_value for a in record.attributes if a.key.endswith(".name"))
        score = next(a.value.double_value for a in record.attributes if a.key.endswith("value"))
        assert score == pytest.approx(values[name][record.trace_id.hex()])


def test_judge_results_become_events_on_the_root_span(recorded):
    from ragmeter.judges import evaluate as judge
    from ragmeter.judges.testing import RuleJudge

    path, _ = recorded
    samples = tracing.samples_from_traces(path)
    judged = judge(samples, ["groundedness"], judge=RuleJudge())
    export = tracing.evaluation_events(judged, path)
    request = _parse_logs(export)
    roots = {
        s["trace_id"]: s["span_id"] for s in ragmeter.io.read_spans(path).rows if not s["parent_id"]
    }
    for record in request.resource_logs[0].scope_logs[0].log_records:
        assert roots[record.trace_id.hex()] == record.span_id.hex()
    frame = tracing.phoenix_span_evaluations(judged, path, "groundedness")
    assert frame.index.name == "context.span_id" and set(frame.index) == set(roots.values())
    assert "score" in frame.columns


def test_phoenix_document_evaluations_frame(recorded):
    path, _ = recorded
    expected, _ = _expected_run(path)
    frame = tracing.phoenix_document_evaluations(_qrels(expected), path)
    assert list(frame.index.names) == ["context.span_id", "document_position"]
    retrievals = tracing.retrievals(path)
    expected_rows = [
        (r.span_id, i, QRELS_GRADES.get(d.id, 0))
        for r in retrievals
        for i, d in enumerate(r.documents)
    ]
    got = [(s, p, row.score) for (s, p), row in frame.iterrows()]
    assert sorted(got) == sorted(expected_rows)
    assert set(frame.label) <= {"relevant", "irrelevant"}


def test_genai_retrieval_spans_from_the_sdk(tmp_path):
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("app")
    for i, question in enumerate(QUESTIONS[:2]):
        with tracer.start_as_current_span("rag") as root:
            root.set_attribute("app.query_id", f"Q{i}")
            with tracer.start_as_current_span("retrieval kb") as span:
                span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "retrieval")
                span.set_attribute(gen_ai.GEN_AI_RETRIEVAL_QUERY_TEXT, question)
                documents = [{"id": d, "score": s} for d, s in _ranked_for(question)]
                span.set_attribute(gen_ai.GEN_AI_RETRIEVAL_DOCUMENTS, json.dumps(documents))
    path = tmp_path / "genai.jsonl"
    # The Collector's file exporter: one export a line.
    path.write_text(json.dumps(_export(exporter.get_finished_spans())) + "\n")
    run = tracing.run_from_traces(path, query_id="app.query_id", order="score")
    assert set(run) == {"Q0", "Q1"}
    for i, question in enumerate(QUESTIONS[:2]):
        assert run[f"Q{i}"] == dict(_ranked_for(question))
    samples = tracing.samples_from_traces(path, query_id="app.query_id")
    assert [s.question for s in samples] == QUESTIONS[:2]


LANGFUSE = {
    "data": [
        {
            "id": "o1",
            "traceId": "t1",
            "type": "SPAN",
            "name": "rag",
            "input": {"question": "q one"},
            "output": "the answer",
            "parentObservationId": None,
        },
        {
            "id": "o2",
            "traceId": "t1",
            "type": "RETRIEVER",
            "name": "vector search",
            "parentObservationId": "o1",
            "input": "q one",
            "output": [
                {"page_content": "alpha", "metadata": {"id": "a", "score": 0.9}},
                {"page_content": "beta", "metadata": {"id": "b", "score": 0.5}},
            ],
        },
        {
            "id": "o3",
            "traceId": "t2",
            "type": "SPAN",
            "name": "rag",
            "input": "q two",
            "output": "second",
        },
        {
            "id": "o4",
            "traceId": "t2",
            "type": "SPAN",
            "name": "retrieve",
            "parentObservationId": "o3",
            "output": {"documents": [{"id": "c", "content": "gamma"}]},
        },
    ],
    "meta": {"page": 1, "totalItems": 4},
}


def test_a_langfuse_export(tmp_path):
    # Constructed after Langfuse's public API (GET /api/public/observations): not recorded.
    path = tmp_path / "langfuse.json"
    path.write_text(json.dumps(LANGFUSE))
    assert tracing.run_from_traces(path) == {"t1": {"a": -1.0, "b": -2.0}, "t2": {"c": -1.0}}
    samples = tracing.samples_from_traces(path)
    assert [(s.id, s.question, s.answer, s.contexts) for s in samples] == [
        ("t1", "q one", "the answer", ("alpha", "beta")),
        ("t2", "q two", "second", ("gamma",)),
    ]


def test_a_phoenix_spans_table(tmp_path):
    # Constructed after Phoenix's spans dataframe (get_spans_dataframe) columns.
    rows = [
        {
            "context.trace_id": "t1",
            "context.span_id": "s1",
            "parent_id": None,
            "name": "chain",
            "span_kind": "CHAIN",
            "attributes.input.value": "question",
            "attributes.output.value": "x",
        },
        {
            "context.trace_id": "t1",
            "context.span_id": "s2",
            "parent_id": "s1",
            "name": "retrieve",
            "span_kind": "RETRIEVER",
            "attributes.openinference.span.kind": "RETRIEVER",
            "attributes.input.value": "question",
            "attributes.retrieval.documents": [
                {"document.id": "d2", "document.score": 0.7, "document.content": "two"},
                {"document.id": "d1", "document.score": 0.9, "document.content": "one"},
            ],
        },
    ]
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert ragmeter.io.read_spans(path).rows[1]["span_id"] == "s2"
    assert tracing.run_from_traces(path) == {"t1": {"d2": -1.0, "d1": -2.0}}
    assert tracing.run_from_traces(path, order="score") == {"t1": {"d2": 0.7, "d1": 0.9}}


def test_refusals_name_the_span(tmp_path):
    no_id = {
        "data": [
            {
                "id": "o",
                "traceId": "t",
                "type": "RETRIEVER",
                "name": "r",
                "output": [{"content": "x"}],
            }
        ]
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(no_id))
    with pytest.raises(ragmeter.InvalidInputError, match=r"span o .*no id"):
        tracing.run_from_traces(path)
    named = {
        "data": [
            {
                "id": "o",
                "traceId": "t",
                "type": "RETRIEVER",
                "name": "r",
                "output": [{"content": "x", "metadata": {"key": "k1"}}],
            }
        ]
    }
    path.write_text(json.dumps(named))
    assert tracing.run_from_traces(path, document_id="key") == {"t": {"k1": -1.0}}
    two = {
        "data": [
            {"id": "o1", "traceId": "t", "type": "RETRIEVER", "output": [{"id": "a"}]},
            {"id": "o2", "traceId": "t", "type": "RETRIEVER", "output": [{"id": "b"}]},
        ]
    }
    path.write_text(json.dumps(two))
    with pytest.raises(ragmeter.InvalidInputError, match="two retrievals"):
        tracing.run_from_traces(path)
    assert tracing.run_from_traces(path, query_id="span") == {"o1": {"a": -1.0}, "o2": {"b": -1.0}}
    other = tmp_path / "other.json"
    other.write_text('{"q": {"d": 1}}')
    with pytest.raises(ragmeter.InvalidInputError, match="no trace export"):
        ragmeter.io.read_spans(other)
