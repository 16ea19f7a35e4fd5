"""Several judges scoring the same metric, aggregated, with their agreement reported.

A :class:`Panel` is passed wherever a judge is (``evaluate(..., judge=Panel([...]))``): every
judge scores every (sample, metric), the ok values are aggregated, and each judge's own score is
kept in the row (``judge_scores``) so that :meth:`JudgeResults.agreement` can report
Krippendorff's alpha, Cohen's or Fleiss' kappa and percent agreement.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..exceptions import InvalidInputError
from .clients.protocol import judge_identity
from .clients.resolve import resolve_judge
from .score import Score

__all__ = ["AGGREGATES", "Panel"]

AGGREGATES: tuple[str, ...] = ("mean", "median", "majority", "trimmed_mean")
Aggregate = Callable[[Sequence[float], Sequence[float]], float]


class Panel:
    """Judges whose scores are aggregated per (sample, metric).

    ``aggregate``: ``"mean"`` (weighted by ``weights`` when given), ``"median"``,
    ``"majority"`` (the value with the largest total weight; a tie between the top values is
    ``undefined`` with ``no_majority``), ``"trimmed_mean"`` (mean without the lowest and the
    highest value when at least three judges are ok) or a callable ``(values, weights) ->
    float``. Judges that fail or return undefined are left out and the weights of the others
    renormalised; with fewer than ``min_ok`` ok judges the score is ``error``
    (``too_few_judges``) if any judge failed, else ``undefined``. TruLens' Jury semantics.

    Every judge scores every (sample, metric); each judge's own score is kept in the row
    (``judge_scores``), and :meth:`JudgeResults.agreement` reports how far they agree.

    Parameters
    ----------
    judges
        Two or more judges (anything ``evaluate(judge=...)`` takes), distinct names.
    aggregate
        How the ok values are combined (see above).
    weights
        One weight per judge, or ``{name: weight}``.
    min_ok
        The fewest ok judges a score needs.
    name
        The panel's name (default ``panel(<judge names>)``).

    Raises
    ------
    InvalidInputError
        no judge, repeated names, an unknown aggregate, bad weights.

    Examples
    --------
    >>> from ragmeter.judges import Panel, RuleJudge, Sample, evaluate
    >>> panel = Panel([RuleJudge(threshold=0.5, name="lenient"),
    ...                RuleJudge(threshold=1.0, name="strict")], aggregate="mean")
    >>> sample = Sample("Where is Paris?", "Paris is a big city in France.", ["Paris, France."])
    >>> row = evaluate([sample], ["groundedness"], judge=panel, progress=False).rows[0]
    >>> {name: score.value for name, score in row.judge_scores.items()}, row.value
    ({'lenient': 1.0, 'strict': 0.0}, 0.5)
    """

    def __init__(
        self,
        judges: Sequence[Any],
        *,
        aggregate: str | Aggregate = "mean",
        weights: Sequence[float] | Mapping[str, float] | None = None,
        min_ok: int = 1,
        name: str | None = None,
    ):
        resolved = [resolve_judge(j) for j in judges]
        if not resolved:
            raise InvalidInputError("Panel needs at least one judge")
        names = [j.name for j in resolved]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise InvalidInputError(
                f"Panel judges need distinct names, {duplicates} appear twice: pass name= to "
                "each judge"
            )
        if isinstance(aggregate, str) and aggregate not in AGGREGATES:
            raise InvalidInputError(
                f"aggregate must be one of {AGGREGATES} or a callable, got {aggregate!r}"
            )
        if not isinstance(aggregate, str) and not callable(aggregate):
            raise InvalidInputError(f"aggregate must be one of {AGGREGATES} or a callable")
        if weights is None:
            weight_map = {n: 1.0 for n in names}
        elif isinstance(weights, Mapping):
            missing = [n for n in names if n not in weights]
            if missing:
                raise InvalidInputError(f"weights has no entry for judges {missing}")
            weight_map = {n: float(weights[n]) for n in names}
        else:
            if len(weights) != len(names):
                raise InvalidInputError(
                    f"weights has {len(weights)} entries for {len(names)} judges"
                )
            weight_map = {n: float(w) for n, w in zip(names, weights, strict=True)}
        if any(w < 0 or not math.isfinite(w) for w in weight_map.values()):
            raise InvalidInputError(f"weights must be finite and >= 0, got {weight_map}")
        if not 1 <= min_ok <= len(resolved):
            raise InvalidInputError(f"min_ok must lie in [1, {len(resolved)}], got {min_ok!r}")
        self.judges = tuple(resolved)
        self.aggregate = aggregate
        self.weights = weight_map
        self.min_ok = min_ok
        self.name = name or "panel(" + ",".join(names) + ")"

    def __repr__(self) -> str:
        how = (
            self.aggregate
            if isinstance(self.aggregate, str)
            else getattr(self.aggregate, "__name__", "callable")
        )
        return f"Panel({[j.name for j in self.judges]}, aggregate={how!r}, min_ok={self.min_ok})"

    @property
    def identity(self) -> dict[str, Any]:
        """The panel's settings and each judge's identity, for cache keys and manifests."""
        return {
            "kind": "panel",
            "name": self.name,
            "aggregate": self.aggregate if isinstance(self.aggregate, str) else "callable",
            "weights": self.weights,
            "min_ok": self.min_ok,
            "judges": [judge_identity(j) for j in self.judges],
        }

    def combine(self, scores: Mapping[str, Score]) -> Score:
        """The panel's score from each judge's score on one (sample, metric)."""
        ok = {n: s for n, s in scores.items() if s.status == "ok" and s.value is not None}
        per_judge = {
            n: {"value": s.value, "status": s.status, "reason_code": s.reason_code}
            for n, s in scores.items()
        }
        evidence: dict[str, Any] = {"per_judge": per_judge, "n_judges_ok": len(ok)}
        if len(ok) < self.min_ok:
            failed = [n for n, s in scores.items() if s.status == "error"]
            message = (
                f"{len(ok)} of {len(scores)} judges gave a value, the panel needs {self.min_ok}"
            )
            if failed:
                return Score.error(
                    "too_few_judges", message + f" (failed: {failed})", evidence=evidence
                )
            codes = sorted(
                {s.reason_code or "unknown" for s in scores.values() if s.status != "ok"}
            )
            code = codes[0] if len(codes) == 1 else "too_few_judges"
            return Score.undefined(code, message, evidence=evidence)
        names = list(ok)
        values = [float(ok[n].value) for n in names]  # type: ignore[arg-type]
        weights = [self.weights[n] for n in names]
        if sum(weights) == 0:
            return Score.undefined("zero_weight", "every ok judge has weight 0", evidence=evidence)
        total = sum(weights)
        weights = [w / total for w in weights]
        reasons = [f"{n}: {r}" for n in names for r in ok[n].reasons]
        if self.aggregate == "majority":
            votes: defaultdict[float, float] = defaultdict(float)
            for v, w in zip(values, weights, strict=True):
                votes[round(v, 9)] += w
            ranked = sorted(votes.items(), key=lambda kv: -kv[1])
            if len(ranked) > 1 and math.isclose(ranked[0][1], ranked[1][1]):
                return Score.undefined(
                    "no_majority", f"the judges split evenly: {dict(votes)}", evidence=evidence
                )
            value = ranked[0][0]
        elif self.aggregate == "median":
            value = statistics.median(values)
        elif self.aggregate == "trimmed_mean":
            kept = sorted(zip(values, weights, strict=True))
            if len(kept) >= 3:
                kept = kept[1:-1]
            weight_sum = sum(w for _, w in kept)
            value = (
                sum(v * w for v, w in kept) / weight_sum
                if weight_sum
                else statistics.mean(v for v, _ in kept)
            )
        elif self.aggregate == "mean":
            value = math.fsum(v * w for v, w in zip(values, weights, strict=True))
        else:
            assert callable(self.aggregate)
            value = float(self.aggregate(values, weights))
        if not math.isfinite(value):
            return Score.undefined("not_finite", f"the aggregate gave {value!r}", evidence=evidence)
        if all("winner" in ok[n].evidence for n in names):
            # Pairwise preference: the panel's verdict, and every judge's position statistics.
            evidence["winner"] = {1.0: "A", 0.0: "B", 0.5: "tie"}.get(value)
            evidence["n_judgements"] = len(names)
            evidence["position_flips"] = sum(
                1 for n in names if ok[n].evidence.get("position_inconsistent")
            )
            for key in ("first_position_wins", "n_verdicts"):
                evidence[key] = sum(int(ok[n].evidence.get(key, 0)) for n in names)
        return Score.ok(value, reasons=reasons, evidence=evidence)
