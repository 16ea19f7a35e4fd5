"""Prompt caching (issue 49 item 2): every built-in metric's prompts put their stable part first.

Providers cache the longest prefix a request shares with earlier ones (OpenAI and vLLM
automatically, Anthropic from a marked breakpoint). So the rendered messages of every
built-in metric, across the items of a run, must be byte-equal up to the first variable field
(the first ``<data:...>`` block) and hold the stable parts there: the system text, the
instructions, the data notice and the answer's JSON Schema. After it, only the data blocks and
their headings may stand.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from ragmeter.judges import HashEmbedder, RuleJudge, Sample, evaluate
from ragmeter.judges.injection import DATA_NOTICE
from ragmeter.judges.metrics import METRIC_NAMES
from ragmeter.judges.prompts import SCHEMA_MARKER, request_task

BLOCK = re.compile(r"<data:(\w+)>.*?</data:\1>", re.DOTALL)
# What may stand between data blocks: headings and short labels ("### Claims", "Passage:").
BETWEEN = re.compile(r"(?:\s|### [^\n]+|[A-Z][A-Za-z ]{0,20}:)*")

SAMPLES = [
    Sample(
        "Where is the Eiffel Tower?",
        "The Eiffel Tower is in Paris. It opened in 1889.",
        ("The Eiffel Tower is a wrought-iron tower in Paris.", "It opened in 1889."),
        reference="It is in Paris, France.",
        answer_b="It is in Berlin.",
        id="eiffel",
    ),
    Sample(
        "Who wrote Hamlet?",
        "Shakespeare wrote Hamlet around 1600.",
        ("Hamlet is a tragedy by William Shakespeare.",),
        reference="William Shakespeare wrote it.",
        answer_b="Marlowe did.",
        id="hamlet",
    ),
    Sample(
        "How tall is Everest?",
        "Mount Everest is 8,849 m tall. It is in Nepal.",
        ("Everest's height is 8,849 metres.", "It lies on the border of Nepal and China."),
        reference="It is 8,849 metres tall.",
        answer_b="About 9 km.",
        id="everest",
    ),
]


class Recording:
    """A RuleJudge that keeps every request it answers."""

    name = "recording"

    def __init__(self):
        self.rule = RuleJudge(name="recording")
        self.requests = []

    async def complete(self, request):
        self.requests.append(request)
        return await self.rule.complete(request)


def _text(request) -> str:
    return "\n".join(f"{m['role']}: {m['content']}" for m in request.messages)


@pytest.mark.parametrize("metric", METRIC_NAMES)
def test_prompts_of_a_run_share_their_stable_prefix_up_to_the_first_data_block(metric):
    judge = Recording()
    evaluate(SAMPLES, [metric], judge=judge, embedder=HashEmbedder(), progress=False)
    by_task = defaultdict(list)
    for request in judge.requests:
        by_task[request_task(request)].append(_text(request))
    assert by_task, metric
    for task, texts in by_task.items():
        prefixes = set()
        for text in texts:
            first = BLOCK.search(text).start()
            prefix = text[:first]
            # The stable parts are all in the prefix: notice and schema before any data.
            assert DATA_NOTICE in prefix and SCHEMA_MARKER in prefix, (task, prefix)
            # After the first data block, only data blocks, headings and labels.
            rest = BLOCK.sub("", text[first:])
            assert BETWEEN.fullmatch(rest), (task, rest)
            prefixes.add(prefix)
        distinct = {BLOCK.sub("", t) for t in texts}
        assert len(prefixes) == 1, (task, len(prefixes))
        # The items differ only inside their data blocks (the run has different items).
        assert (len(distinct) == 1 and len(set(texts)) > 1) or len(texts) == 1, task


def test_the_prefix_is_byte_equal_and_ends_where_the_first_variable_field_starts():
    """Two items of one metric: their shared prefix is exactly the text before the first data
    block, which carries the system text and the whole schema."""
    judge = Recording()
    evaluate(SAMPLES[:2], ["context_recall"], judge=judge, progress=False)
    first, second = (_text(r) for r in judge.requests)
    shared = 0
    while shared < min(len(first), len(second)) and first[shared] == second[shared]:
        shared += 1
    data = BLOCK.search(first).start()
    # The first data block's tag is shared too ("<data:question>\n"); its content is not.
    assert first[:data] == second[:data] and shared >= data + len("<data:question>\n")
    assert first[data:].startswith("<data:question>\n") and shared < first.index("</data:question>")
    assert judge.requests[0].messages[0] == judge.requests[1].messages[0]  # system text
