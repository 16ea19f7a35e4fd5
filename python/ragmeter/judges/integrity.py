"""Can this judge be believed beyond its agreement with labels? :func:`judge_report`.

A judge's results say who judged (its identity) and with which prompts (their digests); this
report reads them, and checks four ways a judge is known to go wrong:

- **self-judging**: a judge of the same model family as the system whose answers it judges
  favours them (GPT-4 judging its own answers won 87.2% of pairs with length balanced,
  lm-sys/FastChat#3911); flagged, or refused, when the generator is declared;
- **drift**: a baseline judged by one model and a candidate by its successor measures the
  judge's change, not the system's (amd/gaia#3371); a re-grade of the same samples by a
  second judge, and a paired t-test of the per-sample differences, say how far they differ;
- **length bias**: the least-squares slope of the score on the answer's length (words), with
  its t interval; for a pairwise metric, the rate at which the longer answer wins, with its
  Wilson interval (FastChat's GPT-4 pairwise judgements preferred the longer answer 68.0% of
  the time);
- **position bias**: the rate at which a pairwise verdict flips when the answers swap seats
  (12.9% in FastChat#3911), with its Wilson interval.

The statistics are :mod:`ragmeter.stats.bias`'s and :func:`ragmeter.stats.paired_t_test`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._notebook import NotebookDisplay
from ..exceptions import InvalidInputError
from ..stats.bias import Proportion, Slope, proportion, slope_interval
from ..stats.paired import paired_t_test
from .evaluation import evaluate
from .registry import resolve_metrics
from .results import JudgeResults
from .score import Score

__all__ = ["FAMILIES", "JudgeReport", "judge_report", "model_family"]

#: Model families by the patterns of their model names (checked in order, case-insensitive,
#: on the name without a provider or organisation prefix).
FAMILIES: tuple[tuple[str, str], ...] = (
    ("openai-gpt", r"^(gpt|chatgpt|o[1-9]\b|o[1-9]-|text-davinci|davinci)"),
    ("anthropic-claude", r"claude"),
    ("google-gemini", r"gemini|gemma|palm|bison"),
    ("meta-llama", r"llama"),
    ("mistral", r"mistral|mixtral|codestral|ministral|magistral|pixtral"),
    ("qwen", r"qwen|qwq"),
    ("deepseek", r"deepseek"),
    ("microsoft-phi", r"^phi-?\d"),
    ("cohere", r"^(command|aya)"),
    ("xai-grok", r"grok"),
    ("huggingface-smollm", r"smollm"),
)


def model_family(model: str | None) -> str | None:
    """The family of a model name (``"gpt-4o-mini"`` -> ``"openai-gpt"``), ``None`` when not
    known. A provider prefix (``"openai/"``, ``"meta-llama/"``) and a file path are dropped.

    Examples
    --------
    >>> model_family("meta-llama/Llama-3.1-8B-Instruct"), model_family("claude-3-5-sonnet")
    ('meta-llama', 'anthropic-claude')
    >>> print(model_family("my-finetune"))
    None
    """
    if not model:
        return None
    name = str(model).strip().lower().rsplit("/", 1)[-1]
    for family, pattern in FAMILIES:
        if re.search(pattern, name):
            return family
    return None


@dataclass(frozen=True)
class JudgeReport(NotebookDisplay):
    """What :func:`judge_report` found (see the module's docstring); ``to_dict()`` for files,
    ``str()`` for people."""

    identity: Mapping[str, Any]
    self_judging: tuple[Mapping[str, Any], ...] = ()
    drift: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    length_bias: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    position: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def flagged(self) -> list[str]:
        """One line per finding that deserves a look (self-judging, an interval excluding
        no bias)."""
        lines = [
            f"self-judging: judge {s['judge']} ({s['judge_family']}) judges answers of "
            f"{s['generator']} ({s['generator_family']})"
            for s in self.self_judging
            if s.get("same_family")
        ]
        for metric, found in self.length_bias.items():
            slope = found.get("slope")
            if slope and slope.get("ci") and (slope["ci"][0] > 0 or slope["ci"][1] < 0):
                lines.append(f"length bias in {metric}: slope {slope['slope']:.4g} per 100 words")
            longer = found.get("longer_wins")
            if longer and longer.get("ci") and not longer["ci"][0] <= 0.5 <= longer["ci"][1]:
                lines.append(
                    f"length bias in {metric}: the longer answer wins {longer['rate']:.1%}"
                )
        for metric, found in self.drift.items():
            ci = found.get("ci")
            if ci and (ci[0] > 0 or ci[1] < 0):
                lines.append(f"drift in {metric}: {found['mean']:+.4f} from the first judge")
        return lines

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every section."""
        return {
            "identity": dict(self.identity),
            "self_judging": [dict(s) for s in self.self_judging],
            "drift": {k: dict(v) for k, v in self.drift.items()},
            "length_bias": {k: dict(v) for k, v in self.length_bias.items()},
            "position": {k: dict(v) for k, v in self.position.items()},
            "notes": list(self.notes),
            "flagged": self.flagged,
        }

    def __str__(self) -> str:
        lines = ["judge integrity report"]
        for judge in self.identity.get("judges", []):
            lines.append(f"  judge: {judge}")
        for metric, digests in self.identity.get("prompts", {}).items():
            lines.append(f"  prompts of {metric}: {digests}")
        for entry in self.self_judging:
            verdict = (
                "SAME FAMILY: self-judging"
                if entry["same_family"]
                else "unknown family"
                if entry["same_family"] is None
                else "different families"
            )
            lines.append(
                f"  self-judging: judge {entry['judge']} ({entry['judge_family']}) vs generator "
                f"{entry['generator']} ({entry['generator_family']}): {verdict}"
            )
        for metric, found in self.drift.items():
            lines.append(f"  drift of {metric}: {found['summary']}")
        for metric, found in self.length_bias.items():
            for key, value in found.items():
                if isinstance(value, Mapping) and "summary" in value:
                    lines.append(f"  length bias of {metric} ({key}): {value['summary']}")
        for metric, found in self.position.items():
            lines.append(f"  position flips of {metric}: {found['flips']['summary']}")
        lines.extend(f"  note: {note}" for note in self.notes)
        lines.extend(f"  FLAG: {line}" for line in self.flagged)
        return "\n".join(lines)


def _words(text: str | None) -> int:
    return len((text or "").split())


def _scores(row: Any) -> Sequence[Score]:
    return tuple(row.repeats) if row.repeats is not None else (row.score,)


def _identity(results: JudgeResults) -> dict[str, Any]:
    manifest = results.manifest
    prompts = {
        str(m.get("name")): dict(m.get("prompts") or {})
        for m in manifest.get("metrics", [])
        if isinstance(m, Mapping)
    }
    return {
        "judges": list(manifest.get("judges") or [manifest.get("judge")] if manifest else []),
        "prompts": prompts,
        "settings": dict(manifest.get("settings") or {}),
        "library": f"{manifest.get('library', 'ragmeter')} {manifest.get('version', '?')}",
        "created_at": manifest.get("created_at"),
        "kept": "every saved result's manifest keeps the judge's identity (kind, name, model, "
        "endpoint or identity=) and the sha256 digest of each prompt (system text, template, "
        "schema)",
    }


def _self_judging(
    identity: Mapping[str, Any], generators: Sequence[str], refuse: bool
) -> tuple[dict[str, Any], ...]:
    out = []
    for judge in identity.get("judges") or []:
        if not isinstance(judge, Mapping):
            continue
        model = str(judge.get("model") or judge.get("name") or "")
        family = model_family(model)
        for generator in generators:
            generator_family = model_family(generator)
            same = (
                None if family is None or generator_family is None else family == generator_family
            )
            out.append(
                {
                    "judge": model,
                    "judge_family": family,
                    "generator": generator,
                    "generator_family": generator_family,
                    "same_family": same,
                }
            )
            if same and refuse:
                raise InvalidInputError(
                    f"self-judging: the judge {model!r} and the generator {generator!r} are both "
                    f"of the {family} family; judge with another family's model, or pass "
                    "refuse_self_judging=False to report it instead"
                )
    return tuple(out)


def _length_bias(results: JudgeResults, confidence: float) -> dict[str, dict[str, Any]]:
    samples = {s.id: s for s in results.samples}
    if not samples:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for metric in results.metric_names:
        rows = [r for r in results.rows if r.metric == metric and r.sample_id in samples]
        pairwise = any("winner" in s.evidence for r in rows for s in _scores(r))
        xs, ys = [], []
        longer = wins = 0
        for row in rows:
            sample = samples[row.sample_id]
            for score in _scores(row):
                if score.status != "ok" or score.value is None:
                    continue
                if pairwise:
                    a, b = _words(sample.answer), _words(sample.answer_b)
                    xs.append((a - b) / 100.0)
                    ys.append(float(score.value))
                    winner = score.evidence.get("winner")
                    if winner in ("A", "B") and a != b:
                        longer += 1
                        wins += (winner == "A") == (a > b)
                else:
                    xs.append(_words(sample.answer) / 100.0)
                    ys.append(float(score.value))
        entry: dict[str, Any] = {}
        fit: Slope = slope_interval(xs, ys, confidence=confidence)
        entry["slope"] = {
            **fit.to_dict(),
            "x": "(words of A - words of B) / 100" if pairwise else "words of the answer / 100",
            "summary": str(fit),
        }
        if pairwise:
            rate: Proportion = proportion(wins, longer, confidence=confidence)
            entry["longer_wins"] = {**rate.to_dict(), "summary": str(rate)}
        found[metric] = entry
    return found


def _position(results: JudgeResults, confidence: float) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for metric in results.metric_names:
        scores = [
            s
            for r in results.rows
            if r.metric == metric
            for s in _scores(r)
            if s.status == "ok" and "position_inconsistent" in s.evidence
        ]
        if not scores:
            continue
        flips = sum(1 for s in scores if s.evidence.get("position_inconsistent"))
        rate = proportion(flips, len(scores), confidence=confidence)
        first = sum(int(s.evidence.get("first_position_wins", 0)) for s in scores)
        verdicts = sum(int(s.evidence.get("n_verdicts", 0)) for s in scores)
        first_rate = proportion(first, verdicts, confidence=confidence)
        found[metric] = {
            "flips": {**rate.to_dict(), "summary": str(rate)},
            "first_position_wins": {**first_rate.to_dict(), "summary": str(first_rate)},
        }
    return found


def _drift(
    results: JudgeResults, regrade: JudgeResults, confidence: float
) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for metric in results.metric_names:
        if metric not in regrade.metric_names:
            continue
        second = {
            r.sample_id: r.value for r in regrade.rows if r.metric == metric and r.status == "ok"
        }
        pairs = [
            (r.value, second[r.sample_id])
            for r in results.rows
            if r.metric == metric and r.status == "ok" and r.sample_id in second
        ]
        differences = [float(b) - float(a) for a, b in pairs if a is not None and b is not None]
        if len(differences) < 2:
            found[metric] = {
                "n_pairs": len(differences),
                "mean": None,
                "ci": None,
                "p_value": None,
                "summary": f"undefined ({len(differences)} samples ok under both judges)",
            }
            continue
        test = paired_t_test(differences, confidence_level=confidence)
        p = float(test.p_value)
        ci = None if test.ci_low is None else [float(test.ci_low), float(test.ci_high)]
        shown_p = "< 1e-16" if p < 1e-16 else f"{p:.3g}"
        interval = (
            ""
            if ci is None or ci[0] != ci[0]
            else f", {confidence:.0%} CI [{ci[0]:+.4f}, {ci[1]:+.4f}]"
        )
        found[metric] = {
            "n_pairs": len(differences),
            "mean": float(test.mean),
            "ci": ci,
            "p_value": p,
            "effect_size": float(test.effect_size),
            "test": "paired t-test of (second judge - first judge) per sample",
            "summary": f"{float(test.mean):+.4f} (second - first judge over "
            f"{len(differences)} samples){interval}, p = {shown_p}",
        }
    return found


def judge_report(
    results: JudgeResults,
    *,
    generator: str | Sequence[str] | None = None,
    regrade: JudgeResults | None = None,
    regrade_judge: Any = None,
    refuse_self_judging: bool = False,
    confidence: float = 0.95,
    **options: Any,
) -> JudgeReport:
    """The integrity report of a judge's ``results`` (see the module's docstring).

    Parameters
    ----------
    results
        The judge's results (from ``evaluate``, or read back with ``JudgeResults.read``:
        length bias needs the samples, which saved results of format 3 keep).
    generator
        The model(s) that wrote the answers, for the self-judging check; default: the
        samples' ``metadata["generator"]``, when they declare one.
    regrade
        The same samples judged by a second judge (another ``evaluate``), for the drift.
    regrade_judge
        Or a second judge: the samples are judged again with it here (``options`` go to
        ``evaluate``: ``cache=``, ``prices=``...), with the built-in metrics of the
        results (custom metrics: pass ``regrade=``).
    refuse_self_judging
        Raise instead of flagging when a judge and a generator share a family.
    confidence
        The intervals' level.

    Returns
    -------
    JudgeReport
        Identity, self-judging, drift, length and position biases, and what to look at.

    Raises
    ------
    InvalidInputError
        self-judging with ``refuse_self_judging=True``; a re-grade without the samples.

    Examples
    --------
    >>> from ragmeter.judges import RuleJudge, Sample, evaluate
    >>> samples = [Sample("Who wrote Hamlet?", "Shakespeare wrote Hamlet.",
    ...                   ["Hamlet is by Shakespeare."], id="a",
    ...                   metadata={"generator": "gpt-4o-mini"})]
    >>> report = judge_report(evaluate(samples, ["faithfulness"], judge=RuleJudge(),
    ...                                progress=False))
    >>> report.self_judging[0]["generator_family"], report.self_judging[0]["same_family"]
    ('openai-gpt', None)
    """
    identity = _identity(results)
    if generator is None:
        declared = {
            str(s.metadata.get("generator"))
            for s in results.samples
            if isinstance(s.metadata, Mapping) and s.metadata.get("generator")
        }
        generators = sorted(declared)
    elif isinstance(generator, str):
        generators = [generator]
    else:
        generators = [str(g) for g in generator]
    notes = []
    if not generators:
        notes.append(
            "no generator declared (generator= or samples' metadata['generator']): "
            "self-judging not checked"
        )
    if not results.samples:
        notes.append("the results hold no samples: length bias not measured")
    if regrade is None and regrade_judge is not None:
        if not results.samples:
            raise InvalidInputError(
                "a re-grade needs the samples: pass results from evaluate or a saved result of "
                "format 3, or judge them yourself and pass regrade="
            )
        options.setdefault("progress", False)
        # The run's own metric objects; a saved result's are names (built-in metrics only).
        metrics = [
            m if callable(getattr(m, "score", None)) else resolve_metrics([m.name])[0]
            for m in results.metrics
        ]
        regrade = evaluate(results.samples, metrics, judge=regrade_judge, **options)
    if regrade is None:
        notes.append(
            "no re-grade by a second judge (regrade= or regrade_judge=): drift not measured"
        )
    return JudgeReport(
        identity=identity,
        self_judging=_self_judging(identity, generators, refuse_self_judging),
        drift={} if regrade is None else _drift(results, regrade, confidence),
        length_bias=_length_bias(results, confidence),
        position=_position(results, confidence),
        notes=tuple(notes),
    )
