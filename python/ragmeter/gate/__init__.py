"""Quality gates: fail a change when quality drops, not when it only wobbles.

:func:`gate` is a decision rule over the comparison engine: it tests a candidate against a
baseline on the same queries (non-inferiority by a margin, or superiority) and against
absolute floors, each a one-sided test of the table of tests run by
:func:`ragmeter.stats.engine.run_tests` (options: :class:`GateOptions`, a
:class:`~ragmeter.stats.ComparisonOptions`), with a correction over the checks, the interval
of every estimate and the number of queries an inconclusive check would need. Its
:class:`GateResult` renders as text, Markdown (a CI step summary), JSON and JUnit XML; the
``ragmeter gate`` command, the baseline store (:mod:`~ragmeter.gate.store`) and the pytest
plugin (:mod:`ragmeter.testing`) are built on it. See the guide "Quality gates in CI".
"""

from __future__ import annotations

from .._moved import moved_names
from .decision import GateOptions, check_compatible, gate, gate_tests, queries_needed
from .inputs import BASELINE_KIND, GateValues, gate_values, metric_definition, read_gate_file
from .results import GateCheck, GateResult
from .store import BaselineStore, read_gate_input

__all__ = [
    "BASELINE_KIND",
    "BaselineStore",
    "GateCheck",
    "GateOptions",
    "GateResult",
    "GateValues",
    "check_compatible",
    "gate",
    "gate_tests",
    "gate_values",
    "metric_definition",
    "queries_needed",
    "read_gate_file",
    "read_gate_input",
]


# The gate's one-sided copies are gone (ragmeter.gate.onesided says where each went).
__getattr__ = moved_names(
    __name__,
    {"GATE_TESTS": "ragmeter.gate.onesided", "one_sided_test": "ragmeter.gate.onesided"},
)
