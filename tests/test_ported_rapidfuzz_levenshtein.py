"""rapidfuzz's own Levenshtein tests, ported to ragmeter.levenshtein: their expected values are
independent oracles (nothing here is copied from ragmeter's output).

Ported from https://github.com/rapidfuzz/RapidFuzz at commit
384c6768f604001d528f9a5bd9cc270659dfbc24 (2026-07-21, "fix outstanding warnings";
``git describe``: v3.14.5-25-g384c6768), files:

* tests/distance/test_Levenshtein.py (every check with unit weights and no ``score_cutoff``)
* tests/distance/test_distance.py (the checks it runs on every scorer, Levenshtein included)
* tests/distance/common.py and tests/common.py (the ``GenericScorer`` harness every check goes
  through: both argument orders, the four measures against each other, and extract /
  extractOne / cdist against the scalar score; ported as :func:`scorer_tester`)
* tests/test_hypothesis.py (the Levenshtein, editops/opcodes, cdist and "only identical strings
  are extracted" properties; its Wagner-Fischer reference ``levenshtein`` and
  ``normalize_distance`` are ported below)
* tests/test_process.py (the checks whose meaning carries over to ragmeter's ``rank`` /
  ``closest`` (rapidfuzz's ``extract`` / ``extractOne``) and ``one_to_many`` / ``pairwise``
  (a row of ``cdist`` / ``cpdist``))
* src/rapidfuzz/distance/Levenshtein_py.py (the unit-weight examples of the docstrings)

How rapidfuzz's API maps onto ragmeter's:

* ``processor=f`` is ``normalize=f`` (a callable applied to both inputs first, lists included);
  ``utils.default_process`` is passed as that callable.
* ``extractOne`` / ``extract(limit=None)`` with a Levenshtein scorer are ``closest`` / ``rank``
  (whose score is the normalised similarity); ``cdist(queries, choices)`` is one
  ``one_to_many`` per query; ``cpdist`` is ``pairwise``. ``extract``'s ``score_cutoff=100`` (a
  perfect match only) is ``rank``'s ``score_cutoff=1.0``.
* ``editops`` / ``opcodes`` are not in ragmeter, but rapidfuzz's edit scripts are optimal for
  unit weights, so their number of edit operations is the Levenshtein distance: the expected
  scripts of test_Editops / test_Opcodes become expected distances.
* ``cdist(..., score_multiplier=k)``: ragmeter's value times ``k`` (rounded, for the ``uint8``
  results) must be rapidfuzz's expected integer.

Not ported (no counterpart in ragmeter): ``weights=``, ``score_cutoff=`` and ``score_hint=`` of
the scalar functions, ``dtype=`` / ``score_multiplier=`` as arguments, ``extract_iter``, the
Editops / Opcodes / MatchingBlock classes (tests/distance/test_init.py), the other metrics
(Indel, Jaro, ...), ``fuzz.*`` and the WRatio / QRatio values of tests/test_process.py (the data
of those is reused against rapidfuzz's own ``extract`` with a Levenshtein scorer instead).

Documented differences, asserted as ragmeter documents them (``test_documented_difference_*``):
None / NaN inputs and ``bytes`` are refused, a ``str`` is never compared with a sequence of
items, items are equal as dictionary keys (rapidfuzz: equal hashes, and a one-character string
equals its code point), mappings and sets of choices are refused, and ``rank`` breaks ties of
the normalised similarity by the distance before the position.
"""

from __future__ import annotations

import sys
from array import array

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rapidfuzz import process as rf_process
from rapidfuzz import utils_cpp, utils_py
from rapidfuzz.distance import Levenshtein as RF

from ragmeter import levenshtein as L

MEASURES = ("distance", "similarity", "normalized_distance", "normalized_similarity")
INT_MEASURES = ("distance", "similarity")

# ------------------------------------------------------------------------------ references


def levenshtein(s1, s2):
    """tests/test_hypothesis.py::levenshtein with ``weights=(1, 1, 1)``: the plain Wagner-Fischer
    recurrence, kept to two rows of the matrix. Items are compared with ``==``."""
    previous = list(range(len(s2) + 1))
    for row in range(1, len(s1) + 1):
        current = [row] + [0] * len(s2)
        for col in range(1, len(s2) + 1):
            cost = 0 if s1[row - 1] == s2[col - 1] else 1
            current[col] = min(
                previous[col] + 1,  # deletion
                current[col - 1] + 1,  # insertion
                previous[col - 1] + cost,  # substitution
            )
        previous = current
    return previous[-1]


def normalize_distance(dist, s1, s2):
    """tests/test_hypothesis.py::normalize_distance with ``weights=(1, 1, 1)`` (despite its
    name, the normalised similarity)."""
    if len(s1) > len(s2):
        max_dist = min(len(s1) + len(s2), len(s2) + (len(s1) - len(s2)))
    else:
        max_dist = min(len(s1) + len(s2), len(s1) + (len(s2) - len(s1)))
    return 1 - 1 * float(dist) / float(max_dist) if max_dist else 1


def isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
    """tests/test_hypothesis.py::isclose."""
    return abs(a - b) <= max(rel_tol * max(abs(a), abs(b)), abs_tol)


def levenshtein_maximum(s1, s2):
    """tests/distance/common.py::get_scorer_flags_levenshtein, ``weights=(1, 1, 1)``."""
    insert_cost = delete_cost = replace_cost = 1
    max_dist = len(s1) * delete_cost + len(s2) * insert_cost
    if len(s1) >= len(s2):
        max_dist = min(max_dist, len(s2) * replace_cost + (len(s1) - len(s2)) * delete_cost)
    else:
        max_dist = min(max_dist, len(s1) * replace_cost + (len(s2) - len(s1)) * insert_cost)
    return max_dist


def _same(measure, got, expected):
    if measure in INT_MEASURES:
        assert got == expected
    else:
        assert got == pytest.approx(expected)


