"""The nugget demo (``ragmeter demo --nuggets``): the whole nugget and citation pipeline on the
bundled example corpus, fully offline, with the rule judge (:class:`~ragmeter.judges.RuleJudge`,
a lexical stand-in for a model: no network, no key).

Two retrievers (keyword BM25 and strict substring matching) answer every query with an
extractive "generator": the first ten words of the first sentence of each of their top two
documents, each citing its document. The demo pools the relevant documents both retrieved,
makes a nugget bank from them, assigns the bank's nuggets to both systems' answers, judges their
citations, compares the two systems' nugget and citation scores with a paired test, and writes
every file of the pipeline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from .._core import __version__
from ..demo import load_demo_corpus
from ..judges import RuleJudge
from ..judges.text import split_sentences
from ..retrieval import RetrievalConfig, RetrievalIndex
from ..stats import compare
from .answers import RagAnswer, write_rag_answers
from .bank import Nugget, NuggetBank, TopicNuggets
from .citations import evaluate_citations
from .judging import assign, create_bank, pool_segments

__all__ = ["DEMO_SCORES", "run_nugget_demo"]

#: The scores the demo prints and compares.
DEMO_SCORES = (
    "nugget_all",
    "nugget_vital",
    "nugget_weighted_strict",
    "citation_precision",
    "citation_recall",
)
_SYSTEMS = ("keyword", "strict")
#: The generator's sentences: the first words of each document's first sentence.
_WORDS = 10


def _answer(system: str, topic_id: str, hits: Any) -> RagAnswer:
    """The first words of each of the top two documents, each citing its document; an
    answer that says it found nothing when nothing was retrieved."""
    top = list(hits)[:2]
    if not top:
        return RagAnswer.build(system, topic_id, [("No document answers the question.", [])])
    sentences = [
        (" ".join(split_sentences(hit.doc.text)[0].split()[:_WORDS]), [i])
        for i, hit in enumerate(top)
    ]
    return RagAnswer.build(system, topic_id, sentences, [str(hit.doc.doc_id) for hit in top])


def _table(rows: dict[str, dict[str, Any]]) -> str:
    header = ["system", *DEMO_SCORES]
    lines = [header]
    for system, means in rows.items():
        lines.append(
            [system, *(f"{float(means[m]):.4f} (n={means[m].n_queries})" for m in DEMO_SCORES)]
        )
    widths = [max(len(r[i]) for r in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in lines
    )


def run_nugget_demo(out: TextIO, output_dir: str | Path = "demo-output") -> int:
    """Run the nugget demo (see the module documentation), print to ``out`` and write its
    files into ``output_dir``: the bank (``nuggets-bank.json`` and ``nuggets.jsonl``, the form
    to edit), each system's answers (TREC RAG 2025 form), the assignments, and each system's
    nugget and citation values (``<system>-nuggets.json``, ``<system>-citations.json``,
    which ``ragmeter gate`` and ``ragmeter report`` read, and ``compare`` in Python)."""
    documents, queries, qrels = load_demo_corpus()
    texts = {str(doc.doc_id): doc.text for doc in documents}
    judge = RuleJudge()
    print(
        f"ragmeter {__version__} nugget demo: {len(queries)} queries, {len(documents)} "
        "documents, the rule judge (lexical, offline: try the pipeline, never report it)\n",
        file=out,
    )
    runs: dict[str, dict[str, dict[str, float]]] = {}
    answers: list[RagAnswer] = []
    for mode in _SYSTEMS:
        config = RetrievalConfig(match_mode="keyword" if mode == "keyword" else "strict", top_k=5)
        index = RetrievalIndex(config).build(documents)
        runs[mode] = {}
        for topic_id, query in queries.items():
            hits = index.search(query)
            runs[mode][topic_id] = {str(hit.doc.doc_id): float(hit.score) for hit in hits}
            answers.append(_answer(mode, topic_id, hits))
    pooled = pool_segments(qrels, runs, threshold=1)
    topics = {t: queries[t] for t in queries if t in pooled}
    bank = create_bank(
        topics,
        {t: [texts[d] for d in pooled[t]] for t in topics},
        judge=judge,
        pooled_runs=list(_SYSTEMS),
        pooling={"threshold": 1, "depth": None},
        progress=False,
    )
    # The rule judge calls a nugget vital when it shares half its words with the query, which
    # the demo's long nuggets seldom do: an assessor marks each topic's first nugget (from its
    # most relevant document) vital, and the bank records what it was edited from.
    bank = NuggetBank(
        tuple(
            TopicNuggets(
                t.topic_id,
                t.query,
                tuple(
                    Nugget(n.text, "vital" if i == 0 else n.importance)
                    for i, n in enumerate(t.nuggets)
                ),
            )
            for t in bank
        ),
        {**bank.provenance, "edited_from": bank.content_hash},
    )
    n_vital = sum(t.n_vital for t in bank)
    n_nuggets = sum(len(t.nuggets) for t in bank)
    print(
        f"Bank: {len(bank)} topics with a relevant document retrieved, {n_nuggets} nuggets, "
        f"{n_vital} vital; content hash {bank.content_hash[:12]}",
        file=out,
    )
    answered = [a for a in answers if a.topic_id in bank]
    assignments = assign(bank, answered, judge=judge, blind=True, progress=False)
    scores = assignments.scores()
    citations = evaluate_citations(answered, queries, texts, judge=judge, progress=False)
    nugget_values = {s: scores.per_query_results(s) for s in _SYSTEMS}
    citation_values = {s: citations.per_query_results(s) for s in _SYSTEMS}
    print(
        f"\nMeans over the topics where each score is defined ({assignments.n_errors} failed "
        "judgements):",
        file=out,
    )
    means = {s: {**nugget_values[s].means(), **citation_values[s].means()} for s in _SYSTEMS}
    print(_table(means), file=out)
    for values in (nugget_values, citation_values):
        shown = [m for m in DEMO_SCORES if m in values["keyword"].metric_names]
        comparison = compare(values["keyword"], values["strict"], metrics=shown, random_state=0)
        print(f"\n{comparison.to_table()}", file=out)

    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    written = [
        bank.write(directory / "nuggets-bank.json"),
        bank.write_nuggets(directory / "nuggets.jsonl"),
        assignments.write(directory / "nuggets-assignments.json"),
    ]
    for system in _SYSTEMS:
        mine = [a for a in answers if a.run_id == system]
        written.append(write_rag_answers(directory / f"{system}-answers.jsonl", mine))
        written.append(nugget_values[system].write(directory / f"{system}-nuggets.json"))
        written.append(citation_values[system].write(directory / f"{system}-citations.json"))
    print("\nwrote " + ", ".join(str(path) for path in written), file=out)
    return 0
