"""Retrieval objects: documents, config validation, BM25 / strict / semantic / hybrid search,
response statuses, custom scorers and pairwise rankers."""

from __future__ import annotations

import math
import re

import bm25s
import numpy as np
import pytest
from rank_bm25 import BM25L, BM25Okapi, BM25Plus

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
        {"bm25_k1": -0.1},
        {"bm25_k1": math.nan},
        {"bm25_k1": "1.2"},
        {"bm25_b": 1.5},
        {"bm25_b": True},
        {"bm25_variant": "bm25+"},
        {"bm25_delta": -1.0},
        {"bm25_delta": math.inf},
        {"use_normalized_text": "yes"},
        {"case_sensitive": 1},
    ],
)
def test_invalid_configs_are_refused(fields):
    with pytest.raises(InvalidInputError, match=next(iter(fields))):
        RetrievalConfig(**fields)


def test_config_stores_numpy_scalars_as_python_values():
    # Parameter grids and distributions hand out NumPy scalars.
    config = RetrievalConfig(
        top_k=np.int64(5),
        bm25_k1=np.float32(1.25),
        bm25_b=np.int8(1),
        use_normalized_text=np.bool_(False),
        bm25_variant=np.str_("bm25l"),
    )
    assert (config.top_k, config.bm25_k1, config.bm25_b) == (5, 1.25, 1.0)
    assert type(config.top_k) is int and type(config.bm25_k1) is float
    assert config.use_normalized_text is False and type(config.bm25_variant) is str
    assert config.bm25_delta_value == 0.5
    assert RetrievalConfig(bm25_variant="bm25plus").bm25_delta_value == 1.0
    assert RetrievalConfig(bm25_variant="bm25plus", bm25_delta=0.25).bm25_delta_value == 0.25
    assert RetrievalConfig().bm25_delta_value == 0.0


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


class FixedBM25L(BM25L):
    """rank_bm25's BM25L with the fix merged upstream after 0.2.2 (dorianbrown/rank_bm25 PR #20,
    "Remove extraneous q_freq factor from BM25L score"): 0.2.2 multiplies each term's score by
    its frequency once more than Trotman et al. (2014) and the paper it cites."""

    def get_scores(self, query):
        score = np.zeros(self.corpus_size)
        doc_len = np.array(self.doc_len)
        for q in query:
            q_freq = np.array([(doc.get(q) or 0) for doc in self.doc_freqs])
            ctd = q_freq / (1 - self.b + self.b * doc_len / self.avgdl)
            score += (
                (self.idf.get(q) or 0)
                * (self.k1 + 1)
                * (ctd + self.delta)
                / (self.k1 + ctd + self.delta)
            )
        return score


def random_corpus(rng, n_docs=40, n_words=30):
    vocabulary = [f"w{i}" for i in range(n_words)]
    # A few words in most documents give rank_bm25's Okapi negative idfs to floor.
    common = vocabulary[:3]
    texts = {}
    for i in range(n_docs):
        words = list(rng.choice(vocabulary, size=rng.integers(1, 25)))
        words += [w for w in common if rng.random() < 0.7]
        texts[f"doc{i}"] = " ".join(words)
    return vocabulary, texts


def reference_scores(variant, corpus_tokens, k1, b, delta):
    """A callable tokens -> scores of every document, from rank_bm25 and bm25s."""
    if variant == "okapi":
        return [BM25Okapi(corpus_tokens, k1=k1, b=b).get_scores]
    rank_bm25_class = {"lucene": None, "bm25l": FixedBM25L, "bm25plus": BM25Plus}[variant]
    bm25s_method = {"lucene": "lucene", "bm25l": "bm25l", "bm25plus": "bm25+"}[variant]
    index = bm25s.BM25(k1=k1, b=b, delta=delta, method=bm25s_method, dtype="float64")
    index.index(corpus_tokens, show_progress=False)
    # bm25s's "lucene" is Lucene 8's formula, without the (k1 + 1) numerator.
    factor = k1 + 1 if variant == "lucene" else 1.0
    references = [lambda tokens: factor * index.get_scores(tokens)]
    if rank_bm25_class is not None:
        references.append(rank_bm25_class(corpus_tokens, k1=k1, b=b, delta=delta).get_scores)
    else:
        references.append(LuceneIdfBM25(corpus_tokens, k1=k1, b=b).get_scores)
    return references


