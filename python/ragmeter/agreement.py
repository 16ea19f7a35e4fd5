"""How similar two runs are, without judgments: rank-biased overlap and top-k overlap per query.

* :func:`rank_biased_overlap`: RBO (Webber, Moffat and Zobel, ACM TOIS 28(4), 2010) with
  persistence ``p``: the extrapolated ``RBO_ext`` and the bounds ``RBO_min`` and
  ``RBO_min + RBO_res``, per query and averaged;
* :func:`top_k_overlap`: ``Overlap@k = |A_k ∩ B_k| / k`` and
  ``Jaccard@k = |A_k ∩ B_k| / |A_k ∪ B_k|`` per query.

A run is a mapping ``{query_id: {doc_id: score}}`` or ``{query_id: [doc_id, ...]}`` (best
first), a path to a run file in any format :func:`ragmeter.io.read_run` reads (TREC, CSV, TSV,
JSON, Parquet, Arrow), or a table. Scored rankings are ordered as trec_eval orders them (score
descending, ties by doc id descending), the order every ranking metric of ragmeter uses, so
the rankings are strict (or, with ``ties="tied"``, tied scores form tie groups, the paper's
tie-aware RBO); a list keeps its order.
Both kernels run in the Rust core, in parallel over queries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from . import _core
from ._inputs import _ranking, preview_ids, trec_order
from .exceptions import InputTypeError, InvalidInputError
from .io import read_run
from .options import check_n_threads, shorten

__all__ = ["RankBiasedOverlap", "TopKOverlap", "rank_biased_overlap", "top_k_overlap"]

Missing = Literal["raise", "empty", "skip"]


def _tie_groups(scores: Sequence[float]) -> list[int]:
    """For scores in ranking order, the position of the first document of each document's
    group of equal scores."""
    tops: list[int] = []
    for i, score in enumerate(scores):
        tops.append(tops[-1] if i and score == scores[i - 1] else i)
    return tops


def _ordered(run: Any, argument: str) -> dict[Any, tuple[list[Any], list[int] | None]]:
    """Each query's document ids, best first (duplicates are refused by the core), and for a
    scored ranking the tie groups of its scores."""
    mapping = run if isinstance(run, Mapping) else read_run(run)
    rankings: dict[Any, tuple[list[Any], list[int] | None]] = {}
    for query, value in mapping.items():
        if type(value) is list:  # the common case, as it is
            rankings[query] = (value, None)
            continue
        ranking = _ranking(query, value)
        if isinstance(ranking, dict):
            try:
                docs = trec_order(ranking)
                scores = [float(ranking[d]) for d in docs]
            except (TypeError, ValueError) as error:
                raise InputTypeError(
                    f"{argument}: query {query!r}: the scores must be numbers ({error})"
                ) from None
            rankings[query] = (docs, _tie_groups(scores))
        else:
            rankings[query] = (list(ranking), None)  # type: ignore[call-overload]
    return rankings


def _aligned(
    run_a: Any, run_b: Any, missing: str
) -> tuple[
    list[Any],
    list[list[Any]],
    list[list[Any]],
    Callable[[], tuple[list[list[int]], list[list[int]]]],
]:
    """The compared queries, both runs' rankings, and a function giving their tie groups (made
    only when asked for), in the same order."""
    if missing not in ("raise", "empty", "skip"):
        raise InvalidInputError(
            f"missing: must be 'raise', 'empty' or 'skip', got {shorten(missing, 40)}"
        )
    a = _ordered(run_a, "run_a")
    b = _ordered(run_b, "run_b")
    only_a = [q for q in a if q not in b]
    only_b = [q for q in b if q not in a]
    if missing == "raise" and (only_a or only_b):
        parts = []
        if only_a:
            parts.append(f"queries only in run_a: {preview_ids(only_a)}")
        if only_b:
            parts.append(f"queries only in run_b: {preview_ids(only_b)}")
        raise InvalidInputError(
            "the runs rank different queries ("
            + "; ".join(parts)
            + "). Pass missing='empty' to compare a query one run lacks as an empty ranking, "
            "or missing='skip' to compare only the queries both runs rank"
        )
    queries = [q for q in a if q in b] if missing == "skip" else list(a) + only_b
    empty: tuple[list[Any], list[int] | None] = ([], None)

    def groups(pair: tuple[list[Any], list[int] | None]) -> list[int]:
        return list(range(len(pair[0]))) if pair[1] is None else pair[1]

    pairs_a = [a.get(q, empty) for q in queries]
    pairs_b = [b.get(q, empty) for q in queries]
    return (
        queries,
        [r for r, _ in pairs_a],
        [r for r, _ in pairs_b],
        lambda: ([groups(x) for x in pairs_a], [groups(x) for x in pairs_b]),
    )


def _flat(groups: list[list[int]]) -> np.ndarray:
    return np.fromiter(
        (t for tops in groups for t in tops), dtype=np.uint32, count=sum(map(len, groups))
    )


def _mean(values: np.ndarray) -> float:
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if defined.size else float("nan")


@dataclass(frozen=True)
class RankBiasedOverlap:
    """The result of :func:`rank_biased_overlap`.

    Parameters
    ----------
    query_ids
        The queries compared, in the order of the arrays.
    ext, min, res
        ``RBO_ext``, ``RBO_min`` and ``RBO_res`` per query (NaN where both rankings are
        empty); the RBO of the full rankings lies in ``[min, min + res]``.
    p
        The persistence.
    depth
        Both rankings were cut at this depth (None: whole rankings).
    ties
        How tied scores were treated: ``"trec_eval"`` or ``"tied"``.
    n_queries
        Queries with a defined value (the means are over these).
    mean_ext, mean_min, mean_res
        Means over the ``n_queries`` queries (NaN without any).
    """

    query_ids: tuple[Any, ...]
    ext: np.ndarray
    min: np.ndarray
    res: np.ndarray
    p: float
    depth: int | None
    ties: str
    n_queries: int
    mean_ext: float
    mean_min: float
    mean_res: float

    def per_query(self) -> dict[Any, float]:
        """``RBO_ext`` by query id.

        Returns
        -------
        dict
            ``{query_id: RBO_ext}`` (NaN where both rankings are empty).
        """
        return dict(zip(self.query_ids, self.ext.tolist(), strict=True))


def rank_biased_overlap(
    run_a: Any,
    run_b: Any,
    *,
    p: float = 0.9,
    depth: int | None = None,
    ties: Literal["trec_eval", "tied"] = "trec_eval",
    missing: Missing = "raise",
    n_threads: int | None = None,
) -> RankBiasedOverlap:
    """Rank-biased overlap of two runs, per query (Webber, Moffat and Zobel 2010).

    With ``X_d = |A_{:d} ∩ B_{:d}|`` the overlap of the top ``d`` of both rankings (a ranking
    shorter than ``d`` contributes all of its documents), ``s`` and ``l`` the lengths of the
    shorter and the longer ranking:

    * ``RBO_ext`` (eq. 32) extrapolates the agreement seen to the unseen ranks:
      ``(1-p)/p (sum_{d=1}^{l} X_d/d p^d + sum_{d=s+1}^{l} X_s (d-s)/(s d) p^d)
      + ((X_l - X_s)/l + X_s/s) p^l``; for two rankings of the same length ``k`` it is
      ``(1-p)/p sum_{d<=k} X_d/d p^d + X_k/k p^k``;
    * ``RBO_min`` assumes every unseen document is disjoint:
      ``(1-p)/p (sum_{d=1}^{l} X_d/d p^d + X_l (ln(1/(1-p)) - sum_{d=1}^{l} p^d/d))``;
    * ``RBO_res = RBO_max - RBO_min``, with ``RBO_max`` the RBO when the shorter ranking goes on
      with the longer one's documents it lacks and then both rank the same documents (eqs. 11
      and 30 of the paper, with the uneven lists of its section 4.1).

    ``p`` is the persistence of the user who compares the rankings: the first ``d`` ranks carry
    ``1 - p^(d-1) + (1-p)/p d (ln(1/(1-p)) - sum_{i<d} p^i/i)`` of the weight (86% in the top
    10 for ``p = 0.9``, the default; eq. 21).

    Ties (``ties=``):

    * ``"trec_eval"`` (default): scored rankings are ordered by trec_eval's rule (score
      descending, then doc id descending), the order of ragmeter's ranking metrics, so both
      rankings are strict and this is the paper's RBO of strict rankings (equal to the ``rbo``
      package's ``rbo_ext``, which knows no ties);
    * ``"tied"``: documents with equal scores form a tie group that enters the prefixes as a
      whole at the depth where it starts, and the agreement at depth ``d`` is
      ``A_d = 2 X_d / (|A_{:d}| + |B_{:d}|)`` (the paper's section 4.3, eq. 28; the
      ``RBO^w`` variant of Corsi and Urbano, SIGIR 2024); ``min``, ``res`` and ``ext`` follow
      with that agreement (the unseen ranks of the shorter ranking hold one document each).
      Without tied scores, and for lists, it equals ``"trec_eval"``. ``depth=k`` then keeps
      the tie groups that start above ``k``.

    Undefined: both rankings of a query empty (NaN, left out of the means); one
    empty ranking gives ``RBO_ext = RBO_min = 0`` and ``RBO_res = 1``.

    Parameters
    ----------
    run_a, run_b
        The two runs: mappings ``{query_id: {doc_id: score}}`` or ``{query_id: [doc_id, ...]}``,
        paths to run files, or tables (whatever :func:`ragmeter.io.read_run` reads).
    p
        The persistence, strictly between 0 and 1.
    depth
        Cut both rankings at this depth first (None: whole rankings).
    ties
        ``"trec_eval"`` (default: tied scores ordered by doc id, strict rankings) or
        ``"tied"`` (tied scores form tie groups, Webber's tie-aware agreement).
    missing
        A query only one run ranks: ``"raise"`` (default), ``"empty"`` (compared with an empty
        ranking) or ``"skip"`` (left out).
    n_threads
        Threads of the Rust core.

    Returns
    -------
    RankBiasedOverlap
        Per-query ``ext``, ``min`` and ``res``, their means and the number of queries.

    Raises
    ------
    InvalidInputError
        ``p`` outside (0, 1), ``depth < 1``, a document ranked twice, queries only one run
        ranks with ``missing="raise"``, an unknown ``missing`` or ``ties``.

    Examples
    --------
    >>> a = {"q1": ["d1", "d2", "d3"], "q2": {"d1": 0.5, "d2": 0.9}}
    >>> b = {"q1": ["d2", "d1", "d4"], "q2": {"d1": 0.7, "d2": 0.1}}
    >>> result = rank_biased_overlap(a, b, p=0.9)
    >>> result.ext.round(4).tolist(), result.n_queries
    ([0.63, 0.9], 2)
    """
    if isinstance(p, bool) or not isinstance(p, float | int | np.floating) or not 0 < p < 1:
        raise InvalidInputError(f"p: the persistence must lie strictly between 0 and 1, got {p!r}")
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1
    ):
        raise InvalidInputError(f"depth: must be an int >= 1 or None, got {shorten(depth, 40)}")
    if ties not in ("trec_eval", "tied"):
        raise InvalidInputError(f"ties: must be 'trec_eval' or 'tied', got {shorten(ties, 40)}")
    queries, rankings_a, rankings_b, tie_groups = _aligned(run_a, run_b, missing)
    tied = ties == "tied"
    tops_a, tops_b = tie_groups() if tied else ([], [])
    ext, low, res = _core.rank_biased_overlap(
        queries,
        rankings_a,
        rankings_b,
        p=float(p),
        depth=None if depth is None else int(depth),
        tops_a=_flat(tops_a) if tied else None,
        tops_b=_flat(tops_b) if tied else None,
        n_threads=check_n_threads(n_threads),
    )
    return RankBiasedOverlap(
        query_ids=tuple(queries),
        ext=ext,
        min=low,
        res=res,
        p=float(p),
        depth=None if depth is None else int(depth),
        ties=ties,
        n_queries=int((~np.isnan(ext)).sum()),
        mean_ext=_mean(ext),
        mean_min=_mean(low),
        mean_res=_mean(res),
    )


@dataclass(frozen=True)
class TopKOverlap:
    """The result of :func:`top_k_overlap`.

    Parameters
    ----------
    query_ids
        The queries compared, in the order of the rows.
    k
        The depths, in the order of the columns.
    intersection
        ``|A_k ∩ B_k|`` per query and depth.
    overlap
        ``|A_k ∩ B_k| / k`` per query and depth.
    jaccard
        ``|A_k ∩ B_k| / |A_k ∪ B_k|`` per query and depth (NaN where both top k are empty).
    mean_overlap, mean_jaccard
        Means per depth over the queries where the value is defined.
    n_queries
        The number of queries compared.
    """

    query_ids: tuple[Any, ...]
    k: tuple[int, ...]
    intersection: np.ndarray
    overlap: np.ndarray
    jaccard: np.ndarray
    mean_overlap: np.ndarray
    mean_jaccard: np.ndarray
    n_queries: int


def top_k_overlap(
    run_a: Any,
    run_b: Any,
    k: int | Sequence[int] = 10,
    *,
    missing: Missing = "raise",
    n_threads: int | None = None,
) -> TopKOverlap:
    """Overlap@k and Jaccard@k of two runs, per query.

    With ``A_k`` and ``B_k`` the sets of the top ``k`` documents of each ranking (all of it when
    shorter than ``k``):

    * ``Overlap@k = |A_k ∩ B_k| / k``: the share of the ``k`` ranks both runs fill with the
      same documents (a short ranking lowers it, as it lowers precision);
    * ``Jaccard@k = |A_k ∩ B_k| / |A_k ∪ B_k|``: undefined (NaN, left out of the means) when
      both top k are empty.

    The rankings are ordered as in :func:`rank_biased_overlap` (trec_eval's rule for scores).

    Parameters
    ----------
    run_a, run_b
        The two runs (mappings, paths to run files or tables).
    k
        One depth or several (each ``>= 1``).
    missing
        A query only one run ranks: ``"raise"`` (default), ``"empty"`` or ``"skip"``.
    n_threads
        Threads of the Rust core.

    Returns
    -------
    TopKOverlap
        ``queries x depths`` intersections, overlaps and Jaccard indices, with their means.

    Raises
    ------
    InvalidInputError
        A depth below 1, a document ranked twice, queries only one run ranks with
        ``missing="raise"``.

    Examples
    --------
    >>> a = {"q1": ["d1", "d2", "d3"], "q2": ["d5"]}
    >>> b = {"q1": ["d2", "d4", "d1"], "q2": ["d6"]}
    >>> result = top_k_overlap(a, b, k=[1, 3])
    >>> result.overlap.tolist(), result.jaccard.tolist()
    ([[0.0, 0.6666666666666666], [0.0, 0.0]], [[0.0, 0.5], [0.0, 0.0]])
    """
    depths = (k,) if isinstance(k, int | np.integer) else tuple(k)
    if not depths or any(
        isinstance(d, bool) or not isinstance(d, int | np.integer) or d < 1 for d in depths
    ):
        raise InvalidInputError(
            f"k: must be an int >= 1 or a sequence of them, got {shorten(k, 40)}"
        )
    depths = tuple(int(d) for d in depths)
    queries, rankings_a, rankings_b, _ = _aligned(run_a, run_b, missing)
    intersections, lengths_a, lengths_b = _core.top_k_overlaps(
        queries, rankings_a, rankings_b, list(depths), n_threads=check_n_threads(n_threads)
    )
    counts = intersections.astype(np.float64)
    ks = np.array(depths, dtype=np.float64)
    size_a = np.minimum(lengths_a[:, None].astype(np.float64), ks)
    size_b = np.minimum(lengths_b[:, None].astype(np.float64), ks)
    union = size_a + size_b - counts
    with np.errstate(divide="ignore", invalid="ignore"):
        jaccard = np.where(union > 0, counts / union, np.nan)
    overlap = counts / ks
    with np.errstate(invalid="ignore"):
        mean_jaccard = np.array([_mean(jaccard[:, j]) for j in range(len(depths))])
    return TopKOverlap(
        query_ids=tuple(queries),
        k=depths,
        intersection=counts.astype(np.int64),
        overlap=overlap,
        jaccard=jaccard,
        mean_overlap=overlap.mean(axis=0) if len(queries) else np.full(len(depths), np.nan),
        mean_jaccard=mean_jaccard,
        n_queries=len(queries),
    )
