"""Hostile inputs to the public API: each is refused with an input error that names the argument
and the value (a ``RagmeterError`` that is also a ``ValueError`` or ``TypeError``), or gives the
value an independent oracle gives; never a crash, a hang, a raw exception of another library or a
silently wrong number.

One test per defect found by probing the API with wrong types, damaged files, absurd options and
concurrent mutation, in the Python modules and in the Rust core.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
import os
import threading
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.feather
import pyarrow.parquet as pq
import pytest
import pytrec_eval

import ragmeter
import ragmeter.distributed as distributed
import ragmeter.io as rio
from ragmeter import (
    InputFileError,
    InputTypeError,
    InvalidInputError,
    RagmeterError,
    TrecFormatError,
    levenshtein,
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


# -- paths ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "error", "message"),
    [
        (None, InputTypeError, r"^path: expected the path of a file .*got NoneType"),
        (3, InputTypeError, r"^path: expected the path of a file .*got int"),
        (["run.txt"], InputTypeError, r"^path: expected the path of a file .*got list"),
        ("", InvalidInputError, r"^path: the path is empty"),
        ("run\x00.txt", InvalidInputError, r"^path: the path 'run\\x00.txt' holds a NUL"),
    ],
)
def test_a_path_of_the_wrong_kind_is_an_input_error(path, error, message):
    # These were plain TypeError/ValueError/OSError ("expected str, bytes or os.PathLike").
    for read in (ragmeter.read_trec_run, ragmeter.read_trec_qrels):
        with pytest.raises(error, match=message):
            read(path)


def test_an_open_file_is_refused_with_its_path_asked_for(trec):
    with open(trec[1]) as handle, pytest.raises(InputTypeError, match=r"pass its path instead"):
        ragmeter.read_trec_run(handle)


def test_bytes_paths_are_read(trec):
    assert ragmeter.read_trec_run(os.fsencode(trec[1])) == ragmeter.read_trec_run(trec[1])
    assert rio.read_run(os.fsencode(trec[1])) == ragmeter.read_trec_run(trec[1])


def test_a_missing_file_is_a_file_not_found_error_and_an_input_error(trec, tmp_path):
    missing = tmp_path / "nope.txt"
    for call, argument in [
        (lambda: ragmeter.read_trec_run(missing), "path"),
        (lambda: ragmeter.evaluate_trec(trec[0], missing), "run_path"),
        (lambda: ragmeter.evaluate_trec(missing, trec[1]), "qrels_path"),
        (lambda: rio.read_qrels(missing), "qrels"),
        (lambda: rio.evaluate(trec[0], missing), "run"),
    ]:
        with pytest.raises(FileNotFoundError) as caught:
            call()
        assert input_error(caught.value) and isinstance(caught.value, InputFileError)
        assert caught.value.errno == 2 and caught.value.filename == str(missing)
        assert f"{argument}: No such file or directory" in str(caught.value)


def test_other_os_errors_name_the_argument(tmp_path):
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    with pytest.raises(InputFileError, match=r"Errno 40\] path: Too many levels") as caught:
        ragmeter.read_trec_run(loop)
    assert isinstance(caught.value, OSError | ValueError)


def run_in_thread(call, timeout=10.0):
    """``call()``'s exception, raising AssertionError if it is still running after ``timeout``
    seconds (a hang: the daemon thread is left behind)."""
    outcome = {}

    def target():
        try:
            outcome["value"] = call()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the call did not return: it hangs"
    return outcome.get("error")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_diversity_qrels_from_a_fifo_are_refused_without_waiting(tmp_path, trec):
    # read_trec_qrels(subtopics=True) opened the FIFO before checking it, waiting for a writer
    # forever (and evaluate_trec with a diversity measure did the same).
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)
    error = run_in_thread(lambda: ragmeter.read_trec_qrels(fifo, subtopics=True))
    assert isinstance(error, InvalidInputError) and "is a FIFO" in str(error)
    error = run_in_thread(lambda: ragmeter.evaluate_trec(fifo, trec[1], metrics=["alpha_nDCG@5"]))
    assert isinstance(error, InvalidInputError) and "is a FIFO" in str(error)


def test_subtopics_must_be_a_bool(trec):
    with pytest.raises(InputTypeError, match=r"subtopics: must be True or False"):
        ragmeter.read_trec_qrels(trec[0], subtopics="yes")


# -- files in other formats -----------------------------------------------------------------


def test_an_empty_directory_is_not_read_as_an_empty_run(tmp_path, trec):
    # An empty directory was read as a Parquet dataset of no rows: {} (and missing="zero"
    # would then score every judged query 0).
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InvalidInputError, match=r"is a directory without Parquet files"):
        rio.read_run(empty)
    with pytest.raises(InvalidInputError, match=r"is a directory without Parquet files"):
        rio.evaluate(trec[0], empty, metrics=["map"], complete=True)


def damaged_parquet(path):
    pq.write_table(RUN_TABLE, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + data[-8:])


def damaged_arrow(path):
    pa.feather.write_feather(RUN_TABLE, path)
    path.write_bytes(path.read_bytes()[:100])


@pytest.mark.parametrize(
    ("name", "write", "what"),
    [
        ("run.parquet", damaged_parquet, "Parquet"),
        ("run.arrow", damaged_arrow, "Arrow IPC / Feather"),
        ("run.csv", lambda p: p.write_text("query_id,doc_id,score\nq1,d1\n"), "CSV"),
        ("run.tsv", lambda p: p.write_text("query_id\tdoc_id\tscore\nq1\td1\n"), "TSV"),
    ],
)
def test_damaged_table_files_are_input_errors_naming_the_file(tmp_path, trec, name, write, what):
    # pyarrow's ArrowInvalid escaped ("Could not open Parquet input source", "CSV parse error").
    path = tmp_path / name
    write(path)
    for call in (lambda: rio.read_run(path), lambda: rio.evaluate(trec[0], path, metrics=["map"])):
        with pytest.raises(InvalidInputError, match=rf"{name}: cannot be read as {what}"):
            call()


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_files_holding_nan_or_infinity_are_refused(tmp_path, constant):
    # Python's json reads them: read_qrels returned a NaN grade, read_run an infinite score.
    path = tmp_path / "run.json"
    path.write_text(f'{{"q1": {{"d1": {constant}, "d2": 1}}}}')
    for read in (rio.read_run, rio.read_qrels):
        with pytest.raises(InvalidInputError, match=rf"holds {constant}, which is not a JSON"):
            read(path)


def test_writing_a_run_to_a_directory_is_refused_by_name(tmp_path):
    with pytest.raises(InvalidInputError, match=r"is a directory; name the file to write"):
        ragmeter.write_trec_run({"q": {"d": 1.0}}, tmp_path)


# -- significance tests ---------------------------------------------------------------------

SYSTEM_A = {"map": {"q1": 0.5, "q2": 1.0, "q3": 0.75}}
SYSTEM_B = {"map": {"q1": 0.25, "q2": 0.5, "q3": 0.5}}


@pytest.mark.parametrize(
    "call",
    [
        # These aborted the process: "memory allocation of 70312500000 bytes failed".
        lambda: ragmeter.compare(SYSTEM_A, SYSTEM_B, n_bootstrap=10**12),
        lambda: ragmeter.bootstrap_confidence_interval([0.1, 0.2], n_resamples=10**12),
        lambda: ragmeter.compare(SYSTEM_A, SYSTEM_B, test="bootstrap", n_resamples=10**12),
        lambda: ragmeter.paired_bootstrap_test([0.1, 0.2], n_resamples=10**12),
        lambda: ragmeter.sign_flip_test([0.1] * 40, n_resamples=10**12),
        lambda: ragmeter.compare_many({"a": SYSTEM_A, "b": SYSTEM_B}, n_resamples=10**5000),
    ],
)
def test_resample_counts_beyond_the_limit_are_refused_before_any_work(call):
    with pytest.raises(InvalidInputError, match=r"^n_(resamples|bootstrap): at most 100,000,000"):
        call()


def test_a_bootstrap_interval_that_would_not_fit_in_memory_is_refused():
    with pytest.raises(InvalidInputError, match=r"GiB of means in memory"):
        ragmeter.bootstrap_confidence_interval(np.zeros((100, 3)), n_resamples=10**7)


TESTS = [
    ragmeter.sign_flip_test,
    ragmeter.paired_t_test,
    ragmeter.wilcoxon_test,
    ragmeter.paired_bootstrap_test,
    ragmeter.bootstrap_confidence_interval,
]


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize(
    ("differences", "error", "message"),
    [
        # Text was converted to numbers, or raised numpy's own errors.
        (["0.5", "0.25"], InputTypeError, r"not real numbers"),
        ("0.5", InputTypeError, r"got a str"),
        ([1j, 2.0], InputTypeError, r"not real numbers"),
        ([[0.1, 0.2], [0.3]], InvalidInputError, r"the rows have different lengths"),
        ((x for x in [0.1, 0.2]), InputTypeError, r"got generator"),
        ({"q1": 0.1}, InputTypeError, r"got dict"),
        (None, InputTypeError, r"got NoneType"),
    ],
)
def test_differences_that_are_not_numbers_are_refused(test, differences, error, message):
    with pytest.raises(error, match=rf"^differences: .*{message}"):
        test(differences)


@pytest.mark.parametrize("test", [ragmeter.paired_t_test, ragmeter.wilcoxon_test])
def test_tests_of_no_pair_are_refused_as_the_sign_flip_test_refuses_them(test):
    # The t-test returned df = -1 (an invented value), the Wilcoxon test a NaN result.
    with pytest.raises(InvalidInputError, match=r"needs at least one pair"):
        test([])
    with pytest.raises(InvalidInputError, match=r"needs at least one pair"):
        ragmeter.sign_flip_test([])


def exact_t(differences):
    """t of a paired t-test in exact rational arithmetic (an oracle without rounding)."""
    d = [Fraction(x) for x in differences]
    n = len(d)
    mean = sum(d) / n
    variance = sum((x - mean) ** 2 for x in d) / (n - 1)
    # t**2 = n mean**2 / variance: a ratio of moderate size, whatever the size of d.
    return math.copysign(math.sqrt(n * mean**2 / variance), mean)


@pytest.mark.parametrize(
    "differences", [[1e-320, -1e-320, 2e-320], [1e-310, 3e-310, -2e-310, 5e-311]]
)
def test_tiny_differences_do_not_underflow_into_a_significant_t(differences):
    # The squares underflowed to 0: sd = 0, t = inf and p = 0, "significant" for differences
    # whose t is below 1.
    result = ragmeter.paired_t_test(differences)
    assert math.isfinite(result.statistic) and result.p_value > 0.3
    assert result.statistic == pytest.approx(exact_t(differences), rel=1e-2)


def test_huge_differences_do_not_overflow_the_mean():
    differences = [1e308, -1e308, 1e308]
    result = ragmeter.paired_t_test(differences)
    assert result.mean == pytest.approx(1e308 / 3)
    assert result.statistic == pytest.approx(exact_t(differences))


def test_differences_of_ordinary_size_keep_their_exact_t():
    d = [0.5, 0.25, 0.0, 0.125]
    assert ragmeter.paired_t_test(d).statistic == exact_t(d) == 2.04939015319192


def test_compare_refuses_metrics_that_are_not_names():
    with pytest.raises(InputTypeError, match=r"metrics: expected a metric name .*got int"):
        ragmeter.compare(SYSTEM_A, SYSTEM_B, metrics=5)
    with pytest.raises(InputTypeError, match=r"metrics: a metric name is a str, got None"):
        ragmeter.compare(SYSTEM_A, SYSTEM_B, metrics=[None])


@pytest.mark.parametrize(
    "value", [10**400, 10**5000, np.complex128(1 + 2j)], ids=["1e400", "5000-digits", "complex"]
)
def test_per_query_values_that_are_not_finite_floats_are_refused(value):
    # 10**400 raised OverflowError; a NumPy complex was read as its real part.
    candidate = {"map": {"q1": value, "q2": 1.0, "q3": 0.5}}
    with pytest.raises(InvalidInputError, match=r"^values: 'map' holds "):
        ragmeter.compare(candidate, SYSTEM_B)


def test_a_seed_too_long_to_print_is_refused():
    with pytest.raises(InvalidInputError, match=r"random_state: must lie in \[0, 2\*\*63\)"):
        ragmeter.compare(SYSTEM_A, SYSTEM_B, random_state=10**5000)


def test_adjust_p_values_refuses_text_and_tukey_refuses_none():
    with pytest.raises(InputTypeError, match=r"^p_values: got a str"):
        ragmeter.adjust_p_values("0.1")
    with pytest.raises(InputTypeError, match=r"^groups: expected a sequence"):
        ragmeter.tukey_hsd(None)
    with pytest.raises(InvalidInputError, match=r"^groups\[1\]: holds an infinite value"):
        ragmeter.tukey_hsd([[1.0, 2.0], [3.0, math.inf]])


def test_comparison_reports_that_are_not_mappings_are_refused():
    with pytest.raises(InvalidInputError, match=r"expected a comparison report: a mapping"):
        ragmeter.Comparison.from_dict(None)
    with pytest.raises(InvalidInputError, match=r"expected a multiple comparison report"):
        ragmeter.MultipleComparison.from_dict([1, 2])


SAVED_COMPARISON = Path(__file__).parent / "data" / "comparison_format2_wilcoxon.json"


@pytest.mark.parametrize(
    ("field", "named"),
    [
        ('"delta": 0.1', "delta"),
        ('"p_value": 0.125', "p_value"),
        ('"confidence_level": 0.95', "confidence_level"),
        ('"alpha": 0.05', "alpha"),
        ('"ci_low": 0.030000000000000006', "ci_low"),
        ("0.050000000000000044", "differences"),
    ],
)
def test_a_saved_comparison_holding_a_4000_digit_integer_is_refused_by_field(
    tmp_path, capsys, field, named
):
    # JSON integers have no bound: float() of one raised OverflowError, a traceback from
    # `ragmeter report`.
    text = SAVED_COMPARISON.read_text(encoding="utf-8")
    assert field in text
    key = field.split(":")[0] + ": " if ":" in field else ""
    path = tmp_path / "comparison.json"
    path.write_text(text.replace(field, key + "9" * 4000, 1))
    with pytest.raises(InvalidInputError, match=rf"comparison\.json: .*{named}") as caught:
        ragmeter.Comparison.read(path)
    assert input_error(caught.value)
    assert main(["report", str(path), "-o", str(tmp_path / "report.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ragmeter: error: ") and named in err and "Traceback" not in err


# -- answers and edit distances -------------------------------------------------------------


def shrink_while_scoring(score, n=50_000, rounds=15):
    """Errors of ``score(items)`` while another thread shrinks and rewrites ``items``."""
    items = ["the quick brown fox"] * n
    stop = threading.Event()

    def mutate():
        i = 0
        while not stop.is_set():
            i += 1
            if len(items) > 1000:
                items.pop()
            items[i % len(items)] = "x" * (i % 30)

    thread = threading.Thread(target=mutate)
    thread.start()
    errors = []
    try:
        for _ in range(rounds):
            try:
                score(items)
            except InvalidInputError:
                pass  # the lengths differ: refused, as they should be
            except Exception as error:
                errors.append(repr(error))
    finally:
        stop.set()
        thread.join()
    return errors


@pytest.mark.parametrize(
    "score",
    [
        lambda items: ragmeter.token_f1_score(items, ["quick fox"] * len(items)),
        lambda items: levenshtein.pairwise(items, list(items)),
        lambda items: levenshtein.rank("quick", items, limit=3),
    ],
)
def test_a_list_shrunk_by_another_thread_is_scored_as_read_not_indexed_out_of_range(score):
    # The core read the caller's list by index while the GIL was released: IndexError.
    assert shrink_while_scoring(score) == []


def test_a_rank_limit_beyond_any_number_of_choices_asks_for_all():
    # OverflowError: int too big to convert.
    assert levenshtein.rank("a", ["a", "b"], limit=10**30) == levenshtein.rank("a", ["a", "b"])


# -- retrieval harness ----------------------------------------------------------------------


@pytest.mark.parametrize("queries", [None, "abc", 5])
def test_evaluate_retrieval_refuses_queries_of_the_wrong_type(queries):
    with pytest.raises(InputTypeError, match=r"^queries: expected"):
        ragmeter.evaluate_retrieval(lambda q: ["d"], queries, {"q": {"d": 1}})


# -- judges ---------------------------------------------------------------------------------


@pytest.fixture
def no_network(monkeypatch):
    """Every connection attempt recorded and refused."""
    import socket

    attempts = []

    def refuse(self, address, *args):
        attempts.append(address)
        raise OSError(f"network blocked: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAGMETER_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return attempts


def judge_sample():
    from ragmeter.judges import Sample

    return Sample("Where is Paris?", "Paris is in France.", ["Paris is the capital of France."])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"temperature": -1}, r"^temperature must be None or a finite number >= 0"),
        ({"temperature": math.nan}, r"^temperature must be None or a finite number"),
        ({"temperature": "0"}, r"^temperature must be None or a finite number"),
        ({"seed": 1.5}, r"^seed must be None or an integer of 64 bits"),
        ({"seed": 2**80}, r"^seed must be None or an integer of 64 bits"),
        ({"language": 5}, r"^language must be None"),
        ({"retry_errors": "yes"}, r"^retry_errors must be True or False"),
        ({"max_parse_retries": "2"}, r"^max_parse_retries must be an integer"),
        ({"cache_mode": "x"}, r"^cache_mode must be None or one of 'read_write'"),
        ({"prices": 5}, r"^prices must be a mapping"),
        ({"dry_run": "yes"}, r"^dry_run must be True or False"),
    ],
)
def test_judge_options_out_of_range_are_refused_before_any_call(no_network, options, message):
    # Each was accepted silently (temperature="0" would be sent as a string; prices=5 raised
    # AttributeError).
    from ragmeter.judges import RuleJudge, evaluate

    with pytest.raises(InvalidInputError, match=message):
        evaluate([judge_sample()], ["faithfulness"], judge=RuleJudge(), progress=False, **options)
    assert no_network == []


def test_judges_reach_no_network_unless_one_is_configured(no_network):
    from ragmeter.judges import JudgeConfigurationError, RuleJudge, evaluate

    with pytest.raises(JudgeConfigurationError):
        evaluate([judge_sample()], ["faithfulness"], progress=False)
    results = evaluate([judge_sample()], ["faithfulness"], judge=RuleJudge(), progress=False)
    assert results.means() == {"faithfulness": 1.0}
    assert no_network == []


def test_agreement_and_judge_json_refuse_inputs_of_the_wrong_type():
    from ragmeter.judges import RuleJudge, cohen_kappa, judge_json

    with pytest.raises(InvalidInputError, match=r"^a must be a sequence of ratings"):
        cohen_kappa(None, [1])
    # NaN was counted as a category of its own (NaN != NaN): kappa 0.0.
    with pytest.raises(InvalidInputError, match=r"^a\[0\] is nan: use None"):
        cohen_kappa([math.nan, 1], [1, 1])
    with pytest.raises(InvalidInputError, match=r"^messages must be a list of chat messages"):
        judge_json(RuleJudge(), None)
    with pytest.raises(InvalidInputError, match=r"^messages\[0\] must be a"):
        judge_json(RuleJudge(), ["hello"])


# -- defects of the Rust core, fixed there ---------------------------------------------------


def test_a_nul_byte_in_a_trec_run_line_is_refused(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d\x001 1 2.0 r\n")
    with pytest.raises(TrecFormatError, match=r"run\.txt:1"):
        ragmeter.read_trec_run(path)


def test_a_byte_order_mark_does_not_change_the_first_query_id(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"\xef\xbb\xbf" + RUN.encode())
    try:
        run = ragmeter.read_trec_run(path)
    except TrecFormatError:
        return
    assert run == {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}


@pytest.mark.parametrize(("which", "extra"), [(1, "q1 Q0 d1 3 0.5 r\n"), (0, "q1 0 d1 0\n")])
def test_evaluate_trec_names_the_file_and_line_of_a_repeated_document(trec, which, extra):
    path = trec[which]
    path.write_text(path.read_text() + extra)
    with pytest.raises(InvalidInputError, match=rf"{path.name}:4"):
        ragmeter.evaluate_trec(*trec, metrics=["map"])


def test_a_table_id_that_is_not_utf8_names_the_argument():
    offsets = pa.py_buffer(np.array([0, 2, 2, 4], dtype="int32").tobytes())
    ids = pa.StringArray.from_buffers(3, offsets, pa.py_buffer(b"\xff\xfeq2"))
    run = pa.table({"query_id": ids, "doc_id": ["d1", "d2", "d3"], "score": [2.0, 1.0, 1.0]})
    with pytest.raises(InvalidInputError, match=r"^y_pred: "):
        ragmeter.ranking_metrics(QRELS_TABLE, run, metrics=["map"], missing="skip")


@pytest.mark.parametrize("query_id", [None, 1.5, ("q", 1)])
def test_query_ids_that_are_not_str_or_int_are_refused(query_id):
    with pytest.raises(InputTypeError, match=r"query ids must be str or int"):
        ragmeter.ranking_metrics({query_id: {"d": 1}}, {query_id: ["d"]}, metrics=["map"])


def test_the_mixed_diversity_judgments_message_is_one_sentence():
    with pytest.raises(InputTypeError) as caught:
        ragmeter.ranking_metrics(
            {"q1": {"d1": {"s1": 1}, "d2": 1}}, {"q1": ["d1"]}, metrics=["alpha_nDCG@2"]
        )
    assert "  " not in str(caught.value)


@pytest.mark.parametrize(
    ("which", "table", "expected"),
    [
        ("score", RUN_TABLE.set_column(2, "score", pa.array([2**64 - 1, 2, 1], pa.uint64())), 1.0),
        (
            "rank",
            RUN_TABLE.drop(["score"]).append_column("rank", pa.array([2**63, 1, 1], pa.uint64())),
            0.75,
        ),
    ],
)
def test_a_large_unsigned_value_column_is_not_called_an_id(which, table, expected):
    # Read as 64-bit floats, as the TREC and dict paths read values, or refused naming the column.
    try:
        results = ragmeter.ranking_metrics(QRELS_TABLE, table, metrics=["map"])
    except InvalidInputError as error:
        assert "the id" not in str(error) and which in str(error)
    else:
        assert results["map"] == expected


@pytest.mark.parametrize("value", [10**400, 10**5000], ids=["1e400", "5000-digits"])
def test_an_int_beyond_the_float_range_is_named_as_such(value):
    with pytest.raises(InvalidInputError, match=r"(too large|does not fit)"):
        ragmeter.ranking_metrics({"q": {"d": 1}}, {"q": {"d": value}}, metrics=["map"])


def test_a_query_id_too_long_to_print_is_an_input_error():
    huge = 10**5000
    with pytest.raises(RagmeterError):
        ragmeter.ranking_metrics({huge: {"d": 1}}, {huge: ["d"]}, metrics=["map"])


def test_gzip_and_plain_runs_read_alike(tmp_path):
    # Not a defect: a control for the compressed readers probed with truncated files.
    plain, packed = tmp_path / "run.txt", tmp_path / "run.gz"
    plain.write_text(RUN)
    packed.write_bytes(gzip.compress(RUN.encode()))
    assert ragmeter.read_trec_run(packed) == ragmeter.read_trec_run(plain)
    packed.write_bytes(gzip.compress(RUN.encode() * 50)[:-20])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match=r"damaged or truncated"):
            ragmeter.read_trec_run(packed)


# -- the command ----------------------------------------------------------------------------


def test_compare_refuses_a_run_file_given_twice(trec, capsys):
    # The two names collapsed into one system: "systems: a comparison needs at least 2 systems".
    qrels, run = trec
    assert main(["compare", str(qrels), str(run), str(run)]) == 2
    assert f"runs: {str(run)!r} is given twice" in capsys.readouterr().err


def test_writing_into_a_missing_directory_names_the_directory(trec, tmp_path, capsys):
    # The error named the temporary file ('.out.txt.<random>.tmp') the write goes through.
    qrels, run = trec
    target = tmp_path / "no" / "out.txt"
    assert main(["evaluate", "-o", str(target), str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert "its directory does not exist" in err and ".tmp" not in err
    with pytest.raises(FileNotFoundError, match=r"its directory does not exist"):
        ragmeter.write_trec_run({"q": {"d": 1.0}}, target)


# -- retrieval indexes ----------------------------------------------------------------------


def test_a_top_k_beyond_64_bits_is_refused_and_the_largest_searches():
    from ragmeter import CorpusDocument, RetrievalConfig, RetrievalIndex

    # RetrievalConfig(top_k=10**30) was accepted and every search raised OverflowError.
    with pytest.raises(InvalidInputError, match=r"^top_k: must be at most 9223372036854775807"):
        RetrievalConfig(top_k=10**30)
    docs = [CorpusDocument("d1", "a.txt", text="paris is in france")]
    index = RetrievalIndex(config=RetrievalConfig(top_k=2**63 - 1)).build(docs)
    assert [hit.doc.doc_id for hit in index.search("paris").hits] == ["d1"]
    with pytest.raises(InputTypeError, match=r"^documents: expected a sequence of CorpusDocument"):
        RetrievalIndex().build(None)


# -- Dask -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda q, r: distributed.evaluate_runs(q, None),
            "run_paths: expected a list of paths, got NoneType",
        ),
        (
            lambda q, r: distributed.evaluate_runs(None, [r]),
            "qrels_path: expected the path of a file",
        ),
        (
            lambda q, r: distributed.evaluate_runs(q, [None]),
            r"run_paths\[0\]: expected the path of a file",
        ),
        (
            lambda q, r: distributed.evaluate_partitioned(q, None),
            "run: expected a path or a list of partition paths",
        ),
        (
            lambda q, r: distributed.evaluate_partitioned(None, r),
            "qrels: expected the path of a file",
        ),
    ],
)
def test_dask_entry_points_refuse_paths_of_the_wrong_type(trec, call, message):
    # Each raised a plain TypeError ("'NoneType' object is not iterable", "expected str, bytes
    # or os.PathLike object"), before any task was made.
    with pytest.raises(InputTypeError, match=rf"^{message}"):
        call(*trec)


# -- issue 25: readers refuse what they cannot read exactly, writers keep the old file -------
# (The format-by-format contract is tests/test_reader_contract.py; these are the findings.)

import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402

from _hostile_files import RUN as HOSTILE_RUN  # noqa: E402
from _hostile_files import pzstd_like, run_table, trec_text, zstd_frame  # noqa: E402

from ragmeter.io.trec import DEFAULT_MAX_DECOMPRESSED_BYTES  # noqa: E402


def run_python(
    code: str, timeout: float = 120, **environment: str
) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter (for what may crash or must change process limits),
    which imports the test helpers; ``environment`` is added to its environment."""
    tests = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": path, **environment},
    )


