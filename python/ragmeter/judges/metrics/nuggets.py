"""Nugget and citation judgements: creation of a topic's nuggets, their importance, their
assignment to an answer, and the support of an answer's sentences by the segments they cite.

The prompts follow nuggetizer's (Pradeep et al., arXiv:2411.09607; ``creator_template``,
``scorer_template``, ``assigner_template``, ``assigner_2grade_template``) in what they ask,
with ragmeter's layout: the stable text first (instructions, the data notice, the answer's
schema), then the data with the part an item shares with its neighbours before the part it
does not (a topic's query and nuggets before the answer), so that a provider's prompt cache
reuses the prefix of every answer of a topic; answers are JSON with one entry per numbered
item, each id checked back. A reply that cannot be parsed or validated is re-asked, then the
row is ``error`` with its reason: never a label (nuggetizer retries up to 500 times, then
labels every nugget ``okay``, and counts a failed assignment as ``not_support``).

The metrics read what they judge from the sample and from their own parameters: the topic of
each sample (``topics``: sample id -> topic id) and the topic's query and nuggets
(``bank_topics``: topic id -> (query, nugget texts)). :mod:`ragmeter.nuggets` builds them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ...exceptions import InvalidInputError
from .. import offline_rules as rules
from ..context import JudgeContext
from ..parsing import validate_schema
from ..prompts import PromptTemplate, format_items, labelled_items_schema
from ..sample import Sample
from ..score import Score
from .base import Metric, label_checker

__all__ = [
    "CITATION_SUPPORT_PROMPT",
    "NUGGET_ASSIGNMENT_2GRADE_PROMPT",
    "NUGGET_ASSIGNMENT_PROMPT",
    "NUGGET_CREATION_PROMPT",
    "NUGGET_IMPORTANCE_PROMPT",
    "CitationSupportMetric",
    "NuggetAssignmentMetric",
    "NuggetCreationMetric",
]

_ASSIGN_TEXT = """\
Label each numbered nugget by whether the answer below captures it. {grades} Judge only from \
the answer, not from what you know about the topic. Return one entry per nugget id, in order, \
with a short reason.

### Query
$question

### Nuggets
$nuggets

### Answer
$answer
"""

NUGGET_ASSIGNMENT_PROMPT = PromptTemplate(
    name="nugget_assignment",
    version="1",
    offline_rule=rules.nugget_assignment_labels,
    template=_ASSIGN_TEXT.format(
        grades='A nugget fully captured by the answer is "support", one partially captured '
        '"partial_support", one not captured at all "not_support".'
    ),
    schema=labelled_items_schema(
        "nugget_assignment_labels",
        "labels",
        "label",
        {"type": "string", "enum": ["support", "partial_support", "not_support"]},
    ),
)

NUGGET_ASSIGNMENT_2GRADE_PROMPT = PromptTemplate(
    name="nugget_assignment_2grade",
    version="1",
    offline_rule=rules.nugget_assignment_labels,
    template=_ASSIGN_TEXT.format(
        grades='A nugget fully captured by the answer is "support"; any other is "not_support".'
    ),
    schema=labelled_items_schema(
        "nugget_assignment_2grade_labels",
        "labels",
        "label",
        {"type": "string", "enum": ["support", "not_support"]},
    ),
)

NUGGET_IMPORTANCE_PROMPT = PromptTemplate(
    name="nugget_importance",
    version="1",
    offline_rule=rules.nugget_importance_labels,
    template="""\
Label each numbered nugget by its importance for the query: "vital" for a nugget that must be \
present in a good answer, "okay" for one that adds worthwhile information but is not \
essential. Return one entry per nugget id, in order, with a short reason.

### Query
$question

### Nuggets
$nuggets
""",
    schema=labelled_items_schema(
        "nugget_importance_labels",
        "labels",
        "importance",
        {"type": "string", "enum": ["vital", "okay"]},
    ),
)

NUGGET_CREATION_PROMPT = PromptTemplate(
    name="nugget_creation",
    version="1",
    offline_rule=rules.nugget_creation,
    instruction_fields=("max_nuggets",),
    template="""\
Update the list of atomic nuggets of information (each 1-12 words) so that together they best \
provide the information the query needs. Use only the current nuggets and the context below \
(this is one step of an iterative process over the relevant passages). Return the whole \
updated list, even when nothing changes; keep no redundant nugget; keep the most vital ones, \
in decreasing order of importance; write each nugget as a short statement, not a question.

### Maximum number of nuggets
$max_nuggets

### Query
$question

### Current nuggets
$nuggets

### Context
$context
""",
    schema={
        "title": "nugget_creation",
        "type": "object",
        "properties": {"nuggets": {"type": "array", "items": {"type": "string"}}},
        "required": ["nuggets"],
        "additionalProperties": False,
    },
)

CITATION_SUPPORT_PROMPT = PromptTemplate(
    name="citation_support",
    version="1",
    offline_rule=rules.citation_support_labels,
    template="""\
Decide, for each numbered sentence of an answer, how far the cited passage supports it: \
"full" if the passage states or directly implies everything the sentence says, "partial" if \
it supports some of it, "none" if it supports none of it. Return one entry per sentence id, \
in order, with a short reason.

