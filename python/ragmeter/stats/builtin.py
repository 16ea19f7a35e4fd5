"""The built-in significance tests of :data:`~ragmeter.stats.registry.TESTS`: each test's
function over a campaign and its one declaration.

The functions read a :class:`~ragmeter.stats.registry.CampaignInput` (systems x metrics x queries
and the tested pairs) and compute every pair and metric at once: the t and Wilcoxon tests in
numpy by blocks of pairs, the sign-flip and bootstrap tests in the Rust core (the same random
numbers for every pair and metric, so a seed gives the same p-values for any thread count).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from .. import _core
from ..exceptions import InvalidInputError
from ._arguments import ALTERNATIVES
from .anova import paired_tukey_hsd
from .clustered import cluster_paired
from .exact import mcnemar_exact
from .multiple import tukey_hsd
from .paired import (
    BOOTSTRAP_STREAM,
    EXACT_LIMIT,
    EXACT_MAX_PAIRS,
    MIN_PAIRS,
    t_from_moments,
    t_rows,
)
from .randomised import randomised_tukey_campaign, westfall_young_campaign
from .registry import CampaignInput, CampaignOutcome, StatisticalTest, register_test
from .sequential import sequential_test
from .wilcoxon import wilcoxon_one

__all__ = ["pair_blocks", "pair_differences", "pair_index", "pair_scales"]


def pair_blocks(n_pairs: int, n_metrics: int, n_queries: int) -> Iterator[slice]:
    """Slices of the pairs holding about 2 million differences each (bounded memory)."""
    per_block = max(1, 2_000_000 // max(1, n_metrics * n_queries))
    for start in range(0, n_pairs, per_block):
        yield slice(start, min(n_pairs, start + per_block))


def pair_index(sample: CampaignInput) -> np.ndarray:
    """The pairs as the Rust core takes them: a contiguous ``(n_pairs, 2)`` uint64 array."""
    return np.ascontiguousarray(np.asarray(sample.pairs, dtype=np.uint64).reshape(-1, 2))


def pair_differences(sample: CampaignInput, block: slice) -> np.ndarray:
    """``(pairs in block, metrics, queries)``: candidate minus baseline, NaN where either is
    undefined."""
    index = np.asarray(sample.pairs, dtype=np.intp).reshape(-1, 2)
    with np.errstate(invalid="ignore"):
        return np.asarray(sample.values[index[block, 0]] - sample.values[index[block, 1]])


def pair_scales(sample: CampaignInput, block: slice) -> np.ndarray:
    """``(pairs in block, metrics)``: the largest magnitude of either system's values over the
    queries both hold (the scale of their differences' rounding; 0 when none)."""
    index = np.asarray(sample.pairs, dtype=np.intp).reshape(-1, 2)
    a = sample.values[index[block, 0]]
    b = sample.values[index[block, 1]]
    both = ~(np.isnan(a) | np.isnan(b))
    largest = np.where(both, np.maximum(np.abs(a), np.abs(b)), 0.0)
    return np.asarray(largest.max(axis=2) if largest.shape[2] else largest.sum(axis=2))


def _empty(sample: CampaignInput) -> dict[str, np.ndarray]:
    shape = sample.delta.shape
    return {
        "p": np.full(shape, math.nan),
        "statistic": np.full(shape, math.nan),
        "low": np.full(shape, math.nan),
        "high": np.full(shape, math.nan),
    }


def _t_outcome(out: dict[str, np.ndarray], sample: CampaignInput, method: str) -> CampaignOutcome:
    """A t-type test's outcome from its arrays (:func:`_empty`'s keys): one method for every
    pair, the t intervals when the sample asks for intervals."""
    with_interval = sample.confidence_level is not None
    return CampaignOutcome(
        p_value=out["p"],
        statistic=out["statistic"],
        methods=np.full(sample.delta.shape, method, dtype=object),
        method=method,
        ci_low=out["low"] if with_interval else None,
        ci_high=out["high"] if with_interval else None,
    )


def _blocks(sample: CampaignInput) -> Iterator[tuple[slice, np.ndarray]]:
    n_pairs, n_metrics = sample.delta.shape
    n_queries = sample.values.shape[2]
    for block in pair_blocks(n_pairs, n_metrics, n_queries):
        yield block, pair_differences(sample, block).reshape(-1, n_queries)


def _t_test(sample: CampaignInput) -> CampaignOutcome:
    out = _empty(sample)
    n_metrics = sample.delta.shape[1]
    if sample.sd is not None and sample.scale is not None:
        # The engine's moments of the differences (the same row_moments of the same rows):
        # the differences are not made a second time.
        _n, _mean, t, p, low, high, _size = t_from_moments(
            sample.n_pairs,
            sample.delta,
            sample.sd,
            sample.scale,
            sample.confidence_level,
            sample.alternative,
        )
        out = {"p": p, "statistic": t, "low": low, "high": high}
    blocks = () if sample.sd is not None and sample.scale is not None else _blocks(sample)
    for block, rows in blocks:
        _n, _mean, t, p, low, high, _size = t_rows(
            rows,
            sample.confidence_level,
            alternative=sample.alternative,
            scale=pair_scales(sample, block).reshape(-1),
        )
        out["p"][block] = p.reshape(-1, n_metrics)
        out["statistic"][block] = t.reshape(-1, n_metrics)
        out["low"][block] = low.reshape(-1, n_metrics)
        out["high"][block] = high.reshape(-1, n_metrics)
    return _t_outcome(out, sample, "t")


def _wilcoxon(sample: CampaignInput) -> CampaignOutcome:
    out = _empty(sample)
    methods = np.full(sample.delta.shape, "", dtype=object)
    n_metrics = sample.delta.shape[1]
    for block, rows in _blocks(sample):
        outcomes = [wilcoxon_one(row[~np.isnan(row)], sample.alternative) for row in rows]
        out["statistic"][block] = np.array([o[0] for o in outcomes]).reshape(-1, n_metrics)
        out["p"][block] = np.array([o[1] for o in outcomes]).reshape(-1, n_metrics)
        methods[block] = np.array(
            [o[2] if o[2] != "none" else "" for o in outcomes], dtype=object
        ).reshape(-1, n_metrics)
    found = {str(x) for x in methods.ravel() if x}
    method = found.pop() if len(found) == 1 else "mixed"
    return CampaignOutcome(
        p_value=out["p"], statistic=out["statistic"], methods=methods, method=method
    )


def _sign_flip(sample: CampaignInput) -> CampaignOutcome:
    n_queries = sample.values.shape[2]
    exact = sample.method == "exact" or (sample.method == "auto" and n_queries <= EXACT_MAX_PAIRS)
    if exact and n_queries > EXACT_LIMIT:
        raise InvalidInputError(
            f"method='exact' enumerates 2**n sign vectors and is limited to {EXACT_LIMIT} "
            f"queries, got {n_queries}; use method='sampled' or 'auto'"
        )
    p_values, _, n_examined = _core.sign_flip_pairs(
        sample.values,
        pair_index(sample),
        exact=exact,
        n_resamples=sample.n_resamples,
        seed=sample.seed,
        alternative=sample.alternative,
        n_threads=sample.n_threads,
    )
    method = "exact" if exact else "sampled"
    return CampaignOutcome(
        p_value=np.where(sample.n_pairs == 0, math.nan, p_values),
        statistic=sample.delta.copy(),
        methods=np.full(sample.delta.shape, method, dtype=object),
        method=method,
        n_examined=int(n_examined),
    )


def _bootstrap(sample: CampaignInput) -> CampaignOutcome:
    level = sample.confidence_level
    low, high, extreme, valid = _core.bootstrap_pairs(
        sample.values,
        pair_index(sample),
        n_resamples=sample.n_resamples,
        seed=sample.seed ^ BOOTSTRAP_STREAM,
        confidence_level=level if level is not None else 0.95,
        alternative=sample.alternative,
        n_threads=sample.n_threads,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(valid > 0, (extreme + 1.0) / (valid + 1.0), math.nan)
    return CampaignOutcome(
        p_value=p,
        statistic=sample.delta.copy(),
        methods=np.full(sample.delta.shape, "sampled", dtype=object),
        method="sampled",
        n_examined=sample.n_resamples,
        ci_low=low if level is not None else None,
        ci_high=high if level is not None else None,
    )


def _tukey_oneway(sample: CampaignInput) -> CampaignOutcome:
    out = _empty(sample)
    level = sample.confidence_level
    pairs = np.asarray(sample.pairs, dtype=np.intp).reshape(-1, 2)
    for m in range(sample.values.shape[1]):
        result = tukey_hsd(list(sample.values[:, m, :]), confidence_level=level or 0.95)
        a, b = pairs[:, 0], pairs[:, 1]
        out["p"][:, m] = result.p_value[a, b]
        out["statistic"][:, m] = result.statistic[a, b]
        out["low"][:, m] = result.ci_low[a, b]
        out["high"][:, m] = result.ci_high[a, b]
    return CampaignOutcome(
        p_value=out["p"],
        statistic=out["statistic"],
        methods=np.full(sample.delta.shape, "tukey", dtype=object),
        method="tukey",
        ci_low=out["low"] if level is not None else None,
        ci_high=out["high"] if level is not None else None,
    )


def _tukey(sample: CampaignInput) -> CampaignOutcome:
    out = _empty(sample)
    effect = np.full(sample.delta.shape, math.nan)
    level = sample.confidence_level
    pairs = np.asarray(sample.pairs, dtype=np.intp).reshape(-1, 2)
    a, b = pairs[:, 0], pairs[:, 1]
    for m in range(sample.values.shape[1]):
        matrix = sample.values[:, m, :].T  # queries x systems
        if (~np.isnan(matrix).any(axis=1)).sum() < 2:
            continue  # fewer than 2 queries where every system has a value: undefined
        result = paired_tukey_hsd(matrix, confidence_level=level or 0.95)
        out["p"][:, m] = result.p_value[a, b]
        out["statistic"][:, m] = result.statistic[a, b]
        out["low"][:, m] = result.ci_low[a, b]
        out["high"][:, m] = result.ci_high[a, b]
        assert result.effect_size is not None
        effect[:, m] = result.effect_size[a, b]
    return CampaignOutcome(
        p_value=out["p"],
        statistic=out["statistic"],
        methods=np.full(sample.delta.shape, "tukey", dtype=object),
        method="tukey",
        ci_low=out["low"] if level is not None else None,
        ci_high=out["high"] if level is not None else None,
        effect_size=effect,
    )


# -- the declarations (the order is the CLI's and the docs') ----------------------------------

#: Sakai's standardised difference of the tests built on the two-way ANOVA's residual.
_ES_E_TEXT = (
    "the difference of the means over sqrt(V_E), the residual standard deviation of the "
    "two-way ANOVA (Sakai 2018)"
)


def _exact_sign(sample: CampaignInput) -> CampaignOutcome:
    """The exact sign test (exact McNemar for 0/1 scores) of every pair and metric."""
    out = _empty(sample)
    n_metrics = sample.delta.shape[1]
    for block, rows in _blocks(sample):
        p = np.full(rows.shape[0], math.nan)
        statistic = np.full(rows.shape[0], math.nan)
        for r, row in enumerate(rows):
            d = row[~np.isnan(row)]
            if d.size == 0:
                continue
            wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
            p[r] = mcnemar_exact(wins, losses, alternative=sample.alternative).p_value
            statistic[r] = wins - losses
        out["p"][block] = p.reshape(-1, n_metrics)
        out["statistic"][block] = statistic.reshape(-1, n_metrics)
    methods = np.full(sample.delta.shape, "exact", dtype=object)
    return CampaignOutcome(
        p_value=out["p"], statistic=out["statistic"], methods=methods, method="exact"
    )


def _sequential(sample: CampaignInput) -> CampaignOutcome:
    """The anytime-valid betting test of every pair and metric, the items in the order given
    (each item a look). Scores lie in [0, 1], so a difference shifted by the metric's null
    difference ``s`` lies in ``[-1 - s, 1 - s]``: the bounds the bets rest on."""
    out = _empty(sample)
    n_metrics = sample.delta.shape[1]
    shifts = np.zeros(n_metrics) if sample.null_difference is None else sample.null_difference
    for block, rows in _blocks(sample):
        p = np.full(rows.shape[0], math.nan)
        statistic = np.full(rows.shape[0], math.nan)
        for r, row in enumerate(rows):
            d = row[~np.isnan(row)]
            shift = float(shifts[r % n_metrics])
            lower, upper = -1.0 - shift, 1.0 - shift
            if d.size == 0:
                continue
            if not lower < 0.0 < upper:
                raise InvalidInputError(
                    f"the sequential test needs a margin or floor strictly between -1 and 1 "
                    f"(scores in [0, 1]), got a shift of {shift:g}"
                )
            if d.min() < lower - 1e-12 or d.max() > upper + 1e-12:
                raise InvalidInputError(
                    "the sequential test needs scores in [0, 1] (its validity rests on the "
                    f"bounds of the differences); a difference lies outside [{lower:g}, "
                    f"{upper:g}]"
                )
            result = sequential_test(
                np.clip(d, lower, upper),
                null=0.0,
                alternative=sample.alternative,
                lower=lower,
                upper=upper,
            )
            p[r] = result.p_value
            statistic[r] = result.max_e_value
        out["p"][block] = p.reshape(-1, n_metrics)
        out["statistic"][block] = statistic.reshape(-1, n_metrics)
    methods = np.full(sample.delta.shape, "anytime", dtype=object)
    return CampaignOutcome(
        p_value=out["p"], statistic=out["statistic"], methods=methods, method="anytime"
    )


def _cluster_t(sample: CampaignInput) -> CampaignOutcome:
    """The cluster-robust paired t-test (CR1, t on G - 1 degrees of freedom) of every pair
    and metric, with its t intervals."""
    if sample.clusters is None:
        raise InvalidInputError(
            "the cluster-t test needs each item's cluster: a cluster column in a table of "
            "per-item values, cluster= when reading another harness's file (ragmeter compare "
            "--values --cluster FIELD), or PerQueryResults(..., clusters=)"
        )
    out = _empty(sample)
    n_metrics = sample.delta.shape[1]
    level = sample.confidence_level or 0.95
    for block, rows in _blocks(sample):
        p = np.full(rows.shape[0], math.nan)
        statistic = np.full(rows.shape[0], math.nan)
        low = np.full(rows.shape[0], math.nan)
        high = np.full(rows.shape[0], math.nan)
        for r, row in enumerate(rows):
            keep = ~np.isnan(row)
            codes = sample.clusters[keep]
            if keep.sum() < 2 or np.unique(codes).size < 2:
                continue
            result = cluster_paired(
                row[keep],
                np.zeros(int(keep.sum())),
                codes,
                confidence=level,
                alternative=sample.alternative,
            )
            p[r] = result.p_value if result.p_value is not None else math.nan
            statistic[r] = result.mean / result.se if result.se > 0 else math.nan
            low[r], high[r] = result.ci
        out["p"][block] = p.reshape(-1, n_metrics)
        out["statistic"][block] = statistic.reshape(-1, n_metrics)
        out["low"][block] = low.reshape(-1, n_metrics)
        out["high"][block] = high.reshape(-1, n_metrics)
    return _t_outcome(out, sample, "cluster-t")


register_test(
    StatisticalTest(
        name="sign-flip",
        title="two-sided paired sign-flip (randomisation) test",
        run=_sign_flip,
        aliases=("fisher", "signflip"),
        alternatives=ALTERNATIVES,
        min_pairs=MIN_PAIRS["sign-flip"],
        assumes="under the null hypothesis the sign of each query's difference is exchangeable "
        "(no distributional assumption)",
        description="the paired randomisation test: exact over every sign vector up to "
        f"{EXACT_MAX_PAIRS} queries, seeded sampled sign vectors beyond, p = (count + 1) / "
        "(B + 1); bootstrap percentile intervals (the default)",
        citation="R. A. Fisher, The Design of Experiments (1935); M. D. Smucker, J. Allan and "
        "B. Carterette, CIKM 2007",
        p_value_methods=("exact", "sampled"),
        resampled=True,
        exact_unit="sign vectors",
        sampled_unit="sampled sign vectors",
    )
)
register_test(
    StatisticalTest(
        name="t",
        title="two-sided paired t-test",
        run=_t_test,
        aliases=("student",),
        alternatives=ALTERNATIVES,
        min_pairs=MIN_PAIRS["t"],
        assumes="the per-query differences are independent and their mean is about normal "
        "(equal differences have no variance: their p-value is the exact sign-flip test's, "
        "1 / 2^n one-sided, never 0)",
        description="the paired Student t-test with t intervals (ranx's default, "
        "scipy.stats.ttest_rel)",
        citation="Student (W. S. Gosset), Biometrika 6(1), 1908; Smucker et al., CIKM 2007",
        p_value_methods=("t",),
        interval="test",
        interval_text="t intervals",
    )
)
register_test(
    StatisticalTest(
        name="wilcoxon",
        title="two-sided Wilcoxon signed-rank test",
        run=_wilcoxon,
        alternatives=ALTERNATIVES,
        min_pairs=MIN_PAIRS["wilcoxon"],
        assumes="the per-query differences are symmetric about their median",
        description="the Wilcoxon signed-rank test as scipy.stats.wilcoxon computes it; "
        "bootstrap percentile intervals",
        citation="F. Wilcoxon, Biometrics Bulletin 1(6), 1945",
        p_value_methods=("exact", "permutation", "normal"),
        mixed_methods=True,
    )
)
register_test(
    StatisticalTest(
        name="bootstrap",
        title="two-sided paired bootstrap test",
        run=_bootstrap,
        alternatives=ALTERNATIVES,
        min_pairs=MIN_PAIRS["bootstrap"],
        assumes="the queries are a random sample of the population of queries, at least "
        f"{MIN_PAIRS['bootstrap']} of them (below, its plug-in variance makes it reject a true "
        "null hypothesis too often)",
        description="the paired bootstrap shift test with percentile intervals",
        citation="B. Efron and R. Tibshirani, An Introduction to the Bootstrap (1993), "
        "sections 13 and 16; J. Urbano, H. Lima and A. Hanjalic, SIGIR 2019",
        p_value_methods=("sampled",),
        resampled=True,
        interval="test",
        interval_text="bootstrap percentiles of the test's resamples",
        exact_unit="resamples",
        sampled_unit="resamples",
    )
)
register_test(
    StatisticalTest(
        name="tukey",
        title="Tukey's HSD test on the residual of a two-way ANOVA (queries x systems)",
        run=_tukey,
        aliases=("tukey-paired", "tukey-twoway"),
        min_pairs=2,
        assumes="the residuals of the two-way ANOVA without replication are independent and "
        "about normal with one variance (the query effect is removed, so the queries pair "
        "the systems)",
        description="Tukey's HSD over all pairs of systems, paired by query: q = |mean_i - "
        "mean_j| / sqrt(V_E / n) against the studentized range with (n - 1)(m - 1) degrees "
        "of freedom, simultaneous intervals, effect (mean_i - mean_j) / sqrt(V_E)",
        citation="B. Carterette, ACM TOIS 30(1), 2012; T. Sakai, Laboratory Experiments in "
        "Information Retrieval (2018), chapters 3-5",
        p_value_methods=("tukey",),
        interval="test",
        interval_text="simultaneous over all pairs, from the studentized range",
        own_correction="tukey",
        own_family="all-pairs",
        own_correction_text="p-values adjusted over all pairs of systems of each metric by "
        "the studentized range, the query effect removed by a two-way ANOVA without "
        "replication",
        reports_anova=True,
        effect_size_name="ES_E",
        effect_size_text=_ES_E_TEXT,
    )
)
register_test(
    StatisticalTest(
        name="tukey-oneway",
        title="Tukey's HSD test (one-way, independent groups)",
        run=_tukey_oneway,
        paired=False,
        min_pairs=2,
        assumes="the systems' values are independent samples with equal variances (not "
        "paired by query, so it is blind to the query effect: conservative for IR runs)",
        description="the one-way Tukey-Kramer HSD of independent groups, as "
        "scipy.stats.tukey_hsd and ranx's stat_test='tukey' compute it",
        citation="J. W. Tukey (1953); C. Y. Kramer, Biometrics 12(3), 1956",
        p_value_methods=("tukey",),
        interval="test",
        interval_text="simultaneous over all pairs (Tukey-Kramer)",
        own_correction="tukey",
        own_family="all-pairs",
        own_correction_text="p-values adjusted over all pairs of systems of each metric by "
        "the studentized range, the queries taken as independent samples",
    )
)

# -- tests declared by other modules ----------------------------------------------------------
# A test whose function lives elsewhere (ragmeter.stats.randomised: "randomised-tukey",
# "westfall-young") is imported here and declared with register_test(StatisticalTest(...)),
# below this line, so that importing ragmeter.stats registers every test exactly once.

register_test(
    StatisticalTest(
        name="randomised-tukey",
        title="randomised Tukey HSD test (paired by query)",
        run=randomised_tukey_campaign,
        aliases=("randomized-tukey",),
        assumes="under the null hypothesis the systems' scores on each query are exchangeable "
        "(no distributional assumption; the queries where every system has a value)",
        description="the randomised Tukey HSD test: every query's row of system scores "
        "permuted, each pair compared with the largest difference of means, p = (count + 1) "
        "/ (B + 1) (exact over every permutation when small); family-wise over all pairs of "
        "each metric; bootstrap percentile intervals",
        citation="B. Carterette, ACM TOIS 30(1), 2012; T. Sakai, Laboratory Experiments in "
        "Information Retrieval (2018), ch. 5",
        p_value_methods=("exact", "sampled"),
        resampled=True,
        own_correction="randomised-tukey",
        effect_size_name="ES_E",
        effect_size_text=_ES_E_TEXT,
        own_correction_text="p-values adjusted over all pairs of systems of each metric by "
        "the permutation distribution of the largest difference of means (randomised Tukey "
        "HSD)",
        exact_unit="permutations",
        sampled_unit="sampled permutations",
    )
)
register_test(
    StatisticalTest(
        name="westfall-young",
        title="two-sided paired sign-flip test with Westfall-Young max-T step-down adjustment",
        run=westfall_young_campaign,
        aliases=("maxt",),
        min_pairs=2,
        assumes="under the null hypothesis the sign of each query's difference is exchangeable, "
        "the same flips for every candidate (the queries where the baseline and every "
        "candidate have a value)",
        description="many candidates against one baseline: the sign-flip permutations of the "
        "paired t statistic, the same for every candidate, adjusted by the step-down "
        "distribution of the largest |t| (family-wise, using the candidates' correlation); "
        "bootstrap percentile intervals",
        citation="P. H. Westfall and S. S. Young, Resampling-Based Multiple Testing (1993); "
        "L. Boytsov, A. Belova and P. Westfall, SIGIR 2013",
        p_value_methods=("exact", "sampled"),
        resampled=True,
        own_correction="westfall-young",
        own_correction_text="p-values adjusted over the candidates of each metric by "
        "Westfall and Young's max-T step-down method",
        requires_baseline=True,
        exact_unit="sign vectors",
        sampled_unit="sampled sign vectors",
    )
)
register_test(
    StatisticalTest(
        name="mcnemar",
        title="two-sided exact McNemar (sign) test",
        run=_exact_sign,
        aliases=("sign", "exact-sign"),
        alternatives=ALTERNATIVES,
        min_pairs=1,
        assumes="the items are independent; under the null hypothesis an item on which the "
        "systems differ is as likely to favour either (for 0/1 scores: McNemar's test)",
        description="the exact binomial test of the candidate's wins against its losses among "
        "the items that differ (ties left out), at any number of items; bootstrap percentile "
        "intervals",
        citation="Q. McNemar, Psychometrika 12(2), 1947; W. J. Dixon and A. M. Mood, JASA "
        "41(236), 1946",
        p_value_methods=("exact",),
    )
)
register_test(
    StatisticalTest(
        name="sequential",
        title="two-sided anytime-valid betting test",
        run=_sequential,
        aliases=("anytime",),
        alternatives=ALTERNATIVES,
        min_pairs=1,
        assumes="scores in [0, 1] (bounded differences) and the items in the order they "
        "arrived (differences bounded by them); no distributional assumption: the level "
        "holds however often the job looks",
        description="testing by betting: the capital of a bet against the null hypothesis "
        "over the items in order (aGRAPA bets), rejected when it reaches 1 / alpha; p = 1 / "
        "the largest capital; bootstrap percentile intervals",
        citation="I. Waudby-Smith and A. Ramdas, Estimating means of bounded random variables "
        "by betting, JRSS-B 86(1), 2024",
        p_value_methods=("anytime",),
        effect_size_name="d_z",
    )
)
register_test(
    StatisticalTest(
        name="cluster-t",
        title="two-sided cluster-robust paired t-test",
        run=_cluster_t,
        aliases=("clustered",),
        alternatives=ALTERNATIVES,
        min_pairs=2,
        assumes="the clusters (passages, documents, conversations) are independent, the items "
        "inside one need not be; about 20 clusters or more for the t approximation",
        description="the mean per-item difference with its cluster-robust (CR1) standard "
        "error, t on G - 1 degrees of freedom (statsmodels' cov_type='cluster'), and its t "
        "intervals; needs each item's cluster",
        citation="K.-Y. Liang and S. L. Zeger, Biometrika 73(1), 1986; A. C. Cameron and D. L. "
        "Miller, J. Human Resources 50(2), 2015",
        p_value_methods=("cluster-t",),
        requires_clusters=True,
        interval="test",
        interval_text="cluster-robust t intervals",
    )
)
