"""The offline rules of the built-in prompts: how :class:`~ragmeter.judges.RuleJudge` answers them.

Each rule is named by its prompt's declaration (``PromptTemplate(..., offline_rule=...)``), so a
prompt and its offline answer are declared once, together. A prompt declared without a rule
(a new metric's, a rubric's) is refused by the ``RuleJudge`` with :class:`NoOfflineRuleError`
instead of being answered with filler that looks like a verdict.

A rule receives an :class:`OfflineRequest` (the prompt's ``### Name`` sections, unfenced; its
data blocks by field name, for a prompt laid out without sections such as a rubric's; the
answer schema; the judge's threshold) and returns the answer as JSON-ready data. Content words
are lowercased word tokens minus English stopwords; a claim (or reference sentence) is
supported when at least ``threshold`` of its content words occur in the source.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import InvalidInputError
from .text import content_words, split_sentences

__all__ = [
    "NoOfflineRuleError",
    "OfflineRequest",
    "OfflineRule",
    "answer_correctness_verdicts",
    "answer_relevance_verdicts",
    "answer_relevancy_questions",
    "citation_support_labels",
    "claims",
    "context_precision_usefulness",
    "context_precision_verdicts",
    "context_recall_attribution",
    "context_relevancy_labels",
    "faithfulness_verdicts",
    "groundedness_verdicts",
    "nugget_assignment_labels",
    "nugget_creation",
    "nugget_importance_labels",
    "pairwise_preference",
    "reference_coverage_labels",
    "umbrela_relevance_grade",
]

_REFUSAL = re.compile(
    r"\b(i don't know|i do not know|cannot answer|can't answer|no information|not sure|"
    r"unable to answer|not mentioned)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


class NoOfflineRuleError(InvalidInputError):
    """The :class:`~ragmeter.judges.RuleJudge` was sent a prompt that declares no offline rule;
    also a :class:`ValueError`. In a run it becomes the row's ``error`` (``judge_exception``)."""


@dataclass(frozen=True)
class OfflineRequest:
    """What an offline rule answers from: a built-in prompt's sections and answer schema.

    Attributes
    ----------
    sections
        ``{heading: body}`` of the prompt's ``### Name`` sections (a data block's
        content, as sent).
    schema
        The answer's JSON Schema.
    threshold
        The share of a claim's content words that must occur in the source.
    data
        ``{field: content}`` of the prompt's data blocks (``<data:FIELD>``), as sent: what
        a prompt laid out without ``### Name`` sections (a rubric's ``Query: $question``)
        is read from.
    """

    sections: Mapping[str, str]
    schema: Mapping[str, Any]
    threshold: float = 0.5
    data: Mapping[str, str] = field(default_factory=dict)

    def text(self, name: str) -> str:
        """The body of section ``name`` (``""`` when the prompt has none)."""
        return self.sections.get(name, "")

    def items(self, name: str) -> list[dict[str, Any]]:
        """The ``{"id", "text"}`` items of section ``name`` (none when it is not such a list)."""
        try:
            items = json.loads(self.sections.get(name, "[]"))
        except json.JSONDecodeError:
            return []
        if not isinstance(items, list):
            return []
        return [i for i in items if isinstance(i, dict) and "id" in i]

    def supported(self, claim: str, source: str) -> bool:
        """Whether at least ``threshold`` of the claim's content words occur in ``source``."""
        words = content_words(claim)
        if not words:
            return False
        return len(words & content_words(source)) / len(words) >= self.threshold

    def useful(self, chunk: str, reference: str) -> bool:
        """Whether ``chunk`` supports a sentence of ``reference``."""
        return any(self.supported(sentence, chunk) for sentence in split_sentences(reference))


OfflineRule = Callable[[OfflineRequest], Any]


def context_relevancy_labels(r: OfflineRequest) -> Any:
    """A context sentence is relevant when it shares a content word with the question."""
    question = content_words(r.text("Question"))
    sentences = []
    for item in r.items("Context sentences"):
        shared = bool(content_words(item["text"]) & question)
        reason = (
            "shares words with the question" if shared else "no word in common with the question"
        )
        sentences.append({"id": item["id"], "relevant": shared, "reason": reason})
    return {"sentences": sentences}


