"""Notebook displays: ``_repr_html_`` and ``_repr_markdown_`` for every result type.

Jupyter (and VS Code, Colab, nbconvert) shows an object through its ``_repr_html_`` (else
``_repr_markdown_``). The result types inherit :class:`NotebookDisplay`, whose methods render
through :mod:`ragmeter.html_report.notebook`, imported on the first display (as the file door
imports a format's reader on first use): the report's own table renderers, so a notebook shows
the same tables as ``ragmeter report``, sized for a notebook, every value from the data
escaped. A result module never imports the report, which imports them.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["RENDERER", "NotebookDisplay"]

#: The module that renders the displays (imported on first use).
RENDERER = "ragmeter.html_report.notebook"


class NotebookDisplay:
    """Adds ``_repr_html_`` and ``_repr_markdown_`` (the report's tables) to a result type."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        renderer: Any = importlib.import_module(RENDERER)
        text: str = renderer.to_html(self)
        return text

    def _repr_markdown_(self) -> str:
        renderer: Any = importlib.import_module(RENDERER)
        text: str = renderer.to_markdown(self)
        return text