def scorer_tester(s1, s2, normalize=None):
    """tests/common.py: ``scorer_tester``, ``symmetric_scorer_tester`` and
    ``GenericScorer._validate`` for unit weights, on ragmeter.

    Each measure must give the same score in both argument orders (unit weights are symmetric)
    and through the batch functions (rapidfuzz: ``extractOne``, ``extract`` and ``cdist`` of
    ``[s1]`` x ``[s2]`` and of ``[s1] * 2`` x ``[s2] * 4``); the four measures must agree with
    each other through ``maximum``. Returns the distance.
    """
    kwargs = {} if normalize is None else {"normalize": normalize}
    scores = {}
    for measure in MEASURES:
        function = getattr(L, measure)
        score = function(s1, s2, **kwargs)
        _same(measure, function(s2, s1, **kwargs), score)
        for queries, choices in (([s1], [s2]), ([s1] * 2, [s2] * 4)):
            for query in queries:
                row = L.one_to_many(query, choices, measure=measure, **kwargs)
                assert row.shape == (len(choices),)
                for value in row.tolist():
                    _same(measure, value, score)
        for value in L.pairwise([s1] * 4, [s2] * 4, measure=measure, **kwargs).tolist():
            _same(measure, value, score)
        scores[measure] = score

    match = L.closest(s1, [s2], **kwargs)
    assert match is not None
    assert match.index == 0
    assert match.distance == scores["distance"]
    assert match.similarity == pytest.approx(scores["normalized_similarity"])
    assert [tuple(m) for m in L.rank(s1, [s2], **kwargs)] == [tuple(match)]

    p1 = s1 if normalize is None else normalize(s1)
    p2 = s2 if normalize is None else normalize(s2)
    maximum = levenshtein_maximum(p1, p2)
    dist, sim = scores["distance"], scores["similarity"]
    assert dist == maximum - sim
    if maximum != 0:
        assert pytest.approx(dist / maximum) == scores["normalized_distance"]
        assert pytest.approx(sim / maximum) == scores["normalized_similarity"]
    else:
        assert pytest.approx(0.0) == scores["normalized_distance"]
        assert pytest.approx(1.0) == scores["normalized_similarity"]
    return dist


def unicodeArray(text):
    """tests/distance/test_distance.py::unicodeArray."""
    if sys.version_info >= (3, 13, 0):
        return array("w", list(text))
    return array("u", text)


class CustomHashable:
    """tests/distance/test_Levenshtein.py::CustomHashable: equal hashes, ``==`` raises."""

    def __init__(self, string):
        self._string = string

    def __eq__(self, other):
        raise NotImplementedError

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._string)


class EqualityHashable:
    """CustomHashable with a working ``==`` (on the same string as the hash): the test's items,
    comparable as dictionary keys as ragmeter documents."""

    def __init__(self, string):
        self._string = string

    def __eq__(self, other):
        return isinstance(other, EqualityHashable) and self._string == other._string

    def __hash__(self):
        return hash(self._string)


# ---------------------------------------------------- tests/distance/test_Levenshtein.py


def test_empty_string():
    """test_Levenshtein.py::test_empty_string (the unit-weight line)."""
    assert scorer_tester("", "") == 0


def test_score_cutoff_overflow_without_cutoff():
    """test_Levenshtein.py::test_score_cutoff_overflow (its first line; the second passes
    ``score_cutoff=2**63``, which the scalar functions do not take)."""
    assert scorer_tester("", "") == 0


def test_cross_type_matching():
    """test_Levenshtein.py::test_cross_type_matching: the pairs of the same kind (str with str,
    list with list). Cross-kind pairs and CustomHashable: the documented-difference tests."""
    assert scorer_tester("aaaa", "aaaa") == 0
    assert scorer_tester([0, -1], [0, -2]) == 1
    # The CustomHashable pair, with items whose == works (see EqualityHashable).
    assert (
        scorer_tester(
            [EqualityHashable("aa"), EqualityHashable("aa")],
            [EqualityHashable("aa"), EqualityHashable("bb")],
        )
        == 1
    )


def test_word_error_rate():
    """test_Levenshtein.py::test_word_error_rate."""
    assert scorer_tester(["aaaaa", "bbbb"], ["aaaaa", "bbbb"]) == 0
    assert scorer_tester(["aaaaa", "bbbb"], ["aaaaa", "cccc"]) == 1


def test_simple_unicode_tests():
    """test_Levenshtein.py::test_simple_unicode_tests (the unit-weight lines)."""
    s1 = "ÁÄ"
    s2 = "ABCD"
    assert scorer_tester(s1, s2) == 4  # 2 sub + 2 ins
    assert scorer_tester(s1, s1) == 0


# The expected edit scripts of test_Editops and test_Opcodes; optimal for unit weights, so
# their length (opcodes: the items each replace/delete/insert block spans) is the distance.
EDITOPS_CASES = [
    ("0", "", [("delete", 0, 0)]),
    ("", "0", [("insert", 0, 0)]),
    ("00", "0", [("delete", 1, 1)]),
    ("0", "00", [("insert", 1, 1)]),
    ("qabxcd", "abycdf", [("delete", 0, 0), ("replace", 3, 2), ("insert", 6, 5)]),
    (
        "Lorem ipsum.",
        "XYZLorem ABC iPsum",
        [
            ("insert", 0, 0),
            ("insert", 0, 1),
            ("insert", 0, 2),
            ("insert", 6, 9),
            ("insert", 6, 10),
            ("insert", 6, 11),
            ("insert", 6, 12),
            ("replace", 7, 14),
            ("delete", 11, 18),
        ],
    ),
]


@pytest.mark.parametrize(("s1", "s2", "ops"), EDITOPS_CASES)
def test_Editops(s1, s2, ops):
    """test_Levenshtein.py::test_Editops: distance = number of edit operations."""
    assert scorer_tester(s1, s2) == len(ops)