@pytest.mark.parametrize("variant", ["lucene", "okapi", "bm25l", "bm25plus"])
def test_bm25_variants_match_rank_bm25_and_bm25s(variant):
    rng = np.random.default_rng(sum(map(ord, variant)))
    vocabulary, texts = random_corpus(rng)
    ids = list(texts)
    corpus_tokens = [tokens(t) for t in texts.values()]
    index = RetrievalIndex().build(make_documents(texts))
    checked = 0
    for k1, b, delta in [(1.5, 0.75, None), (0.9, 0.4, 0.25), (2.0, 1.0, 1.5), (0.1, 0.0, 0.0)]:
        config = RetrievalConfig(
            top_k=len(ids), bm25_variant=variant, bm25_k1=k1, bm25_b=b, bm25_delta=delta
        )
        references = reference_scores(variant, corpus_tokens, k1, b, config.bm25_delta_value)
        for _ in range(15):
            # Repeated words count once per occurrence, in all three implementations.
            query = list(rng.choice([*vocabulary, "unknown"], size=rng.integers(1, 5)))
            response = index.search(" ".join(query), config=config)
            # Only documents holding a query word and scoring > 0 are returned; the
            # references score every document.
            matching = [i for i, doc in enumerate(corpus_tokens) if set(query) & set(doc)]
            for reference in references:
                expected = reference(query)
                kept = [i for i in matching if expected[i] > 0]
                order = sorted(kept, key=lambda i: (-expected[i], i))
                got = {hit.doc.doc_id: hit.score for hit in response}
                assert set(got) == {ids[i] for i in kept}
                assert [got[ids[i]] for i in order] == pytest.approx(
                    [expected[i] for i in order], rel=1e-12, abs=1e-12
                )
                checked += 1
    assert checked == 4 * 15 * (1 if variant == "okapi" else 2)


def test_bm25_okapi_floors_negative_idf_like_rank_bm25():
    # "blood" is in 3 of 4 documents: ln(1.5 / 3.5) < 0, replaced by 0.25 * mean idf.
    texts = {"d1": "blood oxygen", "d2": "blood clot", "d3": "blood cells", "d4": "heart lung"}
    corpus_tokens = [tokens(t) for t in texts.values()]
    oracle = BM25Okapi(corpus_tokens)
    assert oracle.idf["blood"] == pytest.approx(0.25 * oracle.average_idf)
    assert oracle.idf["blood"] > 0
    index = RetrievalIndex(RetrievalConfig(bm25_variant="okapi")).build(make_documents(texts))
    response = index.search("blood")
    assert response.doc_ids == ["d1", "d2", "d3"]
    assert [h.score for h in response] == pytest.approx(oracle.get_scores(["blood"])[:3].tolist())
    # When the mean idf is negative too, so are the floored idf and every score: none returned.
    del texts["d4"]
    index = RetrievalIndex(RetrievalConfig(bm25_variant="okapi")).build(make_documents(texts))
    assert BM25Okapi(corpus_tokens[:3]).get_scores(["blood"]).max() < 0
    assert index.search("blood").status == "empty"


def test_bm25_parameters_change_rankings_as_documented():
    texts = {"short": "oxygen", "long": "oxygen oxygen " + " ".join(["filler"] * 20)}
    index = RetrievalIndex().build(make_documents(texts))
    # b = 1: the long document's two occurrences are normalised away; b = 0: they count.
    assert index.search("oxygen", config=RetrievalConfig(bm25_b=1.0)).doc_ids[0] == "short"
    assert index.search("oxygen", config=RetrievalConfig(bm25_b=0.0)).doc_ids[0] == "long"
    # k1 = 0: term frequency and length no longer matter, both score idf: a tie in build order.
    flat = index.search("oxygen", config=RetrievalConfig(bm25_k1=0.0))
    assert flat.doc_ids == ["short", "long"] and flat[0].score == flat[1].score


