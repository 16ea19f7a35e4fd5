"""Retrieval objects: documents, config validation, BM25 / strict / semantic / hybrid search,
response statuses, custom scorers and pairwise rankers."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from ragmeter import (
    CorpusDocument,
    CustomRetrievalIndex,
    InvalidInputError,
    RetrievalConfig,
    RetrievalHit,
    RetrievalIndex,
    RetrievalResponse,
    make_levenshtein_ranker,
    make_pairwise_ranker,
)
from ragmeter.retrieval import ErrorRecord, LegKind, LegOutcome, LegStatus

TEXTS = {
    "d1": "hemoglobin carries oxygen in red blood cells",
    "d2": "platelets help blood clot",
    "d3": "white blood cells fight infection",
}


def make_documents(texts=TEXTS, embeddings=None):
    return [
        CorpusDocument(
            doc_id=key,
            input_path=f"memory://{key}",
            chunk_index=0,
            text=text,
            embedding=None if embeddings is None else embeddings[key],
        )
        for key, text in texts.items()
    ]


class LuceneIdfBM25(BM25Okapi):
    """rank_bm25's Okapi scoring with the Lucene idf ln((N - df + 0.5) / (df + 0.5) + 1)."""

    def _calc_idf(self, nd):
        for word, freq in nd.items():
            self.idf[word] = math.log((self.corpus_size - freq + 0.5) / (freq + 0.5) + 1.0)


def tokens(text):
    return re.findall(r"\w+", text.lower())


# -- documents and config -----------------------------------------------------------------------


def test_doc_id_is_derived_deterministically_when_not_given():
    a = CorpusDocument.create("a.txt", 0, "kitten")
    b = CorpusDocument(input_path="a.txt", chunk_index=0, text="kitten")
    c = CorpusDocument.create("a.txt", 1, "kitten")
    assert a.doc_id == b.doc_id
    assert re.fullmatch(r"[0-9a-f]{16}", a.doc_id)
    assert a.doc_id != c.doc_id


def test_document_equality_ignores_embedding_and_tokens():
    a = CorpusDocument.create("a.txt", 0, "kitten", embedding=[1.0, 0.0])
    b = CorpusDocument.create("a.txt", 0, "kitten", embedding=[0.0, 1.0], tokens=("x",))
    assert a == b
    assert hash(a) == hash(b)


@pytest.mark.parametrize(
    "fields",
    [
        {"input_path": "", "text": "x"},
        {"input_path": "a", "text": ""},
        {"input_path": "a", "text": "x", "doc_id": 1.5},
        {"input_path": "a", "text": "x", "chunk_index": "0"},
    ],
)
def test_invalid_documents_are_refused(fields):
    with pytest.raises(InvalidInputError):
        CorpusDocument(**fields)


@pytest.mark.parametrize(
    "fields",
    [
        {"top_k": 0},
        {"top_k": True},
        {"match_mode": "fuzzy"},
        {"semantic_threshold": 1.5},
        {"hybrid_alpha": -0.1},
        {"hybrid_alpha": math.nan},
        {"rrf_k": -1},
        {"keyword_threshold": math.inf},
    ],
)
def test_invalid_configs_are_refused(fields):
    with pytest.raises(ValueError):
        RetrievalConfig(**fields)


def test_build_refuses_empty_duplicate_and_mixed_ids():
    with pytest.raises(InvalidInputError, match="no documents"):
        RetrievalIndex().build([])
    twice = [
        CorpusDocument.create("a", 0, "x", doc_id="d"),
        CorpusDocument.create("b", 0, "y", doc_id="d"),
    ]
    with pytest.raises(InvalidInputError, match="unique"):
        RetrievalIndex().build(twice)
    mixed = [
        CorpusDocument.create("a", 0, "x", doc_id="1"),
        CorpusDocument.create("b", 0, "y", doc_id=1),
    ]
    with pytest.raises(InvalidInputError, match="mix"):
        RetrievalIndex().build(mixed)