def as_floats(run):
    return {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()}


def test_an_arrow_stream_cut_while_it_is_read_is_not_a_crash(tmp_path):
    # Memory-mapped, the stream's pages past the cut raised SIGBUS (4 of 8 tries).
    path = tmp_path / "run.arrows"
    done = run_python(
        """
        import os, pyarrow as pa
        from _hostile_files import run_table
        from ragmeter import RagmeterError, _core
        from ragmeter._inputs import TableColumns
        from ragmeter.io._formats import detect
        n = 20_000
        table = pa.table(
            {
            "query_id": [f"q{i // 100}" for i in range(n)],
             "doc_id": [f"d{i}" for i in range(n)],
             "score": [float(i) for i in range(n)]}
        )
        path = PATH
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as out:
            for batch in table.to_batches(max_chunksize=64):
                out.write_batch(batch)
        columns = TableColumns()
        reader = detect(path, columns).open(path, columns, "run")
        os.truncate(path, 4096)
        try:
            got = _core.read_table_dict(reader, columns.spec("run", path, "run"), "run")
            print("read", sum(len(d) for d in got.values()))
        except RagmeterError as error:
            print("refused", error)
        """.replace("PATH", repr(str(path)))
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # Read into memory when opened: the cut comes too late to change what is read.
    assert done.stdout.strip() == "read 20000", done.stdout


def test_an_arrow_stream_without_its_end_marker_is_refused(tmp_path):
    path = tmp_path / "run.arrows"
    table = run_table()
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as out:
        out.write_table(table)
    data = path.read_bytes()
    path.write_bytes(data[:-8])  # cut at a batch boundary: a valid-looking shorter stream
    with pytest.raises(InvalidInputError, match="end-of-stream marker"):
        rio.read_run(path)


ALLOCATION_LIMITED = """
    import re, resource
    import numpy as np, pyarrow as pa
    import ragmeter.io as rio
    n = 4_000_000
    ids = np.arange(n, dtype=np.int64)
    run = pa.table({"query_id": ids // 1000, "doc_id": ids, "score": np.linspace(1, 0, n)})
    qrels = pa.table(
        {"query_id": ids // 1000, "doc_id": ids, "relevance": np.ones(n, dtype=np.int64)}
    )
    # The pools' threads (their stacks and malloc arenas are address space too) and pyarrow's
    # export of tables exist before the limit: the same calls first, on 100,000 rows (more
    # than one scan task's 65,536, so that the reading pipeline starts its pool too).
    rio.read_run(run.slice(0, 100_000), n_threads=2)
    rio.evaluate(qrels.slice(0, 100_000), run.slice(0, 100_000), metrics=["map"], n_threads=2)
    size = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1))
    # 32 MiB of address space more than now: less than the core's import of 4 M rows needs.
    resource.setrlimit(resource.RLIMIT_AS, (size * 1024 + (32 << 20), resource.RLIM_INFINITY))
    try:
        CALL
    except MemoryError as error:
        print("memory-error:", error)
    else:
        print("read")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
@pytest.mark.parametrize(
    "call",
    [
        "rio.read_run(run, n_threads=2)",
        "rio.evaluate(qrels, run, metrics=['map'], n_threads=2)",
    ],
    ids=["read_run", "evaluate"],
)
def test_an_allocation_failure_importing_a_table_is_an_error_not_an_abort(call):
    # It aborted the process (SIGABRT) with "memory allocation of N bytes failed".
    done = run_python(ALLOCATION_LIMITED.replace("CALL", call))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("memory-error:"), done.stdout
    # What did not fit, and the cause (it was an InvalidInputError, as if the input were wrong).
    assert "not enough memory for run: " in done.stdout
    assert "RLIMIT_AS" in done.stdout


def test_a_zstd_run_whose_content_changed_is_refused_by_its_checksum(tmp_path):
    # 103 of 822 one-bit-corrupted .zst runs were evaluated with other numbers.
    data = bytearray(zstd_frame(trec_text()))
    path = tmp_path / "run.txt.zst"
    path.write_bytes(bytes(data))
    assert as_floats(rio.read_run(path)) == HOSTILE_RUN
    data[-1] ^= 0x01  # the checksum itself: the content decodes, its hash differs
    path.write_bytes(bytes(data))
    with pytest.raises(InvalidInputError, match="content checksum"):
        rio.read_run(path)


def test_zstd_files_with_skippable_frames_are_read(tmp_path):
    # pzstd's output was refused as "binary data", "NUL byte" or "damaged".
    path = tmp_path / "run.txt.zst"
    path.write_bytes(pzstd_like(trec_text(), parts=4))
    assert as_floats(rio.read_run(path)) == HOSTILE_RUN
    plain, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    plain.write_bytes(trec_text())
    qrels.write_text(
        "".join(f"{q} 0 {d} 1\n" for q in HOSTILE_RUN for d in list(HOSTILE_RUN[q])[::7])
    )
    assert rio.evaluate(qrels, path, metrics=["map"]) == rio.evaluate(qrels, plain, metrics=["map"])


def test_pzstd_output_is_read(tmp_path):
    import shutil

    pzstd = shutil.which("pzstd")
    if pzstd is None:
        pytest.skip("pzstd is not installed (its layout is tested by hand-made frames above)")
    plain = tmp_path / "run.txt"
    big = {f"q{q}": {f"d{d}": float(d) for d in range(3000)} for q in range(4)}
    plain.write_bytes(trec_text(big))
    subprocess.run([pzstd, "-q", "-p", "2", str(plain), "-o", str(tmp_path / "r.zst")], check=True)
    assert rio.read_run(tmp_path / "r.zst") == rio.read_run(plain)


def test_a_parquet_page_whose_bytes_changed_is_refused_by_its_checksum(tmp_path):
    # 96 of 1,676 corrupted files that carry page CRCs were evaluated with other values.
    table = pa.table({"query_id": ["q1"] * 50, "doc_id": [f"d{i}" for i in range(50)],
                      "score": [float(i) for i in range(50)]})  # fmt: skip
    path = tmp_path / "run.parquet"
    pq.write_table(table, path, write_page_checksum=True, compression="none",
                   use_dictionary=False)  # fmt: skip
    data = bytearray(path.read_bytes())
    # 48.0 then 49.0: the page's values (its header's statistics hold 49.0 alone).
    at = bytes(data).index(np.float64(48).tobytes() + np.float64(49).tobytes()) + 8
    data[at + 7] ^= 0x01  # 49.0 becomes another float: only the page CRC can tell
    path.write_bytes(bytes(data))
    with pytest.raises(InvalidInputError, match=r"run\.parquet.*(CRC|checksum)"):
        rio.read_run(path)


@pytest.mark.parametrize("source", ["table", "ipc"])
def test_a_null_stored_in_an_arrow_dictionary_is_refused(source, tmp_path):
    # It became the document id "": MAP 0.667 -> 0.333 with no error.
    ids = pa.array(["d1", None, "d3"]).dictionary_encode(null_encoding="encode")
    assert ids.null_count == 0  # the null is in the dictionary, not in the keys
    run = pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ids, "score": [3.0, 2.0, 1.0]})
    if source == "ipc":
        pyarrow.feather.write_feather(run, tmp_path / "run.arrow")
        run = tmp_path / "run.arrow"
    with pytest.raises(InvalidInputError, match="column 'doc_id' holds 1 null values"):
        rio.read_run(run)


@pytest.mark.parametrize("suffix", [".csv", "table"])
def test_two_score_columns_are_refused_naming_the_column(suffix, tmp_path):
    # The first was used silently (pandas refuses such frames).
    if suffix == ".csv":
        source = tmp_path / "run.csv"
        source.write_text("query_id,doc_id,score,score\nq1,d1,1.0,2.0\n")
    else:
        source = pa.Table.from_arrays(
            [pa.array(["q1"]), pa.array(["d1"]), pa.array([1.0]), pa.array([2.0])],
            names=["query_id", "doc_id", "score", "score"],
        )
    with pytest.raises(InvalidInputError, match="2 columns named 'score'"):
        rio.read_run(source)


def test_a_parquet_schema_that_is_not_utf8_names_the_file(tmp_path):
    # It was a bare UnicodeDecodeError naming no file.
    path = tmp_path / "run.parquet"
    pq.write_table(run_table(), path, store_schema=False)
    path.write_bytes(path.read_bytes().replace(b"doc_id", b"doc\xff\xfed"))
    with pytest.raises(InvalidInputError, match=r"run\.parquet: .*not UTF-8"):
        rio.read_run(path)


def test_the_decompressed_size_limit_refuses_a_bomb_and_can_be_raised(tmp_path):
    # A 1 MB .gz of qrels could reach 1.06 GiB.
    path = tmp_path / "qrels.gz"
    path.write_bytes(gzip.compress(b"".join(b"q1 0 d%d 1\n" % i for i in range(200_000))))
    previous = rio.set_max_decompressed_bytes(1 << 20)
    try:
        with pytest.raises(InvalidInputError) as caught:
            rio.read_qrels(path)
        message = str(caught.value)
        assert "qrels.gz" in message and "1048576 bytes" in message
        assert "set_max_decompressed_bytes" in message
        assert "RAGMETER_MAX_DECOMPRESSED_BYTES" in message
        assert rio.set_max_decompressed_bytes(3 << 20) == 1 << 20
        assert len(rio.read_qrels(path)["q1"]) == 200_000
    finally:
        rio.set_max_decompressed_bytes(None)
    if "RAGMETER_MAX_DECOMPRESSED_BYTES" not in os.environ:
        assert previous == DEFAULT_MAX_DECOMPRESSED_BYTES == 16 << 30


def _compress(data: bytes, compression: str, path) -> None:
    if compression == "zstd":
        with pa.output_stream(str(path), compression="zstd") as out:
            out.write(data)
        return
    module = {"gzip": gzip, "bzip2": bz2, "xz": lzma}[compression]
    path.write_bytes(module.compress(data))


@pytest.mark.parametrize("compression", ["gzip", "bzip2", "xz", "zstd"])
@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_the_decompressed_size_limit_bounds_compressed_csv_and_tsv(
    tmp_path, compression, delimiter
):
    # pyarrow's CSV reader decompressed .csv.gz without the limit the TREC readers apply.
    suffix = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}[compression]
    path = tmp_path / (("run.csv" if delimiter == "," else "run.tsv") + suffix)
    header = delimiter.join(["query_id", "doc_id", "score"]) + "\n"
    rows = "".join(delimiter.join([f"q{i % 7}", f"d{i}", str(i)]) + "\n" for i in range(30_000))
    data = (header + rows).encode()
    _compress(data, compression, path)
    previous = rio.set_max_decompressed_bytes(len(data) // 2)
    try:
        with pytest.raises(InvalidInputError) as caught:
            rio.read_run(path)
        message = str(caught.value)
        assert path.name in message and f"more than {len(data) // 2} bytes" in message
        assert "set_max_decompressed_bytes" in message
        rio.set_max_decompressed_bytes(len(data))
        run = rio.read_run(path)
        assert sum(len(docs) for docs in run.values()) == 30_000
        assert run["q3"]["d10"] == 10.0
    finally:
        rio.set_max_decompressed_bytes(previous)


def test_a_gzip_csv_named_plain_csv_is_read_by_its_content(tmp_path):
    path = tmp_path / "run.csv"
    path.write_bytes(gzip.compress(b"query_id,doc_id,score\nq1,d1,1.5\nq1,d2,0.5\n"))
    assert rio.read_run(path) == {"q1": {"d1": 1.5, "d2": 0.5}}


def test_the_decompressed_size_limit_is_read_from_the_environment(tmp_path):
    path = tmp_path / "qrels.gz"
    path.write_bytes(gzip.compress(b"".join(b"q1 0 d%d 1\n" % i for i in range(20_000))))
    code = f"""
        import ragmeter.io as rio
        from ragmeter import InvalidInputError
        try:
            print(rio.read_qrels({str(path)!r}))
        except InvalidInputError as error:
            print(error)
        """
    done = run_python(code, RAGMETER_MAX_DECOMPRESSED_BYTES="1000")
    assert done.returncode == 0, done.stderr
    assert "decompresses to more than 1000 bytes" in done.stdout
    done = run_python(code, RAGMETER_MAX_DECOMPRESSED_BYTES="a lot")
    assert "RAGMETER_MAX_DECOMPRESSED_BYTES: must be a positive integer" in done.stdout


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "1"])
def test_a_decompressed_size_limit_that_is_not_a_positive_int_is_refused(limit):
    with pytest.raises(InvalidInputError, match="limit: must be a positive number of bytes"):
        rio.set_max_decompressed_bytes(limit)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="threads counted in /proc")
def test_many_distinct_n_threads_leave_a_bounded_number_of_threads(trec):
    # 57 distinct values left 1,182 threads alive.
    done = run_python(
        f"""
        import os, time
        import ragmeter.io as rio
        for n in range(1, 58):
            rio.read_run({str(trec[1])!r}, n_threads=n)
        for _ in range(100):  # dropped pools end their threads asynchronously
            alive = len(os.listdir("/proc/self/task"))
            if alive <= 1 + 57 + 56 + 55 + 54:
                break
            time.sleep(0.05)
        print(alive)
        """
    )
    assert done.returncode == 0, done.stderr
    # At most the four pools most recently used (57, 56, 55 and 54 threads) and the main thread.
    assert int(done.stdout) <= 1 + 57 + 56 + 55 + 54 + 2, done.stdout


BUILDERS_OF_DICTS = {
    # name: (setup, the call that builds dicts in the core, a word its MemoryError names)
    "trec_file": ("", "rio.read_run(path)", "big.run"),
    "arrow_table": (
        "import pyarrow as pa; source = pa.table({'query_id': [f'q{i // 500}' for i in "
        "range(200_000)], 'doc_id': [f'd{i % 500}' for i in range(200_000)], 'score': "
        "[float(-(i % 500)) for i in range(200_000)]})",
        "rio.read_run(source)",
        "rows",
    ),
    # The fusion itself, of runs read once (every buffer it sizes from the input is reserved
    # fallibly: "memory allocation of 65536 bytes failed" aborted it before).
    "fusion": (
        "from ragmeter.fusion import fuse, prepare_runs; base = rio.read_run(path); "
        "prepared = prepare_runs([{q: {f'{r}-{d}': s for d, s in docs.items()} for q, docs in "
        "base.items()} for r in range(5)]); base = None",
        "fuse(prepared, 'rrf')",
        "not enough memory for",
    ),
    # The runs read into the core for fusion (prepare_runs).
    "fusion_runs": (
        "from ragmeter.fusion import prepare_runs; base = rio.read_run(path); "
        "runs = [{q: {f'{r}-{d}': s for d, s in docs.items()} for q, docs in "
        "base.items()} for r in range(5)]; base = None",
        "prepare_runs(runs)",
        "not enough memory for",
    ),
    # The fused rows as dicts (FusedRun.to_dict).
    "fused_run": (
        "from ragmeter.fusion import fuse; fused = fuse([rio.read_run(path)] * 2, 'rrf')",
        "fused._fused.to_dict(fused._query_ids)",
        "fused",
    ),
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
@pytest.mark.parametrize("builder", sorted(BUILDERS_OF_DICTS))
def test_dicts_that_do_not_fit_in_memory_are_a_memory_error_not_an_abort(tmp_path, builder):
    # It aborted the process ("memory allocation of 1 bytes failed") when CPython could not
    # allocate a str or dict while the core built a result of Python objects.
    setup, call, named = BUILDERS_OF_DICTS[builder]
    run = tmp_path / "big.run"
    with run.open("w") as out:
        for q in range(400):
            out.writelines(f"q{q} Q0 d{d} {d + 1} {1000 - d} t\n" for d in range(500))
    done = run_python(
        f"""
        import gc, resource
        import ragmeter.io as rio
        from ragmeter.exceptions import InvalidInputError
        path = {str(run)!r}
        {setup}
        kept = {call}  # imports, the thread pool, and kept: the next one needs new memory
        gc.collect()
        page = resource.getpagesize()
        used = int(open("/proc/self/statm").read().split()[0]) * page
        # From too little memory to enough: from below the size now, as the core holds a
        # reserve of 16 MiB that it releases when the memory runs out (rust/py/reserve.rs).
        for extra in range(-24 << 20, 320 << 20, 8 << 20):
            resource.setrlimit(resource.RLIMIT_AS, (used + extra, resource.RLIM_INFINITY))
            try:
                result = {call}
            except MemoryError as error:
                if not str(error):
                    # The interpreter's own allocation failed (in Python code, before or after
                    # the core's work): Python's MemoryError, not an abort either.
                    print("python-memory-error")
                    continue
                assert "not enough memory" in str(error), repr(error)
                assert {named!r} in str(error), error
                print("memory-error")
            except InvalidInputError as error:
                assert "memory" in str(error), error
                print("refused")
            else:
                print("read")
                break
            finally:
                result = None
                gc.collect()
        """,
        # One malloc arena: a worker thread's own arena reserves 64 MiB of address space up
        # front, inside which its allocations would never meet the limit.
        MALLOC_ARENA_MAX="1",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcomes = done.stdout.split()
    # Some limit was too low for what the core builds, and the core said so.
    assert "memory-error" in outcomes or "refused" in outcomes, done.stdout
    assert "read" in outcomes, done.stdout  # and a higher one was enough
