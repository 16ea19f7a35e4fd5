"""Bad input of any shape gets a TypeError or ValueError, never a crash or a Rust panic.

Hypothesis builds judgments and rankings out of every kind of value a user might pass by
mistake (None, floats, bools, bytes, nested containers, NaN, huge ints, mixed id types,
strings with lone surrogates) and checks that each public entry point either returns or raises
one of the documented input errors.
"""

from __future__ import annotations

import contextlib
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragmeter
from ragmeter import levenshtein

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.binary(max_size=3),
    st.just("\ud800"),  # a lone surrogate
    st.just(math.nan),
)
ids = st.one_of(st.text(max_size=3), st.integers(-3, 3), scalars)
containers = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(ids, inner, max_size=4),
        st.frozensets(st.integers(0, 3), max_size=3),
    ),
    max_leaves=8,
)
per_query = st.one_of(
    st.dictionaries(ids, scalars, max_size=5),
    st.lists(ids, max_size=5),
    containers,
)
collections = st.one_of(
    st.dictionaries(ids, per_query, max_size=4),
    st.lists(per_query, max_size=4),
    containers,
)


def _only_input_errors(call):
    # The documented input errors (their subclasses included) may escape; anything else fails.
    with contextlib.suppress(TypeError, ValueError):
        call()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(y_true=collections, y_pred=collections, k=st.one_of(st.integers(-2, 5), scalars))
@pytest.mark.filterwarnings("ignore")
def test_ranking_metrics_refuse_bad_input_with_input_errors(y_true, y_pred, k):
    _only_input_errors(
        lambda: ragmeter.ranking_metrics(y_true, y_pred, metrics=["map", "ndcg@3", "mrr"])
    )
    _only_input_errors(lambda: ragmeter.precision_at_k(y_true, y_pred, k=k))
    _only_input_errors(
        lambda: ragmeter.ranking_metrics(y_true, y_pred, metrics=["map"], missing="zero")
    )


texts = st.one_of(st.text(max_size=6), scalars, st.lists(st.text(max_size=3), max_size=3))
text_lists = st.one_of(st.lists(texts, max_size=5), containers, st.text(max_size=4))


@settings(max_examples=150, deadline=None)
@given(references=text_lists, answers=text_lists, threshold=st.one_of(scalars, st.floats(0, 1)))
def test_answer_metrics_and_levenshtein_refuse_bad_input_with_input_errors(
    references, answers, threshold
):
    _only_input_errors(lambda: ragmeter.exact_match_score(references, answers))
    _only_input_errors(lambda: ragmeter.token_f1_score(references, answers, average=None))
    _only_input_errors(lambda: ragmeter.anls_score(references, answers, threshold=threshold))
    _only_input_errors(lambda: ragmeter.edit_similarity_score(references, answers))
    _only_input_errors(lambda: levenshtein.pairwise(references, answers))
    _only_input_errors(lambda: levenshtein.rank("abc", answers, limit=2))
    _only_input_errors(lambda: levenshtein.distance(references, answers))
