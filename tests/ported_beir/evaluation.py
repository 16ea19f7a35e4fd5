"""An oracle of ragmeter.compat.beir: BEIR's ``EvaluateRetrieval.evaluate`` and its custom
metrics, ported to run on their own (BEIR's metadata requires sentence-transformers, so torch;
tests/test_installed_beir_mteb.py runs BEIR 2.2.0 itself, installed without its dependencies,
on random cases).

Ported from https://github.com/beir-cellar/beir at commit
ef83d29307061c65d04b035b4f4e7c18bd8374af (2025-10-16, "Merge pull request #203"), files
``beir/retrieval/evaluation.py`` (``EvaluateRetrieval.evaluate``, ``evaluate_custom``) and
``beir/retrieval/custom_metrics.py`` (``mrr``, ``recall_cap``, ``hole``, ``top_k_accuracy``):
the same steps in the same order (the per-query values from pytrec_eval itself, the sums
query by query, the division and Python's ``round(x, 5)``), logging left out. BEIR ships no
test suite at that commit, so there are no fixtures of its own to port.
"""

from __future__ import annotations

import pytrec_eval


def evaluate(qrels, results, k_values, ignore_identical_ids=True):
    if ignore_identical_ids:
        for qid, rels in results.items():
            for pid in list(rels):
                if qid == pid:
                    results[qid].pop(pid)
    ndcg, _map, recall, precision = {}, {}, {}, {}
    for k in k_values:
        ndcg[f"NDCG@{k}"] = 0.0
        _map[f"MAP@{k}"] = 0.0
        recall[f"Recall@{k}"] = 0.0
        precision[f"P@{k}"] = 0.0
    ks = ",".join(str(k) for k in k_values)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map_cut." + ks, "ndcg_cut." + ks, "recall." + ks, "P." + ks}
    )
    scores = evaluator.evaluate(results)
    for query_id in scores:
        for k in k_values:
            ndcg[f"NDCG@{k}"] += scores[query_id]["ndcg_cut_" + str(k)]
            _map[f"MAP@{k}"] += scores[query_id]["map_cut_" + str(k)]
            recall[f"Recall@{k}"] += scores[query_id]["recall_" + str(k)]
            precision[f"P@{k}"] += scores[query_id]["P_" + str(k)]
    for k in k_values:
        ndcg[f"NDCG@{k}"] = round(ndcg[f"NDCG@{k}"] / len(scores), 5)
        _map[f"MAP@{k}"] = round(_map[f"MAP@{k}"] / len(scores), 5)
        recall[f"Recall@{k}"] = round(recall[f"Recall@{k}"] / len(scores), 5)
        precision[f"P@{k}"] = round(precision[f"P@{k}"] / len(scores), 5)
    return ndcg, _map, recall, precision


def _top(doc_scores, k_max):
    # BEIR's stable sort: ties keep the dict's order.
    return sorted(doc_scores.items(), key=lambda item: item[1], reverse=True)[0:k_max]


def mrr(qrels, results, k_values):
    out = {f"MRR@{k}": 0.0 for k in k_values}
    top_hits = {q: _top(docs, max(k_values)) for q, docs in results.items()}
    for query_id in top_hits:
        relevant = {d for d in qrels[query_id] if qrels[query_id][d] > 0}
        for k in k_values:
            for rank, hit in enumerate(top_hits[query_id][0:k]):
                if hit[0] in relevant:
                    out[f"MRR@{k}"] += 1.0 / (rank + 1)
                    break
    return {name: round(total / len(qrels), 5) for name, total in out.items()}


def recall_cap(qrels, results, k_values):
    out = {f"R_cap@{k}": 0.0 for k in k_values}
    for query_id, doc_scores in results.items():
        top_hits = _top(doc_scores, max(k_values))
        relevant = [d for d in qrels[query_id] if qrels[query_id][d] > 0]
        for k in k_values:
            retrieved = [row[0] for row in top_hits[0:k] if qrels[query_id].get(row[0], 0) > 0]
            out[f"R_cap@{k}"] += len(retrieved) / min(len(relevant), k)
    return {name: round(total / len(qrels), 5) for name, total in out.items()}


def hole(qrels, results, k_values):
    out = {f"Hole@{k}": 0.0 for k in k_values}
    annotated = {doc for docs in qrels.values() for doc in docs}
    for _, scores in results.items():
        top_hits = _top(scores, max(k_values))
        for k in k_values:
            holes = [row[0] for row in top_hits[0:k] if row[0] not in annotated]
            out[f"Hole@{k}"] += len(holes) / k
    return {name: round(total / len(qrels), 5) for name, total in out.items()}


def top_k_accuracy(qrels, results, k_values):
    out = {f"Accuracy@{k}": 0.0 for k in k_values}
    top_hits = {q: [d for d, _ in _top(docs, max(k_values))] for q, docs in results.items()}
    for query_id in top_hits:
        relevant = {d for d in qrels[query_id] if qrels[query_id][d] > 0}
        for k in k_values:
            for doc in relevant:
                if doc in top_hits[query_id][0:k]:
                    out[f"Accuracy@{k}"] += 1.0
                    break
    return {name: round(total / len(qrels), 5) for name, total in out.items()}


def evaluate_custom(qrels, results, k_values, metric):
    if metric.lower() in ["mrr", "mrr@k", "mrr_cut"]:
        return mrr(qrels, results, k_values)
    if metric.lower() in ["recall_cap", "r_cap", "r_cap@k"]:
        return recall_cap(qrels, results, k_values)
    if metric.lower() in ["hole", "hole@k"]:
        return hole(qrels, results, k_values)
    if metric.lower() in ["acc", "top_k_acc", "accuracy", "accuracy@k", "top_k_accuracy"]:
        return top_k_accuracy(qrels, results, k_values)
    return None
