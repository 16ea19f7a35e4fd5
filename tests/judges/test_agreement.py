"""Agreement statistics against published worked examples and scikit-learn."""

import math

import pytest
from sklearn.metrics import cohen_kappa_score

from ragmeter import InvalidInputError, UndefinedMetricWarning
from ragmeter.judges import (
    agreement_report,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
# twelve units, missing values. Published: nominal 0.743, ordinal 0.815, interval 0.849,
# ratio 0.797.
N = None
OBSERVERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]
UNITS = [list(unit) for unit in zip(*OBSERVERS, strict=True)]


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_alpha_matches_the_published_example(level, published):
    assert krippendorff_alpha(UNITS, level=level) == pytest.approx(published, abs=5e-4)


def test_krippendorff_nominal_by_hand_on_a_tiny_table():
    # Units (a, a), (a, b), (b, b): coincidences o_aa = 2, o_ab = o_ba = 1, o_bb = 2; n_a = n_b = 3,
    # n = 6. D_o ~ o_ab + o_ba = 2; D_e ~ 2 * n_a * n_b / (n - 1) = 18 / 5. alpha = 1 - 2 / 3.6.
    assert krippendorff_alpha([["a", "a"], ["a", "b"], ["b", "b"]]) == pytest.approx(1 - 2 / 3.6)


def test_krippendorff_alpha_is_undefined_without_variation():
    with pytest.warns(UndefinedMetricWarning, match="same value"):
        assert math.isnan(krippendorff_alpha([[1, 1], [1, 1]]))


def test_krippendorff_interval_needs_numbers():
    with pytest.raises(InvalidInputError, match="numeric"):
        krippendorff_alpha([["a", "b"]], level="interval")


def test_fleiss_kappa_matches_the_wikipedia_example():
    # Wikipedia "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories;
    # P-bar = 0.378, P_e = 0.213, kappa = 0.210 (exactly 4211 / 20059).
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = [[c for c, k in enumerate(row, start=1) for _ in range(k)] for row in counts]
    assert fleiss_kappa(ratings) == pytest.approx(4211 / 20059, rel=1e-12)
    assert fleiss_kappa(ratings) == pytest.approx(0.210, abs=5e-4)


def test_fleiss_kappa_refuses_missing_ratings():
    with pytest.raises(InvalidInputError, match="unit 1"):
        fleiss_kappa([[1, 1, 2], [1, None, 2]])


