"""Quality gates in tests: :func:`assert_not_worse`, :func:`assert_at_least` and
:class:`BaselineStore` (defined in :mod:`ragmeter.gate.store`), and the pytest plugin
(:mod:`ragmeter.testing.plugin`, entry point ``pytest11``; install ``ragmeter[gate]``).

The names are imported on first use (PEP 562), so that pytest loading the plugin, which
imports this package, imports none of ragmeter's statistics: the plugin is inert unless a
test uses it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .assertions import BaselineStore, assert_at_least, assert_not_worse

__all__ = ["BaselineStore", "assert_at_least", "assert_not_worse"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module(".assertions", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
