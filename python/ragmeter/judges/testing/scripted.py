"""A judge that answers from a script and records every request (for tests)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...exceptions import InvalidInputError
from ..clients.limits import Limits, RetryPolicy
from ..clients.protocol import JudgeRequest, JudgeResponse, Usage
from ..prompts import request_task

__all__ = ["Responses", "ScriptedJudge", "UnexpectedPromptError"]


class UnexpectedPromptError(AssertionError):
    """A :class:`ScriptedJudge` received a prompt that no rule matches."""


class Responses:
    """Successive responses for one :class:`ScriptedJudge` rule (the last one repeats)."""

    def __init__(self, *responses: Any):
        if not responses:
            raise InvalidInputError("Responses needs at least one response")
        self.responses = list(responses)
        self.used = 0

    def next(self) -> Any:
        response = self.responses[min(self.used, len(self.responses) - 1)]
        self.used += 1
        return response


class ScriptedJudge:
    """A judge that answers from a script, and records every request.

    ``script`` is a dict or a list of ``(matcher, response)`` pairs, tried in order. A matcher
    is a string (equal to the request's task, i.e. its schema title such as ``"claims"`` or
    ``"groundedness_verdicts"``, or contained in the task prompt, the first user message), a
    compiled regex (searched in the whole prompt) or a callable ``request -> bool``. A response
    is a string (sent as is), a dict or list (sent as JSON), an exception (raised), a callable
    ``request -> response`` or :class:`Responses` (successive answers). A request no rule
    matches raises :class:`UnexpectedPromptError`, or gets ``default`` when one is given.

    Parameters
    ----------
    script
        The rules.
    name
        Its name in reports and cache keys.
    default
        The response to a request no rule matches.
    usage
        ``(prompt_tokens, completion_tokens)`` reported for every call.

    Examples
    --------
    >>> from ragmeter.judges import Sample, ScriptedJudge, evaluate
    >>> judge = ScriptedJudge({
    ...     "claims": {"claims": ["Paris is in France.", "Paris is big."]},
    ...     "groundedness_verdicts": {"verdicts": [
    ...         {"id": 1, "verdict": 1, "reason": "stated"},
    ...         {"id": 2, "verdict": 0, "reason": "not stated"}]},
    ... })
    >>> sample = Sample("Where is Paris?", "Paris is in France. It is big.", ["Paris, France."])
    >>> evaluate([sample], ["groundedness"], judge=judge, progress=False).means()
    {'groundedness': 0.5}
    >>> [request.task for request in judge.requests]
    ['claims', 'groundedness']
    """

    def __init__(
        self,
        script: Mapping[Any, Any] | Sequence[tuple[Any, Any]],
        *,
        name: str = "scripted",
        default: Any = None,
        usage: tuple[int, int] | None = None,
    ):
        self.rules = list(script.items()) if isinstance(script, Mapping) else list(script)
        self.name = name
        self.default = default
        self.usage = usage
        self.limits = Limits(max_concurrency=64)
        self.retry_policy = RetryPolicy(initial_delay_s=0.0, max_delay_s=0.0)
        self.requests: list[JudgeRequest] = []

    @property
    def identity(self) -> dict[str, Any]:
        """The non-secret facts that identify it in cache keys and manifests."""
        return {"kind": "scripted", "name": self.name}

    def __repr__(self) -> str:
        return f"ScriptedJudge(name={self.name!r}, rules={len(self.rules)})"

    @staticmethod
    def _matches(matcher: Any, request: JudgeRequest) -> bool:
        if isinstance(matcher, str):
            return matcher == request_task(request) or matcher in request.first_user_message()
        if isinstance(matcher, re.Pattern):
            return matcher.search(request.prompt_text()) is not None
        if callable(matcher):
            return bool(matcher(request))
        raise InvalidInputError(f"unsupported matcher {matcher!r}")

    def respond(self, request: JudgeRequest) -> str:
        """The scripted answer text to ``request`` (recorded in ``requests``).

        Raises
        ------
        UnexpectedPromptError
            no rule matches and there is no ``default``.
        """
        self.requests.append(request)
        for matcher, response in self.rules:
            if self._matches(matcher, request):
                return self._render(response, request)
        if self.default is not None:
            return self._render(self.default, request)
        raise UnexpectedPromptError(
            f"ScriptedJudge {self.name!r} has no rule for task {request_task(request)!r}; prompt "
            f"starts: {request.first_user_message()[:200]!r}"
        )

    def _render(self, response: Any, request: JudgeRequest) -> str:
        if isinstance(response, Responses):
            response = response.next()
        if callable(response) and not isinstance(response, type):
            response = response(request)
        if isinstance(response, BaseException):
            raise response
        if isinstance(response, str):
            return response
        return json.dumps(response, ensure_ascii=False)

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """The scripted answer to ``request``, with ``usage`` when one was given."""
        text = self.respond(request)
        usage = None if self.usage is None else Usage(*self.usage)
        return JudgeResponse(text=text, usage=usage, model=self.name)