# -- keyword (BM25) -------------------------------------------------------------------------------


def test_bm25_scores_of_the_spec_example_by_hand():
    index = RetrievalIndex(RetrievalConfig(match_mode="keyword", top_k=3)).build(make_documents())
    response = index.search("blood clotting cells")
    # N = 3, avgdl = 16/3; idf(blood) = ln(0.5/3.5 + 1), idf(cells) = ln(1.5/2.5 + 1);
    # "clotting" is no token of any document ("clot" is a different token).
    idf_blood, idf_cells = math.log(1 + 0.5 / 3.5), math.log(1 + 1.5 / 2.5)

    def term(idf, dl):
        return idf * 2.5 / (1 + 1.5 * (0.25 + 0.75 * dl / (16 / 3)))

    expected = {
        "d3": term(idf_blood, 5) + term(idf_cells, 5),
        "d1": term(idf_blood, 7) + term(idf_cells, 7),
        "d2": term(idf_blood, 4),
    }
    assert [hit.doc.doc_id for hit in response] == ["d3", "d1", "d2"]
    for hit in response:
        assert hit.score == pytest.approx(expected[hit.doc.doc_id], rel=1e-12)
    assert [hit.rank for hit in response] == [0, 1, 2]
    assert response.status == "success"
    assert {hit.native_metric for hit in response} == {"bm25"}


def test_bm25_matches_rank_bm25_with_lucene_idf():
    rng = np.random.default_rng(3)
    vocabulary = [f"w{i}" for i in range(30)]
    texts = {
        f"doc{i}": " ".join(rng.choice(vocabulary, size=rng.integers(3, 25))) for i in range(40)
    }
    index = RetrievalIndex(RetrievalConfig(top_k=40)).build(make_documents(texts))
    oracle = LuceneIdfBM25([tokens(t) for t in texts.values()])
    ids = list(texts)
    for _ in range(20):
        query = " ".join(rng.choice(vocabulary, size=3))
        expected = oracle.get_scores(tokens(query))
        # rank_bm25 scores every document; ours returns those scoring > 0, ties in build order.
        order = sorted(
            (i for i in range(len(ids)) if expected[i] > 0), key=lambda i: (-expected[i], i)
        )
        response = index.search(query)
        assert [hit.doc.doc_id for hit in response] == [ids[i] for i in order]
        assert [hit.score for hit in response] == pytest.approx([expected[i] for i in order])


def test_keyword_threshold_top_k_and_empty_query():
    index = RetrievalIndex(RetrievalConfig(top_k=2)).build(make_documents())
    assert len(index.search("blood cells")) == 2
    strict_threshold = RetrievalConfig(keyword_threshold=0.6)
    assert [h.doc.doc_id for h in index.search("blood cells", config=strict_threshold)] == ["d3"]
    empty = index.search("!!!")
    assert empty.status == "empty" and not empty and len(empty) == 0


def test_documents_with_tokens_and_normalized_text():
    docs = [
        CorpusDocument.create("a", 0, "Unrelated words", doc_id="a", normalized_text="oxygen"),
        CorpusDocument.create("b", 0, "oxygen", doc_id="b", tokens=("nothing",)),
    ]
    index = RetrievalIndex().build(docs)
    assert index.search("oxygen").doc_ids == ["a"]
    raw = RetrievalConfig(use_normalized_text=False)
    assert index.search("oxygen", config=raw).doc_ids == []
    assert index.search("unrelated", config=raw).doc_ids == ["a"]


# -- strict -------------------------------------------------------------------------------------