def test_Editops_lengths():
    """test_Levenshtein.py::test_Editops, its last case: ``src_len == 7``, ``dest_len == 9``
    (the lengths behind ``similarity``), and the distance is the length of rapidfuzz's
    script."""
    s1, s2 = "aaabaaa", "abbaaabba"
    ops = RF.editops(s1, s2)
    assert (ops.src_len, ops.dest_len) == (7, 9)
    assert scorer_tester(s1, s2) == len(ops)
    assert L.similarity(s1, s2) == max(7, 9) - len(ops)


def test_Opcodes():
    """test_Levenshtein.py::test_Opcodes: ``[("insert", 0, 0, 0, 3)]`` is 3 insertions."""
    opcodes = [("insert", 0, 0, 0, 3)]
    expected = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in opcodes if tag != "equal")
    assert scorer_tester("", "abc") == expected == 3


def test_mbleven():
    """test_Levenshtein.py::test_mbleven: with ``score_cutoff`` 2 and 3 (not below the true
    distance) rapidfuzz returns the true distance, 2; ragmeter's scalars take no cutoff."""
    assert scorer_tester("0", "101") == 2


@pytest.mark.parametrize(
    "processor", [utils_cpp.default_process, utils_py.default_process], ids=["cpp", "py"]
)
def test_case_insensitive(processor):
    """test_Levenshtein.py::testCaseInsensitive: ``processor=default_process`` as
    ``normalize=default_process``."""
    assert scorer_tester("new york mets", "new YORK mets", normalize=processor) == 0


@pytest.mark.parametrize("normalize", ["basic", "squad"])
def test_case_insensitive_named_normalizers(normalize):
    """test_Levenshtein.py::testCaseInsensitive with ragmeter's named normalisers, which on
    this input do what default_process does (lower case; no punctuation, no article)."""
    assert L.distance("new york mets", "new YORK mets", normalize=normalize) == 0
    assert L.normalized_similarity("new york mets", "new YORK mets", normalize=normalize) == 1.0


# ----------------------------------------------- src/rapidfuzz/distance/Levenshtein_py.py


def test_docstring_examples():
    """Levenshtein_py.py, the docstrings of ``distance`` and ``normalized_similarity`` (the
    examples without ``weights`` or ``score_cutoff``; 0.81818181818181 is printed truncated)."""
    assert scorer_tester("lewenstein", "levenshtein") == 2
    assert L.normalized_similarity("lewenstein", "levenshtein") == pytest.approx(
        0.81818181818181, abs=1e-13
    )
    # processor=lambda s: s[0] on one-item lists: normalize= receives the lists as given.
    assert L.normalized_similarity(
        ["lewenstein"], ["levenshtein"], normalize=lambda s: s[0]
    ) == pytest.approx(0.81818181818181, abs=1e-13)
    assert L.one_to_many(
        ["lewenstein"],
        [["levenshtein"]],
        measure="normalized_similarity",
        normalize=lambda s: s[0],
    ).tolist()[0] == pytest.approx(0.81818181818181, abs=1e-13)
    assert L.distance(["lewenstein"], ["levenshtein"], normalize=lambda s: s[0]) == 2


# ------------------------------------------------------- tests/distance/test_distance.py


def test_empty_strings():
    """test_distance.py::test_empty_strings."""
    assert L.normalized_distance("", "") == 0.0
    assert L.normalized_similarity("", "") == 1.0
    scorer_tester("", "")


def test_similar_array():
    """test_distance.py::test_similar_array. Arrays are sequences of items; rapidfuzz's
    str-with-array pairs compare ``list(str)`` with the array (a str is never compared with a
    sequence of items: see test_documented_difference_str_is_not_a_sequence_of_items)."""
    text = "the wonderful new york mets"
    assert L.normalized_similarity(unicodeArray(text), unicodeArray(text)) == 1.0
    assert L.normalized_similarity(list(text), unicodeArray(text)) == 1.0
    assert L.normalized_similarity(unicodeArray(text), list(text)) == 1.0
    assert scorer_tester(unicodeArray(text), unicodeArray(text)) == 0


def test_similar_bytes():
    """test_distance.py::test_similar_bytes, through the two routes ragmeter documents for
    bytes: decode them, or compare the byte values as lists."""
    text = b"the wonderful new york mets"
    assert L.normalized_similarity(list(text), list(text)) == 1.0
    assert L.normalized_similarity("the wonderful new york mets", text.decode()) == 1.0
    assert L.normalized_similarity(text.decode(), "the wonderful new york mets") == 1.0


def test_similar_ord_array():
    """test_distance.py::test_similar_ord_array, its first assertion (the same list on both
    sides); the str-with-list ones are documented differences."""
    items = [ord("a"), ord("a"), "a", "a"]
    assert L.normalized_similarity(items, list(items)) == 1.0
    assert scorer_tester(items, list(items)) == 0


def test_integer_array():
    """test_distance.py::test_integer_array: -1 and -2 share a CPython hash but differ."""
    assert L.normalized_similarity([0, -1], [0, -2]) != 1.0


@pytest.mark.parametrize(
    ("s1", "s2"),
    [([0, -1], [0, -2]), ([-1.0], [-2.0]), ([2**61], [1]), ([""], [0]), ([1, -1], [1, -2, -1])],
)
def test_integer_array_hash_collisions_follow_the_reference(s1, s2):
    """test_distance.py::test_integer_array, widened to other CPython hash collisions
    (hash(-1.0) == hash(-2.0), hash(2**61) == hash(1), hash("") == hash(0)); the expected value
    is the Wagner-Fischer reference's, which compares items with ==. (rapidfuzz itself returns 0
    for the second to fourth pairs: it compares such items by hash.)"""
    assert L.distance(s1, s2) == levenshtein(s1, s2) > 0


def test_custom_hashable():
    """test_distance.py::test_custom_hashable, with items whose == works (EqualityHashable); the
    original CustomHashable: test_documented_difference_items_equal_as_dictionary_keys."""
    same = [EqualityHashable("aa"), EqualityHashable("aa")]
    other = [EqualityHashable("aa"), EqualityHashable("bb")]
    assert L.normalized_similarity(same, [EqualityHashable("aa"), EqualityHashable("aa")]) == 1.0
    assert L.normalized_similarity(same, other) != 1.0


