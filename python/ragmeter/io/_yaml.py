"""YAML (``.yaml``, ``.yml``): the whole form of saved results, read with PyYAML's safe loader
(the ``yaml`` extra), which refuses tags such as ``!!python/object``, made to refuse aliases
too. The row ``yaml`` of :data:`ragmeter.io.FORMATS`."""

from __future__ import annotations

import functools
from typing import Any

from .._optional import import_optional

__all__ = ["parse_errors", "parse_saved"]


def parse_saved(text: str) -> Any:
    """The data of a saved result's YAML text (errors are PyYAML's own)."""
    yaml = import_optional("yaml", extra="yaml", purpose="Reading a YAML report")
    return yaml.load(text, Loader=_loader())


@functools.cache
def _loader() -> Any:
    """PyYAML's safe loader, refusing aliases (``*name``): ragmeter never writes one, and a
    few kilobytes of nested aliases (a "billion laughs" document) stand for billions of
    values, which the safe loader builds as shared references but every later walk of the
    data (the read-back check) expands. The refusal names the line of the first alias."""
    yaml = import_optional("yaml", extra="yaml", purpose="Reading a YAML report")

    class NoAliasLoader(yaml.SafeLoader):  # type: ignore[misc,name-defined]
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    "an alias (*name): ragmeter writes none, and aliases can make a small "
                    "file stand for billions of values; write the values out",
                    mark,
                )
            return super().compose_node(parent, index)

    return NoAliasLoader


def parse_errors() -> tuple[type[BaseException], ...]:
    """The errors of a YAML text that cannot be parsed (none when PyYAML is not installed)."""
    try:
        import yaml
    except ImportError:
        return ()
    return (yaml.YAMLError,)
