"""ragmeter against ir_measures, per measure and per query.

Every family that declares ``ir_measures_examples`` is compared, example by example, with the
provider it declares, pinned (``ir_measures.<provider>.iter_calc``), so a new family is tested
here without editing a list: on fixed cases (a ranking longer than cwl_eval's 1000 ranks, a
query without a positive judgment, ...) and with hypothesis (graded judgments -1 to 4).

Ties: gdeval and pytrec_eval order tied scores as trec_eval does (doc id descending), so
their runs have ties; the other providers order them otherwise (doc id ascending, run order,
or averaged weights), so their runs have distinct scores, distinct across queries too
(trectools averages the weights of equal consecutive scores across query boundaries).

Undefined values: ragmeter leaves a value undefined (``zero_division=np.nan``) where the
provider leaves the query out, reports its default 0 or NaN, or fails (the accuracy provider
divides by zero when every retrieved document is relevant).

Diversity families (pyndeval) get judgments by subtopic, ``{query: {doc: {subtopic: grade}}}``,
given to ir_measures as qrels with an iteration column.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import random
import warnings

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragmeter
from ragmeter.cli import main
from ragmeter.ranking import FAMILIES

# cwl_eval warns about every min_rel/max_rel it did not see; pyndeval-style stderr chatter.
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)

CASES = [
    (fam, example)
    for fam in FAMILIES
    if fam.ir_measures_provider is not None
    for example in fam.ir_measures_examples
]
IDS = [example for _, example in CASES]
# Providers that order tied scores as trec_eval does.
TREC_TIES = {"gdeval", "pytrec_eval"}
# gdeval prints 5 decimals.
TOLERANCE = {"gdeval": 5.1e-6}


def test_every_example_is_read_by_ir_measures_and_names_its_family():
    assert CASES
    for fam, example in CASES:
        measure = ir_measures.parse_measure(example)
        provider = ir_measures.providers.registry[fam.ir_measures_provider]
        assert provider.supports(measure), (example, fam.ir_measures_provider)
        assert ragmeter.ranking.parse_metric(example).family is fam, example


def as_ir_measures_qrels(qrels):
    """Diversity judgments as ir_measures reads them: qrels with an iteration column."""
    return [
        ir_measures.Qrel(q, doc, grade, subtopic)
        for q, judged in qrels.items()
        for doc, by_subtopic in judged.items()
        for subtopic, grade in by_subtopic.items()
    ]


def expected_values(provider_name, example, qrels, run):
    """{query: value} from the provider; a query it cannot score is left out."""
    provider = getattr(ir_measures, provider_name)
    measure = ir_measures.parse_measure(example)
    if any(isinstance(g, dict) for judged in qrels.values() for g in judged.values()):
        qrels = as_ir_measures_qrels(qrels)
    # pyndeval warns on stderr when every query has a single subtopic.
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        try:
            return {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
        except ZeroDivisionError:
            values = {}
            for q in qrels:
                with contextlib.suppress(ZeroDivisionError):
                    values.update(
                        (m.query_id, m.value)
                        for m in provider.iter_calc([measure], {q: qrels[q]}, {q: run[q]})
                    )
            return values


def compare(fam, example, qrels, run):
    expected = expected_values(fam.ir_measures_provider, example, qrels, run)
    ours = ragmeter.ranking_metrics(
        qrels, run, metrics=[example], average=None, zero_division=np.nan
    )[example]
    tolerance = TOLERANCE.get(fam.ir_measures_provider, 1e-12)
    for q in qrels:
        got, want = ours[q], expected.get(q)
        context = (example, q, qrels[q], sorted(run[q].items(), key=lambda d: -d[1])[:30])
        if isinstance(got, float) and math.isnan(got):
            assert want is None or want == 0 or math.isnan(want), context
        else:
            assert want is not None, context
            assert got == pytest.approx(want, abs=tolerance, rel=1e-9), context


def _scores(n, rng, ties, offset):
    if ties:
        return [rng.choice([0.5, 1.0, 1.5, 2.0]) for _ in range(n)]
    return [(offset + i + 1) / 1024 for i in rng.sample(range(n * 4), n)]


def fixed_cases(fam):
    """(qrels, run) pairs for edge cases; query ids are numbers (gdeval refuses others)."""
    if fam.subtopic_judgments:
        return [(by_subtopic(qrels, seed), run) for seed, (qrels, run) in enumerate(_graded())]
    return _graded()


def by_subtopic(qrels, seed):
    """Each judgment spread over up to three subtopics (its grade on some, others 0)."""
    rng = random.Random(seed)
    return {
        q: {
            doc: {s: (grade if rng.random() < 0.6 else 0) for s in rng.sample("abc", 2)}
            for doc, grade in judged.items()
        }
        for q, judged in qrels.items()
    }


def _graded():
    cases = []
    docs = [f"d{i}" for i in range(1300)]
    rng = random.Random(11)
    # A ranking longer than cwl_eval's 1000 ranks, relevant documents on both sides of 1000.
    long_run = {d: (1300 - i) / 8 for i, d in enumerate(docs)}
    long_qrels = {docs[i]: rng.choice([0, 1, 2, 3, 4]) for i in range(0, 1300, 7)}
    long_qrels[docs[999]] = 4
    long_qrels[docs[1000]] = 3
    cases.append(({"1": long_qrels}, {"1": long_run}))
    # Everything relevant; nothing relevant retrieved; only non-positive judgments; one
    # document; relevant documents not retrieved; unjudged documents on top.
    cases.append(
        (
            {
                "1": {"a": 1, "b": 2, "c": 4},
                "2": {"a": 0, "x": 3},
                "3": {"a": 0, "b": -1},
                "4": {"a": 2},
                "5": {"a": 1, "b": 1, "c": 3, "d": 0, "e": 2},
                "6": {"c": 1, "d": 2, "e": 0},
            },
            {
                "1": {"c": 3.0, "b": 2.0, "a": 1.0},
                "2": {"a": 4.0, "b": 3.5},
                "3": {"a": 5.0, "b": 4.5, "c": 4.25},
                "4": {"a": 6.0},
                "5": {"e": 7.0, "z": 6.5, "a": 6.25},
                "6": {"u1": 8.0, "u2": 7.75, "c": 7.5, "e": 7.25, "d": 7.125},
            },
        )
    )
    return cases


@pytest.mark.parametrize(("fam", "example"), CASES, ids=IDS)
def test_fixed_cases(fam, example):
    for qrels, run in fixed_cases(fam):
        compare(fam, example, qrels, run)


doc_ids = st.sampled_from([f"d{i}" for i in range(25)] + ["D2", "x7", "d100"])


@st.composite
def queries(draw, ties, subtopics):
    n = draw(st.integers(1, 6))
    qrels, run = {}, {}
    offset = 0
    for q in range(1, n + 1):
        # pytrec_eval reads uninitialised memory for a query without a judgment >= 0 or
        # without a ranked document (see test_ranking_oracle.py): every query has both.
        if subtopics:
            grades = st.dictionaries(st.sampled_from("abcd"), st.integers(0, 3), min_size=1)
            judged = draw(st.dictionaries(doc_ids, grades, min_size=1, max_size=14))
        else:
            judged = draw(st.dictionaries(doc_ids, st.integers(-1, 4), min_size=1, max_size=14))
            judged[draw(doc_ids)] = draw(st.integers(0, 4))
        ranked = draw(st.lists(doc_ids, unique=True, min_size=1, max_size=22))
        rng = random.Random(draw(st.integers(0, 2**32)))
        scores = _scores(len(ranked), rng, ties, offset)
        offset += len(ranked) * 4 + 1
        qrels[str(q)] = judged
        run[str(q)] = dict(zip(ranked, scores, strict=True))
    return qrels, run


@pytest.mark.parametrize(("fam", "example"), CASES, ids=IDS)
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_matches_the_provider_per_query(fam, example, data):
    ties = fam.ir_measures_provider in TREC_TIES and data.draw(st.booleans())
    qrels, run = data.draw(queries(ties, fam.subtopic_judgments))
    compare(fam, example, qrels, run)


def test_rbp_residual_equals_trectools_on_binary_grades_with_a_depth():
    # ir_measures keeps only trectools' RBP; its residual is get_rbp's second value, which
    # equals ragmeter's on binary grades when a depth is given (see the declaration).
    import pandas as pd
    from trectools import TrecEval, TrecQrel, TrecRun

    rng = random.Random(3)
    qrels, run = {}, {}
    for q in range(1, 7):
        docs = [f"d{i}" for i in range(40)]
        qrels[str(q)] = {d: rng.choice([0, 1, 1]) for d in rng.sample(docs, 25)}
        ranked = rng.sample(docs, rng.randint(3, 30))
        run[str(q)] = {d: (q * 1000 + 100 - i) / 8 for i, d in enumerate(ranked)}
    trec_qrels = TrecQrel()
    trec_qrels.qrels_data = pd.DataFrame(
        [(q, "0", d, g) for q, j in qrels.items() for d, g in j.items()],
        columns=["query", "q0", "docid", "rel"],
    )
    rows = [(q, "Q0", d, 0, s, "r") for q, r in run.items() for d, s in r.items()]
    trec_run = TrecRun()
    trec_run.run_data = pd.DataFrame(
        rows, columns=["query", "q0", "docid", "rank", "score", "system"]
    ).sort_values(["query", "score"], ascending=[True, False])
    for p, depth in [(0.8, 10), (0.5, 3), (0.95, 50)]:
        _, residual = TrecEval(trec_run, trec_qrels).get_rbp(
            p=p, depth=depth, per_query=True, binary_topical_relevance=False
        )
        name = f"rbp_graded_residual(p={p})@{depth}"
        ours = ragmeter.ranking_metrics(qrels, run, metrics=[name], average=None)[name]
        label = residual.columns[0]
        compared = 0
        for q in qrels:
            want = residual[label].get(q, math.nan)
            if math.isnan(want):
                # trectools subtracts a missing RBP (no relevant document in the top depth):
                # NaN, its own bug.
                continue
            assert ours[q] == pytest.approx(want, abs=1e-12), (p, depth, q)
            compared += 1
        assert compared >= 3


def test_every_measure_of_ir_measures_has_a_family():
    # ir_measures' own registry (its documented list, with its aliases: MAP, NDCG, BPref,
    # SetRelP, α_nDCG...): each name is read by ragmeter, with whatever parameters it needs.
    for name in ir_measures.measures.registry:
        tries = [name, f"{name}@5", f"{name}(max_rel=3)", f"{name}(max_rel=3)@5"]
        families = []
        for text in tries:
            try:
                families.append(ragmeter.ranking.parse_metric(text).family)
            except ValueError:
                continue
        assert families, name


def test_rr_at_k_equals_the_msmarco_provider():
    # ir_measures computes RR@k with its msmarco provider; ragmeter's RR@k is recip_rank
    # within the top k.
    rng = random.Random(5)
    qrels, run = {}, {}
    for q in range(1, 30):
        docs = [f"d{i}" for i in range(40)]
        qrels[str(q)] = {d: rng.choice([0, 0, 1, 2]) for d in rng.sample(docs, 10)}
        ranked = rng.sample(docs, rng.randint(1, 30))
        run[str(q)] = {d: (1000 * q + 100 - i) / 8 for i, d in enumerate(ranked)}
    for example in ["RR@10", "RR@3", "RR(rel=2)@10"]:
        measure = ir_measures.parse_measure(example)
        expected = {
            m.query_id: m.value for m in ir_measures.msmarco.iter_calc([measure], qrels, run)
        }
        ours = ragmeter.ranking_metrics(qrels, run, metrics=[example], average=None)[example]
        assert ours == pytest.approx(expected, abs=1e-12), example


def test_diversity_judged_only_equals_pyndeval_on_the_judged_documents():
    # ir_measures' pyndeval provider fails with judged_only=True; what it means to do is to
    # evaluate the run without its unjudged documents.
    rng = random.Random(8)
    qrels, run = {}, {}
    for q in range(1, 9):
        docs = [f"d{i}" for i in range(30)]
        qrels[str(q)] = {
            d: {s: rng.choice([0, 1, 1, 2]) for s in rng.sample("abcd", 2)}
            for d in rng.sample(docs, 12)
        }
        ranked = rng.sample(docs, 25)
        run[str(q)] = {d: (1000 * q + 100 - i) / 8 for i, d in enumerate(ranked)}
    judged_run = {q: {d: s for d, s in r.items() if d in qrels[q]} for q, r in run.items()}
    for example, plain in [
        ("alpha_nDCG(judged_only=True)@10", "alpha_nDCG@10"),
        ("P_IA(judged_only=True)@5", "P_IA@5"),
    ]:
        expected = expected_values("pyndeval", plain, qrels, judged_run)
        ours = ragmeter.ranking_metrics(qrels, run, metrics=[example], average=None)[example]
        assert ours == pytest.approx(expected, abs=1e-12), example


def _write_diversity_files(directory, rng):
    """A diversity qrels file (ndeval's ``topic subtopic doc grade``) and a run file, with a
    judged topic missing from the run and a run topic without judgments."""
    qrels_lines, run_lines = [], []
    for q in range(1, 10):
        docs = [f"d{i}" for i in range(30)]
        for d in rng.sample(docs, 12):
            for s in rng.sample(["1", "2", "3", "4"], 2):
                qrels_lines.append(f"{q} {s} {d} {rng.choice([0, 1, 1, 2])}")
        if q == 9:
            continue  # judged, not in the run
        for i, d in enumerate(rng.sample(docs, 25)):
            run_lines.append(f"{q} Q0 {d} {i + 1} {(1000 * q + 100 - i) / 8} tag")
    run_lines += ["77 Q0 d1 1 1.0 tag"]  # a run topic without judgments: ignored
    rng.shuffle(qrels_lines)
    qrels_path, run_path = directory / "div.qrels", directory / "div.run"
    qrels_path.write_text("\n".join(qrels_lines) + "\n")
    run_path.write_text("\n".join(run_lines) + "\n")
    return qrels_path, run_path


def test_diversity_measures_from_trec_files_equal_pyndeval_on_files_read_by_ir_measures(
    tmp_path,
):
    # ir_measures reads the qrels file's second column as the subtopic for its pyndeval
    # provider; evaluate_trec and the command must read the same files the same way.
    qrels_path, run_path = _write_diversity_files(tmp_path, random.Random(21))
    examples = ["alpha_nDCG@10", "P_IA@5", "ERR_IA@20", "nERR_IA@10", "StRecall@10"]
    ir_qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    ir_run = list(ir_measures.read_trec_run(str(run_path)))
    ours = ragmeter.evaluate_trec(
        qrels_path, run_path, metrics=examples, per_query=True, complete=True
    )
    for example in examples:
        measure = ir_measures.parse_measure(example)
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            expected = {
                m.query_id: m.value
                for m in ir_measures.pyndeval.iter_calc([measure], ir_qrels, ir_run)
            }
        # pyndeval scores the judged topic the run lacks (0), as trec_eval -c does.
        assert sorted(expected) == [str(q) for q in range(1, 10)]
        assert ours[example] == pytest.approx(expected, abs=1e-12), example
    assert ours.unjudged == ["77"]
    assert ours.missing_from_run == ["9"]


def test_diversity_qrels_file_read_by_subtopic_and_by_the_command(tmp_path, capsys):
    qrels_path, run_path = _write_diversity_files(tmp_path, random.Random(22))
    expected_qrels: dict = {}
    for line in qrels_path.read_text().splitlines():
        q, s, d, g = line.split()
        expected_qrels.setdefault(q, {}).setdefault(d, {})[s] = int(g)
    assert ragmeter.read_trec_qrels(qrels_path, subtopics=True) == expected_qrels
    measure = ir_measures.parse_measure("alpha_nDCG@10")
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        (aggregate,) = ir_measures.pyndeval.calc_aggregate(
            [measure],
            list(ir_measures.read_trec_qrels(str(qrels_path))),
            list(ir_measures.read_trec_run(str(run_path))),
        ).values()
    # pyndeval averages over the judged topics, the one the run lacks scoring 0: trec_eval -c.
    assert main(["evaluate", str(qrels_path), str(run_path), "-m", "alpha_nDCG@10", "-c"]) in (
        0,
        None,
    )
    printed = capsys.readouterr().out.split()
    assert float(printed[-1]) == pytest.approx(aggregate, abs=5e-5)


def test_diversity_qrels_errors_name_the_file_and_line(tmp_path):
    path = tmp_path / "bad.qrels"
    path.write_text("q1 1 d1 1\nq1 1 d1 2\n")
    with pytest.raises(ragmeter.TrecFormatError, match=r"bad\.qrels:2: .*judged twice"):
        ragmeter.read_trec_qrels(path, subtopics=True)
    path.write_text("q1 1 d1 x\n")
    with pytest.raises(ragmeter.TrecFormatError, match=r"bad\.qrels:1: the grade 'x'"):
        ragmeter.read_trec_qrels(path, subtopics=True)
    path.write_text("q1 d1 1\n")
    with pytest.raises(ragmeter.TrecFormatError, match=r"bad\.qrels:1: expected 4 columns"):
        ragmeter.read_trec_qrels(path, subtopics=True)
