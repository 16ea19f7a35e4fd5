"""Bradley-Terry ratings of systems from pairwise preferences (arena style), with bootstrap
intervals of the ratings and of the ranks.

The model (Bradley & Terry 1952; Zermelo 1929): system ``i`` beats ``j`` with probability
``1 / (1 + exp(theta_j - theta_i))``. The strengths ``theta`` are the maximum-likelihood
estimate (Newton's method on the log-likelihood, centred to sum 0; the MLE exists when every
system has won and lost against the others' connected set, Hunter 2004, "MM algorithms for
generalized Bradley-Terry models", Ann. Statist. 32(1)); ``alpha > 0`` adds a Gaussian prior of
variance ``1/alpha`` (a MAP estimate, as ``choix``'s ``alpha``) for data where the MLE does not
exist. A tie counts as half a win for each side (the Chatbot Arena convention for its
Bradley-Terry fit). Ratings are on the Elo scale as Chatbot Arena reports them: ``1000 + 400
theta / ln 10`` (a difference of 400 points: odds of 10 to 1), i.e. the Elo-equivalent of the
fitted model rather than Elo's online updates, which depend on the order of the battles.

Intervals: battles resampled with replacement, the model refitted on each resample; the
percentile intervals of each rating and of each rank (1 = best), as Chatbot Arena's
"rank (upper bound)".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from ._arguments import check_level, check_seed, resample_count

__all__ = ["Ratings", "battle_counts", "bradley_terry", "fit_strengths"]

#: The Elo scale: points per unit of natural-log odds, and the base rating.
ELO_SCALE = 400.0 / math.log(10.0)
ELO_BASE = 1000.0
_WINNERS = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}


@dataclass(frozen=True)
class Ratings:
    """Bradley-Terry ratings of systems.

    Attributes
    ----------
    systems
        The systems, best first.
    strengths
        ``{system: theta}`` (natural-log scale, summing to 0).
    ratings
        ``{system: rating}`` on the Elo scale (``1000 + 400 theta / ln 10``).
    rating_intervals, rank_intervals
        ``{system: (low, high)}``: bootstrap percentile intervals (empty without resamples).
    ranks
        ``{system: rank}``, 1 the best.
    n_battles
        The comparisons fitted (a tie counts once).
    confidence, n_resamples, random_state
        The intervals' level, resamples and seed.
    """

    systems: tuple[str, ...]
    strengths: dict[str, float]
    ratings: dict[str, float]
    ranks: dict[str, int]
    rating_intervals: dict[str, tuple[float, float]]
    rank_intervals: dict[str, tuple[int, int]]
    n_battles: int
    confidence: float
    n_resamples: int
    random_state: int | None

    def to_table(self) -> str:
        """The ratings as aligned text, best first."""
        lines = [f"{'rank':>4}  {'system':<24} {'rating':>8}  interval"]
        for name in self.systems:
            low, high = self.rating_intervals.get(name, (math.nan, math.nan))
            r_low, r_high = self.rank_intervals.get(name, (0, 0))
            lines.append(
                f"{self.ranks[name]:>4}  {name:<24} {self.ratings[name]:>8.1f}  "
                f"[{low:.1f}, {high:.1f}]  rank {r_low}-{r_high}"
            )
        return "\n".join(lines)


def battle_counts(battles: Sequence[Any]) -> tuple[list[str], np.ndarray]:
    """The systems and the win matrix ``W`` (``W[i, j]``: wins of ``i`` over ``j``, a tie
    half to each) of FastChat-style battles: records ``{"model_a", "model_b", "winner"}`` (or
    tuples ``(model_a, model_b, winner)``), ``winner`` one of ``model_a``, ``model_b``,
    ``tie``, ``tie (bothbad)``.

    >>> names, wins = battle_counts([("x", "y", "model_a"), ("x", "y", "tie")])
    >>> names, wins.tolist()
    (['x', 'y'], [[0.0, 1.5], [0.5, 0.0]])
    """
    rows = []
    for position, battle in enumerate(battles):
        if isinstance(battle, Mapping):
            a, b, winner = battle.get("model_a"), battle.get("model_b"), battle.get("winner")
        else:
            try:
                a, b, winner = battle
            except (TypeError, ValueError):
                raise InvalidInputError(
                    f"battles[{position}]: a record {{model_a, model_b, winner}} or a tuple "
                    f"(model_a, model_b, winner), got {battle!r}"
                ) from None
        if winner not in _WINNERS:
            raise InvalidInputError(
                f"battles[{position}]: winner is {winner!r}; one of {', '.join(_WINNERS)}"
            )
        if a == b:
            raise InvalidInputError(f"battles[{position}]: a system against itself ({a!r})")
        rows.append((str(a), str(b), _WINNERS[winner]))
    if not rows:
        raise InvalidInputError("battles: no battle")
    names = sorted({n for a, b, _ in rows for n in (a, b)})
    index = {n: i for i, n in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    for a, b, score in rows:
        wins[index[a], index[b]] += score
        wins[index[b], index[a]] += 1.0 - score
    return names, wins


def fit_strengths(
    wins: np.ndarray, *, alpha: float = 0.0, start: np.ndarray | None = None
) -> np.ndarray:
    """The Bradley-Terry strengths (centred) of a win matrix, by Newton's method.

    Raises
    ------
    InvalidInputError
        ``alpha == 0`` and no finite maximum-likelihood estimate (a system that never won or
        never lost, or groups of systems that never met).
    """
    n = wins.shape[0]
    games = wins + wins.T
    if alpha == 0:
        won, lost = wins.sum(axis=1), wins.sum(axis=0)
        if (won <= 0).any() or (lost <= 0).any() or not _strongly_connected(wins):
            raise InvalidInputError(
                "battles: the Bradley-Terry maximum-likelihood estimate does not exist (a "
                "system never won or never lost, or some systems never met the others); pass "
                "alpha > 0 for a regularised estimate"
            )
    theta = np.zeros(n) if start is None else start - start.mean()
    for _ in range(200):
        diff = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        gradient = wins.sum(axis=1) - (games * p).sum(axis=1) - alpha * theta
        weights = games * p * (1.0 - p)
        hessian = weights - np.diag(weights.sum(axis=1)) - alpha * np.eye(n)
        # the likelihood is flat along theta + c: solve on the centred subspace
        step = np.linalg.solve(hessian - np.ones((n, n)) / n, -gradient)
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-13:
            break
    return theta


def _strongly_connected(wins: np.ndarray) -> bool:
    """Whether every system reaches every other along "beat" edges (Ford 1957's condition)."""
    n = wins.shape[0]
    beat = wins > 0
    for adjacency in (beat, beat.T):
        seen = np.zeros(n, dtype=bool)
        seen[0] = True
        frontier = [0]
        while frontier:
            node = frontier.pop()
            for other in np.nonzero(adjacency[node] & ~seen)[0]:
                seen[other] = True
                frontier.append(int(other))
        if not seen.all():
            return False
    return True


def _ranks(theta: np.ndarray) -> np.ndarray:
    """Rank 1 the strongest; a system's rank is 1 + the systems strictly stronger."""
    ranks: np.ndarray = 1 + (theta[None, :] > theta[:, None]).sum(axis=1)
    return ranks


def bradley_terry(
    battles: Sequence[Any],
    *,
    alpha: float = 0.0,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state: int | None = 0,
) -> Ratings:
    """Bradley-Terry ratings of the systems of FastChat-style battles, with bootstrap
    intervals of ratings and ranks (see the module documentation).

    Parameters
    ----------
    battles
        The comparisons (:func:`battle_counts`).
    alpha
        The prior's strength (0: the maximum-likelihood estimate).
    n_resamples
        Bootstrap resamples of the battles (0: no intervals).
    confidence, random_state
        The intervals' level and the seed.

    Returns
    -------
    Ratings
        Strengths, Elo-scale ratings, ranks and their intervals.

    Examples
    --------
    >>> battles = [("a", "b", "model_a")] * 3 + [("a", "b", "model_b")]
    >>> result = bradley_terry(battles, n_resamples=0)
    >>> round(result.strengths["a"] - result.strengths["b"], 6)  # log(3/1)
    1.098612
    """
    level = check_level("confidence", confidence)
    count = resample_count("n_resamples", n_resamples, allow_zero=True)
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not alpha >= 0:
        raise InvalidInputError(f"alpha: a number >= 0, got {alpha!r}")
    names, wins = battle_counts(battles)
    theta = fit_strengths(wins, alpha=float(alpha))
    order = np.argsort(-theta, kind="stable")
    ranks = _ranks(theta)
    rating_intervals: dict[str, tuple[float, float]] = {}
    rank_intervals: dict[str, tuple[int, int]] = {}
    seed: int | None = None
    if count:
        seed = check_seed(random_state)
        rng = np.random.default_rng(seed)
        # the battles as outcomes of pairs: resampling battles is a multinomial over them
        pairs = [(i, j) for i in range(len(names)) for j in range(len(names)) if wins[i, j] > 0]
        weights = np.array([wins[i, j] for i, j in pairs])
        total = round(float(weights.sum()))
        thetas = np.empty((count, len(names)))
        fallback = max(float(alpha), 1e-6)
        for r in range(count):
            drawn = rng.multinomial(total, weights / weights.sum()).astype(float)
            resampled = np.zeros_like(wins)
            for (i, j), k in zip(pairs, drawn, strict=True):
                resampled[i, j] += k
            try:
                thetas[r] = fit_strengths(resampled, alpha=float(alpha), start=theta)
            except InvalidInputError:
                # a resample where the MLE does not exist: the smallest prior that defines it
                thetas[r] = fit_strengths(resampled, alpha=fallback, start=theta)
        lo, hi = (1 - level) / 2, (1 + level) / 2
        rating_bounds = np.quantile(ELO_BASE + ELO_SCALE * thetas, [lo, hi], axis=0)
        replicate_ranks = np.array([_ranks(t) for t in thetas])
        rank_bounds = np.quantile(replicate_ranks, [lo, hi], axis=0, method="nearest")
        for k, name in enumerate(names):
            rating_intervals[name] = (float(rating_bounds[0, k]), float(rating_bounds[1, k]))
            rank_intervals[name] = (int(rank_bounds[0, k]), int(rank_bounds[1, k]))
    return Ratings(
        tuple(names[k] for k in order),
        {n: float(theta[k]) for k, n in enumerate(names)},
        {n: float(ELO_BASE + ELO_SCALE * theta[k]) for k, n in enumerate(names)},
        {n: int(ranks[k]) for k, n in enumerate(names)},
        rating_intervals,
        rank_intervals,
        round(float(wins.sum())),
        level,
        count,
        seed,
    )
