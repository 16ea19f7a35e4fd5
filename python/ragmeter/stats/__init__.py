"""The statistics room: every statistic of ragmeter, once. Paired significance tests and
comparisons of systems evaluated on the same queries, agreement between raters and between
orderings, prediction-powered inference, variance components.

* :mod:`~ragmeter.stats.paired`: tests of arrays of per-query differences (the sign-flip
  test, the paired t-test, the Wilcoxon signed-rank test, the paired bootstrap), each
  two-sided or one-sided (``alternative=`` as scipy's), with their small-sample rules;
* :mod:`~ragmeter.stats.engine`: the comparison engine every decision goes through (query
  alignment, the one check of comparable settings, the table's tests over a campaign);
* :mod:`~ragmeter.stats.multiple`: p-value corrections (Holm, Bonferroni,
  Benjamini-Hochberg) and Tukey's HSD;
* :mod:`~ragmeter.stats.randomised`: the randomised Tukey HSD test of many systems and the
  Westfall-Young max-T step-down adjustment of many candidates against one baseline;
* :mod:`~ragmeter.stats.anova`: the two-way ANOVA without replication of a queries x systems
  matrix and Tukey's HSD on its residual (the paired Tukey test);
* :mod:`~ragmeter.stats.power`: topic-set-size design (Sakai 2016), two- and one-sided:
  queries needed, differences detectable, pilot variances;
* :mod:`~ragmeter.stats.distributions`: the distributions behind the p-values (numpy only);
* :mod:`~ragmeter.stats.registry`: the table of tests (:data:`TESTS`, one
  :class:`StatisticalTest` declaration per test) and :mod:`~ragmeter.stats.builtin`, the
  built-in tests' functions and declarations;
* :mod:`~ragmeter.stats.options`: :class:`ComparisonOptions`, every option of a comparison
  validated once;
* :mod:`~ragmeter.stats.orderings`: Kendall's tau-b, Spearman's rho and tau_ap between two
  orderings (one undefined rule);
* :mod:`~ragmeter.stats.raters`: agreement between raters (Cohen's and Fleiss' kappas,
  Krippendorff's alpha, percent agreement, the agreement report);
* :mod:`~ragmeter.stats.ppi`: prediction-powered inference (a judge's mean corrected by human
  labels);
* :mod:`~ragmeter.stats.repeated`: the variance components of repeated
  measurements (a judge's noise);
* :mod:`~ragmeter.stats.pvalues`: p-values below ``1e-16`` as a bound, and how every format
  writes a p-value;
* :mod:`~ragmeter.stats.comparison`: :func:`compare` and :func:`compare_many` over any
  per-query results;
* :mod:`~ragmeter.stats.results`: their results (:class:`Comparison`,
  :class:`MultipleComparison`) and reports;
* :mod:`~ragmeter.stats.tables`: the comparison tables as text, Markdown, LaTeX and CSV;
* :mod:`~ragmeter.stats.abstention`: abstention curves and their normalised area (nAUC), how
  well a confidence tells good answers from bad ones (mteb's ``nauc_*`` scores);
* :mod:`~ragmeter.stats.clustered`: clustered items (cluster-robust means and paired
  differences, cluster bootstrap, cluster-level sign-flip, the design effect);
* :mod:`~ragmeter.stats.exact`: the exact McNemar / sign test at any number of pairs (mid-p);
* :mod:`~ragmeter.stats.sequential`: the anytime-valid betting test (Waudby-Smith & Ramdas
  2024);
* :mod:`~ragmeter.stats.bradley_terry` and :mod:`~ragmeter.stats.ranks`: Bradley-Terry
  ratings from pairwise preferences, rank intervals of system means.
"""

from __future__ import annotations

from .abstention import abstention_curve, normalized_abstention_auc
from .anova import PairedTukeyResult, TwoWayAnova, paired_tukey_hsd, two_way_anova
from .bradley_terry import Ratings, bradley_terry
from .clustered import (
    ClusteredMean,
    ClusterTest,
    cluster_bootstrap,
    cluster_mean,
    cluster_paired,
    cluster_sign_flip,
    compare_clustered,
    design_effect,
    design_effects,
    repeats_mean,
)
from .comparison import compare, compare_evaluations, compare_many
from .exact import ExactTest, mcnemar_exact, sign_test
from .multiple import CORRECTIONS, TukeyResult, adjust_p_values, tukey_hsd
from .options import ComparisonOptions
from .orderings import kendall_tau, spearman_rho, tau_ap
from .paired import (
    EXACT_MAX_PAIRS,
    PairedTestResult,
    SignFlipResult,
    bootstrap_confidence_interval,
    paired_bootstrap_test,
    paired_t_test,
    sign_flip_test,
    wilcoxon_test,
)
from .power import (
    TopicSetSize,
    detectable_difference,
    pilot_variance,
    queries_needed,
    topic_set_size,
)
from .ppi import MeanEstimate, classical_mean, ppi_mean
from .randomised import (
    RandomisedTukeyResult,
    WestfallYoungResult,
    randomised_tukey_hsd,
    westfall_young,
)
from .ranks import RankInterval, metric_rankings, rank_intervals
from .raters import (
    agreement_report,
    cohen_kappa,
    confusion_table,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)
from .registry import TESTS, CampaignInput, CampaignOutcome, StatisticalTest, register_test
from .repeated import RepeatSummary, variance_components
from .results import Comparison, MetricComparison, MultipleComparison
from .sequential import SequentialTest, sequential_test

__all__ = [
    "CORRECTIONS",
    "EXACT_MAX_PAIRS",
    "TESTS",
    "CampaignInput",
    "CampaignOutcome",
    "ClusterTest",
    "ClusteredMean",
    "Comparison",
    "ComparisonOptions",
    "ExactTest",
    "MeanEstimate",
    "MetricComparison",
    "MultipleComparison",
    "PairedTestResult",
    "PairedTukeyResult",
    "RandomisedTukeyResult",
    "RankInterval",
    "Ratings",
    "RepeatSummary",
    "SequentialTest",
    "SignFlipResult",
    "StatisticalTest",
    "TopicSetSize",
    "TukeyResult",
    "TwoWayAnova",
    "WestfallYoungResult",
    "abstention_curve",
    "adjust_p_values",
    "agreement_report",
    "bootstrap_confidence_interval",
    "bradley_terry",
    "classical_mean",
    "cluster_bootstrap",
    "cluster_mean",
    "cluster_paired",
    "cluster_sign_flip",
    "cohen_kappa",
    "compare",
    "compare_clustered",
    "compare_evaluations",
    "compare_many",
    "confusion_table",
    "design_effect",
    "design_effects",
    "detectable_difference",
    "fleiss_kappa",
    "kendall_tau",
    "krippendorff_alpha",
    "mcnemar_exact",
    "metric_rankings",
    "normalized_abstention_auc",
    "paired_bootstrap_test",
    "paired_t_test",
    "paired_tukey_hsd",
    "percent_agreement",
    "pilot_variance",
    "ppi_mean",
    "queries_needed",
    "randomised_tukey_hsd",
    "rank_intervals",
    "register_test",
    "repeats_mean",
    "sequential_test",
    "sign_flip_test",
    "sign_test",
    "spearman_rho",
    "tau_ap",
    "topic_set_size",
    "tukey_hsd",
    "two_way_anova",
    "variance_components",
    "westfall_young",
    "wilcoxon_test",
]
