"""YAML (``.yaml``, ``.yml``): the whole form of saved results, read with PyYAML's safe loader
(the ``yaml`` extra), which refuses tags such as ``!!python/object``. The row ``yaml`` of
:data:`ragmeter.io.FORMATS`."""

from __future__ import annotations

from typing import Any

from .._optional import import_optional

__all__ = ["parse_errors", "parse_saved"]


def parse_saved(text: str) -> Any:
    """The data of a saved result's YAML text (errors are PyYAML's own)."""
    yaml = import_optional("yaml", extra="yaml", purpose="Reading a YAML report")
    return yaml.safe_load(text)


def parse_errors() -> tuple[type[BaseException], ...]:
    """The errors of a YAML text that cannot be parsed (none when PyYAML is not installed)."""
    try:
        import yaml
    except ImportError:
        return ()
    return (yaml.YAMLError,)
