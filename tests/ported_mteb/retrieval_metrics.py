"""An oracle of ragmeter.compat.mteb: mteb's retrieval metrics, ported to run on their own
(the `mteb` distribution requires torch; tests/test_installed_beir_mteb.py runs mteb itself,
the torch-free mteb-core 2.26.24 installed in the test environment, on random cases).

Ported from https://github.com/embeddings-benchmark/mteb at commit
a905523d0111f999360b312bd4a601a0a97a0e1c (2026-08-22, "model: add V-SPLADE (#5265)"), file
``mteb/_evaluators/retrieval_metrics.py`` (``mrr``, ``recall_cap``, ``hole``,
``top_k_accuracy``, ``get_rank_from_dict``, ``calculate_pmrr``, ``rank_score``,
``evaluate_p_mrr_change``, ``confidence_scores``, ``nauc``, ``make_score_dict``,
``parse_metrics_from_scores``, ``max_over_subqueries``, ``calculate_retrieval_scores``,
``evaluate_abstention``) and ``mteb/_evaluators/retrieval_evaluator.py``
(``RetrievalEvaluator.evaluate``): the same steps in the same order, with pytrec_eval,
numpy, pandas and scikit-learn's ``auc`` as mteb runs them; logging left out. ``nauc``'s
abstention curve is mteb 2.26.24's (mteb-core 2.26.24, ``retrieval_metrics.py``): since mteb
2.26.5 (its PR 5613) a group of queries of equal confidence counts with its mean value; the
curve of the commit above, ties in the order given, is kept as ``nauc_given_order``.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytrec_eval
from sklearn.metrics import auc

_DEFAULT_ABSTENTION_RATES = np.linspace(0, 1, 11)[:-1]


def _top(doc_scores, k_max):
    # mteb since its PR 5136: ties by doc id descending, as pytrec_eval.
    return sorted(doc_scores.items(), key=lambda item: (item[1], item[0]), reverse=True)[0:k_max]


def mrr(qrels, results, k_values):
    out = defaultdict(list)
    top_hits = {q: _top(docs, max(k_values)) for q, docs in results.items()}
    for query_id in top_hits:
        relevant = {d for d in qrels[query_id] if qrels[query_id][d] > 0}
        for k in k_values:
            rr = 0.0
            for rank, hit in enumerate(top_hits[query_id][0:k]):
                if hit[0] in relevant:
                    rr = 1.0 / (rank + 1)
                    break
            out[f"MRR@{k}"].append(rr)
    return out


def recall_cap(qrels, results, k_values):
    out = defaultdict(list)
    for query_id, doc_scores in results.items():
        top_hits = _top(doc_scores, max(k_values))
        relevant = [d for d in qrels[query_id] if qrels[query_id][d] > 0]
        for k in k_values:
            retrieved = [row[0] for row in top_hits[0:k] if qrels[query_id].get(row[0], 0) > 0]
            denominator = min(len(relevant), k)
            if denominator == 0:
                out[f"R_cap_at_{k}"].append(None)
                continue
            out[f"R_cap_at_{k}"].append(len(retrieved) / denominator)
    return out


def hole(qrels, results, k_values):
    out = defaultdict(list)
    annotated = {doc for docs in qrels.values() for doc in docs}
    for _, scores in results.items():
        top_hits = _top(scores, max(k_values))
        for k in k_values:
            holes = [row[0] for row in top_hits[0:k] if row[0] not in annotated]
            out[f"Hole_at_{k}"].append(len(holes) / k)
    return out


def top_k_accuracy(qrels, results, k_values):
    out = defaultdict(list)
    top_hits = {q: [d for d, _ in _top(docs, max(k_values))] for q, docs in results.items()}
    for query_id in top_hits:
        relevant = {d for d in qrels[query_id] if qrels[query_id][d] > 0}
        for k in k_values:
            for doc in relevant:
                if doc in top_hits[query_id][0:k]:
                    out[f"Accuracy@{k}"].append(1.0)
                    break
    return out


def get_rank_from_dict(dict_of_results, doc_id):
    ordered = sorted(dict_of_results.items(), key=lambda x: (x[1], x[0]), reverse=True)
    for i, (other, score) in enumerate(ordered):
        if other == doc_id:
            return i + 1, score
    return len(ordered) + 1, 0


def rank_score(x):
    if x["og_rank"] >= x["new_rank"]:
        return ((1 / x["og_rank"]) / (1 / x["new_rank"])) - 1
    return 1 - ((1 / x["new_rank"]) / (1 / x["og_rank"]))


def calculate_pmrr(original_run, new_run, changed_qrels):
    changes = []
    for qid, changed in changed_qrels.items():
        if qid + "-og" not in original_run or qid + "-changed" not in new_run:
            continue
        for doc in changed:
            og_rank, og_score = get_rank_from_dict(original_run[qid + "-og"], doc)
            new_rank, new_score = get_rank_from_dict(new_run[qid + "-changed"], doc)
            changes.append(
                {
                    "qid": qid,
                    "doc_id": doc,
                    "change": int(og_rank - new_rank),
                    "relevance": 0,
                    "og_rank": og_rank,
                    "new_rank": new_rank,
                    "og_score": og_score,
                    "new_score": new_score,
                }
            )
    frame = pd.DataFrame(changes)
    frame["p-MRR"] = frame.apply(lambda x: rank_score(x), axis=1)
    return frame.groupby("qid").agg({"p-MRR": "mean"})["p-MRR"].mean()


def confidence_scores(sim_scores):
    if not sim_scores:
        return {"max": 0.0, "std": 0.0, "diff1": 0.0}
    ordered = sorted(sim_scores)[::-1]
    diff1 = 0.0
    if len(sim_scores) > 1:
        diff1 = ordered[0] - ordered[1]
    return {"max": ordered[0], "std": float(np.std(sim_scores)), "diff1": diff1}


def _curve_in_given_order(conf, values, rates):
    # At the commit above: ties in confidence left out in the order given (a stable sort).
    order = np.argsort(conf, stable=True)
    curve = np.zeros(len(rates))
    for i, rate in enumerate(rates):
        left_out = min(round(rate * order.shape[0]), len(conf) - 1)
        curve[i] = values[order[left_out:]].mean()
    return curve


def _curve_with_tie_means(conf, values, rates):
    # mteb 2.26.5 and later (its PR 5613; this is mteb-core 2.26.24's, the version the tests
    # install): each group of equal confidence counts with its mean value.
    order = np.argsort(conf, stable=True)
    sorted_conf = conf[order]
    sorted_values = values[order]
    start = np.flatnonzero(np.r_[True, sorted_conf[1:] != sorted_conf[:-1]])
    size = np.diff(np.r_[start, len(sorted_conf)])
    sorted_values = np.repeat(np.add.reduceat(sorted_values, start) / size, size)
    curve = np.zeros(len(rates))
    for i, rate in enumerate(rates):
        left_out = min(round(rate * order.shape[0]), len(conf) - 1)
        curve[i] = sorted_values[left_out:].mean()
    return curve


def nauc_given_order(conf_scores, metrics, abstention_rates=_DEFAULT_ABSTENTION_RATES):
    """nauc at the commit above (mteb up to 2.26.4)."""
    return _nauc(conf_scores, metrics, abstention_rates, _curve_in_given_order)


def nauc(conf_scores, metrics, abstention_rates=_DEFAULT_ABSTENTION_RATES):
    """nauc of mteb 2.26.5 and later, which every function here calls."""
    return _nauc(conf_scores, metrics, abstention_rates, _curve_with_tie_means)


def _nauc(conf_scores, metrics, abstention_rates, abstention_curve):

    abst_curve = abstention_curve(conf_scores, metrics, abstention_rates)
    or_curve = abstention_curve(metrics, metrics, abstention_rates)
    abst_auc = auc(abstention_rates, abst_curve)
    or_auc = auc(abstention_rates, or_curve)
    flat_auc = or_curve[0] * (abstention_rates[-1] - abstention_rates[0])
    if or_auc == flat_auc:
        return np.nan
    return (abst_auc - flat_auc) / (or_auc - flat_auc)


def evaluate_abstention(results, metric_scores):
    all_conf = [confidence_scores(list(results[q].values())) for q in list(results.keys())]
    conf = {fct: np.array([x[fct] for x in all_conf]) for fct in all_conf[0]}
    out = {}
    for name, scores in {k: np.array(v) for k, v in metric_scores.items()}.items():
        for fct, conf_scores in conf.items():
            out[f"nAUC_{name}_{fct}"] = nauc(conf_scores, scores)
    return out


def make_score_dict(*, ndcg, _map, recall, precision, mrr, naucs, naucs_mrr, hit_rate, task_scores):
    return {
        **{f"ndcg_at_{k.split('@')[1]}": v for (k, v) in ndcg.items()},
        **{f"map_at_{k.split('@')[1]}": v for (k, v) in _map.items()},
        **{f"recall_at_{k.split('@')[1]}": v for (k, v) in recall.items()},
        "accuracy": recall["Recall@1"],
        **{f"precision_at_{k.split('@')[1]}": v for (k, v) in precision.items()},
        **{f"mrr_at_{k.split('@')[1]}": v for (k, v) in mrr.items()},
        **{k.replace("@", "_at_").replace("_P", "_precision").lower(): v for k, v in naucs.items()},
        **{
            k.replace("@", "_at_").replace("_P", "_precision").lower(): v
            for k, v in naucs_mrr.items()
        },
        **{f"hit_rate_at_{k.split('@')[1]}": v for k, v in hit_rate.items()},
        **task_scores,
    }


def parse_metrics_from_scores(scores, k_values):
    ndcgs, aps, recalls, precisions, hits = (defaultdict(list) for _ in range(5))
    for query_id in scores:
        for k in k_values:
            ndcgs[f"NDCG@{k}"].append(scores[query_id]["ndcg_cut_" + str(k)])
            aps[f"MAP@{k}"].append(scores[query_id]["map_cut_" + str(k)])
            recalls[f"Recall@{k}"].append(scores[query_id]["recall_" + str(k)])
            precisions[f"P@{k}"].append(scores[query_id]["P_" + str(k)])
            hits[f"HitRate@{k}"].append(scores[query_id]["success_" + str(k)])
    n = len(scores)
    ndcg = {f"NDCG@{k}": round(sum(ndcgs[f"NDCG@{k}"]) / n, 5) for k in k_values}
    _map = {f"MAP@{k}": round(sum(aps[f"MAP@{k}"]) / n, 5) for k in k_values}
    recall = {f"Recall@{k}": round(sum(recalls[f"Recall@{k}"]) / n, 5) for k in k_values}
    precision = {f"P@{k}": round(sum(precisions[f"P@{k}"]) / n, 5) for k in k_values}
    hit_rate = {f"HitRate@{k}": round(sum(hits[f"HitRate@{k}"]) / n, 5) for k in k_values}
    return ndcg, _map, recall, precision, ndcgs, aps, recalls, precisions, hit_rate


def calculate_retrieval_scores(results, qrels, k_values, skip_first_result=False):
    if skip_first_result:
        results = {
            qid: dict(sorted(docs.items(), key=lambda x: x[1], reverse=True)[1:])
            for qid, docs in results.items()
        }
    ks = ",".join(str(k) for k in k_values)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels,
        {"map_cut." + ks, "ndcg_cut." + ks, "recall." + ks, "P." + ks, "success." + ks},
    )
    scores = evaluator.evaluate(results)
    ndcg, _map, recall, precision, ndcgs, aps, recalls, precisions, hit_rate = (
        parse_metrics_from_scores(scores, k_values)
    )
    mrr_scores = mrr(qrels, results, k_values)
    naucs = evaluate_abstention(results, {**ndcgs, **aps, **recalls, **precisions})
    naucs_mrr = evaluate_abstention(results, mrr_scores)
    avg_mrr = {k: sum(mrr_scores[k]) / len(mrr_scores[k]) for k in mrr_scores}
    return scores, ndcg, _map, recall, precision, naucs, avg_mrr, naucs_mrr, hit_rate


def evaluate(qrels, results, k_values, ignore_identical_ids=False, skip_first_result=False):
    """RetrievalEvaluator.evaluate."""
    if ignore_identical_ids:
        for qid, rels in results.items():
            for pid in list(rels):
                if qid == pid:
                    rels.pop(pid)
    return calculate_retrieval_scores(results, qrels, list(k_values), skip_first_result)


def evaluate_p_mrr_change(qrels, results, changed_qrels, k_values):
    followir = defaultdict(dict)
    qrels_sep = {
        "og": {k: v for k, v in qrels.items() if k.endswith("-og")},
        "changed": {k: v for k, v in qrels.items() if not k.endswith("-og")},
    }
    original_run, new_run = {}, {}
    for qid, docs in results.items():
        if qid.endswith("-og"):
            original_run[qid] = docs
        else:
            new_run[qid] = docs
    followir["p-MRR"] = calculate_pmrr(original_run, new_run, changed_qrels)
    for name, group in [("og", original_run), ("changed", new_run)]:
        _, ndcg, _map, recall, precision, naucs, avg_mrr, naucs_mrr, hit_rate = (
            calculate_retrieval_scores(group, qrels_sep[name], k_values)
        )
        followir[name] = make_score_dict(
            ndcg=ndcg,
            _map=_map,
            recall=recall,
            precision=precision,
            naucs=naucs,
            mrr=avg_mrr,
            naucs_mrr=naucs_mrr,
            hit_rate=hit_rate,
            task_scores={},
        )
    return followir


def max_over_subqueries(qrels, results, k_values):
    query_keys = defaultdict(list)
    for key in qrels:
        query_keys["_".join(key.split("_")[:-1])].append(key)
    new_results, new_qrels = {}, {}
    for base, query_ids in query_keys.items():
        doc_scores = defaultdict(float)
        for query_id_full in query_ids:
            for doc_id, score in results[query_id_full].items():
                if doc_id not in doc_scores:
                    doc_scores[doc_id] = score
                else:
                    doc_scores[doc_id] = max(score, doc_scores[doc_id])
        new_results[base] = doc_scores
        new_qrels[base] = qrels[query_id_full]
    _, ndcg, _map, recall, precision, naucs, avg_mrr, naucs_mrr, hit_rate = (
        calculate_retrieval_scores(new_results, new_qrels, k_values)
    )
    scores = make_score_dict(
        ndcg=ndcg,
        _map=_map,
        recall=recall,
        precision=precision,
        naucs=naucs,
        mrr=avg_mrr,
        naucs_mrr=naucs_mrr,
        hit_rate=hit_rate,
        task_scores={},
    )
    return {"max_over_subqueries_" + k: v for k, v in scores.items()}
