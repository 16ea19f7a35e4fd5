"""TOML (``.toml``): the whole form of saved results, read with the standard library's
``tomllib``. The row ``toml`` of :data:`ragmeter.io.FORMATS`."""

from __future__ import annotations

from typing import Any

__all__ = ["parse_saved"]


def parse_saved(text: str) -> Any:
    """The data of a saved result's TOML text (errors are tomllib's own, ``ValueError``\\ s)."""
    import tomllib

    return tomllib.loads(text)
