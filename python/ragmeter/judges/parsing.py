"""Turn a judge's text into validated JSON, with error messages a model can act on.

Pipeline: drop ``<think>`` blocks and code fences, take the first balanced JSON value, try it
as is, then with tolerant fixes (smart quotes, trailing commas, Python literals), then validate
against the answer's JSON Schema (a small validator for the subset ragmeter's prompts use) and
the caller's semantic checks (for example: one verdict per item id sent).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..exceptions import InvalidInputError

__all__ = [
    "OutputParseError",
    "check_item_ids",
    "check_labels",
    "check_schema_supported",
    "extract_json",
    "validate_schema",
]

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})
_PY_LITERALS = re.compile(r"(?<![\w\"])(True|False|None)(?![\w\"])")

_VALIDATION_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
    }
)
_ANNOTATION_KEYWORDS = frozenset({"title", "description", "$schema", "examples", "default"})
# Keywords that only make sense for a number: a schema using them without a "type" asks for one.
_NUMERIC_KEYWORDS = ("minimum", "maximum")


class OutputParseError(ValueError):
    """The text holds no usable JSON; the message is written to be shown to the judge."""


def _first_balanced(text: str) -> tuple[str | None, bool]:
    """The first balanced ``{...}`` or ``[...]`` in ``text`` and whether one was opened at all."""
    start = -1
    for i, ch in enumerate(text):
        if ch in "{[":
            start = i
            break
    if start < 0:
        return None, False
    stack: list[str] = []
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None, True
            if not stack:
                return text[start : i + 1], True
    return None, True


def _tolerant_fixes(candidate: str) -> str:
    fixed = candidate.translate(_SMART_QUOTES)
    fixed = _TRAILING_COMMA.sub(r"\1", fixed)
    return _PY_LITERALS.sub(
        lambda m: {"True": "true", "False": "false", "None": "null"}[m[1]], fixed
    )


def extract_json(text: str) -> Any:
    """The first JSON value in a judge's answer.

    Raises :class:`OutputParseError` saying what is wrong (no JSON, truncated JSON, invalid
    JSON) so that the message can be sent back to the judge in a re-ask.
    """
    if text is None or not str(text).strip():
        raise OutputParseError("the answer was empty; answer with a JSON object")
    cleaned = _THINK.sub("", str(text)).strip()
    fenced = _FENCE.search(cleaned)
    if fenced:
        cleaned = fenced.group(1).strip()
    try:
        return json.loads(cleaned, strict=False)
    except json.JSONDecodeError:
        pass
    candidate, opened = _first_balanced(cleaned)
    if candidate is None:
        if opened:
            raise OutputParseError(
                "the JSON in the answer is truncated or unbalanced (it ends before its closing "
                "bracket); answer with a complete, shorter JSON object"
            )
        raise OutputParseError("the answer contains no JSON object; answer with JSON only")
    last: json.JSONDecodeError | None = None
    for attempt in (candidate, _tolerant_fixes(candidate)):
        try:
            # strict=False: a literal line break inside a string, as small models write, is
            # no reason to re-ask.
            return json.loads(attempt, strict=False)
        except json.JSONDecodeError as exc:
            last = last or exc
    assert last is not None
    what = last.msg.removesuffix(" at")
    raise OutputParseError(
        f"the answer is not valid JSON ({what} at line {last.lineno} column {last.colno})"
    )


def check_schema_supported(schema: Mapping[str, Any], path: str = "$") -> None:
    """Raise :class:`InvalidInputError` if ``schema`` uses keywords the validator cannot check."""
    if not isinstance(schema, Mapping):
        raise InvalidInputError(f"schema at {path} must be a dict, got {type(schema).__name__}")
    unknown = set(schema) - _VALIDATION_KEYWORDS - _ANNOTATION_KEYWORDS
    if unknown:
        raise InvalidInputError(
            f"schema at {path} uses unsupported keywords {sorted(unknown)}; ragmeter validates "
            f"{sorted(_VALIDATION_KEYWORDS)}"
        )
    for name, sub in (schema.get("properties") or {}).items():
        check_schema_supported(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), Mapping):
        check_schema_supported(schema["items"], f"{path}[]")
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        check_schema_supported(extra, f"{path}.*")


def _type_ok(value: Any, expected: str) -> bool:
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if expected == "number":
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(float(value))
        )
    if expected == "null":
        return value is None
    return True


def _enum_member(value: Any, options: Iterable[Any]) -> bool:
    for option in options:
        if isinstance(option, bool) or isinstance(value, bool):
            if value is option:
                return True
        elif value == option:
            return True
    return False


def validate_schema(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Every way ``value`` violates ``schema`` (empty when valid), as ``path: problem`` lines."""
    errors: list[str] = []
    expected = schema.get("type")
    if expected is not None:
        types = [expected] if isinstance(expected, str) else list(expected)
        if not any(_type_ok(value, t) for t in types):
            errors.append(f"{path}: expected {' or '.join(types)}, got {json.dumps(value)[:80]}")
            return errors
    elif any(k in schema for k in _NUMERIC_KEYWORDS) and not _type_ok(value, "number"):
        # JSON Schema lets a non-number pass "minimum"/"maximum"; a judge's bounded verdict
        # must be a number (JSON true is not the verdict 1).
        errors.append(f"{path}: expected a number, got {json.dumps(value)[:80]}")
        return errors
    if "const" in schema and not _enum_member(value, [schema["const"]]):
        errors.append(f"{path}: must be {json.dumps(schema['const'])}")
    if "enum" in schema and not _enum_member(value, schema["enum"]):
        allowed = ", ".join(json.dumps(v) for v in schema["enum"])
        errors.append(f"{path}: {json.dumps(value)[:80]} is not one of {allowed}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} is above the maximum {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{path}: string shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: string longer than {schema['maxLength']} characters")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{path}: expected at least {schema['minItems']} items, got {len(value)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: expected at most {schema['maxItems']} items, got {len(value)}")
        item_schema = schema.get("items")
        if isinstance(item_schema, Mapping):
            for i, item in enumerate(value):
                errors.extend(validate_schema(item, item_schema, f"{path}[{i}]"))
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for name in schema.get("required") or ():
            if name not in value:
                errors.append(f"{path}: missing required field {name!r}")
        for name, item in value.items():
            if name in properties:
                errors.extend(validate_schema(item, properties[name], f"{path}.{name}"))
            else:
                extra = schema.get("additionalProperties", True)
                if extra is False:
                    errors.append(f"{path}: unexpected field {name!r}")
                elif isinstance(extra, Mapping):
                    errors.extend(validate_schema(item, extra, f"{path}.{name}"))
    return errors


def check_labels(
    parsed: Any, list_key: str, field: str, field_schema: Mapping[str, Any]
) -> list[str]:
    """Problems with the ``field`` of every entry of ``parsed[list_key]`` under ``field_schema``.

    A built-in metric checks the labels it reads with its own schema, whatever the prompt's
    schema says, so that a replaced prompt cannot let JSON ``true`` count as the verdict ``1``
    (``True == 1`` in Python) or the string ``"false"`` count as a true label.
    """
    entries = parsed.get(list_key) if isinstance(parsed, Mapping) else None
    if not isinstance(entries, list):
        return [f"$.{list_key}: expected a list of labelled items"]
    errors: list[str] = []
    for i, entry in enumerate(entries):
        where = f"$.{list_key}[{i}]"
        if not isinstance(entry, Mapping) or field not in entry:
            errors.append(f"{where}: missing required field {field!r}")
        else:
            errors.extend(validate_schema(entry[field], field_schema, f"{where}.{field}"))
    return errors


def check_item_ids(
    items: Sequence[Mapping[str, Any]], expected_ids: Sequence[int], *, what: str = "items"
) -> list[str]:
    """Problems with the ids of labelled items: the judge must return each sent id exactly once."""
    got = [item.get("id") for item in items]
    errors: list[str] = []
    expected = list(expected_ids)
    if len(got) != len(expected):
        errors.append(f"expected exactly {len(expected)} {what} (ids {expected}), got {len(got)}")
    counts = Counter(repr(i) for i in got)
    duplicates = sorted({i for i in got if counts[repr(i)] > 1}, key=str)
    if duplicates:
        errors.append(f"duplicate ids {duplicates}")
    seen = set(got)
    missing = [i for i in expected if i not in seen]
    if missing:
        errors.append(f"missing ids {missing}")
    unknown = sorted({i for i in got if i not in set(expected)}, key=str)
    if unknown:
        errors.append(f"unknown ids {unknown} (only {expected} were sent)")
    return errors
