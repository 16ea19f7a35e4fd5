"""ragmeter.levenshtein against rapidfuzz (an independent implementation) and brute force."""

from __future__ import annotations

import doctest
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmeter
from ragmeter import levenshtein

rapidfuzz = pytest.importorskip("rapidfuzz")
from rapidfuzz.distance import Levenshtein as RF  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# Any valid Unicode text: every plane (astral characters included), no lone surrogates.
any_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=80)
# Few distinct characters, so that pairs share a lot and the kernel's match bits matter.
small_alphabet_text = st.text(alphabet="ab😀é中\U0010ffff ", max_size=150)
texts = any_text | small_alphabet_text


def test_submodule_is_importable_both_ways():
    import ragmeter.levenshtein as by_import

    assert by_import is ragmeter.levenshtein is levenshtein


def test_docstring_examples_run_as_written():
    result = doctest.testmod(levenshtein, raise_on_error=False)
    assert result.attempted >= 8
    assert result.failed == 0


@settings(max_examples=400, deadline=None)
@given(texts, texts)
def test_scalar_measures_equal_rapidfuzz(a, b):
    assert levenshtein.distance(a, b) == RF.distance(a, b)
    assert levenshtein.similarity(a, b) == RF.similarity(a, b)
    assert levenshtein.normalized_distance(a, b) == RF.normalized_distance(a, b)
    assert levenshtein.normalized_similarity(a, b) == RF.normalized_similarity(a, b)


@settings(max_examples=100, deadline=None)
@given(
    st.text(alphabet="abc😀", min_size=65, max_size=300),
    st.text(alphabet="abc😀", min_size=65, max_size=300),
)
def test_strings_longer_than_one_machine_word(a, b):
    assert levenshtein.distance(a, b) == RF.distance(a, b)
    assert levenshtein.distance(a.encode("ascii", "ignore").decode(), b[:70]) == RF.distance(
        a.encode("ascii", "ignore").decode(), b[:70]
    )


def test_known_values_and_code_points_not_bytes():
    assert levenshtein.distance("kitten", "sitting") == 3
    assert levenshtein.distance("", "") == 0
    assert levenshtein.normalized_distance("", "") == 0.0
    assert levenshtein.normalized_similarity("", "") == 1.0
    # One astral character is one edit, although it is 4 UTF-8 bytes.
    assert levenshtein.distance("😀", "😁") == 1
    assert levenshtein.distance("", "𝔸𝔹") == 2
    # No case folding unless asked.
    assert levenshtein.distance("Paris", "paris") == 1
    assert levenshtein.distance("Paris", "paris", normalize="basic") == 0
    assert levenshtein.distance("Paris", "paris", normalize=str.lower) == 0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["the", "cat", 1, 2.5, None, ("x",)]), max_size=40),
    st.lists(st.sampled_from(["the", "cat", 1, 2.5, None, ("x",)]), max_size=40),
)
def test_token_sequences_equal_rapidfuzz(a, b):
    assert levenshtein.distance(a, b) == RF.distance(a, b)
    assert levenshtein.distance(tuple(a), b) == RF.distance(a, b)
    assert levenshtein.normalized_similarity(a, b) == RF.normalized_similarity(a, b)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(texts, texts), max_size=30))
def test_pairwise_equals_one_pair_at_a_time(pairs):
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    distances = levenshtein.pairwise(a, b)
    assert distances.dtype == np.int64
    assert distances.tolist() == [RF.distance(x, y) for x, y in pairs]
    ratios = levenshtein.pairwise(a, b, measure="normalized_similarity", n_threads=1)
    assert ratios.dtype == np.float64
    assert ratios.tolist() == [RF.normalized_similarity(x, y) for x, y in pairs]
    assert levenshtein.pairwise(a, b, measure="similarity").tolist() == [
        RF.similarity(x, y) for x, y in pairs
    ]
    assert levenshtein.pairwise(a, b, measure="normalized_distance").tolist() == [
        RF.normalized_distance(x, y) for x, y in pairs
    ]