# ---------------------------------------------------------- tests/test_hypothesis.py


@given(s1=st.text(max_size=64), s2=st.text(max_size=64))
@settings(max_examples=50, deadline=None)
def test_levenshtein_word(s1, s2):
    """test_hypothesis.py::test_levenshtein_word (the uniform-Levenshtein half)."""
    reference_dist = levenshtein(s1, s2)
    assert L.distance(s1, s2) == reference_dist
    reference_sim = normalize_distance(reference_dist, s1, s2)
    assert isclose(L.normalized_similarity(s1, s2), reference_sim)


@given(s1=st.text(min_size=65), s2=st.text(min_size=65))
@settings(max_examples=50, deadline=None)
def test_levenshtein_block(s1, s2):
    """test_hypothesis.py::test_levenshtein_block (the uniform-Levenshtein half)."""
    reference_dist = levenshtein(s1, s2)
    assert L.distance(s1, s2) == reference_dist
    reference_sim = normalize_distance(reference_dist, s1, s2)
    assert isclose(L.normalized_similarity(s1, s2), reference_sim)


@given(s1=st.text(), s2=st.text())
@settings(max_examples=50, deadline=None)
def test_levenshtein_random(s1, s2):
    """test_hypothesis.py::test_levenshtein_random (the uniform-Levenshtein half)."""
    reference_dist = levenshtein(s1, s2)
    assert L.distance(s1, s2) == reference_dist
    reference_sim = normalize_distance(reference_dist, s1, s2)
    assert isclose(L.normalized_similarity(s1, s2), reference_sim)


# Few distinct items (astral ones included), so that pairs share much and every bit of the
# kernel's match vectors matters; up to 200 items, past one and two 64-bit words.
SMALL_ALPHABET = "ab😀é\U0010ffff "
dense_text = st.text(alphabet=SMALL_ALPHABET, max_size=200)


@given(s1=dense_text, s2=dense_text)
@settings(max_examples=60, deadline=None)
def test_levenshtein_random_small_alphabet(s1, s2):
    """test_hypothesis.py::test_levenshtein_random on a small alphabet with astral characters
    (st.text() rarely repeats a character), against the same reference."""
    reference_dist = levenshtein(s1, s2)
    assert L.distance(s1, s2) == reference_dist
    assert isclose(L.normalized_similarity(s1, s2), normalize_distance(reference_dist, s1, s2))


token = st.one_of(st.integers(-3, 3), st.sampled_from(["the", "cat", "a", "", ("x",), None]))


@given(s1=st.lists(token, max_size=90), s2=st.lists(token, max_size=90))
@settings(max_examples=60, deadline=None)
def test_levenshtein_random_sequences(s1, s2):
    """test_hypothesis.py::test_levenshtein_random on lists of hashable items (words, ints,
    None, a tuple; up to 90, past 64), against the same reference, which compares with ==."""
    reference_dist = levenshtein(s1, s2)
    assert L.distance(s1, s2) == reference_dist
    assert L.distance(tuple(s1), s2) == reference_dist
    assert isclose(L.normalized_similarity(s1, s2), normalize_distance(reference_dist, s1, s2))


def _opcodes_cost(opcodes):
    return sum(
        max(op.src_end - op.src_start, op.dest_end - op.dest_start)
        for op in opcodes
        if op.tag != "equal"
    )


@given(s1=st.text(), s2=st.text())
@settings(max_examples=100, deadline=None)
def test_levenshtein_editops(s1, s2):
    """test_hypothesis.py::test_levenshtein_editops and ::test_levenshtein_opcodes: rapidfuzz's
    script turns s1 into s2 and, being optimal, has ``distance`` operations."""
    ops = RF.editops(s1, s2)
    assert ops.apply(s1, s2) == s2
    assert L.distance(s1, s2) == len(ops)
    assert L.distance(s1, s2) == _opcodes_cost(RF.opcodes(s1, s2))


@given(s1=st.text(min_size=65), s2=st.text(min_size=65))
@settings(max_examples=50, deadline=None)
def test_levenshtein_editops_block(s1, s2):
    """test_hypothesis.py::test_levenshtein_editops_block and ::test_levenshtein_opcodes_block."""
    ops = RF.editops(s1, s2)
    assert ops.apply(s1, s2) == s2
    assert L.distance(s1, s2) == len(ops)
    assert L.distance(s1, s2) == _opcodes_cost(RF.opcodes(s1, s2))


def cdist_distance(queries, choices):
    """tests/test_hypothesis.py::cdist_distance, with the Wagner-Fischer reference as scorer."""
    matrix = np.zeros((len(queries), len(choices)), dtype=np.int32)
    for i, query in enumerate(queries):
        for j, choice in enumerate(choices):
            matrix[i, j] = levenshtein(query, choice)
    return matrix


def ragmeter_cdist(queries, choices):
    """ragmeter's cdist: one ``one_to_many`` per query."""
    if not queries:
        return np.zeros((0, len(choices)), dtype=np.int64)
    return np.stack([L.one_to_many(query, choices) for query in queries])


@given(
    queries=st.lists(st.text(), min_size=1, max_size=10),
    choices=st.lists(st.text(), min_size=1, max_size=10),
)
@settings(max_examples=50, deadline=None)
def test_cdist(queries, choices):
    """test_hypothesis.py::test_cdist: the distance matrix equals the reference (rapidfuzz's
    own ``process.cdist`` too), for queries x choices and queries x queries. Lists of at most
    10 strings (rapidfuzz: unbounded) keep the Python reference within the time budget."""
    for right in (choices, queries):
        reference_matrix = cdist_distance(queries, right)
        assert (ragmeter_cdist(queries, right) == reference_matrix).all()
        assert (rf_process.cdist(queries, right, scorer=RF.distance) == reference_matrix).all()
        left = [q for q in queries for _ in right]
        flat = [c for _ in queries for c in right]
        assert (L.pairwise(left, flat).reshape(reference_matrix.shape) == reference_matrix).all()