def test_strict_is_a_case_folded_substring_match():
    index = RetrievalIndex(RetrievalConfig(match_mode="strict", top_k=3)).build(make_documents())
    assert index.search("what carries oxygen").status == "empty"
    response = index.search("BLOOD")
    assert response.doc_ids == ["d1", "d2", "d3"]
    assert {hit.score for hit in response} == {1.0}
    sensitive = RetrievalConfig(match_mode="strict", case_sensitive=True)
    assert index.search("BLOOD", config=sensitive).doc_ids == []
    assert index.search("Straße".upper(), config=RetrievalConfig(match_mode="strict")).doc_ids == []
    german = RetrievalIndex(RetrievalConfig(match_mode="strict")).build(
        [CorpusDocument.create("g", 0, "die Straße", doc_id="g")]
    )
    assert german.search("STRASSE").doc_ids == ["g"]  # casefold, not lower
    top1 = RetrievalConfig(match_mode="strict", top_k=1)
    assert index.search("blood", config=top1).doc_ids == ["d1"]


# -- semantic and hybrid ------------------------------------------------------------------------

EMBEDDINGS = {"d1": [1.0, 0.0], "d2": [0.6, 0.8], "d3": [0.0, 1.0]}


def test_semantic_ranks_by_cosine_with_ties_in_build_order():
    docs = make_documents(embeddings={"d1": [2.0, 0.0], "d2": [1.0, 1.0], "d3": [3.0, 0.0]})
    index = RetrievalIndex(RetrievalConfig(match_mode="semantic", top_k=3)).build(docs)
    response = index.search("anything", query_embedding=[1.0, 0.0])
    assert response.doc_ids == ["d1", "d3", "d2"]
    assert [h.score for h in response] == pytest.approx([1.0, 1.0, math.sqrt(0.5)])
    assert response.status == "success"
    assert response.leg("dense").status == "success"
    assert response.leg("lexical").status == "skipped"
    thresholded = RetrievalConfig(match_mode="semantic", semantic_threshold=0.9)
    assert index.search("x", config=thresholded, query_embedding=[1, 0]).doc_ids == ["d1", "d3"]
    assert index.query([0.0, 1.0], k=1) == [("d2", pytest.approx(math.sqrt(0.5)))]


def test_semantic_without_query_embedding_raises_and_without_index_fails():
    with_embeddings = RetrievalIndex(RetrievalConfig(match_mode="semantic")).build(
        make_documents(embeddings=EMBEDDINGS)
    )
    with pytest.raises(InvalidInputError, match="query_embedding"):
        with_embeddings.search("oxygen")
    with pytest.raises(InvalidInputError, match="3"):
        with_embeddings.search("oxygen", query_embedding=[1.0, 0.0, 0.0])
    without = RetrievalIndex(RetrievalConfig(match_mode="semantic")).build(make_documents())
    response = without.search("oxygen", query_embedding=[1.0, 0.0])
    assert response.status == "failed"
    assert [e.code for e in response.error_records()] == ["NO_DENSE_INDEX"]


def test_partial_or_bad_embeddings_build_no_dense_index():
    docs = make_documents()
    docs[0] = CorpusDocument.create("memory://d1", 0, TEXTS["d1"], doc_id="d1", embedding=[1, 0])
    with pytest.warns(UserWarning, match="1 of 3"):
        assert not RetrievalIndex().build(docs).has_embeddings
    zero = make_documents(embeddings={**EMBEDDINGS, "d2": [0.0, 0.0]})
    with pytest.warns(UserWarning, match="d2"):
        assert not RetrievalIndex().build(zero).has_embeddings
    ragged = make_documents(embeddings={**EMBEDDINGS, "d2": [0.0, 0.0, 1.0]})
    with pytest.raises(InvalidInputError, match="dimensions"):
        RetrievalIndex().build(ragged)