def test_cohen_kappa_matches_the_wikipedia_example():
    # 50 units: both yes 20, A yes/B no 5, A no/B yes 10, both no 15 -> p_o = 0.7, p_e = 0.5.
    a = ["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_agrees_with_scikit_learn(weights):
    a = [0, 1, 2, 2, 1, 0, 2, 1, 1, 0, 2, 2, 1]
    b = [0, 2, 2, 1, 1, 0, 2, 0, 1, 1, 2, 2, 2]
    assert cohen_kappa(a, b, weights=weights) == pytest.approx(
        cohen_kappa_score(a, b, weights=weights), rel=1e-12
    )


def test_cohen_kappa_skips_units_a_rater_left_out():
    assert cohen_kappa(["y", "n", None, "y"], ["y", "n", "n", None]) == pytest.approx(1.0)


def test_cohen_kappa_is_undefined_with_one_shared_category():
    with pytest.warns(UndefinedMetricWarning, match="chance disagreement"):
        assert math.isnan(cohen_kappa(["y", "y"], ["y", "y"]))


def test_percent_agreement_by_hand():
    # Unit 1: 3 agreeing pairs of 3; unit 2: 1 of 3; unit 3 has one rating and is skipped.
    assert percent_agreement([[1, 1, 1], [1, 1, 2], [3, None, None]]) == pytest.approx(
        (1 + 1 / 3) / 2
    )


def test_nan_is_refused_as_a_missing_marker():
    with pytest.raises(InvalidInputError, match="use None"):
        percent_agreement([[1.0, math.nan]])


def test_agreement_report_picks_the_statistics_of_the_level():
    two = agreement_report([["a", "a"], ["a", "b"], ["b", "b"]], level="nominal")
    assert set(two) >= {"krippendorff_alpha", "percent_agreement", "cohen_kappa"}
    assert two["cohen_kappa"] == pytest.approx(cohen_kappa(["a", "a", "b"], ["a", "b", "b"]))
    three = agreement_report([[1, 1, 2], [2, 2, 2], [1, 1, 1]], level="nominal")
    assert "fleiss_kappa" in three and "cohen_kappa" not in three
    interval = agreement_report([[0.5, 0.25], [1.0, 0.75]], level="interval")
    assert "cohen_kappa" not in interval and "fleiss_kappa" not in interval
    undefined = agreement_report([[1, 1], [1, 1]], level="nominal")
    assert undefined["krippendorff_alpha"] is None
    assert "krippendorff_alpha" in undefined["undefined"]


def _mixed_ratings(seed: int) -> tuple[list[float], list[int]]:
    """Human grades as ints, a judge's as floats: the same categories spelled by two types."""
    import numpy as np

    rng = np.random.default_rng(seed)
    human = [int(x) for x in rng.integers(0, 4, 40)]
    judge = [float(min(3, max(0, h + int(rng.integers(-1, 2))))) for h in human]
    return judge, human


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_int_labels_and_float_values_are_one_category_per_value_for_kappa(seed):
    judge, human = _mixed_ratings(seed)
    for weights in (None, "linear", "quadratic"):
        assert cohen_kappa(judge, human, weights=weights) == pytest.approx(
            cohen_kappa_score(judge, human, weights=weights), abs=1e-12
        )


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_int_labels_and_float_values_are_one_category_per_value_for_alpha(seed, level):
    import krippendorff
    import numpy as np

    judge, human = _mixed_ratings(seed)
    expected = krippendorff.alpha(
        reliability_data=np.array([judge, human], dtype=float), level_of_measurement=level
    )
    units = [[j, h] for j, h in zip(judge, human, strict=True)]
    assert krippendorff_alpha(units, level=level) == pytest.approx(expected, abs=1e-12)


# -- correlations, confusion tables and bootstrap intervals (oracles: scipy, scikit-learn,
# krippendorff, recomputed on the documented resamples) ------------------------------------


def _graded(seed: int, n: int = 60) -> tuple[list[int], list[float]]:
    import numpy as np

    rng = np.random.default_rng(seed)
    human = [int(x) for x in rng.integers(0, 4, n)]
    judge = [float(min(3, max(0, h + int(rng.integers(-1, 2))))) for h in human]
    return human, judge


@pytest.mark.parametrize("seed", [4, 5])
def test_spearman_and_kendall_match_scipy_with_ties(seed):
    from scipy.stats import kendalltau, spearmanr

    from ragmeter.judges import kendall_tau, spearman_rho

    human, judge = _graded(seed)
    assert spearman_rho(judge, human) == pytest.approx(spearmanr(judge, human).statistic, 1e-12)
    assert kendall_tau(judge, human) == pytest.approx(kendalltau(judge, human).statistic, 1e-12)


def test_correlations_skip_missing_and_say_when_undefined():
    from scipy.stats import spearmanr

    from ragmeter.judges import kendall_tau, spearman_rho

    assert spearman_rho([1, None, 3, 2], [2, 5, 3, 1]) == pytest.approx(
        spearmanr([1, 3, 2], [2, 3, 1]).statistic
    )
    with pytest.warns(UndefinedMetricWarning, match="same rating"):
        assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    with pytest.raises(InvalidInputError, match="numeric"):
        spearman_rho(["a", "b"], [1, 2])


def test_confusion_table_matches_scikit_learn():
    from sklearn.metrics import confusion_matrix

    from ragmeter.judges import confusion_table

    human, judge = _graded(6)
    table = confusion_table(judge, human)
    assert table["labels"] == [0, 1, 2, 3]
    assert table["counts"] == confusion_matrix(judge, human, labels=[0, 1, 2, 3]).tolist()
    assert table["n"] == len(human)


def test_ordinal_report_with_bootstrap_intervals_recomputed_by_the_oracles():
    import krippendorff
    import numpy as np
    from scipy.stats import kendalltau, spearmanr

    human, judge = _graded(7, n=40)
    units = [[j, h] for j, h in zip(judge, human, strict=True)]
    report = agreement_report(units, level="ordinal", confidence=0.9, n_resamples=200, seed=3)
    labels = [0, 1, 2, 3]
    assert report["cohen_kappa"] == pytest.approx(
        cohen_kappa_score(judge, human, weights="quadratic")
    )
    assert report["cohen_kappa_unweighted"] == pytest.approx(cohen_kappa_score(judge, human))
    assert report["spearman_rho"] == pytest.approx(spearmanr(judge, human).statistic)
    assert report["kendall_tau"] == pytest.approx(kendalltau(judge, human).statistic)

    # The documented resamples, each statistic recomputed by its oracle.
    draws = np.random.default_rng(3).integers(0, 40, size=(200, 40))
    j, h = np.array(judge), np.array(human)
    oracle = {
        "cohen_kappa": lambda a, b: cohen_kappa_score(a, b, weights="quadratic", labels=labels),
        "cohen_kappa_unweighted": lambda a, b: cohen_kappa_score(a, b, labels=labels),
        "krippendorff_alpha": lambda a, b: krippendorff.alpha(
            reliability_data=np.array([a, b], float),
            level_of_measurement="ordinal",
            value_domain=labels,
        ),
        "spearman_rho": lambda a, b: spearmanr(a, b).statistic,
        "kendall_tau": lambda a, b: kendalltau(a, b).statistic,
        "percent_agreement": lambda a, b: float(np.mean(a == b)),
    }
    for name, statistic in oracle.items():
        values = np.array([statistic(j[d], h[d]) for d in draws])
        values = values[~np.isnan(values)]
        expected = np.quantile(values, [0.05, 0.95])
        assert report["ci"][name] == pytest.approx(expected.tolist(), abs=1e-9), name
    assert report["n_resamples"] == 200 and report["confidence"] == 0.9


def test_bootstrap_interval_is_undefined_when_most_resamples_are():
    # Every rating equal: kappa is undefined on the data and on every resample.
    units = [[1, 1]] * 5
    report = agreement_report(units, level="nominal", confidence=0.95, n_resamples=100)
    assert report["ci"]["cohen_kappa"] is None
    assert "resamples" in report["ci_undefined"]["cohen_kappa"]


def test_report_arguments_are_checked():
    with pytest.raises(InvalidInputError, match="confidence"):
        agreement_report([[1, 1]], confidence=95)
    with pytest.raises(InvalidInputError, match="n_resamples"):
        agreement_report([[1, 1]], confidence=0.95, n_resamples=10)