PROCESSORS = [lambda x: x, utils_cpp.default_process, utils_py.default_process]


@pytest.mark.parametrize("processor", PROCESSORS, ids=["identity", "cpp", "py"])
@given(choices=st.lists(st.text(), min_size=1), data=st.data())
@settings(max_examples=50, deadline=None)
def test_only_identical_strings_extracted(processor, choices, data):
    """test_hypothesis.py::test_only_identical_strings_extracted with the Levenshtein score
    (rapidfuzz runs it on ratio, WRatio and QRatio): ``extract(score_cutoff=100, limit=None)``
    as ``rank(score_cutoff=1.0)``; only choices equal to the query after the processor match.
    The query is drawn from the choices by hypothesis instead of ``random.choice``."""
    query = data.draw(st.sampled_from(choices))
    assume(processor(query))

    matches = L.rank(query, choices, normalize=processor, score_cutoff=1.0, limit=None)

    assert matches != []

    for match in matches:
        assert processor(query) == processor(match[0])


# ------------------------------------------------------------ tests/test_process.py


def test_extractOne_exceptions():
    """test_process.py::test_extractOne_exceptions and ::test_extract_exceptions, on
    ``closest`` and ``rank``. (For ``{1: 1}`` rapidfuzz reads the value 1; ragmeter refuses the
    mapping itself, also with a TypeError.)"""
    for function in (L.closest, L.rank):
        with pytest.raises(TypeError):
            function()
        with pytest.raises(TypeError):
            function(1)
        with pytest.raises(TypeError):
            function(1, [""])
        with pytest.raises(TypeError):
            function("", [1])
        with pytest.raises(TypeError):
            function("", {1: 1})


def test_with_processor():
    """test_process.py::test_with_processor: the list-of-fields events through
    ``processor=lambda event: event[0]`` (as ``normalize=``: it also applies to the query), and
    the default_process case, whose score 100 is a normalised similarity of 1.0. The WRatio
    score of the unprocessed pair (72 < score < 73) and the dict of choices do not apply."""
    events = [
        ["chicago cubs vs new york mets", "CitiField", "2011-05-11", "8pm"],
        ["new york yankees vs boston red sox", "Fenway Park", "2011-05-11", "8pm"],
        ["atlanta braves vs pittsburgh pirates", "PNC Park", "2011-05-11", "8pm"],
    ]
    query = events[0]

    best = L.closest(query, events, normalize=lambda event: event[0])
    assert best[0] == events[0]

    best = L.rank(query, events, normalize=lambda event: event[0])[0]
    assert best[0] == events[0]

    # The same through key= (applied to the choices only) and the query's text.
    best = L.closest(query[0], events, key=lambda event: event[0])
    assert best[0] == events[0]

    best = L.closest("new york mets", ["new YORK mets"], normalize=utils_cpp.default_process)
    assert best[1] == 0
    assert best.similarity == 1.0

    best = L.rank("new york mets", ["new YORK mets"], normalize=utils_py.default_process)[0]
    assert best.similarity == 1.0


def test_with_cutoff_edge_cases():
    """test_process.py::test_with_cutoff_edge_cases: ``score_cutoff=100`` keeps the identical
    choice only (``score_cutoff=1.0``); a 0-score best match is still returned."""
    choices = [
        "new york mets vs chicago cubs",
        "chicago cubs at new york mets",
        "atlanta braves vs pittsbugh pirates",
        "new york yankees vs boston red sox",
    ]

    query = "new york mets vs chicago cubs"
    best = L.closest(query, choices, score_cutoff=1.0)
    assert best is not None
    assert best[0] == choices[0]
    assert [m.choice for m in L.rank(query, choices, score_cutoff=1.0)] == [choices[0]]

    best = L.closest("", choices)
    assert best is not None
    assert best.similarity == 0


def test_result_order():
    """test_process.py::test_result_order: of equal scores, the first choice wins."""
    best = L.closest("test", ["tes", "tes"])
    assert best[3] == 0

    best = L.rank("test", ["tes", "tes"], limit=1)
    assert best[0][3] == 0


def test_extract_limits():
    """test_process.py::test_extract_limits. rapidfuzz's ``(choice, score, index)`` is
    ragmeter's ``(choice, distance, ..., index)``."""
    bests = L.rank("test", ["tes", "tes"], limit=1, score_cutoff=1.0)
    assert bests == []

    bests = L.rank("test", ["te", "test"], limit=None)
    assert [(m.choice, m.distance, m.index) for m in bests] == [("test", 0, 1), ("te", 2, 0)]


@pytest.mark.parametrize("processor", [None, lambda s: s], ids=["none", "identity"])
def test_extractOne_case_sensitive(processor):
    """test_process.py::test_extractOne_case_sensitive (rapidfuzz: ratio; here Levenshtein)."""
    best = L.closest("new york mets", ["new", "new YORK mets"], normalize=processor)
    assert best.similarity != 1.0


def test_extractOne_use_first_match():
    """test_process.py::test_extractOne_use_first_match."""
    assert L.closest("new york mets", ["new york mets", "new york mets"])[3] == 0


def test_cdist_empty_seq():
    """test_process.py::test_cdist_empty_seq: cdist of ``[]`` x 2 choices is ``(0, 2)``, of
    2 queries x ``[]`` is ``(2, 0)``; ragmeter's cdist is one ``one_to_many`` row per query."""
    assert ragmeter_cdist([], ["a", "b"]).shape == (0, 2)
    assert ragmeter_cdist(["a", "b"], []).shape == (2, 0)
    assert L.one_to_many("a", []).shape == (0,)


def test_cpdist_empty_seq():
    """test_process.py::test_cpdist_empty_seq."""
    assert L.pairwise([], []).shape == (0,)


