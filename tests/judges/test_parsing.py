"""The parser pipeline on a corpus of bad judge outputs, the schema validator, id checks."""

import pytest

from ragmeter import InvalidInputError
from ragmeter.judges.parsing import (
    OutputParseError,
    check_item_ids,
    check_schema_supported,
    extract_json,
    validate_schema,
)

GOOD = {"verdicts": [{"id": 1, "verdict": 1, "reason": "ok"}]}


@pytest.mark.parametrize(
    "text",
    [
        '{"verdicts": [{"id": 1, "verdict": 1, "reason": "ok"}]}',
        '```json\n{"verdicts": [{"id": 1, "verdict": 1, "reason": "ok"}]}\n```',
        '```\n{"verdicts": [{"id": 1, "verdict": 1, "reason": "ok"}]}\n```',
        'Sure! Here:\n{"verdicts": [{"id": 1, "verdict": 1, "reason": "ok"}]}\nHope it helps.',
        '<think>it {may} hold</think>{"verdicts": [{"id": 1, "verdict": 1, "reason": "ok"}]}',
        '{"verdicts": [{"id": 1, "verdict": 1, "reason": "ok"},],}',
        "{“verdicts”: [{“id”: 1, “verdict”: 1, “reason”: “ok”}]}",
    ],
)
def test_extract_json_recovers_common_wrappings(text):
    assert extract_json(text) == GOOD


def test_extract_json_keeps_braces_inside_strings():
    assert extract_json('note: {"reason": "a } and a { inside", "n": 2} trailing') == {
        "reason": "a } and a { inside",
        "n": 2,
    }


def test_extract_json_fixes_python_literals():
    assert extract_json("{'ok': 1}".replace("'", '"').replace("1", "True")) == {"ok": True}
    assert extract_json('{"value": None, "flag": False}') == {"value": None, "flag": False}


def test_extract_json_reads_a_top_level_array():
    assert extract_json("answer: [1, 2, 3]") == [1, 2, 3]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("The claim is supported.", "no JSON"),
        ('{"verdicts": [{"id": 1, "verdict": 1, "reason": "cut off', "truncated"),
        ('{"a": 1 "b": 2}', "not valid JSON"),
    ],
)
def test_extract_json_explains_what_is_wrong(text, fragment):
    with pytest.raises(OutputParseError, match=fragment):
        extract_json(text)


SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "verdict": {"type": "integer", "enum": [1, 0, -1]},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
        "ok": {"type": "boolean"},
    },
    "required": ["id", "verdict"],
    "additionalProperties": False,
}


def test_validate_schema_accepts_a_valid_value():
    assert (
        validate_schema({"id": 3, "verdict": -1, "score": 0.5, "tags": ["a"], "ok": True}, SCHEMA)
        == []
    )


def test_integer_accepts_integral_floats_but_not_booleans():
    assert validate_schema({"id": 3.0, "verdict": 1}, SCHEMA) == []
    assert validate_schema({"id": True, "verdict": 1}, SCHEMA) == [
        "$.id: expected integer, got true"
    ]


def test_validate_schema_reports_every_problem_with_its_path():
    problems = validate_schema(
        {"verdict": 2, "score": 1.5, "tags": [], "ok": "yes", "extra": 1}, SCHEMA
    )
    assert problems == [
        "$: missing required field 'id'",
        "$.verdict: 2 is not one of 1, 0, -1",
        "$.score: 1.5 is above the maximum 1",
        "$.tags: expected at least 1 items, got 0",
        '$.ok: expected boolean, got "yes"',
        "$: unexpected field 'extra'",
    ]


def test_enum_does_not_confuse_true_with_one():
    assert validate_schema(True, {"enum": [1, 0]}) == ["$: true is not one of 1, 0"]
    assert validate_schema(1, {"enum": [True, False]}) == ["$: 1 is not one of true, false"]


def test_unsupported_schema_keywords_are_refused():
    with pytest.raises(InvalidInputError, match="anyOf"):
        check_schema_supported({"type": "object", "properties": {"a": {"anyOf": []}}})


def test_item_ids_must_come_back_exactly_once():
    assert check_item_ids([{"id": 1}, {"id": 2}], [1, 2]) == []
    assert check_item_ids([{"id": 1}], [1, 2], what="verdicts") == [
        "expected exactly 2 verdicts (ids [1, 2]), got 1",
        "missing ids [2]",
    ]
    assert check_item_ids([{"id": 1}, {"id": 1}, {"id": 7}], [1, 2, 3]) == [
        "duplicate ids [1]",
        "missing ids [2, 3]",
        "unknown ids [7] (only [1, 2, 3] were sent)",
    ]
