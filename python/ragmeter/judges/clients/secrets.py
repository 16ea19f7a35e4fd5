"""API keys that never show: :class:`Secret` and the redaction of texts that may hold one."""

from __future__ import annotations

import re

__all__ = ["Secret", "redact"]


_KEY_PATTERN = re.compile(r"(sk-|Bearer\s+)[A-Za-z0-9_\-*.]{4,}")


class Secret:
    """A string that is never shown: ``repr`` and ``str`` are ``'***'``."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = str(value)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)


def redact(text: str, secret: Secret | None) -> str:
    """``text`` with the secret and anything shaped like an API key replaced by ``***``."""
    if secret is not None and secret.reveal():
        text = text.replace(secret.reveal(), "***")
    return _KEY_PATTERN.sub(lambda m: m.group(1) + "***", text)