def test_cpdist_not_same_length():
    """test_process.py::test_cpdist_not_same_length (ragmeter's message differs)."""
    with pytest.raises(ValueError):
        L.pairwise(["a", "b"], [])
    with pytest.raises(ValueError):
        L.pairwise(["a", "b"], ["f"])


def test_cpdist_multiplier():
    """test_process.py::test_cpdist_multiplier: ``score_multiplier=255, dtype=np.uint8``."""
    string1 = ["test"]
    string2 = ["test2"]
    expected_res = np.array([204])
    scores = L.pairwise(string1, string2, measure="normalized_similarity")
    assert np.array_equal(np.rint(scores * 255).astype(np.uint8), expected_res)
    expected_res = np.array([51])
    scores = L.pairwise(string1, string2, measure="normalized_distance")
    assert np.array_equal(np.rint(scores * 255).astype(np.uint8), expected_res)


def test_cdist_multiplier():
    """test_process.py::test_cdist_multiplier: the four Levenshtein measures of
    ["test", "test2"] x itself, times 255 (as uint8) or times 2."""
    strings = ["test", "test2"]

    def matrix(measure):
        return np.stack([L.one_to_many(s, strings, measure=measure) for s in strings])

    expected_res = np.array([[255, 204], [204, 255]])
    assert np.array_equal(
        np.rint(matrix("normalized_similarity") * 255).astype(np.uint8), expected_res
    )
    expected_res = np.array([[0, 51], [51, 0]])
    assert np.array_equal(
        np.rint(matrix("normalized_distance") * 255).astype(np.uint8), expected_res
    )
    expected_res = np.array([[8, 8], [8, 10]])
    assert np.array_equal(matrix("similarity") * 2, expected_res)
    expected_res = np.array([[0, 2], [2, 0]])
    assert np.array_equal(matrix("distance") * 2, expected_res)


def test_generators():
    """test_process.py::test_generators: finite generators are accepted as choices."""

    def generate_choices():
        choices = ["a", "Bb", "CcC"]
        yield from choices

    search = "aaa"
    res1 = L.rank(search, generate_choices())
    res2 = L.rank(search, list(generate_choices()))
    assert res1 == res2
    assert len(res1) > 0
    assert L.one_to_many(search, generate_choices()).tolist() == [
        RF.distance(search, c) for c in generate_choices()
    ]


BASEBALL_STRINGS = [
    "new york mets vs chicago cubs",
    "chicago cubs vs chicago white sox",
    "philladelphia phillies vs atlanta braves",
    "braves vs mets",
]
WITH_SCORER_CHOICES = [
    "new york mets vs chicago cubs",
    "chicago cubs at new york mets",
    "atlanta braves vs pittsbugh pirates",
    "new york yankees vs boston red sox",
]
EMPTY_STRINGS_CHOICES = [
    "",
    "new york mets vs chicago cubs",
    "new york yankees vs boston red sox",
    "",
    "",
]


def rapidfuzz_rank(query, choices, score_cutoff=0.0, limit=None):
    """rapidfuzz's ``extract`` with the Levenshtein normalised similarity, re-sorted by
    ragmeter's documented order (similarity descending, then distance, then position): the
    expected ``[(choice, distance, similarity, index)]`` of ``rank``."""
    found = rf_process.extract(
        query, choices, scorer=RF.normalized_similarity, score_cutoff=score_cutoff, limit=None
    )
    rows = [(choice, RF.distance(query, choice), score, index) for choice, score, index in found]
    rows.sort(key=lambda row: (-row[2], row[1], row[3]))
    return rows[:limit]


@pytest.mark.parametrize(
    ("source", "query", "choices"),
    [
        ("test_get_best_choice1", "new york mets at atlanta braves", BASEBALL_STRINGS),
        ("test_get_best_choice2", "philadelphia phillies at atlanta braves", BASEBALL_STRINGS),
        ("test_get_best_choice3", "atlanta braves at philadelphia phillies", BASEBALL_STRINGS),
        ("test_get_best_choice4", "chicago cubs vs new york mets", BASEBALL_STRINGS),
        ("test_with_scorer", "new york mets at chicago cubs", WITH_SCORER_CHOICES),
        ("test_with_cutoff", "los angeles dodgers vs san francisco giants", WITH_SCORER_CHOICES),
        ("test_empty_strings", "new york mets at chicago cubs", EMPTY_STRINGS_CHOICES),
        ("test_with_cutoff_edge_cases", "", WITH_SCORER_CHOICES),
    ],
)
def test_process_data_against_rapidfuzz_extract(source, query, choices):
    """The data of test_process.py's WRatio tests (named in ``source``; their expected choices
    are WRatio's, not Levenshtein's): ``rank`` / ``closest`` against rapidfuzz's
    ``extract`` / ``extractOne`` with the Levenshtein normalised similarity."""
    expected = rapidfuzz_rank(query, choices)
    assert [tuple(m) for m in L.rank(query, choices)] == expected
    assert tuple(L.closest(query, choices)) == expected[0]
    one = rf_process.extractOne(query, choices, scorer=RF.normalized_similarity)
    assert L.closest(query, choices).similarity == one[1]


# --------------------------------------------------- documented differences (asserted)


def test_documented_difference_none_and_nan():
    """test_distance.py::test_none and ::test_nan: rapidfuzz scores None / NaN as the worst
    match (normalized_distance 1.0); ragmeter refuses them with a TypeError, as documented in
    ``distance``'s Raises ("a or b is neither a str nor a list or tuple"). Likewise
    test_process.py::test_none_elements / ::test_numpy_nan_elements / ::test_none_strings skip
    None choices where ragmeter refuses them ("a choice is not of the query's kind")."""
    for missing in (None, float("nan")):
        for function in (L.normalized_distance, L.normalized_similarity):
            with pytest.raises(TypeError):
                function(missing, "test")
            with pytest.raises(TypeError):
                function("test", missing)
        with pytest.raises(TypeError):
            L.closest("test", [missing, "tes"])
        with pytest.raises(TypeError):
            L.rank(missing, [missing, "tes"])