### Query
$question

### Cited passage
$passage

### Sentences
$sentences
""",
    schema=labelled_items_schema(
        "citation_support_labels",
        "labels",
        "support",
        {"type": "string", "enum": ["full", "partial", "none"]},
    ),
)

_ASSIGN_CHECKS = {
    3: label_checker(NUGGET_ASSIGNMENT_PROMPT, "labels", "label"),
    2: label_checker(NUGGET_ASSIGNMENT_2GRADE_PROMPT, "labels", "label"),
}
_IMPORTANCE_CHECK = label_checker(NUGGET_IMPORTANCE_PROMPT, "labels", "importance")
_SUPPORT_CHECK = label_checker(CITATION_SUPPORT_PROMPT, "labels", "support")


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    return value


class NuggetAssignmentMetric(Metric):
    """Which of its topic's nuggets an answer captures: one label per nugget.

    The judge reads the topic's query and nuggets, then the answer, ``per_call`` nuggets a
    call (nuggetizer's 10), and labels each ``support``, ``partial_support`` or
    ``not_support`` (``grades=2``: ``support`` or ``not_support``). The score's value is the
    share of nuggets supported (``support`` 1, ``partial_support`` 0.5), its evidence the
    labels and reasons in the bank's order; :mod:`ragmeter.nuggets` turns the labels into the
    All, Vital and Weighted scores. A topic without nuggets is ``undefined`` (``no_nuggets``).

    Parameters
    ----------
    bank_topics
        ``{topic_id: (query, [nugget texts])}``.
    topics
        ``{sample id: topic id}``.
    grades
        3 or 2.
    per_call
        Nuggets labelled per call.
    bank_hash
        The bank's content hash (recorded in the run manifest).
    """

    name = "nugget_assignment"
    value_range = (0.0, 1.0)
    required_fields = ("question", "answer")
    empty_allowed = ("answer",)
    agreement_level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval"

    def __init__(
        self,
        bank_topics: Mapping[str, tuple[str, Sequence[str]]],
        topics: Mapping[str, str],
        *,
        grades: int = 3,
        per_call: int = 10,
        bank_hash: str = "",
    ):
        if grades not in (2, 3):
            raise InvalidInputError(f"grades must be 2 or 3, got {grades!r}")
        self.grades = grades
        self.per_call = _positive(per_call, "per_call")
        self.bank_topics = {t: (q, tuple(n)) for t, (q, n) in bank_topics.items()}
        self.topics = dict(topics)
        self.bank_hash = bank_hash
        self.prompt = NUGGET_ASSIGNMENT_PROMPT if grades == 3 else NUGGET_ASSIGNMENT_2GRADE_PROMPT
        self.prompts = (self.prompt,)

    def params(self) -> dict[str, Any]:
        """Grades, nuggets per call and the bank's hash (for the run manifest)."""
        return {"grades": self.grades, "per_call": self.per_call, "bank": self.bank_hash}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The labels of the sample's topic's nuggets (see the class)."""
        topic = self.topics.get(sample.id or "")
        if topic is None or topic not in self.bank_topics:
            raise InvalidInputError(f"sample {sample.id!r} has no topic in the bank")
        query, nuggets = self.bank_topics[topic]
        if not nuggets:
            return Score.undefined("no_nuggets", f"topic {topic!r} has no nugget")
        answers = await ctx.label_items(
            self.prompt,
            {"question": query, "answer": sample.answer or ""},
            list(nuggets),
            placeholder="nuggets",
            list_key="labels",
            validate=_ASSIGN_CHECKS[self.grades],
            per_call=self.per_call,
        )
        labels = [str(a["label"]) for a in answers]
        credit = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
        return Score.ok(
            sum(credit[label] for label in labels) / len(labels),
            reasons=[str(a["reason"]) for a in answers],
            evidence={"topic_id": topic, "labels": labels},
        )


class NuggetCreationMetric(Metric):
    """The nuggets of a topic, written from its pooled relevant segments and labelled by
    importance (nuggetizer's creation and scoring, through the engine).

    The sample is the topic: its question the query, its contexts the pooled segments (most
    relevant first). The judge updates a list of nuggets over windows of ``window`` segments
    (each call sees the list so far), keeping at most ``max_nuggets``; then labels each
    nugget ``vital`` or ``okay``, ``per_call`` a call. The value is the number of nuggets, the
    evidence ``{"nuggets": [{"text", "importance", "reason"}]}``. A reply over the maximum or
    with an empty nugget is re-asked, then the topic is an ``error`` (never a list cut short
    silently, never a default importance). A topic without segments is ``undefined``.
    """

    name = "nugget_creation"
    required_fields = ("question", "contexts")

    def __init__(self, *, max_nuggets: int = 30, window: int = 10, per_call: int = 10):
        self.max_nuggets = _positive(max_nuggets, "max_nuggets")
        self.window = _positive(window, "window")
        self.per_call = _positive(per_call, "per_call")
        self.prompts = (NUGGET_CREATION_PROMPT, NUGGET_IMPORTANCE_PROMPT)

    def params(self) -> dict[str, Any]:
        """The maximum, the window and the labels per call."""
        return {
            "max_nuggets": self.max_nuggets,
            "window": self.window,
            "per_call": self.per_call,
        }

    def _check(self, parsed: Any) -> list[str]:
        problems = validate_schema(parsed, NUGGET_CREATION_PROMPT.schema, "$")
        if problems:
            return problems
        nuggets = parsed["nuggets"]
        if len(nuggets) > self.max_nuggets:
            return [f"$.nuggets: {len(nuggets)} nuggets, at most {self.max_nuggets} are asked"]
        blank = [i for i, n in enumerate(nuggets) if not n.strip()]
        if blank:
            return [f"$.nuggets[{blank[0]}]: an empty nugget"]
        return []

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The topic's nuggets with their importance (see the class)."""
        segments = list(sample.contexts or ())
        nuggets: list[str] = []
        for start in range(0, len(segments), self.window):
            window = segments[start : start + self.window]
            parsed = await ctx.ask(
                NUGGET_CREATION_PROMPT,
                {
                    "max_nuggets": self.max_nuggets,
                    "question": sample.question,
                    "nuggets": json.dumps(nuggets, ensure_ascii=False),
                    "context": format_items(window, start=start + 1),
                },
                validate=self._check,
            )
            nuggets = list(dict.fromkeys(n.strip() for n in parsed["nuggets"]))
        if not nuggets:
            return Score.undefined("no_nuggets", "the judge found no nugget in the segments")
        labels = await ctx.label_items(
            NUGGET_IMPORTANCE_PROMPT,
            {"question": sample.question},
            nuggets,
            placeholder="nuggets",
            list_key="labels",
            validate=_IMPORTANCE_CHECK,
            per_call=self.per_call,
        )
        return Score.ok(
            len(nuggets),
            reasons=[str(lb["reason"]) for lb in labels],
            evidence={
                "nuggets": [
                    {"text": n, "importance": lb["importance"], "reason": lb["reason"]}
                    for n, lb in zip(nuggets, labels, strict=True)
                ]
            },
        )


class CitationSupportMetric(Metric):
    """How far each cited segment supports the answer sentence that cites it: ``full``,
    ``partial`` or ``none`` per (sentence, cited segment) pair (the TREC 2024 RAG support
    assessment, arXiv:2504.15205).

    Reads the sample's ``citations`` (its sentences and the indices of the contexts each
    cites) and ``contexts`` (the cited segments' texts). One call per cited segment, the
    sentences that cite it as items (the segment before them: the stable part first). The
    value is the weighted citation precision (full 1, partial 0.5, none 0, averaged over
    the pairs); the evidence lists every pair, from which :mod:`ragmeter.nuggets.citations`
    computes precision, recall, F1 and ARGUE's sentence precision. A sample without
    ``citations`` is ``undefined`` (``missing_citations``); one whose sentences cite nothing
    ``undefined`` (``no_citations``).
    """

    name = "citation_support"
    value_range = (0.0, 1.0)
    required_fields = ("question", "citations", "contexts")
    empty_allowed = ("citations",)
    agreement_level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval"

    def __init__(self, *, per_call: int = 10):
        self.per_call = _positive(per_call, "per_call")
        self.prompts = (CITATION_SUPPORT_PROMPT,)

    def params(self) -> dict[str, Any]:
        """Sentences labelled per call."""
        return {"per_call": self.per_call}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """Every (sentence, cited segment) pair's support (see the class)."""
        sentences = sample.citations or ()
        contexts = sample.contexts or ()
        citing: dict[int, list[int]] = {}
        for i, sentence in enumerate(sentences):
            for c in dict.fromkeys(sentence.citations):
                if not 0 <= c < len(contexts):
                    raise InvalidInputError(
                        f"sample {sample.id!r}: sentence {i} cites context {c}, which the "
                        f"sample does not have ({len(contexts)} contexts)"
                    )
                citing.setdefault(c, []).append(i)
        if not citing:
            return Score.undefined(
                "no_citations",
                "no sentence of the answer cites a segment",
                evidence={"pairs": [], "n_sentences": len(sentences)},
            )
        pairs: list[dict[str, Any]] = []
        for segment, indices in citing.items():
            labels = await ctx.label_items(
                CITATION_SUPPORT_PROMPT,
                {"question": sample.question, "passage": contexts[segment]},
                [sentences[i].text for i in indices],
                placeholder="sentences",
                list_key="labels",
                validate=_SUPPORT_CHECK,
                per_call=self.per_call,
            )
            pairs.extend(
                {
                    "sentence": i,
                    "citation": segment,
                    "support": lb["support"],
                    "reason": lb["reason"],
                }
                for i, lb in zip(indices, labels, strict=True)
            )
        pairs.sort(key=lambda p: (p["sentence"], p["citation"]))
        weight = {"full": 1.0, "partial": 0.5, "none": 0.0}
        return Score.ok(
            sum(weight[p["support"]] for p in pairs) / len(pairs),
            reasons=[str(p["reason"]) for p in pairs],
            evidence={"pairs": pairs, "n_sentences": len(sentences)},
        )