def test_search_many_equals_one_search_per_query():
    rng = np.random.default_rng(11)
    vocabulary, texts = random_corpus(rng, n_docs=60)
    embeddings = {key: rng.normal(size=4).tolist() for key in texts}
    index = RetrievalIndex().build(make_documents(texts, embeddings))
    queries = [" ".join(rng.choice(vocabulary, size=3)) for _ in range(25)] + ["", "zzz"]
    vectors = [rng.normal(size=4) for _ in queries]
    for config in [
        RetrievalConfig(top_k=7),
        RetrievalConfig(top_k=5, bm25_variant="bm25plus", bm25_k1=0.8, keyword_threshold=2.0),
        RetrievalConfig(top_k=4, match_mode="strict"),
        RetrievalConfig(top_k=6, match_mode="semantic", semantic_threshold=0.1),
        RetrievalConfig(top_k=5, match_mode="hybrid", hybrid_alpha=0.3),
    ]:
        many = index.search_many(queries, config=config, query_embeddings=vectors, n_threads=2)
        one = [
            index.search(q, config=config, query_embedding=v)
            for q, v in zip(queries, vectors, strict=True)
        ]
        assert [r.doc_ids for r in many] == [r.doc_ids for r in one]
        for a, b in zip(many, one, strict=True):
            # Cosines of a block of queries come from a matrix product, a single query's from
            # a matrix-vector product: equal up to the last bits.
            assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-12)
        assert [r.to_dict() for r in many] == [r.to_dict() for r in one]
        assert [r.query for r in many] == queries


def test_semantic_top_positions_break_ties_in_build_order():
    # Many equal cosines around the cut: the first documents in build order win.
    vectors = {f"d{i}": [1.0, 0.0] if i % 3 else [0.0, 1.0] for i in range(30)}
    texts = {key: f"text {key}" for key in vectors}
    index = RetrievalIndex(RetrievalConfig(match_mode="semantic", top_k=5)).build(
        make_documents(texts, vectors)
    )
    response = index.search("x", query_embedding=[1.0, 0.0])
    assert response.doc_ids == ["d1", "d2", "d4", "d5", "d7"]
    order = np.argsort(-np.array([v[0] for v in vectors.values()]), kind="stable")[:5]
    assert response.doc_ids == [f"d{i}" for i in order]


def test_search_many_errors_name_the_query():
    index = RetrievalIndex(RetrievalConfig(match_mode="semantic")).build(
        make_documents(embeddings=EMBEDDINGS)
    )
    with pytest.raises(InvalidInputError, match=r"query 1\)"):
        index.search_many(["a", "b"], query_embeddings=[[1.0, 0.0], [1.0]])
    with pytest.raises(InvalidInputError, match="2 embeddings for 1 queries"):
        index.search_many(["a"], query_embeddings=[[1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(InvalidInputError, match="item 1 is a int"):
        index.search_many(["a", 3])
    with pytest.raises(InvalidInputError, match="got a str"):
        index.search_many("abc")


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


def test_ranker_factories_check_their_arguments_at_once():
    from ragmeter.exceptions import InputTypeError, InvalidInputError
    from ragmeter.retrieval import make_levenshtein_ranker, make_pairwise_ranker

    with pytest.raises(InputTypeError, match="score_cutoff: must be a number"):
        make_levenshtein_ranker(score_cutoff="a")
    with pytest.raises(InputTypeError, match="score_cutoff: must be a number"):
        make_pairwise_ranker(lambda q, t: 1.0, score_cutoff="x")
    with pytest.raises(InvalidInputError, match=r"score_cutoff: .* \[0, 1\]"):
        make_levenshtein_ranker(score_cutoff=2)
    with pytest.raises(TypeError, match="normalize"):
        make_levenshtein_ranker(normalize=3)


def test_unknown_statuses_name_the_argument():
    from ragmeter.exceptions import InvalidInputError
    from ragmeter.retrieval import RetrievalResponse

    with pytest.raises(InvalidInputError, match="status: must be one of 'success'"):
        RetrievalResponse(status="bogus")
    with pytest.raises(InvalidInputError, match="kind: must be one of"):
        RetrievalResponse().leg("bogus")
