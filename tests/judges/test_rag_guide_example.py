"""The offline judge example of the RAG guide (docs/guides/rag-pipeline.md, section 3) runs,
prints what the page shows, and fills its cache: a rerun makes no call and gives the same
rows."""

from __future__ import annotations

from doc_pages import DOCS, python_blocks, run_examples

PAGE = DOCS / "guides" / "rag-pipeline.md"
HEADING = "## 3. The answers against the contexts, with a judge"


def test_the_guide_example_runs_offline_and_its_cache_replays_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(PAGE, HEADING)
    assert len(blocks) == 1 and "judge=RuleJudge()" in blocks[0]
    namespace = run_examples(blocks, name="rag-pipeline judges")
    assert (tmp_path / "judge-cache.sqlite").exists()
    results = namespace["results"]
    rerun = namespace["evaluate"](
        namespace["samples"],
        ["groundedness", "faithfulness", "context_relevancy", "answer_relevancy", "context_recall"],
        judge=namespace["RuleJudge"](),
        embedder=namespace["HashEmbedder"](),
        cache="judge-cache.sqlite",
        progress=False,
    )
    assert rerun.total_usage().calls == 0
    assert [row.score for row in rerun.rows] == [row.score for row in results.rows]
