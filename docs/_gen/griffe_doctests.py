"""A griffe extension: docstring examples render as code on the API pages.

The docstrings are written for ``doctest`` (they run in the test suite). Three forms would
otherwise render as Markdown text, where ``['P_5', 'P_10']`` reads as a link reference:

- a Google-style ``Example:`` section, which griffe reads as an admonition, not as the
  ``Examples:`` section it renders as code: it is renamed ``Examples:``;
- a numpy-style ``Examples`` section in a docstring with no other numpy-style section, which
  griffe's style detection reads as Google style: such a docstring is parsed as numpy style;
- ``>>>`` blocks in a docstring without an examples section: each block (up to the next blank
  line) is put in a ``pycon`` fence.

Sphinx cross-reference roles (``:func:`name```, ``:class:`~ragmeter.Name```, ``:meth:``,
``:mod:``, ``:data:``, ``:attr:``, ``:exc:``, ``:obj:``), which Markdown would show as raw text,
become cross-references: the name is resolved in the docstring's own scope (as Sphinx does) and
linked where the site documents it, else shown as code (an optional reference, so that a name the
site does not document, ``ValueError`` say, is not a broken link).

It also splits the entries that document several parameters at once into one entry per
parameter: Google-style ones (``a, b: The two raters' ratings.``, possibly with the names
wrapped over two lines), which griffe reads as one parameter named ``a, b``, and numpy-style
ones (``a, b`` over an indented description), to which griffe gives the first name's type.

A formula written as an rST literal (````...````) on a line of its own, indented as a display
under its paragraph, would be a Markdown code block showing the backticks: it is shown as the
code block without them. A literal wrapped over two lines, which Markdown does not read as one
code span, is joined onto one line.

Only the rendered text changes; the docstrings in the code stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE_HEADING = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)
_HAS_EXAMPLES_SECTION = re.compile(r"^\s*Examples:?\s*$", re.MULTILINE)


def _fence_doctests(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
                i += 1
            out += [f"{indent}```pycon", *(f"{indent}{b}" for b in block), f"{indent}```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


_NAMES = r"[A-Za-z_]\w*(?:, [A-Za-z_]\w*)+"
_WRAPPED_NAMES = re.compile(rf"^(\s+)({_NAMES}),\n\s+((?:[A-Za-z_]\w*, )*[A-Za-z_]\w*):", re.M)
_SHARED_ENTRY = re.compile(rf"^(\s+)({_NAMES}):(.*)$", re.M)


_NUMPY_ENTRY_SECTIONS = ("Parameters", "Other Parameters", "Attributes")
_NUMPY_SHARED_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_]\w*(?:, \*{0,2}[A-Za-z_]\w*)+)( : .*)?$")


def _split_numpy_shared_entries(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    in_entries = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        underlined = i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1].strip())
        if stripped and underlined:
            in_entries = stripped in _NUMPY_ENTRY_SECTIONS
            out += [line, lines[i + 1]]
            i += 2
            continue
        indent = line[: len(line) - len(line.lstrip())]
        match = _NUMPY_SHARED_ENTRY.match(stripped) if in_entries else None
        if match is None:
            out.append(line)
            i += 1
            continue
        # The description: the lines below, indented deeper (blank lines within it included).
        end = i + 1
        while end < len(lines) and (
            not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > len(indent)
        ):
            end += 1
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        for name in match[1].split(", "):
            out += [f"{indent}{name}{match[2] or ''}", *lines[i + 1 : end]]
        i = end
    return "\n".join(out)


def _split_shared_entries(text: str) -> str:
    text = _WRAPPED_NAMES.sub(lambda m: f"{m[1]}{m[2]}, {m[3]}:", text)
    text = _SHARED_ENTRY.sub(
        lambda m: "\n".join(f"{m[1]}{name}:{m[3]}" for name in m[2].split(", ")), text
    )
    return _split_numpy_shared_entries(text)


_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const):`(~?)([^`<>]+)`")


def _resolved(obj: griffe.Object | None, name: str) -> str:
    """The full path of ``name`` as seen from ``obj``'s scope (``name`` itself if unknown)."""
    if obj is None or name.startswith("ragmeter."):
        return name
    head, _, rest = name.partition(".")
    scope: griffe.Object | None = obj if obj.is_class or obj.is_module else obj.parent
    while scope is not None:
        try:
            path = scope.resolve(head)
        except (griffe.NameResolutionError, AttributeError, KeyError, ValueError):
            scope = scope.parent
            continue
        return f"{path}.{rest}" if rest else path
    return name


def _cross_references(text: str, obj: griffe.Object | None) -> str:
    def link(match: re.Match[str]) -> str:
        short, name = match[1], match[2].strip().rstrip("()")
        shown = name.rsplit(".", 1)[-1] if short else name
        target = _resolved(obj, name)
        return f'<autoref identifier="{target}" optional><code>{shown}</code></autoref>'

    return _ROLE.sub(link, text)


#: A line holding one literal and nothing else but a closing punctuation mark.
_DISPLAY_LITERAL = re.compile(r"^(\s*)``([^`]+)``([.,;:]?)\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _unwrapped_formulas(text: str) -> str:
    parts = text.split("``")
    if len(parts) % 2 == 1:  # balanced: the odd parts are the literals' contents
        for k in range(1, len(parts), 2):
            if "\n" in parts[k] and not re.search(r"\n\s*\n", parts[k]):
                parts[k] = re.sub(r"\s*\n\s*", " ", parts[k])
        text = "``".join(parts)
    lines = text.split("\n")
    for i, line in enumerate(lines):
        match = _DISPLAY_LITERAL.match(line)
        if match is None or i == 0 or lines[i - 1].strip():
            continue
        above = next((lines[j] for j in range(i - 2, -1, -1) if lines[j].strip()), None)
        # Indented four or more under its paragraph: Markdown's indented code block.
        if above is not None and _indent(line) >= _indent(above) + 4:
            lines[i] = f"{match[1]}{match[2]}{match[3]}"
    return "\n".join(lines)


def rendered_docstring(text: str, obj: griffe.Object | None = None) -> str:
    """``text`` with its examples in the forms griffe renders as code and its Sphinx roles as
    cross-references resolved from ``obj``'s scope."""
    text = _cross_references(text, obj)
    text = _unwrapped_formulas(text)
    text = _split_shared_entries(text)
    text = _EXAMPLE_HEADING.sub(r"\1Examples:", text)
    if _HAS_EXAMPLES_SECTION.search(text):
        return text
    return _fence_doctests(text)


_NUMPY_SECTION = re.compile(
    r"^[ \t]*(?:Parameters|Other Parameters|Returns|Yields|Receives|Raises|Warns|Warnings|"
    r"Attributes|Methods|Examples|Notes|See Also|References)\n[ \t]*-{3,}[ \t]*$",
    re.MULTILINE,
)


def _parse_as_numpy(docstring: griffe.Docstring) -> None:
    """Parse a docstring with a numpy-style section as numpy style.

    griffe's style detection does not count an ``Examples`` section: a docstring whose only
    section is one would be read as Google style, its examples as text.
    """
    options = docstring.parser_options or {}
    numpy_options = (options.get("per_style_options") or {}).get("numpy") or {}
    docstring.parser = griffe.Parser.numpy
    docstring.parser_options = dict(numpy_options)


class DoctestFences(griffe.Extension):
    """Rewrites every loaded docstring with :func:`rendered_docstring`, and has one with a
    numpy-style section parsed as numpy style."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rendered_docstring(obj.docstring.value, obj)
            if _NUMPY_SECTION.search(obj.docstring.value):
                _parse_as_numpy(obj.docstring)
