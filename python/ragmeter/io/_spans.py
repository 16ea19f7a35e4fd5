"""What the readers of trace exports give: one row per span, in one shape whatever the tool.

The rows of :func:`ragmeter.io.read_records` for a trace format (``otlp``, ``phoenix``,
``langfuse``: rows of :data:`ragmeter.io.FORMATS`) are mappings with the keys of
:data:`SPAN_FIELDS`: ``trace_id`` and ``span_id`` (hex text for OpenTelemetry, the tool's ids
otherwise), ``parent_id`` (None for a root), ``name``, ``kind`` (the span kind or the
observation type), ``attributes`` (a flat ``{key: value}``: OTLP's typed values decoded, lists
kept as lists), ``events`` (``[{"name": ..., "attributes": {...}}]``) and ``resource`` (the
resource's attributes). :mod:`ragmeter.integrations.tracing` reads the conventions (OpenTelemetry
GenAI, OpenInference, Langfuse) from them.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from ..exceptions import InvalidInputError
from ._json import preview

__all__ = ["SPAN_FIELDS", "any_value", "attributes_of", "hex_id", "span_row"]

#: The keys of a span row.
SPAN_FIELDS = (
    "trace_id",
    "span_id",
    "parent_id",
    "name",
    "kind",
    "attributes",
    "events",
    "resource",
)


def hex_id(value: Any, size: int, where: str) -> str | None:
    """An OTLP trace (16 bytes) or span (8 bytes) id as lowercase hex: OTLP/JSON writes hex
    (the specification); protobuf's JSON printer writes base64, also read. Empty: None."""
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{where}: an id is text, got {value!r}")
    text = value.strip()
    if len(text) == 2 * size and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise InvalidInputError(
            f"{where}: {value!r} is not a {size}-byte id (hex, as OTLP/JSON writes it, or base64)"
        )
    return raw.hex()


def any_value(value: Any, where: str) -> Any:
    """OTLP's ``AnyValue`` (``{"stringValue": ...}``, ``intValue`` as text or a number,
    ``doubleValue``, ``boolValue``, ``arrayValue``, ``kvlistValue``, ``bytesValue``) decoded."""
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{where}: expected an OTLP AnyValue object, got {value!r}")
    if not value:
        return None
    ((kind, inner),) = list(value.items())[:1]
    if kind == "stringValue":
        return str(inner)
    if kind == "intValue":
        try:
            return int(inner)
        except (TypeError, ValueError):
            raise InvalidInputError(f"{where}: intValue {inner!r} is not an integer") from None
    if kind == "doubleValue":
        # OTLP/JSON writes a double as a number, or as "NaN", "Infinity", "-Infinity".
        try:
            return float(inner)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"{where}: doubleValue {preview(inner)} is not a number"
            ) from None
    if kind == "boolValue":
        return bool(inner)
    if kind == "bytesValue":
        return str(inner)
    if kind == "arrayValue":
        items = inner.get("values", []) if isinstance(inner, Mapping) else []
        return [any_value(v, f"{where}[{i}]") for i, v in enumerate(items)]
    if kind == "kvlistValue":
        items = inner.get("values", []) if isinstance(inner, Mapping) else []
        return attributes_of(items, where)
    raise InvalidInputError(f"{where}: unknown OTLP value type {kind!r}")


def attributes_of(items: Any, where: str) -> dict[str, Any]:
    """OTLP's ``[{"key": ..., "value": AnyValue}]`` as ``{key: value}``."""
    if items is None:
        return {}
    if not isinstance(items, list):
        raise InvalidInputError(f"{where}: attributes are a list of key/value objects")
    found: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, Mapping) or "key" not in item:
            raise InvalidInputError(f"{where}: an attribute without a key: {item!r}")
        found[str(item["key"])] = any_value(item.get("value", {}), f"{where}.{item['key']}")
    return found


def span_row(
    trace_id: Any,
    span_id: Any,
    parent_id: Any,
    name: Any,
    kind: Any,
    attributes: Mapping[str, Any],
    events: list[dict[str, Any]] | None = None,
    resource: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One span row (see the module documentation)."""
    return {
        "trace_id": trace_id,
        "span_id": span_id,
        "parent_id": parent_id or None,
        "name": "" if name is None else str(name),
        "kind": "" if kind is None else str(kind),
        "attributes": dict(attributes),
        "events": list(events or []),
        "resource": dict(resource or {}),
    }
