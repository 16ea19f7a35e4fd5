"""Answer metrics over many short answers: ragmeter vs rapidfuzz, rouge-score, sacrebleu and
FlashRAG's substring match, in one run.

``--suite edit`` (ANLS and edit similarity against rapidfuzz):

For each metric, three ways to get the same per-answer scores (checked equal before timing is
reported):

* ragmeter: ``anls_score`` / ``edit_similarity_score`` with ``average=None``, end to end
  (input checks, normalisation and distances in the Rust core), on all cores and on one;
* rapidfuzz cpdist: the same normalisation in Python, then
  ``rapidfuzz.process.cpdist(..., workers=-1)``, then the threshold with NumPy;
* Python loop: the same normalisation in Python and a loop over
  ``rapidfuzz.distance.Levenshtein.normalized_distance``.

``--suite qa`` (the QA metrics of issue 48 against their reference implementations, on the
first ``--peer-pairs`` pairs, the peers timed once as they are slow): substring match against
FlashRAG's ``Sub_ExactMatch`` function (ported: SQuAD normalisation and ``in``, one call per
pair); ROUGE-1/2/L P/R/F against ``rouge_score.RougeScorer.score`` in a loop; sentence BLEU
against ``sacrebleu.sentence_bleu`` in a loop; corpus BLEU against ``sacrebleu.corpus_bleu``.
ragmeter's values are checked equal to the peers' before a time is printed, and ragmeter is
also timed alone on all ``--pairs``.

Run: ``python benches/bench_answers.py`` (``--suite``, ``--pairs``, ``--peer-pairs``,
``--repeat``, ``--seed`` to change). Needs rapidfuzz, rouge-score and sacrebleu (all in the
``test`` extra). Prints the best of ``--repeat``
wall-clock times, the CPU time of those runs (all threads: less sensitive to other load on the
machine) and the ratios to ragmeter (above 1: ragmeter is faster); record them in
benches/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import string
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from rapidfuzz import __version__ as rapidfuzz_version
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

import ragmeter

WORD_LIST = (
    "the a an of paris tower eiffel city france london river bridge museum 1889 1,024 "
    "mount everest nile amazon data table invoice total amount date name address phone "
    "42 3.5% $19.99 q3 2024 report section figure"
)
WORDS = WORD_LIST.split(" ")
# About one answer in ten has a non-ASCII character, as in English QA data sets.
NON_ASCII_WORDS = ["café", "zürich", "são", "東京", "straße", "€20", "25°c", "naïve"]


def make_pairs(n: int, seed: int) -> tuple[list[str], list[str]]:
    """``n`` (reference, answer) pairs of 5-60 characters: 40% equal up to case, spacing or
    punctuation, 30% with 1-3 typos, 30% unrelated."""
    rng = random.Random(seed)

    def phrase() -> str:
        while True:
            words = rng.choices(WORDS, k=rng.randint(1, 8))
            if rng.random() < 0.07:
                words[rng.randrange(len(words))] = rng.choice(NON_ASCII_WORDS)
            text = " ".join(words)
            if rng.random() < 0.5:
                text = text.title()
            if 5 <= len(text) <= 60:
                return text

    def typo(text: str) -> str:
        chars = list(text)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(chars))
            op = rng.random()
            if op < 0.4:
                chars[i] = rng.choice(string.ascii_lowercase)
            elif op < 0.7 and len(chars) > 5:
                del chars[i]
            else:
                chars.insert(i, rng.choice(string.ascii_lowercase))
        return "".join(chars)[:60]

    references, answers = [], []
    for _ in range(n):
        reference = phrase()
        kind = rng.random()
        if kind < 0.4:
            answer = reference.lower() if rng.random() < 0.5 else f" {reference}."
        elif kind < 0.7:
            answer = typo(reference)
        else:
            answer = phrase()
        references.append(reference)
        answers.append(answer if len(answer) >= 5 else answer + "....."[: 5 - len(answer)])
    return references, answers


def basic(text: str) -> str:
    """ragmeter's normalize="basic" (the DocVQA text preparation), in Python."""
    return " ".join(text.lower().split())


def anls_cpdist(references: list[str], answers: list[str]) -> np.ndarray:
    nl = cpdist(
        [basic(r) for r in references],
        [basic(a) for a in answers],
        scorer=Levenshtein.normalized_distance,
        workers=-1,
        dtype=np.float64,  # the default, float32, would round the scores
    )
    return np.where(nl < 0.5, 1.0 - nl, 0.0)


def anls_loop(references: list[str], answers: list[str]) -> np.ndarray:
    scores = []
    for reference, answer in zip(references, answers, strict=True):
        nl = Levenshtein.normalized_distance(basic(reference), basic(answer))
        scores.append(1.0 - nl if nl < 0.5 else 0.0)
    return np.array(scores)