def test_hybrid_is_weighted_reciprocal_rank_fusion():
    docs = make_documents(embeddings=EMBEDDINGS)
    config = RetrievalConfig(match_mode="hybrid", top_k=3, hybrid_alpha=0.25, rrf_k=10)
    index = RetrievalIndex(config).build(docs)
    response = index.search("blood cells", query_embedding=[0.0, 1.0])
    # lexical: d3, d1, d2 (BM25); dense: d3 (1.0), d2 (0.8), d1 (0.0)
    lexical = {"d3": 0, "d1": 1, "d2": 2}
    dense = {"d3": 0, "d2": 1, "d1": 2}
    fused = {d: 0.75 / (10 + lexical[d] + 1) + 0.25 / (10 + dense[d] + 1) for d in lexical}
    expected = sorted(fused, key=lambda d: (-fused[d], d))
    assert response.doc_ids == expected
    assert [h.score for h in response] == pytest.approx([fused[d] for d in expected])
    assert response.status == "success"
    assert response[0].native_metric == "reciprocal_rank_fusion"
    assert {c.leg for c in response[0].contributions} == {LegKind.LEXICAL, LegKind.DENSE}


def test_hybrid_without_query_embedding_is_degraded_keyword_hits():
    index = RetrievalIndex(RetrievalConfig(match_mode="hybrid", top_k=3)).build(
        make_documents(embeddings=EMBEDDINGS)
    )
    response = index.search("blood cells")
    assert response.status == "degraded"
    assert response.doc_ids == ["d3", "d1", "d2"]
    assert [leg.leg for leg in response.degraded_legs] == ["dense"]
    assert response.error_records()[0].code == "NO_QUERY_EMBEDDING"
    assert response.to_dict()["hit_count"] == 3


# -- response -----------------------------------------------------------------------------------


def test_response_status_derivation_and_list_behaviour():
    doc = make_documents()[0]
    hit = RetrievalHit(doc=doc, score=1.0, match_mode="keyword", rank=0)
    error = ErrorRecord("X", "internal", "broken")
    ok = LegOutcome("lexical", "success", 1)
    failed = LegOutcome("dense", "failed", error=error)
    skipped = LegOutcome("dense", "skipped")
    assert RetrievalResponse((hit,), (ok, skipped)).status == "success"
    assert RetrievalResponse((), (LegOutcome("lexical", "empty"), skipped)).status == "empty"
    assert RetrievalResponse((hit,), (ok, failed)).status == "degraded"
    assert RetrievalResponse((), (LegOutcome("lexical", "failed", error=error),)).status == "failed"
    assert RetrievalResponse((hit,), (ok,), status="cancelled").status == "cancelled"
    response = RetrievalResponse([hit], [ok])
    assert len(response) == 1 and response[0] is hit and list(response) == [hit] and response
    with pytest.raises(InvalidInputError, match="ErrorRecord"):
        LegOutcome("dense", LegStatus.DEGRADED)


def test_hit_equality_ignores_provenance():
    doc = make_documents()[0]
    a = RetrievalHit(doc=doc, score=0.5, match_mode="keyword", rank=0, backend="x")
    b = RetrievalHit(doc=doc, score=0.5, match_mode="keyword", rank=3, native_metric="y")
    assert a == b


# -- custom scorers -----------------------------------------------------------------------------


def test_custom_index_calls_the_scorer_and_wraps_hits():
    calls = []

    def scorer(query, documents, config):
        calls.append((query, [d.doc_id for d in documents], config.top_k))
        return [RetrievalHit(doc=documents[2], score=0.9, match_mode="custom")]

    index = CustomRetrievalIndex(RetrievalConfig(top_k=2), custom_scorer_fn=scorer)
    index.build(make_documents())
    response = index.search("q")
    assert calls == [("q", ["d1", "d2", "d3"], 2)]
    assert response.doc_ids == ["d3"] and response.status == "success"
    assert index.n_documents == 3


def test_custom_index_errors():
    with pytest.raises(TypeError):
        CustomRetrievalIndex(custom_scorer_fn=42)

    def broken(query, documents, config):
        raise KeyError("boom")

    index = CustomRetrievalIndex(custom_scorer_fn=broken).build(make_documents())
    with pytest.raises(RuntimeError, match="broken") as info:
        index.search("q")
    assert isinstance(info.value.__cause__, KeyError)
    plain = CustomRetrievalIndex(RetrievalConfig(match_mode="strict")).build(make_documents())
    assert plain.search("blood").doc_ids == ["d1", "d2", "d3"]


