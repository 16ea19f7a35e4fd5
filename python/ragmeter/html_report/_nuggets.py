"""The nugget section of the report: a nugget bank, and every answer's label of every nugget
with the judge's reason (:mod:`ragmeter.nuggets`).

A saved :class:`~ragmeter.nuggets.NuggetAssignments` (``ragmeter nuggets assign``,
``NuggetAssignments.write``; it holds its bank) or a saved
:class:`~ragmeter.nuggets.NuggetBank` (``ragmeter nuggets create``, ``NuggetBank.write``) is
shown as

* the bank's record: its content hash (the SHA-256 every score scored against it names), its
  size, where it came from (source, judge, prompts' digests, pooled runs, the bank it was
  edited from), and for assignments what assigned the labels, the grades, the failed
  judgements, the answers flagged as suspected injections, and the blind-mode record (whether
  the bank and prompts were recorded as kept from the evaluated systems);
* one collapsed block per topic (its id, query, counts of nuggets, vital nuggets, answers and
  failed judgements in its summary line). Opening it draws, from the page's data, the topic's
  nuggets with their importance and one row per answer (per run, and per repeat when judged
  several times): the label of every nugget (S support, P partial support, N not support),
  and the judge's reason of each, one click away. A judgement that failed is shown as an error
  with its reason code and message across the nugget columns: it has no label, and none is
  shown. Rows are drawn 200 at a time, filtered by run name.

The per-topic blocks are drawn by the page's script (``nuggets.js``) when they are first
opened, so a report of 150 runs on 100 topics opens as fast as one of two; the data hold each
answer's labels as one letter a nugget and each distinct reason once. The scores of the
assignments (All, Vital, Weighted, strict and not) are the section's per-query values, shown by
the report's summary and explorer like any others. Everything from the data is escaped, and
every nugget, name and reason is isolated (``<bdi>``) from the text around it.
"""

from __future__ import annotations

import html
import json
from typing import Any

from ..nuggets import NuggetAssignments, NuggetBank
from ._names import name_html

__all__ = ["LABEL_CODES", "nugget_block", "nugget_section", "nugget_title"]

#: The one letter a label is drawn as (the page's legend says which is which).
LABEL_CODES: dict[str, str] = {"support": "S", "partial_support": "P", "not_support": "N"}


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def nugget_title(result: NuggetAssignments | NuggetBank) -> str:
    """The heading of a section given as an object without a name: what it is and the first
    12 characters of its bank's hash."""
    if isinstance(result, NuggetAssignments):
        return f"Nugget assignments, bank {result.bank.content_hash[:12]}"
    return f"Nugget bank {result.content_hash[:12]}"


def nugget_block(result: NuggetAssignments | NuggetBank) -> dict[str, Any]:
    """The JSON-ready data of the section (see the module documentation): the bank's record,
    the runs, the table of distinct reasons and per topic its nuggets and answers (each
    ``[run index, repeat, labels as letters or None, status, reason code, message, [reason
    index per nugget], [flags]]``)."""
    assignments = result if isinstance(result, NuggetAssignments) else None
    bank = result.bank if isinstance(result, NuggetAssignments) else result
    record: dict[str, Any] = {**bank.describe(), "provenance": dict(bank.provenance)}
    runs: list[str] = []
    reasons: list[str] = []
    reason_index: dict[str, int] = {}
    by_topic: dict[str, list[list[Any]]] = {t.topic_id: [] for t in bank}
    if assignments is not None:
        runs = list(assignments.runs)
        run_index = {run: i for i, run in enumerate(runs)}
        for answer in assignments.answers:
            flags = sorted(k for k, v in answer.flags.items() if v)
            for repeat, judgement in enumerate(answer.judgements):
                codes = (
                    "".join(LABEL_CODES[str(label)] for label in judgement.labels)
                    if judgement.status == "ok"
                    else None
                )
                indices = []
                for text in judgement.reasons:
                    if text not in reason_index:
                        reason_index[text] = len(reasons)
                        reasons.append(text)
                    indices.append(reason_index[text])
                by_topic[answer.topic_id].append(
                    [
                        run_index[answer.run_id],
                        repeat,
                        codes,
                        judgement.status,
                        judgement.reason_code,
                        judgement.message,
                        indices,
                        flags,
                    ]
                )
        record.update(
            assigned_by=assignments.source,
            assignment_judge=assignments.judge,
            grades=assignments.grades,
            blind=assignments.blind,
            n_answers=len(assignments.answers),
            n_failed=assignments.n_errors,
            n_flagged=sum(1 for a in assignments.answers if any(a.flags.values())),
            repeats=max((len(a.judgements) for a in assignments.answers), default=1),
        )
    topics = [
        {
            "id": t.topic_id,
            "query": t.query,
            "nuggets": [[n.text, n.importance] for n in t.nuggets],
            "answers": by_topic[t.topic_id],
        }
        for t in bank
    ]
    return {"record": record, "runs": runs, "reasons": reasons, "topics": topics}


