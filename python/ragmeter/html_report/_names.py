"""Names (of systems, metrics, queries, inputs) as the report shows them: escaped, and each
isolated from the text around it as the Unicode bidirectional algorithm allows (UAX #9,
"isolates"), so that a name holding a bidi control (U+202E RIGHT-TO-LEFT OVERRIDE, say) is
shown as it is without reordering the words, numbers and other names after it.

* in HTML, a ``<bdi>`` element (its style is ``unicode-bidi: isolate``);
* in SVG text, a ``<tspan unicode-bidi="isolate">``;
* in a sentence that names them (a caption), each name that can reorder the text around it
  (one holding a right-to-left letter, an Arabic digit or a bidi control) in a ``<bdi>``;
* in plain text (an SVG ``<title>`` or ``aria-label``), between U+2068 FIRST STRONG ISOLATE
  and U+2069 POP DIRECTIONAL ISOLATE: the name's own U+2069 are dropped (one would end the
  isolate early) and one U+2069 is added for each isolate the name opens, so the last one
  always ends this one; embeddings and overrides opened inside end with it.

The page's script isolates the names it writes the same way (``<bdi>``, ``report.js``).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

__all__ = ["name_html", "name_svg", "name_text", "text_naming"]

_FIRST_STRONG_ISOLATE = "\u2068"
_POP_ISOLATE = "\u2069"
#: The bidi classes of characters that can reorder the text around them in left-to-right
#: text: right-to-left letters, Arabic digits, embeddings, overrides and isolates.
_REORDERING = frozenset(
    ("R", "AL", "AN", "LRE", "LRO", "RLE", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI")
)
#: LEFT-TO-RIGHT ISOLATE, RIGHT-TO-LEFT ISOLATE, FIRST STRONG ISOLATE.
_ISOLATE_STARTS = ("\u2066", "\u2067", "\u2068")


def name_html(value: Any) -> str:
    """``value`` escaped, in a ``<bdi>`` element.

    >>> name_html("a<b")
    '<bdi>a&lt;b</bdi>'
    """
    return f"<bdi>{html.escape(str(value), quote=True)}</bdi>"


def name_svg(value: Any) -> str:
    """``value`` escaped, in an SVG ``<tspan>`` isolated from the text around it.

    >>> name_svg("bm25")
    '<tspan unicode-bidi="isolate">bm25</tspan>'
    """
    return f'<tspan unicode-bidi="isolate">{html.escape(str(value), quote=True)}</tspan>'


def name_text(value: Any) -> str:
    """``value`` between isolate controls, for plain text (not escaped).

    >>> name_text("bm25") == "\\u2068bm25\\u2069"
    True
    """
    text = str(value).replace(_POP_ISOLATE, "")
    opened = sum(text.count(c) for c in _ISOLATE_STARTS)
    return _FIRST_STRONG_ISOLATE + text + _POP_ISOLATE * (opened + 1)


def _reorders(name: str) -> bool:
    return any(unicodedata.bidirectional(c) in _REORDERING for c in name)


def text_naming(text: str, names: Iterable[Any]) -> str:
    """``text`` (a sentence that may hold some of ``names``) escaped, each occurrence of a
    name that can reorder the text around it in a ``<bdi>`` (the longest name first).

    >>> text_naming("against the baseline \u05d0 only", ["\u05d0", "bm25"])
    'against the baseline <bdi>\u05d0</bdi> only'
    """
    risky = sorted({str(n) for n in names if _reorders(str(n))}, key=len, reverse=True)
    if not risky:
        return html.escape(text, quote=True)
    pattern = re.compile("|".join(map(re.escape, risky)))
    out, at = [], 0
    for found in pattern.finditer(text):
        out.append(html.escape(text[at : found.start()], quote=True))
        out.append(name_html(found.group()))
        at = found.end()
    out.append(html.escape(text[at:], quote=True))
    return "".join(out)
