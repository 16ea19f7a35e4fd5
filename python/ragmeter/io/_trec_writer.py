"""Writing TREC run files that read back exactly as they were given.

A run line is ``query_id Q0 doc_id rank score tag``. What a TREC file cannot hold is refused
when the file is written, not discovered when it is read: ids that are not a ``str`` or an
``int``, empty ids, ids holding white space or control characters (they would split the line),
a query id starting with ``#`` (the line would be a comment), two ids that are written alike
(``1`` and ``"1"``), a document listed twice in one ranking, an empty ranking (a TREC file has
no line for it: the query would read back missing), and scores that are not finite numbers.
"""

from __future__ import annotations

import math
import numbers
import os
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from .._files import atomic_write_text
from .._inputs import trec_order
from ..exceptions import InvalidInputError

__all__ = ["write_trec_run"]


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _field(what: str, value: Any, where: str) -> str:
    """The text of an id or tag, or an error saying why it cannot be a TREC field."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInputError(
            f"{where}: a {what} must be a str or an int, got {type(value).__name__} {_shown(value)}"
        )
    text = str(value)
    bad = [c for c in text if c.isspace() or unicodedata.category(c) in ("Cc", "Cs")]
    if not text or bad:
        reason = "is empty" if not text else f"holds {_shown(bad[0])}"
        raise InvalidInputError(
            f"{where}: the {what} {_shown(value)} {reason}; a field of a TREC file is "
            "non-empty text without white space, control characters or unpaired surrogates"
        )
    return text


def _score(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(f"{where}: a score must be a real number, got {_shown(value)}")
    try:
        score = float(value)
    except OverflowError:
        score = math.inf
    if not math.isfinite(score):
        raise InvalidInputError(
            f"{where}: the score {_shown(value)} is not finite; a TREC run orders documents by "
            "score, so every score must be a finite number"
        )
    return score


def write_trec_run(
    run: Mapping[Any, Mapping[Any, float] | Iterable[Any]],
    path: str | os.PathLike[str],
    *,
    tag: str = "ragmeter",
) -> None:
    """Write ``{query_id: {doc_id: score}}`` or ``{query_id: [doc ids, best first]}`` as a TREC
    run, atomically (the same writer as reports: a temporary file renamed over ``path``).

    Scored rankings are written in trec_eval's order with their scores (``repr`` of the float,
    so they read back exactly); ordered rankings get the score ``n - rank`` so that trec_eval
    reproduces their order. :func:`~ragmeter.read_trec_run` gives back the same run, with ids
    as strings. Anything a TREC file cannot hold is refused (see the module docstring) with an
    :class:`~ragmeter.InvalidInputError` naming the query, and nothing is written.
    """
    tag_text = _field("run tag", tag, "tag")
    if not isinstance(run, Mapping):
        raise InvalidInputError(
            f"run: expected {{query_id: {{doc_id: score}}}} or {{query_id: [doc ids]}}, got "
            f"{type(run).__name__}"
        )
    lines = []
    seen_queries: dict[str, Any] = {}
    for query_id, ranking in run.items():
        where = f"query {_shown(query_id)}"
        query = _field("query id", query_id, where)
        if query.startswith("#"):
            raise InvalidInputError(
                f"{where}: a query id starting with '#' would make its lines comments; "
                "rename the query"
            )
        if query in seen_queries:
            raise InvalidInputError(
                f"{where}: {_shown(seen_queries[query])} and {_shown(query_id)} are both "
                f"written {query!r}; use one id type"
            )
        seen_queries[query] = query_id
        if isinstance(ranking, Mapping):
            scored = [
                (doc, _score(ranking[doc], f"{where}, document {_shown(doc)}")) for doc in ranking
            ]
            by_id = dict(scored)
            scored = [(doc, by_id[doc]) for doc in trec_order(by_id)]
        elif isinstance(ranking, str | bytes) or not isinstance(ranking, Iterable):
            raise InvalidInputError(
                f"{where}: a ranking is a {{doc_id: score}} mapping or a list of doc ids, got "
                f"{type(ranking).__name__}"
            )
        else:
            docs = list(ranking)
            scored = [(doc, float(len(docs) - i)) for i, doc in enumerate(docs)]
        if not scored:
            raise InvalidInputError(
                f"{where}: the ranking is empty, and a TREC run has no line for it (the query "
                "would read back missing); leave the query out (evaluating with complete=True, "
                "or trec_eval -c, scores a judged query missing from the run as empty)"
            )
        seen_docs: dict[str, Any] = {}
        for rank, (doc_id, score) in enumerate(scored, start=1):
            doc = _field("document id", doc_id, where)
            if doc in seen_docs:
                raise InvalidInputError(
                    f"{where}: document {doc!r} is listed twice (as {_shown(seen_docs[doc])} "
                    f"and {_shown(doc_id)}); a run lists each document once per query"
                )
            seen_docs[doc] = doc_id
            lines.append(f"{query} Q0 {doc} {rank} {score!r} {tag_text}\n")
    atomic_write_text(path, "".join(lines))