def answer_relevancy_questions(r: OfflineRequest) -> Any:
    """The answer's sentences rewritten as questions; noncommittal when it refuses."""
    answer = r.text("Answer")
    n = int(r.schema.get("properties", {}).get("questions", {}).get("minItems", 1))
    sentences = split_sentences(answer) or [answer]
    questions = [
        f"What about {sentences[i % len(sentences)].rstrip('.!?').strip()}?" for i in range(n)
    ]
    return {"questions": questions, "noncommittal": bool(_REFUSAL.search(answer))}


def claims(r: OfflineRequest) -> Any:
    """The answer's sentences (none for a refusal)."""
    answer = r.text("Answer")
    return {"claims": [] if _REFUSAL.search(answer) else split_sentences(answer)}


def groundedness_verdicts(r: OfflineRequest) -> Any:
    """1 when a claim is supported by the context, 0 when not, -1 without a content word."""
    context = r.text("Context")
    verdicts = []
    for item in r.items("Claims"):
        if not content_words(item["text"]):
            verdict, reason = -1, "the claim has no content word"
        elif r.supported(item["text"], context):
            verdict, reason = 1, "its words occur in the context"
        else:
            verdict, reason = 0, "its words do not occur in the context"
        verdicts.append({"id": item["id"], "verdict": verdict, "reason": reason})
    return {"verdicts": verdicts}


def faithfulness_verdicts(r: OfflineRequest) -> Any:
    """Supported claims; contradicted when supported but holding a number the context lacks."""
    context = r.text("Context")
    context_numbers = set(_NUMBER.findall(context))
    verdicts = []
    for item in r.items("Claims"):
        if r.supported(item["text"], context):
            if set(_NUMBER.findall(item["text"])) - context_numbers:
                verdict, reason = "contradicted", "the context gives other numbers"
            else:
                verdict, reason = "supported", "its words occur in the context"
        else:
            verdict, reason = "unsupported", "its words do not occur in the context"
        verdicts.append({"id": item["id"], "verdict": verdict, "reason": reason})
    return {"verdicts": verdicts}


def answer_relevance_verdicts(r: OfflineRequest) -> Any:
    """Relevant when a statement holds half the question's content words, partially when some."""
    question = content_words(r.text("Question"))
    verdicts = []
    for item in r.items("Statements"):
        shared = content_words(item["text"]) & question
        share = len(shared) / len(question) if question else 0.0
        verdict = "relevant" if share >= 0.5 else "partially_relevant" if shared else "irrelevant"
        verdicts.append(
            {"id": item["id"], "verdict": verdict, "reason": f"{len(shared)} shared words"}
        )
    return {"verdicts": verdicts}


def context_precision_usefulness(r: OfflineRequest) -> Any:
    """A context is useful when it supports a sentence of the reference answer."""
    useful = r.useful(r.text("Context"), r.text("Reference answer"))
    return {"useful": useful, "reason": "supports the reference" if useful else "does not"}


def context_precision_verdicts(r: OfflineRequest) -> Any:
    """:func:`context_precision_usefulness` for every numbered context."""
    reference = r.text("Reference answer")
    return {
        "verdicts": [
            {
                "id": item["id"],
                "useful": r.useful(item["text"], reference),
                "reason": "overlap with the reference",
            }
            for item in r.items("Contexts")
        ]
    }


def context_recall_attribution(r: OfflineRequest) -> Any:
    """A reference sentence is attributed when the context supports it."""
    context = r.text("Context")
    return {
        "sentences": [
            {
                "id": item["id"],
                "attributed": r.supported(item["text"], context),
                "reason": "word overlap with the context",
            }
            for item in r.items("Reference sentences")
        ]
    }


def pairwise_preference(r: OfflineRequest) -> Any:
    """The response sharing more content words with question and context (a tie when equal)."""
    target = content_words(r.text("Question") + " " + r.text("Context"))
    one = len(content_words(r.text("Response 1")) & target)
    two = len(content_words(r.text("Response 2")) & target)
    winner = "1" if one > two else "2" if two > one else "tie"
    return {"winner": winner, "reason": f"shared words: response 1 {one}, response 2 {two}"}


def answer_correctness_verdicts(r: OfflineRequest) -> Any:
    """An answer statement is supported when the reference answer supports it."""
    reference = r.text("Reference answer")
    verdicts = []
    for item in r.items("Answer statements"):
        supported = r.supported(item["text"], reference)
        verdict = "supported" if supported else "unsupported"
        verdicts.append({"id": item["id"], "verdict": verdict, "reason": "word overlap"})
    return {"verdicts": verdicts}


