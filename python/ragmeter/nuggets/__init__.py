"""Nugget and citation evaluation of RAG answers (TREC 2024/2025 RAG, AutoNuggetizer, ARGUE).

The pipeline, each step a function of this package, every judge call through
:mod:`ragmeter.judges` (cache, repeats, dry runs, costs, statuses, batch mode):

1. :func:`pool_segments` the relevant segments of each topic across runs, then
   :func:`create_bank` a :class:`NuggetBank` (nuggets labelled vital or okay, with its content
   hash, prompts' digests, judge and pooled runs); or read one
   (:meth:`NuggetBank.read_nuggets`: nuggetizer's or NIST's in that form, or one edited by hand);
2. :func:`read_rag_answers` the runs' answers (TREC RAG 2024 and 2025 files);
3. :func:`assign` each answer's nugget labels (:class:`NuggetAssignments`; a judgement whose
   reply could not be read is an ``error``, never a label), or read them
   (:meth:`NuggetAssignments.read_nuggetizer`, :meth:`NuggetAssignments.from_table`);
4. :meth:`NuggetAssignments.scores` the All, Vital and Weighted scores (strict and not) of
   every answer (:mod:`ragmeter.nuggets.scores`), each run's as
   :class:`~ragmeter.PerQueryResults` for ``compare``, the gate and the report;
5. :func:`evaluate_citations` the support of every cited segment and the citation scores;
6. :func:`agreement_with` human assignments, :func:`verbatim_quotes` of the bank.

See the guide "Evaluating RAG answers with nuggets and citations".
"""

from __future__ import annotations

from .agreement import NuggetAgreement, NuggetLeakWarning, agreement_with, verbatim_quotes
from .answers import RagAnswer, read_rag_answers, write_rag_answers
from .assignments import AnswerAssignment, Judgement, NuggetAssignments
from .bank import Nugget, NuggetBank, TopicNuggets
from .citations import CITATION_METRICS, CitationScores, citation_scores, evaluate_citations
from .judging import assign, assignments_from_results, create_bank, pool_segments
from .results import NuggetScores
from .scores import LABELS, NUGGET_METRICS, TWO_GRADE_LABELS, answer_scores

__all__ = [
    "CITATION_METRICS",
    "LABELS",
    "NUGGET_METRICS",
    "TWO_GRADE_LABELS",
    "AnswerAssignment",
    "CitationScores",
    "Judgement",
    "Nugget",
    "NuggetAgreement",
    "NuggetAssignments",
    "NuggetBank",
    "NuggetLeakWarning",
    "NuggetScores",
    "RagAnswer",
    "TopicNuggets",
    "agreement_with",
    "answer_scores",
    "assign",
    "assignments_from_results",
    "citation_scores",
    "create_bank",
    "evaluate_citations",
    "pool_segments",
    "read_rag_answers",
    "verbatim_quotes",
    "write_rag_answers",
]
