"""Test doubles for offline tests of code that uses judges: no model, no network.

- :class:`ScriptedJudge` answers from a script of (matcher, response) rules.
- :class:`FaultyJudge` wraps a judge and injects seeded faults.
- :class:`LoopbackOpenAIServer` is a real OpenAI-compatible HTTP server on the loopback
  interface that misbehaves on cue (:class:`Fault`).
- :class:`RuleJudge` and :class:`HashEmbedder` (deterministic, from
  :mod:`ragmeter.judges.clients.offline`) are re-exported for convenience.
"""

from __future__ import annotations

from ..clients.offline import HashEmbedder, RuleJudge, parse_sections
from .faulty import FaultyJudge
from .scripted import Responses, ScriptedJudge, UnexpectedPromptError
from .server import Fault, LoopbackOpenAIServer, RecordedRequest

__all__ = [
    "Fault",
    "FaultyJudge",
    "HashEmbedder",
    "LoopbackOpenAIServer",
    "RecordedRequest",
    "Responses",
    "RuleJudge",
    "ScriptedJudge",
    "UnexpectedPromptError",
    "parse_sections",
]