def test_documented_difference_str_is_not_a_sequence_of_items():
    """test_Levenshtein.py::test_cross_type_matching and test_distance.py::test_similar_bytes /
    ::test_similar_array / ::test_similar_ord_array compare a str with a list, bytes or an
    array (rapidfuzz: 0 edits, similarity 1.0). ragmeter documents (module docstring: "a str is
    never compared with a list"; ``distance``'s Raises: "bytes included: decode it first", "a
    str is compared with a list") a TypeError; ``list(text)`` is the documented route, and
    gives rapidfuzz's values."""
    with pytest.raises(TypeError):
        L.distance("aaaa", ["a", "a", "a", "a"])
    assert L.distance(list("aaaa"), ["a", "a", "a", "a"]) == 0
    with pytest.raises(TypeError):
        L.distance(b"aaaa", b"aaaa")
    with pytest.raises(TypeError):
        L.distance("aaaa", b"aaaa")
    assert L.distance(list(b"aaaa"), list(b"aaaa")) == 0
    assert L.distance("aaaa", b"aaaa".decode()) == 0
    with pytest.raises(TypeError):
        L.normalized_similarity("the wonderful new york mets", unicodeArray("the wonderful"))
    with pytest.raises(TypeError):
        L.normalized_similarity("aaaa", [ord("a"), ord("a"), "a", "a"])


def test_documented_difference_items_equal_as_dictionary_keys():
    """Items of sequences are equal "when they are equal as dictionary keys" (``distance``'s
    docstring); rapidfuzz compares them by hash and reads a one-character string as its code
    point. So test_cross_type_matching's ``"aaaa"`` vs ``[ord("a"), ord("a"), "a", "a"]``
    (rapidfuzz: 0), as two lists, gives the == reference's 2; and CustomHashable, whose ==
    raises, cannot be compared: its NotImplementedError propagates (rapidfuzz: distance 1,
    similarity 1.0 / != 1.0 in test_custom_hashable)."""
    ords = [ord("a"), ord("a"), "a", "a"]
    assert RF.distance(list("aaaa"), ords) == 0
    assert L.distance(list("aaaa"), ords) == levenshtein(list("aaaa"), ords) == 2
    with pytest.raises(NotImplementedError):
        L.distance(
            [CustomHashable("aa"), CustomHashable("aa")],
            [CustomHashable("aa"), CustomHashable("bb")],
        )


def test_documented_difference_mappings_and_sets_of_choices():
    """test_process.py's ``extractOne(query, set(baseball_strings))`` and dict choices
    (test_get_best_choice1-4, test_with_scorer, test_with_processor): ragmeter refuses a mapping
    or a set of choices with a TypeError, as documented ("not a bare str, a mapping or a set")."""
    with pytest.raises(TypeError):
        L.closest("braves", set(BASEBALL_STRINGS))
    with pytest.raises(TypeError):
        L.rank("braves", dict(enumerate(BASEBALL_STRINGS)))
    with pytest.raises(TypeError):
        L.one_to_many("braves", set(BASEBALL_STRINGS))


def test_documented_difference_rank_ties_by_distance():
    """rapidfuzz's ``extract`` orders equal scores by position (test_result_order); ragmeter's
    ``rank`` orders equal normalised similarities by distance first, as its docstring says.
    "abcd" (2 edits of 4) and "a" (1 of 2) both score 0.5 against "ab"."""
    query, choices = "ab", ["abcd", "a"]
    found = rf_process.extract(query, choices, scorer=RF.normalized_similarity, limit=None)
    assert [index for _, _, index in found] == [0, 1]
    assert rf_process.extractOne(query, choices, scorer=RF.normalized_similarity)[2] == 0
    assert [m.index for m in L.rank(query, choices)] == [
        r[3] for r in rapidfuzz_rank(query, choices)
    ]
    assert [r[3] for r in rapidfuzz_rank(query, choices)] == [1, 0]
    assert L.closest(query, choices).index == 1


# ----------------------------------------------------------- against rapidfuzz itself

# Any valid text (st.text() draws no lone surrogate, which ragmeter refuses), or a small
# alphabet with astral characters; long enough for the multi-word kernels.
any_text = st.text() | dense_text | st.text(alphabet=SMALL_ALPHABET, min_size=60, max_size=300)


@given(s1=any_text, s2=any_text)
@settings(max_examples=300, deadline=None)
def test_scalar_measures_equal_rapidfuzz(s1, s2):
    """The four measures against rapidfuzz's (exact, floats included)."""
    for measure in MEASURES:
        assert getattr(L, measure)(s1, s2) == getattr(RF, measure)(s1, s2)


# No "" (hash("") == 0, so rapidfuzz reads [""] and [0] as equal) and no one-character word
# (rapidfuzz reads "a" as 97).
rf_token = st.one_of(st.integers(-50, 50), st.sampled_from(["the", "cat", "sat", "mat"]))


@given(s1=st.lists(rf_token, max_size=150), s2=st.lists(rf_token, max_size=150))
@settings(max_examples=150, deadline=None)
def test_token_sequences_equal_rapidfuzz(s1, s2):
    """The four measures on lists of ints and words against rapidfuzz's (ints of no hash
    collision, words of more than one character: where rapidfuzz's item equality is ==)."""
    for measure in MEASURES:
        assert getattr(L, measure)(s1, s2) == getattr(RF, measure)(s1, s2)
        assert getattr(L, measure)(tuple(s1), s2) == getattr(RF, measure)(s1, s2)


