"""Quality gates: fail a change when quality drops, not when it only wobbles.

:func:`gate` tests a candidate against a baseline on the same queries (non-inferiority by a
margin, or superiority) and against absolute floors, with one-sided paired tests
(:mod:`~ragmeter.gate.onesided`), a correction over the checks, the interval of every
estimate and the number of queries an inconclusive check would need. Its
:class:`GateResult` renders as text, Markdown (a CI step summary), JSON and JUnit XML; the
``ragmeter gate`` command and the pytest plugin (:mod:`ragmeter.testing`) are built on it.
See the guide "Quality gates in CI".
"""

from __future__ import annotations

from .decision import GateOptions, check_compatible, gate
from .inputs import BASELINE_KIND, GateValues, gate_values, metric_definition, read_gate_file
from .onesided import GATE_TESTS, one_sided_test, queries_needed
from .results import GateCheck, GateResult

__all__ = [
    "BASELINE_KIND",
    "GATE_TESTS",
    "GateCheck",
    "GateOptions",
    "GateResult",
    "GateValues",
    "check_compatible",
    "gate",
    "gate_values",
    "metric_definition",
    "one_sided_test",
    "queries_needed",
    "read_gate_file",
]
