"""Drop-in surfaces of other evaluation libraries, on ragmeter's core.

* :mod:`ragmeter.compat.pytrec_eval`: pytrec_eval's ``RelevanceEvaluator``,
  ``supported_measures``, ``parse_qrel`` and ``parse_run``.

(embedchain's evaluation API is :mod:`ragmeter.judges`, next to the judges it runs on.)
"""

from __future__ import annotations

__all__: list[str] = []