@given(pairs=st.lists(st.tuples(any_text, any_text), max_size=20))
@settings(max_examples=60, deadline=None)
def test_pairwise_equals_rapidfuzz_cpdist(pairs):
    """``pairwise`` against rapidfuzz's ``cpdist`` and scalar functions, every measure."""
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    for measure in MEASURES:
        scorer = getattr(RF, measure)
        dtype = np.int64 if measure in INT_MEASURES else np.float64
        got = L.pairwise(a, b, measure=measure)
        assert got.dtype == dtype
        assert got.tolist() == [scorer(x, y) for x, y in pairs]
        if pairs:
            expected = rf_process.cpdist(a, b, scorer=scorer, dtype=dtype)
            assert got.tolist() == expected.tolist()


@given(query=any_text, choices=st.lists(any_text, max_size=20))
@settings(max_examples=60, deadline=None)
def test_one_to_many_equals_rapidfuzz_cdist(query, choices):
    """``one_to_many`` against a row of rapidfuzz's ``cdist`` and its scalar functions."""
    for measure in MEASURES:
        scorer = getattr(RF, measure)
        dtype = np.int64 if measure in INT_MEASURES else np.float64
        got = L.one_to_many(query, choices, measure=measure)
        assert got.dtype == dtype
        assert got.tolist() == [scorer(query, c) for c in choices]
        if choices:
            expected = rf_process.cdist([query], choices, scorer=scorer, dtype=dtype)
            assert got.tolist() == expected[0].tolist()


@given(
    query=st.lists(rf_token, max_size=80),
    choices=st.lists(st.lists(rf_token, max_size=80), min_size=1, max_size=10),
)
@settings(max_examples=40, deadline=None)
def test_batches_of_token_sequences_equal_rapidfuzz(query, choices):
    """``one_to_many`` and ``pairwise`` on lists of items against rapidfuzz's cdist/cpdist."""
    for measure in MEASURES:
        scorer = getattr(RF, measure)
        dtype = np.int64 if measure in INT_MEASURES else np.float64
        row = rf_process.cdist([query], choices, scorer=scorer, dtype=dtype)[0]
        assert L.one_to_many(query, choices, measure=measure).tolist() == row.tolist()
        pairs = rf_process.cpdist([query] * len(choices), choices, scorer=scorer, dtype=dtype)
        got = L.pairwise([query] * len(choices), choices, measure=measure)
        assert got.tolist() == pairs.tolist()


short_text = st.text(alphabet="abcd😀", max_size=8)


@given(
    query=short_text,
    choices=st.lists(short_text, max_size=30),
    score_cutoff=st.sampled_from([0.0, 0.5, 0.8, 1.0]),
    limit=st.sampled_from([None, 1, 3]),
)
@settings(max_examples=150, deadline=None)
def test_rank_and_closest_equal_rapidfuzz_extract(query, choices, score_cutoff, limit):
    """``rank`` / ``closest`` against rapidfuzz's ``extract`` / ``extractOne`` with the
    Levenshtein normalised similarity (re-sorted by ragmeter's documented tie order)."""
    expected = rapidfuzz_rank(query, choices, score_cutoff, limit)
    got = L.rank(query, choices, score_cutoff=score_cutoff, limit=limit)
    assert [tuple(m) for m in got] == expected
    best = L.closest(query, choices, score_cutoff=score_cutoff)
    one = rf_process.extractOne(
        query, choices, scorer=RF.normalized_similarity, score_cutoff=score_cutoff
    )
    assert (best is None) == (one is None)
    if best is not None:
        assert tuple(best) == expected[0]
        assert best.similarity == one[1]


def test_threaded_batches_equal_rapidfuzz():
    """test_hypothesis.py::test_cdist at a size where ragmeter hands work to other threads
    (more than 16 KiB of text): a ``cdist`` row and ``cpdist`` against rapidfuzz's."""
    rng = np.random.default_rng(20260721)
    alphabet = np.array(list("abcdé😀 "))
    a = ["".join(rng.choice(alphabet, size=rng.integers(0, 140))) for _ in range(3000)]
    b = ["".join(rng.choice(alphabet, size=rng.integers(0, 140))) for _ in range(3000)]
    expected = rf_process.cpdist(a, b, scorer=RF.distance, dtype=np.int64)
    for n_threads in (1, 2):
        assert L.pairwise(a, b, n_threads=n_threads).tolist() == expected.tolist()
    row = rf_process.cdist([a[0]], b, scorer=RF.normalized_similarity, dtype=np.float64)[0]
    got = L.one_to_many(a[0], b, measure="normalized_similarity", n_threads=2)
    assert got.tolist() == row.tolist()


# ------------------------------------------------ fixed cases: long, astral, sequences


LONG_CASES = [
    ("a" * 65, ""),
    ("a" * 64, "a" * 65),
    ("a" * 100, "b" * 100),
    ("😀" * 64 + "a", "a"),
    ("ab😀" * 30, "ba😀" * 30),
    ("\U0010ffff" * 129, "\U0010ffff" * 128 + "x"),
    ("x" + "abcdefgh" * 16, "abcdefgh" * 16 + "y"),
    ("kitten" * 20, "sitting" * 20),
    ("𝔸𝔹ℂ" * 40, "𝔸ℂ𝔹" * 41),
]


@pytest.mark.parametrize(("s1", "s2"), LONG_CASES, ids=range(len(LONG_CASES)))
def test_long_and_astral_strings(s1, s2):
    """test_hypothesis.py::test_levenshtein_block's property on fixed long (more than 64 code
    points) and astral strings: the reference's distance, through the whole harness."""
    assert scorer_tester(s1, s2) == levenshtein(s1, s2)
    assert L.distance(s1, s2) == RF.distance(s1, s2)


def test_long_sequences_of_many_distinct_items():
    """Lists of more than 55296 distinct ints (ragmeter maps items to code points past the
    surrogates): the distance against rapidfuzz's."""
    a = list(range(60000))
    b = [*a[1:], 70000]
    assert L.distance(a, b) == RF.distance(a, b)
    c = a[55000:56500]
    d = a[55300:57400]
    assert L.distance(c, d) == RF.distance(c, d)
    assert L.normalized_similarity(c, d) == RF.normalized_similarity(c, d)