def _record_rows(record: dict[str, Any], assigned: bool) -> list[tuple[str, str]]:
    provenance = record.get("provenance") or {}
    rows = [
        ("bank content hash (SHA-256)", str(record["content_hash"])),
        ("topics, nuggets", f"{record['n_topics']} topics, {record['n_nuggets']} nuggets"),
        ("bank made by", str(provenance.get("source", "not recorded"))),
    ]
    if provenance.get("judge") is not None:
        rows.append(("bank's judge", json.dumps(provenance["judge"], sort_keys=True)))
    for name, digest in (provenance.get("prompts") or {}).items():
        rows.append(("bank's prompt", f"{name}: sha256 {digest}"))
    if provenance.get("pooled_runs"):
        pooled = [str(r) for r in provenance["pooled_runs"]]
        more = f" and {len(pooled) - 10} more" if len(pooled) > 10 else ""
        rows.append(("pooled runs", f"{len(pooled)}: {', '.join(pooled[:10])}{more}"))
    if provenance.get("edited_from"):
        rows.append(("edited from the bank", str(provenance["edited_from"])))
    if not assigned:
        return rows
    rows.append(("labels assigned by", str(record["assigned_by"])))
    judge = record.get("assignment_judge")
    rows.append(("assigning judge", "not recorded" if judge is None else json.dumps(judge)))
    rows.append(("grades", str(record["grades"])))
    rows.append(
        (
            "blind",
            "yes: recorded that the bank and the prompts were kept from the evaluated systems"
            if record["blind"]
            else "no: not recorded as blind (the evaluated systems may have seen the bank or "
            "the prompts; scores can then be near perfect without merit)",
        )
    )
    rows.append(
        (
            "answers",
            f"{record['n_answers']} answers, {record['repeats']} judgement(s) each at most; "
            f"{record['n_failed']} failed judgements (errors: no label, never counted as "
            "not_support)",
        )
    )
    if record["n_flagged"]:
        rows.append(("flagged", f"{record['n_flagged']} answers: injection suspected"))
    return rows


def nugget_section(block: dict[str, Any], number: int) -> list[str]:
    """The section's HTML: the bank's record and one collapsed block per topic (drawn by the
    page's script from ``block``, the data of the source numbered ``number``)."""
    record = block["record"]
    assigned = "assigned_by" in record
    flag = ' class="flag"'
    body = "".join(
        f"<tr{flag if what == 'blind' and not record.get('blind') else ''}>"
        f'<td class="text">{_e(what)}</td><td class="text">{_e(found)}</td></tr>'
        for what, found in _record_rows(record, assigned)
    )
    out = [
        '<h3>Nuggets</h3><p class="note">The nugget bank'
        + (
            " and every answer's label of every nugget. Open a topic to see its nuggets, their "
            "importance and each run's labels (S support, P partial support, N not support); "
            "open a row's reasons to read the judge's reason for each label. A failed "
            "judgement is an error with its reason: it has no label."
            if assigned
            else ": open a topic to see its nuggets and their importance."
        )
        + "</p>",
        f'<table data-role="nugget-record"><tr><th class="text">what</th>'
        f'<th class="text">found</th></tr>{body}</table>',
        f'<div data-nuggets="{number}">',
    ]
    for i, topic in enumerate(block["topics"]):
        nuggets = topic["nuggets"]
        vital = sum(1 for _, importance in nuggets if importance == "vital")
        failed = sum(1 for a in topic["answers"] if a[3] == "error")
        counts = f"{len(nuggets)} nugget{'' if len(nuggets) == 1 else 's'}, {vital} vital"
        if assigned:
            counts += f"; {len(topic['answers'])} judgements, {failed} failed"
        out.append(
            f'<details data-topic="{i}"><summary>{name_html(topic["id"])}: '
            f'{name_html(topic["query"])} <span class="note{" status-error" if failed else ""}">'
            f"({_e(counts)})</span></summary></details>"
        )
    out.append("</div>")
    return out
