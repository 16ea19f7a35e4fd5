"""What a metric asks the judge through: :class:`JudgeContext` (and its sync twin).

A context serves one (sample, metric, judge): prompts go in, validated JSON comes out, and every
call's cost is recorded in the context's stats. The run's cache, endpoint limits, retries and
re-asks stay behind it, so custom metrics get the same machinery as the built-in ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, TypeVar

from ..exceptions import InvalidInputError, JudgeOutputError, JudgeTransportError
from .accounting import CallStats
from .clients.protocol import Embedder, Judge, JudgeRequest
from .engine.runtime import Runtime, Validator
from .engine.settings import RunSettings
from .engine.tasks import gather_all
from .injection import suspected_injections
from .parsing import check_item_ids
from .prompts import PromptTemplate, format_items

__all__ = ["JudgeContext", "SyncJudgeContext"]

T = TypeVar("T")


class JudgeContext:
    """What a metric uses to ask one judge: prompts in, validated JSON out, costs recorded.

    The engine builds one per (sample, metric, judge) and passes it to ``Metric.score``; every
    call made through it uses the run's cache, endpoint limits, retries and re-asks, and its
    cost lands in ``stats`` (the row's usage).

    - :meth:`ask` renders a :class:`~ragmeter.judges.PromptTemplate` and returns the answer,
      validated against the template's schema.
    - :meth:`judge_json` does the same for raw messages and any schema.
    - :meth:`label_items` sends numbered items (sentences, claims) and returns one label per
      item, every id checked back.
    - :meth:`embed` returns vectors from the run's embedder.

    Raises (from its methods):
        JudgeOutputError: no usable answer after the re-asks (the row becomes an ``error``).
        JudgeTransportError: the endpoint failed.
    """

    def __init__(
        self,
        runtime: Runtime,
        judge: Judge,
        stats: CallStats,
        *,
        embedder: Embedder | None = None,
        metric: str = "custom",
        repeat: int = 0,
    ):
        self.runtime = runtime
        self.judge = judge
        self.embedder = embedder
        self.stats = stats
        self.metric = metric
        self.repeat = repeat
        # Signs that the judge took orders from the data it was sent (see
        # ragmeter.judges.injection); the engine puts them in the row's evidence.
        self.injection_findings: list[dict[str, Any]] = []

    @property
    def judge_name(self) -> str:
        """The name of the judge this context asks."""
        return self.judge.name

    @property
    def settings(self) -> RunSettings:
        """The run's :class:`RunSettings`."""
        return self.runtime.settings

    def request(
        self,
        messages: Sequence[Mapping[str, str]],
        schema: Mapping[str, Any] | None,
        *,
        task: str,
        n_index: int = 0,
        strict: bool = False,
        n_items: int = 0,
    ) -> JudgeRequest:
        """The :class:`JudgeRequest` the run would send for ``messages`` (not sent).

        ``n_items`` is the number of items the answer labels (it raises ``max_tokens="auto"``).

        Raises
        ------
        InvalidInputError
            a message without ``role`` or ``content``.
        """
        for i, message in enumerate(messages):
            if (
                not isinstance(message, Mapping)
                or "role" not in message
                or "content" not in message
            ):
                raise InvalidInputError(
                    f"messages[{i}] must be a dict with 'role' and 'content', got {message!r}"
                )
        title = (schema or {}).get("title") if schema else None
        settings = self.runtime.settings
        return JudgeRequest(
            messages=tuple(
                {"role": str(m["role"]), "content": str(m["content"])} for m in messages
            ),
            response_schema=schema,
            schema_name=str(title or task),
            strict_schema=strict,
            temperature=settings.temperature,
            seed=settings.seed_of_repeat(self.repeat),
            max_tokens=settings.token_limit(n_items),
            n_index=n_index,
            task=task,
            repeat=self.repeat,
            n_items=n_items,
        )

    async def judge_json(
        self,
        messages: Sequence[Mapping[str, str]],
        schema: Mapping[str, Any] | None = None,
        *,
        validate: Validator | None = None,
        task: str = "custom",
        n_index: int = 0,
        strict: bool = False,
        n_items: int = 0,
    ) -> Any:
        """Ask the judge and return its JSON answer, validated against ``schema`` and ``validate``.

        Uses the run's cache, limits, retries and re-asks, and records the cost in this
        context's stats. ``validate(parsed)`` returns a list of problems (empty when usable).
        An answer that echoes instruction-like text of the messages' data blocks is recorded
        in :attr:`injection_findings` (the row's evidence ``injection_suspected``).
        """
        request = self.request(
            messages, schema, task=task, n_index=n_index, strict=strict, n_items=n_items
        )
        parsed = await self.runtime.chat(self.judge, request, self.stats, validate=validate)
        for finding in suspected_injections(request.messages, parsed, task=task):
            if finding not in self.injection_findings:
                self.injection_findings.append(finding)
        return parsed

    async def ask(
        self,
        prompt: PromptTemplate,
        values: Mapping[str, Any],
        *,
        validate: Validator | None = None,
        n_index: int = 0,
        n_items: int = 0,
    ) -> Any:
        """Render a built-in or custom :class:`PromptTemplate` and ask it."""
        return await self.judge_json(
            prompt.render(values),
            prompt.schema,
            validate=validate,
            task=prompt.name,
            n_index=n_index,
            strict=prompt.strict,
            n_items=n_items,
        )

    async def label_items(
        self,
        prompt: PromptTemplate,
        values: Mapping[str, Any],
        items: Sequence[str],
        *,
        placeholder: str,
        list_key: str,
        n_index: int = 0,
        validate: Validator | None = None,
        per_call: int | None = None,
    ) -> list[dict[str, Any]]:
        """One labelled entry per item, in item order, each checked against the id it was sent with.

        Items go out ``per_call`` at a time (default: the run's ``max_items_per_call``; a
        metric whose published method fixes the number per call, such as nugget assignment's
        10, passes it) as ``{"id", "text"}`` objects. An answer
        with missing, extra or duplicate ids (or that ``validate(parsed)`` finds problems with,
        such as a label of the wrong kind) is re-asked; if the re-asks fail too, the items are
        asked one per call, and the assembled answer is cached under the original request.
        """
        if per_call is not None and (
            isinstance(per_call, bool) or not isinstance(per_call, int) or per_call < 1
        ):
            raise InvalidInputError(f"per_call must be a positive integer, got {per_call!r}")
        size = per_call or self.runtime.settings.max_items_per_call
        chunks = [
            (start, list(items[start : start + size])) for start in range(0, len(items), size)
        ]
        answers = await gather_all(
            *(
                self._label_chunk(
                    prompt, values, start, chunk, placeholder, list_key, n_index, validate
                )
                for start, chunk in chunks
            )
        )
        return [entry for answer in answers for entry in answer]

    async def _label_chunk(
        self,
        prompt: PromptTemplate,
        values: Mapping[str, Any],
        start: int,
        chunk: list[str],
        placeholder: str,
        list_key: str,
        n_index: int,
        validate: Validator | None = None,
    ) -> list[dict[str, Any]]:
        ids = list(range(start + 1, start + 1 + len(chunk)))

        def checker(expected: list[int]) -> Validator:
            def check(parsed: Any) -> list[str]:
                problems = check_item_ids(parsed[list_key], expected, what=list_key)
                return problems or ([] if validate is None else list(validate(parsed)))

            return check

        rendered = {**values, placeholder: format_items(chunk, start=start + 1)}
        try:
            parsed = await self.ask(
                prompt, rendered, validate=checker(ids), n_index=n_index, n_items=len(chunk)
            )
        except JudgeOutputError as exc:
            if len(chunk) == 1 or getattr(exc, "split_failed", False):
                # One item cannot be split; a replayed split fallback failed as it did then.
                raise
            self.stats.split_fallbacks += 1
            original = self.request(
                prompt.render(rendered),
                prompt.schema,
                task=prompt.name,
                n_index=n_index,
                strict=prompt.strict,
                n_items=len(chunk),
            )
            try:
                singles = await gather_all(
                    *(
                        self.ask(
                            prompt,
                            {**values, placeholder: format_items([text], start=item_id)},
                            validate=checker([item_id]),
                            n_index=n_index,
                            n_items=1,
                        )
                        for item_id, text in zip(ids, chunk, strict=True)
                    )
                )
            except (JudgeOutputError, JudgeTransportError) as failure:
                # The siblings of the failed item were cancelled, unanswered: a replay
                # replays this outcome instead of asking them.
                self.runtime.remember_failure(self.judge, original, failure)
                raise
            parsed = {list_key: [single[list_key][0] for single in singles]}
            self.runtime.remember(
                self.judge, original, parsed, note="assembled from one call per item"
            )
        return sorted(parsed[list_key], key=lambda entry: entry["id"])

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of ``texts`` from the run's embedder (cached per text)."""
        if self.embedder is None:
            raise InvalidInputError(
                f"metric {self.metric!r} asked for embeddings but the run has no embedder: "
                "pass embedder= to evaluate()"
            )
        return await self.runtime.embed(self.embedder, texts, self.stats)


class SyncJudgeContext:
    """A :class:`JudgeContext` for sync custom metrics, which run in a worker thread.

    The same methods, blocking: each call runs on the evaluation's event loop.
    """

    def __init__(self, context: JudgeContext, loop: asyncio.AbstractEventLoop):
        self._context = context
        self._loop = loop

    @property
    def judge_name(self) -> str:
        """The name of the judge this context asks."""
        return self._context.judge_name

    @property
    def settings(self) -> RunSettings:
        """The run's :class:`RunSettings`."""
        return self._context.settings

    def _run(self, coroutine: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()  # type: ignore[arg-type]

    def judge_json(
        self,
        messages: Sequence[Mapping[str, str]],
        schema: Mapping[str, Any] | None = None,
        *,
        validate: Validator | None = None,
        task: str = "custom",
        n_index: int = 0,
        strict: bool = False,
    ) -> Any:
        """Blocking :meth:`JudgeContext.judge_json`."""
        return self._run(
            self._context.judge_json(
                messages, schema, validate=validate, task=task, n_index=n_index, strict=strict
            )
        )

    def ask(
        self,
        prompt: PromptTemplate,
        values: Mapping[str, Any],
        *,
        validate: Validator | None = None,
        n_index: int = 0,
    ) -> Any:
        """Blocking :meth:`JudgeContext.ask`."""
        return self._run(self._context.ask(prompt, values, validate=validate, n_index=n_index))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking :meth:`JudgeContext.embed`."""
        return self._run(self._context.embed(texts))
