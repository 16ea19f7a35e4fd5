"""ranx's evaluation and comparison API on ragmeter's core: change ``from ranx import Qrels,
Run, evaluate, compare`` to ``from ragmeter.compat.ranx import Qrels, Run, evaluate, compare``.

``evaluate(qrels, run, metrics)`` takes ranx's metric names (``ndcg@10``, ``map@100-l2``,
``hits``, ``rbp.95``...) and returns what ranx returns: one number for one metric, else
``{metric: mean}``; ``return_mean=False`` gives each metric's per-query values in ranx's query
order (sorted ids), ``return_std=True`` ``{"mean": ..., "std": ...}`` (population std), and a
:class:`Run` keeps ``scores`` and ``mean_scores`` as ranx's does. As in ranx, an undefined value
(no relevant document) scores 0, and the judged and ranked queries must be the same unless
``make_comparable=True`` (judged queries missing from the run get empty rankings; run queries
without judgments are dropped).

Also as in ranx: ``Qrels``/``Run`` built with ``add_score``, ``add`` and ``add_multi`` (lists
or NumPy arrays), ``.qrels``/``.run`` and ``.size``, ``sort``, ``to_dataframe``,
``from_parquet``, ``Qrels.set_relevance_level`` and ``save`` (JSON, TREC, Parquet and, for
runs, ``.lz4``; written atomically); ``from_file`` reads ranx's ``.lz4`` files (LZ4-framed
CBOR; needs ``ragmeter[ranx]``, refused naming the extra without it);
``ragmeter.compat.ranx.data_structures`` (``.qrels``, ``.run``, ``get_file_kind``,
``Report``, ``FrozensetDict``) is ranx's ``ranx.data_structures``;
``evaluate`` also takes ranx's array form (one 2-D array per query, rows ``[doc_id, value]``,
queries by position). ``ranx.metrics``, ``ranx.fusion`` (``fuse``, ``optimize_fusion`` and
ranx's per-method functions such as ``comb_sum``, ``rrf``, ``probfuse_train``) and
``ranx.normalization`` (``norm``, ``min_max_norm``, ``borda_norm``, ...) are ranx's.

``compare(qrels, runs, metrics, stat_test="student")`` evaluates the runs as ``evaluate``
does and tests every pair with ragmeter's :func:`~ragmeter.compare_many`, returning ranx's
``Report`` (``print(report)``, ``to_latex()``, ``to_dict()``, ``to_dataframe()``,
``save(path)``, ``win_tie_loss``, superscript letters for the models a model beats at
``max_p``); its ``multiple_comparison`` is ragmeter's result. ``"student"`` (the paired
t-test) and ``"tukey"`` (the one-way Tukey HSD) give ranx's p-values; ``"fisher"`` is
ragmeter's sign-flip test (exact up to 16 queries, else ``n_permutations`` sign vectors seeded
by ``random_seed``, p = (count + 1) / (n_permutations + 1)), whose p-values differ from ranx's
by its draws.

Deliberate difference: ties in scores are broken as trec_eval breaks them (doc id descending,
byte-wise), where ranx keeps insertion order; with distinct scores the values are ranx's. A
mismatch of queries is an :class:`~ragmeter.InvalidInputError` naming them (ranx: an
``AssertionError``).
"""

from __future__ import annotations

from .._ranx_fusion import fuse, normalize, optimize_fusion
from . import fusion, metrics, normalization
from ._compare import compare
from ._data import Qrels, Run
from ._evaluate import evaluate

__all__ = [
    "Qrels",
    "Run",
    "compare",
    "evaluate",
    "fuse",
    "fusion",
    "metrics",
    "normalization",
    "normalize",
    "optimize_fusion",
]