def test_pairwise_ranker_sorts_cuts_and_breaks_ties_by_document_order():
    def shared_words(query, text):
        return float(len(set(query.split()) & set(text.split())))

    ranker = make_pairwise_ranker(shared_words, score_cutoff=1.0)
    index = CustomRetrievalIndex(RetrievalConfig(top_k=2), custom_scorer_fn=ranker)
    index.build(make_documents())
    response = index.search("blood cells")
    # d1 and d3 share 2 words (tie: document order), d2 shares 1 -> cut by top_k.
    assert response.doc_ids == ["d1", "d3"]
    assert [h.score for h in response] == [2.0, 2.0]
    assert [h.rank for h in response] == [0, 1]
    assert response[0].native_metric == "shared_words"
    assert response[0].match_mode == "pairwise"
    assert index.search("nothing here").status == "empty"


def test_pairwise_ranker_for_distances_and_bad_scores():
    def length_gap(query, text):
        return abs(len(query) - len(text))

    ranker = make_pairwise_ranker(length_gap, greater_is_better=False, score_cutoff=20)
    index = CustomRetrievalIndex(RetrievalConfig(top_k=3), custom_scorer_fn=ranker)
    index.build(make_documents())
    # lengths: d1 44, d2 25, d3 33; query length 25 -> gaps 19, 0, 8
    assert index.search("x" * 25).doc_ids == ["d2", "d3", "d1"]
    assert index.search("x" * 10).doc_ids == ["d2"]  # gaps 34, 15, 23: only d2 <= 20

    nan_ranker = make_pairwise_ranker(lambda q, t: math.nan, native_metric="nan")
    broken = CustomRetrievalIndex(custom_scorer_fn=nan_ranker).build(make_documents())
    with pytest.raises(RuntimeError, match="finite"):
        broken.search("q")


def test_levenshtein_ranker_orders_by_similarity_then_distance_then_document_order():
    from rapidfuzz.distance import Levenshtein

    texts = {
        "a": "kitten",
        "b": "sitting",
        "c": "mitten",
        "d": "kitchen",
        "e": "smitten",
        "f": "kitten",
        "g": "cat",
    }
    documents = [
        CorpusDocument.create("m", i, t, doc_id=k) for i, (k, t) in enumerate(texts.items())
    ]
    ranker = make_levenshtein_ranker(score_cutoff=0.3)
    index = CustomRetrievalIndex(RetrievalConfig(top_k=5), custom_scorer_fn=ranker)
    index.build(documents)
    response = index.search("kitten")
    expected = sorted(
        (
            (
                -Levenshtein.normalized_similarity("kitten", t),
                Levenshtein.distance("kitten", t),
                i,
                k,
            )
            for i, (k, t) in enumerate(texts.items())
            if Levenshtein.normalized_similarity("kitten", t) >= 0.3
        )
    )[:5]
    assert response.doc_ids == [k for *_, k in expected]
    assert [h.score for h in response] == pytest.approx([-s for s, *_ in expected])
    assert {h.match_mode for h in response} == {"levenshtein"}
    assert response[0].native_metric == "normalized_levenshtein_similarity"
    assert [h.rank for h in response] == list(range(len(expected)))
    with pytest.raises(InvalidInputError, match="score_cutoff"):
        make_levenshtein_ranker(score_cutoff=1.5)
    shouting = [CorpusDocument.create("m", 0, "KITTEN", doc_id="k")]
    folded = CustomRetrievalIndex(custom_scorer_fn=make_levenshtein_ranker(normalize="basic"))
    assert [h.score for h in folded.build(shouting).search("kitten")] == [1.0]
    exact = CustomRetrievalIndex(custom_scorer_fn=make_levenshtein_ranker())
    assert [h.score for h in exact.build(shouting).search("kitten")] == [0.0]
