"""The error a drop-in raises for a part of its peer's API it does not claim: it names the
part, so code written for the peer fails at the call with the reason, not with an
AttributeError deep inside."""

from __future__ import annotations

from ..exceptions import RagmeterError

__all__ = ["UnsupportedPartError", "unsupported"]


class UnsupportedPartError(RagmeterError, NotImplementedError):
    """A part of a peer's API that the ragmeter drop-in does not provide."""


def unsupported(peer: str, part: str, why: str) -> UnsupportedPartError:
    """The error for ``part`` of ``peer``'s API, with why and what to use instead."""
    return UnsupportedPartError(f"ragmeter.compat.{peer} does not provide {part}: {why}")
