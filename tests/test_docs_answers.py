"""The answer-metric examples of the RAG guide (docs/guides/rag-pipeline.md) print what the
page shows, and what they show is what the official SQuAD v1.1 script, the DocVQA ANLS
definition and rapidfuzz give."""

from __future__ import annotations

import numpy as np
import pytest
from doc_pages import DOCS, python_blocks, run_examples
from rapidfuzz.distance import Levenshtein as RF
from test_answers import (
    as_list,
    docvqa_anls,
    metric_max_over_ground_truths,
    squad_exact_match_score,
    squad_f1_score,
)

PAGE = DOCS / "guides" / "rag-pipeline.md"
HEADING = "## 2. The answers against references"


@pytest.fixture(scope="module")
def example() -> tuple[str, dict]:
    blocks = python_blocks(PAGE, HEADING)
    assert len(blocks) == 2
    return "\n".join(blocks), run_examples(blocks, name="rag-pipeline answers")


def test_exact_match_f1_and_anls_equal_the_reference_definitions(example):
    code, namespace = example
    for call in (
        "exact_match_score(",
        "token_f1_score(",
        "anls_score(references, answers, average",
    ):
        assert call in code
    references, answers = namespace["references"], namespace["answers"]
    pairs = [
        (answer, as_list(reference)) for reference, answer in zip(references, answers, strict=True)
    ]
    squad_em = np.mean([metric_max_over_ground_truths(squad_exact_match_score, *p) for p in pairs])
    squad_f1 = np.mean([metric_max_over_ground_truths(squad_f1_score, *p) for p in pairs])
    anls = [docvqa_anls(*p) for p in pairs]
    assert namespace["exact_match_score"](references, answers) == squad_em == 0.5
    assert namespace["token_f1_score"](references, answers) == pytest.approx(squad_f1, abs=1e-15)
    assert round(squad_f1, 3) == 0.833
    shown = namespace["anls_score"](references, answers, average=None)
    assert shown == pytest.approx(anls, abs=1e-15) and anls == pytest.approx([0.6875, 0.0])


def test_the_edit_distances_equal_rapidfuzz(example):
    code, namespace = example
    levenshtein = namespace["levenshtein"]
    assert 'levenshtein.closest("appel", ["apple", "ape", "maple"])' in code
    assert levenshtein.distance("kitten", "sitting") == RF.distance("kitten", "sitting") == 3
    assert levenshtein.normalized_similarity("kitten", "sitting") == pytest.approx(
        RF.normalized_similarity("kitten", "sitting"), abs=1e-15
    )
    assert list(levenshtein.pairwise(["kitten", "abc"], ["sitting", "abd"])) == [
        RF.distance("kitten", "sitting"),
        RF.distance("abc", "abd"),
    ]
    choices = ["apple", "ape", "maple"]
    best = max(range(3), key=lambda i: (RF.normalized_similarity("appel", choices[i]), -i))
    match = levenshtein.closest("appel", choices)
    assert (match.index, match.distance) == (best, RF.distance("appel", choices[best]))
    assert match.similarity == pytest.approx(RF.normalized_similarity("appel", choices[best]))