def similarity_cpdist(references: list[str], answers: list[str]) -> np.ndarray:
    nl = cpdist(
        references,
        answers,
        scorer=Levenshtein.normalized_distance,
        workers=-1,
        dtype=np.float64,
    )
    return 1.0 - nl


def similarity_loop(references: list[str], answers: list[str]) -> np.ndarray:
    return np.array(
        [
            1.0 - Levenshtein.normalized_distance(reference, answer)
            for reference, answer in zip(references, answers, strict=True)
        ]
    )


def best_time(function: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Best wall-clock time, the CPU time (all threads) of that run, and the result."""
    best, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = function()
        wall = time.perf_counter() - start
        if wall < best:
            best, cpu = wall, time.process_time() - start_cpu
    return best, cpu, result


def flashrag_normalize_answer(s: str) -> str:
    """FlashRAG's ``normalize_answer`` (flashrag/evaluator/utils.py, commit 1ee52490)."""
    text = s.lower()
    exclude = set(string.punctuation)
    text = "".join(ch for ch in text if ch not in exclude)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def flashrag_sub_em(prediction: str, golden_answers: list[str]) -> float:
    """FlashRAG's ``Sub_ExactMatch.calculate_sub_em`` without regex gold answers."""
    normalized_prediction = flashrag_normalize_answer(prediction)
    for golden_answer in golden_answers:
        if flashrag_normalize_answer(golden_answer) in normalized_prediction:
            return 1.0
    return 0.0


def _table(title: str, rows: list[tuple[str, float, float]]) -> None:
    t_ours, c_ours = rows[0][1], rows[0][2]
    print(f"\n{title}")
    print(f"  {'':30s} {'wall s':>8s} {'ratio':>7s} {'CPU s':>8s} {'ratio':>7s}")
    for name, wall, cpu in rows:
        print(f"  {name:30s} {wall:8.3f} {wall / t_ours:6.1f}x {cpu:8.3f} {cpu / c_ours:6.1f}x")


def qa_suite(references: list[str], answers: list[str], peer_pairs: int, repeat: int) -> None:
    """The QA metrics against their reference implementations (see the module docstring)."""
    import sacrebleu
    from rouge_score import rouge_scorer

    from ragmeter import answers as qa

    refs, hyps = references[:peer_pairs], answers[:peer_pairs]
    n = len(hyps)
    print(
        f"\nQA metrics: the peers on the first {n:,} pairs (timed once), ragmeter best of {repeat}"
    )

    # Substring match.
    t_ours, c_ours, ours = best_time(
        lambda: qa.substring_match_score(refs, hyps, average=None), repeat
    )
    t_peer, c_peer, peer = best_time(
        lambda: np.array([flashrag_sub_em(h, [r]) for r, h in zip(refs, hyps, strict=True)]), 1
    )
    assert np.array_equal(ours, peer), "substring match differs from FlashRAG's"
    _table(
        f"substring match: mean {ours.mean():.4f} over {n:,} answers",
        [("ragmeter", t_ours, c_ours), ("FlashRAG Sub_ExactMatch (loop)", t_peer, c_peer)],
    )

    # ROUGE-1/2/L, precision, recall and F.
    types = ["rouge1", "rouge2", "rougeL"]
    t_ours, c_ours, ours_rouge = best_time(
        lambda: qa.rouge_scores(refs, hyps, rouge_types=types), repeat
    )
    scorer = rouge_scorer.RougeScorer(types)
    t_peer, c_peer, peer_rouge = best_time(
        lambda: [scorer.score(r, h) for r, h in zip(refs, hyps, strict=True)], 1
    )
    for t in types:
        for measure, key in (("precision", "_precision"), ("recall", "_recall"), ("fmeasure", "")):
            got = ours_rouge[t + key].tolist()
            assert got == [getattr(s[t], measure) for s in peer_rouge], (t, measure)
    _table(
        f"ROUGE-1/2/L P/R/F: mean rougeL F {ours_rouge['rougeL'].mean():.4f} over {n:,} answers",
        [("ragmeter", t_ours, c_ours), ("rouge-score RougeScorer (loop)", t_peer, c_peer)],
    )

    # Sentence BLEU.
    t_ours, c_ours, ours = best_time(
        lambda: qa.sentence_bleu_score(refs, hyps, average=None), repeat
    )
    t_peer, c_peer, peer = best_time(
        lambda: np.array(
            [sacrebleu.sentence_bleu(h, [r]).score for r, h in zip(refs, hyps, strict=True)]
        ),
        1,
    )
    assert np.array_equal(ours, peer), "sentence BLEU differs from sacrebleu's"
    _table(
        f"sentence BLEU: mean {ours.mean():.4f} over {n:,} answers",
        [("ragmeter", t_ours, c_ours), ("sacrebleu sentence_bleu (loop)", t_peer, c_peer)],
    )

    # Corpus BLEU.
    t_ours, c_ours, ours_corpus = best_time(lambda: qa.corpus_bleu(refs, hyps), repeat)
    t_peer, c_peer, peer_corpus = best_time(lambda: sacrebleu.corpus_bleu(hyps, [refs]), 1)
    assert ours_corpus.score == peer_corpus.score, "corpus BLEU differs from sacrebleu's"
    _table(
        f"corpus BLEU: {ours_corpus.score:.4f} over {n:,} answers",
        [("ragmeter", t_ours, c_ours), ("sacrebleu corpus_bleu", t_peer, c_peer)],
    )

    if len(references) > n:
        print(f"\nragmeter alone on all {len(references):,} pairs (best of {repeat}):")
        for title, call in (
            ("substring match", lambda: qa.substring_match_score(references, answers)),
            ("ROUGE-1/2/L", lambda: qa.rouge_scores(references, answers, rouge_types=types)),
            ("sentence BLEU", lambda: qa.sentence_bleu_score(references, answers)),
            ("corpus BLEU", lambda: qa.corpus_bleu(references, answers)),
        ):
            wall, cpu, _ = best_time(call, repeat)
            print(f"  {title:30s} {wall:8.3f} s wall {cpu:8.3f} s CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=["edit", "qa", "all"], default="all")
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--peer-pairs", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    references, answers = make_pairs(args.pairs, args.seed)
    non_ascii = np.mean([not a.isascii() for a in answers])
    print(
        f"{args.pairs:,} pairs, {np.mean([len(a) for a in answers]):.1f} chars per answer on "
        f"average, {non_ascii:.0%} non-ASCII; ragmeter {ragmeter.__version__}, "
        f"rapidfuzz {rapidfuzz_version}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs; best of {args.repeat}",
        flush=True,
    )
    cases = {
        "ANLS (normalize='basic', threshold 0.5)": (
            lambda: ragmeter.anls_score(references, answers, average=None),
            lambda: ragmeter.anls_score(references, answers, average=None, n_threads=1),
            lambda: anls_cpdist(references, answers),
            lambda: anls_loop(references, answers),
        ),
        "edit similarity (normalize=None)": (
            lambda: ragmeter.edit_similarity_score(references, answers, average=None),
            lambda: ragmeter.edit_similarity_score(references, answers, average=None, n_threads=1),
            lambda: similarity_cpdist(references, answers),
            lambda: similarity_loop(references, answers),
        ),
    }
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.suite in ("qa", "all"):
        qa_suite(references, answers, args.peer_pairs, args.repeat)
    if args.suite == "qa":
        print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    for title, (ours, ours_one_thread, with_cpdist, with_loop) in cases.items():
        t_ours, c_ours, r_ours = best_time(ours, args.repeat)
        t_one, c_one, r_one = best_time(ours_one_thread, args.repeat)
        t_cpdist, c_cpdist, r_cpdist = best_time(with_cpdist, args.repeat)
        t_loop, c_loop, r_loop = best_time(with_loop, args.repeat)
        # The three must agree exactly, or the timing compares different work.
        assert np.array_equal(r_ours, r_one), "ragmeter depends on the thread count"
        assert np.array_equal(r_ours, r_cpdist), "ragmeter and cpdist disagree"
        assert np.array_equal(r_ours, r_loop), "ragmeter and the loop disagree"
        print(f"\n{title}: mean {r_ours.mean():.4f} over {len(r_ours):,} answers")
        print(f"  {'':24s} {'wall s':>8s} {'ratio':>7s} {'CPU s':>8s} {'ratio':>7s}")
        for name, wall, cpu in (
            ("ragmeter", t_ours, c_ours),
            ("ragmeter, n_threads=1", t_one, c_one),
            ("rapidfuzz cpdist", t_cpdist, c_cpdist),
            ("Python loop (rapidfuzz)", t_loop, c_loop),
        ):
            print(f"  {name:24s} {wall:8.3f} {wall / t_ours:6.1f}x {cpu:8.3f} {cpu / c_ours:6.1f}x")
    # The floor under any distance kernel: reading the inputs. Each answer compared with an equal
    # copy of itself (distinct objects, so both lists are read), where the kernel only finds
    # the common prefix. Reading needs the GIL, so it runs on one thread whatever n_threads is.
    copies = [r.encode().decode() for r in references]
    t_floor, c_floor, r_floor = best_time(
        lambda: ragmeter.edit_similarity_score(references, copies, average=None), args.repeat
    )
    assert np.all(r_floor == 1.0)
    print(
        f"\nreading floor (edit similarity of each reference with an equal copy): "
        f"{t_floor:.3f} s wall, {c_floor:.3f} s CPU, {t_floor / args.pairs * 1e9:.0f} ns per pair"
    )
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
