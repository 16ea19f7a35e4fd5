"""Hostile inputs to the public API: each is refused with an input error that names the argument
and the value (a ``RagmeterError`` that is also a ``ValueError`` or ``TypeError``), or gives the
value an independent oracle gives; never a crash, a hang, a raw exception of another library or a
silently wrong number.

One test per defect found by probing the API with wrong types, damaged files, absurd options and
concurrent mutation. The tests marked ``xfail(strict=True)`` are defects whose fix belongs in the
Rust core (or in a module being edited elsewhere); each reason names the defect.
"""

from __future__ import annotations

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.feather
import pytest
import pytrec_eval

import ragmeter
from ragmeter import (
    InputTypeError,
    InvalidInputError,
    RagmeterError,
)
from ragmeter.cli import main

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN = "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d3 1 1.0 r\n"


def input_error(error: BaseException) -> bool:
    """The project's rule: a RagmeterError that is also a ValueError or a TypeError."""
    return isinstance(error, RagmeterError) and isinstance(error, ValueError | TypeError)


@pytest.fixture
def trec(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


# -- measure names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        # A gain level beyond 64 bits reached the core as an OverflowError.
        ("ndcg.99999999999999999999=1", r"levels are judged grades from 0 to 9223372036854775807"),
        ("nDCG(gains={100000000000000000000000: 1})@5", r"gains are keyed by grades from 0 to"),
        # Repeated parameters were read silently (the last or an undefined mix of both).
        ("ndcg.1=1,1=2", r"the gain of level 1 is given twice"),
        ("P(rel=1, rel=2)@5", r"the parameter rel is given twice"),
        ("nDCG(gains={1: 1, 1: 2})@5", r"a key of gains is given twice"),
        ("rbp.p=0.5,p=0.6", r"'p' is given twice"),
        # A cutoff of more than 4300 digits raised int()'s own ValueError.
        ("P@" + "1" * 5000, r"the cutoff k must be a positive integer from 1 to"),
    ],
)
def test_malformed_measure_parameters_are_refused_by_name(name, message):
    with pytest.raises(InvalidInputError, match=message) as caught:
        ragmeter.ranking_metrics({"q1": {"d1": 1}}, {"q1": ["d1"]}, metrics=[name])
    assert input_error(caught.value)
    assert str(caught.value).startswith("metrics: ")


@pytest.mark.parametrize("name", ["set_F.-2", "SetF(beta=-1)", "SetF(beta=-0.5)"])
def test_set_f_with_a_negative_beta_is_refused(name):
    # beta = -2 gave -inf (beta P + R = 0), beta = -1 gave 0: no F measure has a negative beta.
    qrels, run = {"q1": {"d1": 1}}, {"q1": ["d1", "d2"]}
    with pytest.raises(InvalidInputError, match=r"beta must be >= 0"):
        ragmeter.ranking_metrics(qrels, run, metrics=[name])


def test_set_f_with_a_valid_beta_equals_pytrec_eval():
    qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 2}}
    run = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d2": 1.0, "d4": 0.5}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"set_F"}).evaluate(run)
    ours = ragmeter.ranking_metrics(qrels, run, metrics=["set_F", "SetF(beta=0)"], average=None)
    assert ours["set_F"] == {q: expected[q]["set_F"] for q in qrels}
    # beta = 0 weighs recall not at all: F is the precision of the retrieved set.
    assert ours["SetF(beta=0)"] == {"q1": 0.5, "q2": 0.5}


def test_the_command_refuses_a_gain_level_beyond_64_bits(trec, capsys):
    qrels, run = trec
    assert main(["evaluate", "-m", "ndcg.99999999999999999999=1", str(qrels), str(run)]) == 2
    assert "levels are judged grades" in capsys.readouterr().err


# -- options of any size --------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"max_docs": 10**5000},
        {"n_threads": 10**5000},
        {"relevance_threshold": 10**5000},
        {"zero_division": 10**5000},
    ],
)
def test_options_with_ints_too_long_to_print_are_refused_naming_the_option(options):
    # An int of more than 4300 digits made the message itself raise ValueError (repr fails),
    # and zero_division raised OverflowError.
    (name,) = options
    with pytest.raises(InvalidInputError, match=rf"^{name}: .*an int of 16610 bits"):
        ragmeter.ranking_metrics({"q": {"d": 1}}, {"q": ["d"]}, metrics=["map"], **options)


# -- tables ---------------------------------------------------------------------------------

QRELS_TABLE = pa.table(
    {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3"], "relevance": [1, 0, 2]}
)
RUN_TABLE = pa.table(
    {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3"], "score": [2.0, 1.0, 1.0]}
)


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"query_id": ["q1", 1, "q2"], "doc_id": ["d1", "d2", "d3"], "score": 1.0}),
        pd.DataFrame(
            {
                "query_id": ["q1", "q1", "q2"],
                "doc_id": ["d1", "d2", "d3"],
                "score": pd.Series([2.0, "x", 1.0], dtype=object),
            }
        ),
    ],
)
def test_dataframe_columns_pyarrow_cannot_type_are_input_errors(frame):
    # pyarrow's ArrowTypeError / ArrowInvalid escaped, naming neither the argument nor what to do.
    with pytest.raises(InputTypeError, match=r"^y_pred: a column of the DataFrame") as caught:
        ragmeter.ranking_metrics(QRELS_TABLE.to_pandas(), frame, metrics=["map"])
    assert "Conversion failed for column" in str(caught.value)


def test_a_dataframe_with_a_repeated_column_is_refused_by_name():
    frame = pd.DataFrame([["q1", "d1", 1.0, 2.0]], columns=["query_id", "doc_id", "score", "score"])
    with pytest.raises(InvalidInputError, match=r"more than one column named 'score'"):
        ragmeter.ranking_metrics(QRELS_TABLE.to_pandas(), frame, metrics=["map"], missing="skip")


def test_a_polars_lazy_frame_is_refused_with_collect():
    # It was reported as "y_true is a table ... not with a sequence of queries".
    lazy = pl.from_arrow(RUN_TABLE).lazy()
    with pytest.raises(InputTypeError, match=r"y_pred is a polars LazyFrame.*y_pred\.collect\(\)"):
        ragmeter.ranking_metrics(pl.from_arrow(QRELS_TABLE), lazy, metrics=["map"])
    with pytest.raises(InputTypeError, match=r"y_true is a polars LazyFrame"):
        ragmeter.ranking_metrics(lazy, {"q1": ["d1"]}, metrics=["map"])


def test_a_table_with_a_sequence_names_the_sequence():
    with pytest.raises(InputTypeError, match=r"y_pred is a series \(Series\)"):
        ragmeter.ranking_metrics(pl.from_arrow(QRELS_TABLE), pl.Series([1, 2]), metrics=["map"])