def test_batches_do_not_depend_on_the_thread_count():
    # More pairs than one chunk of the bindings (8192), so chunks are stitched together.
    rng = np.random.default_rng(7)
    alphabet = np.array(list("abcdé😀 "))
    a = ["".join(rng.choice(alphabet, size=rng.integers(0, 70))) for _ in range(10_000)]
    b = ["".join(rng.choice(alphabet, size=rng.integers(0, 70))) for _ in range(10_000)]
    one = levenshtein.pairwise(a, b, measure="normalized_distance", n_threads=1)
    two = levenshtein.pairwise(a, b, measure="normalized_distance", n_threads=2)
    three = levenshtein.pairwise(a, b, measure="normalized_distance", n_threads=3)
    assert np.array_equal(one, two)
    assert np.array_equal(one, three)
    assert one.tolist() == [RF.normalized_distance(x, y) for x, y in zip(a, b, strict=True)]
    for n_threads in (1, 2, 3):
        assert levenshtein.one_to_many(a[0], b, n_threads=n_threads).tolist() == [
            RF.distance(a[0], y) for y in b
        ]
    ranked = levenshtein.rank(a[0], b, limit=5)
    assert [tuple(m) for m in ranked] == brute_force_rank(a[0], b, limit=5)
    b[9_999] = 7
    with pytest.raises(TypeError, match=r"b\[9999\] is int"):
        levenshtein.pairwise(a, b)


def test_pairwise_of_token_lists_and_normalisation():
    assert levenshtein.pairwise([["a", "b"], ("c",)], [["b"], ["c", "c"]]).tolist() == [1, 1]
    assert levenshtein.pairwise(["ABC", " x  y"], ["abc", "X Y"], normalize="basic").tolist() == [
        0,
        0,
    ]
    assert levenshtein.pairwise([], []).tolist() == []


def brute_force_rank(query, choices, score_cutoff=0.0, limit=None):
    scored = []
    for index, choice in enumerate(choices):
        sim = RF.normalized_similarity(query, choice)
        if sim >= score_cutoff:
            scored.append((-sim, RF.distance(query, choice), index, choice, sim))
    scored.sort()
    return [(choice, dist, sim, index) for _, dist, index, choice, sim in scored][:limit]


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet="abcd", max_size=8),
    st.lists(st.text(alphabet="abcd", max_size=8), max_size=40),
    st.sampled_from([0.0, 0.25, 0.5, 1.0]),
    st.sampled_from([None, 1, 3, 100]),
)
def test_rank_equals_brute_force(query, choices, score_cutoff, limit):
    ranked = levenshtein.rank(query, choices, score_cutoff=score_cutoff, limit=limit)
    assert [tuple(m) for m in ranked] == brute_force_rank(query, choices, score_cutoff, limit)
    best = levenshtein.closest(query, choices, score_cutoff=score_cutoff)
    expected = brute_force_rank(query, choices, score_cutoff, 1)
    assert (best is None) == (not expected)
    if best is not None:
        assert tuple(best) == expected[0]


def test_rank_ties_keep_input_order_and_use_distance_second():
    # "abcd" (2 edits of 4) and "a" (1 edit of 2) tie at 0.5; the smaller distance goes first.
    ranked = levenshtein.rank("ab", ["xy", "abcd", "a", "ab", "yx"])
    assert [m.index for m in ranked] == [3, 2, 1, 0, 4]
    assert ranked[0] == levenshtein.Match("ab", 0, 1.0, 3)
    assert ranked[0].to_dict() == {"choice": "ab", "distance": 0, "similarity": 1.0, "index": 3}


def test_rank_with_key_returns_the_original_choices():
    records = [{"id": 1, "text": "apple"}, {"id": 2, "text": "maple"}, {"id": 3, "text": "ape"}]
    ranked = levenshtein.rank("apple", records, key=lambda r: r["text"], limit=2)
    assert [m.choice["id"] for m in ranked] == [1, 2]
    assert levenshtein.closest("x", []) is None
    assert levenshtein.closest("abc", ["xyz"], score_cutoff=0.5) is None
    assert levenshtein.closest("Apple", ["maple", "APPLE"], normalize="basic").index == 1


def test_rank_limit_zero_reads_no_choice():
    def choices():
        raise AssertionError("choices were read")
        yield "never"

    assert levenshtein.rank("a", choices(), limit=0) == []


def test_rank_of_token_lists():
    ranked = levenshtein.rank(["new", "york"], [["york"], ["new", "york", "city"], ["boston"]])
    assert [(m.index, m.distance) for m in ranked] == [(1, 1), (0, 1), (2, 2)]


def test_backend_info_reports_the_rust_core_and_pinned_crate():
    info = levenshtein.backend_info()
    assert info.name == "ragmeter"
    assert info.available is True
    assert info.version == ragmeter.__version__
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    pinned = cargo["workspace"]["dependencies"]["rapidfuzz"].lstrip("=")
    assert f"rapidfuzz crate {pinned}" in info.implementation
    assert "Hyyrö" in info.implementation


