"""ragmeter.stats.abstention against mteb's nauc (ported with its commit in
tests/ported_mteb/retrieval_metrics.py, on numpy and scikit-learn's auc: mteb 2.26.24's, ties in
confidence averaged, and the earlier one, ties in the order given) and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ported_mteb.retrieval_metrics import nauc, nauc_given_order

from ragmeter.exceptions import InvalidInputError
from ragmeter.stats import abstention_curve, normalized_abstention_auc


def test_by_hand():
    # Rates 0 and 0.5 of 3 queries: none left out, then round(1.5) = 2 (half to even) of the
    # least confident left out: the mean of the most confident one.
    assert abstention_curve([0.9, 0.1, 0.5], [1.0, 0.0, 0.5], [0.0, 0.5]).tolist() == [0.5, 1.0]
    # A confidence in the values' own order is the oracle: 1; in the reverse order, below 0.
    values = [0.1, 0.4, 0.7, 0.9, 0.2]
    assert normalized_abstention_auc(values, values) == 1.0
    assert normalized_abstention_auc([-v for v in values], values) < 0
    # Nothing to tell apart: NaN.
    assert math.isnan(normalized_abstention_auc([0.3, 0.1], [0.5, 0.5]))


def test_tied_confidences_count_with_their_mean_or_in_the_order_given():
    # Two queries of one confidence, values 1 and 0; at rate 0.5 one of them is left out. By
    # default each counts with the tie's mean (1/2, the expected value over both orders); in
    # the order given, the first (value 1) is left out.
    assert abstention_curve([0.5, 0.5], [1.0, 0.0], [0.0, 0.5]).tolist() == [0.5, 0.5]
    given = abstention_curve([0.5, 0.5], [1.0, 0.0], [0.0, 0.5], ties="given")
    assert given.tolist() == [0.5, 0.0]
    # Averaged, the order of the tied queries changes nothing.
    conf, values = [0.2, 0.5, 0.5, 0.5, 0.9], [0.0, 1.0, 0.0, 0.25, 1.0]
    reordered = [0.0, 0.25, 1.0, 0.0, 1.0]
    assert normalized_abstention_auc(conf, values) == normalized_abstention_auc(conf, reordered)
    assert normalized_abstention_auc(conf, values, ties="given") != normalized_abstention_auc(
        conf, reordered, ties="given"
    )
    with pytest.raises(InvalidInputError, match="ties must be"):
        abstention_curve([0.1], [1.0], ties="random")  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.5, 0.5, 1.0]), st.sampled_from([0.0, 0.25, 1.0])),
        min_size=1,
        max_size=30,
    )
)
def test_equal_to_mtebs_nauc(pairs):
    conf = np.array([c for c, _ in pairs])
    values = np.array([v for _, v in pairs])
    for ties, oracle in (("mean", nauc), ("given", nauc_given_order)):
        want = oracle(conf, values)
        got = normalized_abstention_auc(conf, values, ties=ties)
        assert (math.isnan(got) and math.isnan(want)) or got == want


def test_bad_inputs_are_refused():
    with pytest.raises(InvalidInputError, match="one length"):
        normalized_abstention_auc([0.1, 0.2], [1.0])
    with pytest.raises(InvalidInputError, match="increasing rates"):
        abstention_curve([0.1], [1.0], [0.5, 0.1])
