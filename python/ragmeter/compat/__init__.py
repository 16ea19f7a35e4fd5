"""Drop-in surfaces of other evaluation libraries, on ragmeter's core.

* :mod:`ragmeter.compat.pytrec_eval`: pytrec_eval's ``RelevanceEvaluator``,
  ``compute_aggregated_measure``, ``supported_measures``, ``parse_qrel`` and ``parse_run``;
* :mod:`ragmeter.compat.ranx`: ranx's ``Qrels``, ``Run``, ``evaluate``, ``compare`` (and its
  ``Report``), fusion and normalisation;
* :mod:`ragmeter.compat.ir_measures`: ir_measures' measure objects, ``calc_aggregate``,
  ``iter_calc``, ``parse_measure`` and ``parse_trec_measure``;
* :mod:`ragmeter.compat.beir`: BEIR's ``EvaluateRetrieval`` (``evaluate``,
  ``evaluate_custom``: NDCG, MAP, Recall, P, MRR, R_cap, Hole and Accuracy at k);
* :mod:`ragmeter.compat.mteb`: mteb's retrieval scores (``ndcg_at_10``..., nAUC, p-MRR,
  ``max_over_subqueries``).

(embedchain's evaluation API is :mod:`ragmeter.judges`, next to the judges it runs on.)
"""

from __future__ import annotations

__all__: list[str] = []
