"""OpenTelemetry trace exports in OTLP/JSON (the row ``otlp`` of :data:`ragmeter.io.FORMATS`):
what the OpenTelemetry Collector's file exporter writes (one ``ExportTraceServiceRequest`` a
line) and what an SDK's spans encoded as one ``{"resourceSpans": [...]}`` object give.

Each span becomes a span row (:mod:`ragmeter.io._spans`): ids as hex (OTLP/JSON's encoding;
base64, which protobuf's JSON printer writes, is read too), attributes decoded from their typed
values. Spans of every resource and scope are read in file order. Refused, naming the file and
line: text that is not JSON, an object without ``resourceSpans``, a span without a trace or
span id, an id of the wrong size, a typed value of an unknown type.

Source of the encoding: the OTLP specification, "JSON Protobuf Encoding"
(opentelemetry-proto, ``docs/specification.md``): hex trace and span ids, 64-bit integers as
decimal text, enums as integers (names read too).
"""

from __future__ import annotations

from typing import Any

from .._files import read_regular_text
from ..exceptions import InvalidInputError
from ._json import parse_json_text, preview
from ._records import Records
from ._spans import attributes_of, hex_id, span_row

__all__ = ["read_records"]

_KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}


def _kind(value: Any) -> str:
    if isinstance(value, int):
        return _KINDS.get(value, str(value))
    return str(value or "").removeprefix("SPAN_KIND_")


def _objects(value: Any, where: str) -> list[dict[str, Any]]:
    """A list of JSON objects (OTLP's repeated messages); None or absent: empty."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise InvalidInputError(
            f"{where}: expected a list of objects (OTLP/JSON), got {preview(value)}"
        )
    return value


def _object(value: Any, where: str) -> dict[str, Any]:
    """A JSON object (an OTLP message); None or absent: empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInputError(f"{where}: expected an object (OTLP/JSON), got {preview(value)}")
    return value


def _spans(request: Any, where: str) -> tuple[list[dict[str, Any]], list[str]]:
    if not isinstance(request, dict) or "resourceSpans" not in request:
        raise InvalidInputError(
            f"{where}: not an OTLP/JSON trace export (an object with resourceSpans)"
        )
    rows, places = [], []
    for r, resource_spans in enumerate(
        _objects(request["resourceSpans"], f"{where}: resourceSpans")
    ):
        at = f"{where}: resourceSpans[{r}]"
        resource = attributes_of(
            _object(resource_spans.get("resource"), f"{at}.resource").get("attributes"),
            f"{at}.resource",
        )
        for s, scope_spans in enumerate(
            _objects(resource_spans.get("scopeSpans"), f"{at}.scopeSpans")
        ):
            spans = _objects(scope_spans.get("spans"), f"{at}.scopeSpans[{s}].spans")
            for i, span in enumerate(spans):
                place = f"{at}.scopeSpans[{s}].spans[{i}]"
                trace_id = hex_id(span.get("traceId"), 16, f"{place}.traceId")
                span_id = hex_id(span.get("spanId"), 8, f"{place}.spanId")
                if trace_id is None or span_id is None:
                    raise InvalidInputError(f"{place}: a span needs a traceId and a spanId")
                events = [
                    {
                        "name": str(event.get("name", "")),
                        "attributes": attributes_of(event.get("attributes"), f"{place}.events"),
                    }
                    for event in _objects(span.get("events"), f"{place}.events")
                ]
                rows.append(
                    span_row(
                        trace_id,
                        span_id,
                        hex_id(span.get("parentSpanId"), 8, f"{place}.parentSpanId"),
                        span.get("name"),
                        _kind(span.get("kind")),
                        attributes_of(span.get("attributes"), place),
                        events,
                        resource,
                    )
                )
                places.append(place)
    return rows, places


def read_records(
    path: str, *, what: str, argument: str, noun: str = "span", caller: str = ""
) -> Records:
    """The spans of an OTLP/JSON file (one object, or one object a line), one row each."""
    text = read_regular_text(path, what, argument).removeprefix("\ufeff")
    stripped = text.strip()
    requests: list[tuple[Any, str]] = []
    if stripped.startswith("{") and "\n{" not in stripped:
        requests.append((parse_json_text(stripped, path, "the file"), path))
    else:
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                location = f"{path}:{number}"
                requests.append((parse_json_text(line, location, "the line"), location))
    rows: list[dict[str, Any]] = []
    where: list[str] = []
    for request, location in requests:
        found, places = _spans(request, location)
        rows += found
        where += places
    return Records(rows, where, table=False, text=False)