def reference_coverage_labels(r: OfflineRequest) -> Any:
    """A reference statement is present when the answer supports it."""
    answer = r.text("Answer")
    return {
        "statements": [
            {
                "id": item["id"],
                "present": r.supported(item["text"], answer),
                "reason": "word overlap with the answer",
            }
            for item in r.items("Reference statements")
        ]
    }


def umbrela_relevance_grade(r: OfflineRequest) -> Any:
    """A lexical grade 0-3 of the passage for the query, not a judgement of relevance: the share
    of the query's content words that occur in the passage, 3 when all do, 2 when at least
    ``threshold`` do, 1 when some do, 0 when none do (or the query has no content word)."""
    query = content_words(r.data.get("question", ""))
    shared = query & content_words(r.data.get("contexts", ""))
    share = len(shared) / len(query) if query else 0.0
    grade = 3 if query and shared == query else 2 if share >= r.threshold else 1 if shared else 0
    return {
        "value": grade,
        "reason": f"{len(shared)} of the query's {len(query)} content words occur in the passage",
    }


def _enum(r: OfflineRequest, list_key: str, field_name: str) -> list[Any]:
    """The labels a prompt's schema allows for ``field_name`` of its ``list_key`` items."""
    items = r.schema.get("properties", {}).get(list_key, {}).get("items", {})
    return list(items.get("properties", {}).get(field_name, {}).get("enum", []))


def _overlap(text: str, source: str) -> float:
    words = content_words(text)
    return len(words & content_words(source)) / len(words) if words else 0.0


def nugget_assignment_labels(r: OfflineRequest) -> Any:
    """A lexical label of each nugget against the answer, not a judgement of meaning:
    ``support`` when every content word of the nugget occurs in the answer, ``partial_support``
    (three grades only) when at least ``threshold`` of them do, ``not_support`` otherwise."""
    answer = r.text("Answer")
    grades = _enum(r, "labels", "label")
    labels = []
    for item in r.items("Nuggets"):
        share = _overlap(item["text"], answer)
        if share == 1.0:
            label = "support"
        elif share >= r.threshold and "partial_support" in grades:
            label = "partial_support"
        else:
            label = "not_support"
        labels.append(
            {"id": item["id"], "label": label, "reason": f"{share:.0%} of its words occur"}
        )
    return {"labels": labels}


def nugget_importance_labels(r: OfflineRequest) -> Any:
    """``vital`` when at least ``threshold`` of the nugget's content words occur in the query,
    else ``okay`` (a lexical stand-in for importance)."""
    query = r.text("Query")
    return {
        "labels": [
            {
                "id": item["id"],
                "importance": "vital" if _overlap(item["text"], query) >= r.threshold else "okay",
                "reason": "word overlap with the query",
            }
            for item in r.items("Nuggets")
        ]
    }


def nugget_creation(r: OfflineRequest) -> Any:
    """The nuggets so far, then the context's sentences that share a content word with the
    query (their first 12 words), up to the maximum the prompt states."""
    try:
        current = json.loads(r.text("Current nuggets") or "[]")
    except json.JSONDecodeError:
        current = []
    nuggets = [n for n in current if isinstance(n, str)]
    stated = r.text("Maximum number of nuggets").strip()
    limit = int(stated) if stated.isdigit() else 30
    query = content_words(r.text("Query"))
    sentences = [s for item in r.items("Context") for s in split_sentences(str(item["text"]))]
    for sentence in sentences:
        if len(nuggets) >= limit:
            break
        words = sentence.split()[:12]
        text = " ".join(words).rstrip(".,;:")
        if text and query & content_words(text) and text not in nuggets:
            nuggets.append(text)
    return {"nuggets": nuggets[:limit]}


def citation_support_labels(r: OfflineRequest) -> Any:
    """``full`` when every content word of the sentence occurs in the cited passage,
    ``partial`` when at least ``threshold`` do, ``none`` otherwise."""
    passage = r.text("Cited passage")
    labels = []
    for item in r.items("Sentences"):
        share = _overlap(item["text"], passage)
        support = "full" if share == 1.0 else "partial" if share >= r.threshold else "none"
        labels.append({"id": item["id"], "support": support, "reason": f"{share:.0%} overlap"})
    return {"labels": labels}
