"""JSON Schemas (draft 2020-12) of the result files ragmeter saves and reads back (the HTML
report and the CI gate read them): one file per saved type, keyed by the file's ``kind``.

``Comparison.write(path)`` (``kind: "ragmeter.comparison"``) and
``MultipleComparison.write(path)`` (``"ragmeter.multiple_comparison"``), format version 3;
``GateResult.to_json()`` (``"ragmeter.gate"``, what ``ragmeter gate --format json`` prints);
``RetrievalEvaluation.write(path)`` (``"ragmeter.retrieval_evaluation"``, format version 1);
``JudgeResults.write(path)`` (``"ragmeter.judges"``, format version 3);
``MetricResults.write(path)``, ``RunEvaluations.write(path)`` and what ``ragmeter
evaluate --format json`` writes (``"ragmeter.evaluation"``, format version 3);
``PerQueryResults.write(path)`` and the gate's baselines (``"ragmeter.per_query"``, format
version 1); ``NuggetBank.write(path)`` (``"ragmeter.nugget_bank"``) and
``NuggetAssignments.write(path)`` (``"ragmeter.nugget_assignments"``), format version 1. Every
saved file but the gate's verdict carries ``n_values`` and ``sha256`` (its
count of values and the checksum of its content, :func:`ragmeter.reports.with_integrity`).
An undefined value (NaN in memory) is ``null`` in the file. The schemas describe the
structure; reading a file (``Comparison.read``) also checks what a schema cannot (metric
names, that the summary is what the per-query values give).

>>> schema = result_schema("ragmeter.comparison")
>>> schema["properties"]["kind"]
{'const': 'ragmeter.comparison'}
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ..exceptions import InvalidInputError

__all__ = ["RESULT_SCHEMAS", "result_schema", "schema_registry_documents"]

#: The saved result kinds with a schema, and its file in this package.
RESULT_SCHEMAS: dict[str, str] = {
    "ragmeter.evaluation": "evaluation.schema.json",
    "ragmeter.retrieval_evaluation": "retrieval_evaluation.schema.json",
    "ragmeter.comparison": "comparison.schema.json",
    "ragmeter.multiple_comparison": "multiple_comparison.schema.json",
    "ragmeter.gate": "gate.schema.json",
    "ragmeter.judges": "judges.schema.json",
    "ragmeter.per_query": "per_query.schema.json",
    "ragmeter.nugget_bank": "nugget_bank.schema.json",
    "ragmeter.nugget_assignments": "nugget_assignments.schema.json",
}

_COMMON = "common.schema.json"


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath(name).read_text("utf-8")
    )
    return data


def result_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of the saved result of ``kind`` (a key of :data:`RESULT_SCHEMAS`).

    Its ``$ref``\\ s point into ``common.schema.json``; :func:`schema_registry_documents`
    gives every document by its ``$id``, for a validator's registry."""
    if kind not in RESULT_SCHEMAS:
        raise InvalidInputError(
            f"kind: no schema for {kind!r}; the saved kinds with one are "
            f"{', '.join(sorted(RESULT_SCHEMAS))}"
        )
    return _load(RESULT_SCHEMAS[kind])


def schema_registry_documents() -> dict[str, dict[str, Any]]:
    """Every schema document by its ``$id`` (the result schemas and the shared definitions)."""
    documents = [_load(_COMMON), *(_load(name) for name in RESULT_SCHEMAS.values())]
    return {document["$id"]: document for document in documents}