# ----------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (None, "x", "a is None"),
        ("x", None, "b is None"),
        (3, "x", "a is int"),
        (b"abc", "abc", "decode it to str"),
        ("abc", ["a", "b", "c"], "cannot compare str with list"),
        (["a"], "a", "cannot compare list with str"),
        ([["unhashable"]], ["x"], "unhashable list"),
    ],
)
def test_scalar_bad_inputs_are_type_errors(a, b, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        levenshtein.distance(a, b)


def test_named_normaliser_refuses_token_lists():
    with pytest.raises(ValueError, match="cannot apply to lists of items"):
        levenshtein.distance(["a"], ["b"], normalize="basic")


@pytest.mark.parametrize(
    ("normalize", "error"),
    [("lower", ValueError), ("SQuAD", ValueError), (1, TypeError)],
)
def test_bad_normalize(normalize, error):
    with pytest.raises(error, match="normalize"):
        levenshtein.distance("a", "b", normalize=normalize)


def test_normalize_callable_must_return_str():
    with pytest.raises(TypeError, match="normalize returned int"):
        levenshtein.distance("a", "b", normalize=len)


def test_lone_surrogates_are_refused():
    with pytest.raises(ValueError, match="lone surrogate"):
        levenshtein.distance("a\ud800", "a")
    with pytest.raises(ValueError, match=re.escape("b[1] contains a lone surrogate")):
        levenshtein.pairwise(["a", "b"], ["a", "\udfff"])


def test_batch_bad_inputs():
    with pytest.raises(ValueError, match="same length"):
        levenshtein.pairwise(["a", "b"], ["a"])
    with pytest.raises(TypeError, match=re.escape("b[1] is None")):
        levenshtein.pairwise(["a", "b"], ["a", None])
    with pytest.raises(TypeError, match=re.escape("a[0] is int")):
        levenshtein.pairwise([1], ["a"])
    with pytest.raises(TypeError, match="a is a single str"):
        levenshtein.pairwise("abc", ["a", "b", "c"])
    with pytest.raises(TypeError, match=re.escape("b[1] is str; a[0] is a list")):
        levenshtein.pairwise([["a"], ["b"]], [["a"], "b"])
    with pytest.raises(ValueError, match="unknown measure"):
        levenshtein.pairwise(["a"], ["b"], measure="ratio")
    with pytest.raises(TypeError, match="measure must be a str"):
        levenshtein.one_to_many("a", ["b"], measure=None)
    with pytest.raises(TypeError, match="choices is a single str"):
        levenshtein.one_to_many("a", "abc")
    with pytest.raises(TypeError, match=re.escape("choices[1] is None")):
        levenshtein.one_to_many("a", ["b", None])
    with pytest.raises(TypeError, match="query is None"):
        levenshtein.rank(None, ["a"])
    with pytest.raises(TypeError, match=re.escape("key(choices[1]) is int")):
        levenshtein.rank("a", [{"t": "a"}, {"t": 1}], key=lambda c: c["t"])
    with pytest.raises(TypeError, match=re.escape("choices[0] is str; the query is a list")):
        levenshtein.rank(["a"], ["a"])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"limit": -1}, ValueError, "limit: must be >= 0"),
        ({"limit": 1.5}, TypeError, "limit must be a non-negative int"),
        ({"limit": True}, TypeError, "limit must be a non-negative int"),
        ({"score_cutoff": 1.5}, ValueError, r"score_cutoff: must lie in \[0, 1\]"),
        ({"score_cutoff": -0.1}, ValueError, "score_cutoff"),
        ({"score_cutoff": float("nan")}, ValueError, "score_cutoff"),
        ({"score_cutoff": "0.5"}, TypeError, "score_cutoff must be a real number"),
        ({"n_threads": 0}, ValueError, "n_threads"),
        ({"n_threads": -2}, ValueError, "n_threads"),
        ({"n_threads": 1.0}, TypeError, "n_threads"),
    ],
)
def test_rank_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        levenshtein.rank("a", ["a", "b"], **kwargs)


def test_str_subclasses_are_read_like_str():
    class Text(str):
        pass

    a = [Text("kitten"), "flaw", Text("")]
    b = ["sitting", Text("lawn"), "abc"]
    assert levenshtein.pairwise(a, b).tolist() == [3, 2, 3]
    assert levenshtein.one_to_many(Text("kitten"), [Text("sitting"), "kitten"]).tolist() == [3, 0]
