"""An embedchain-compatible evaluation API on top of ragmeter's judges.

Every example of embedchain's evaluation guide runs with ragmeter's names:

- ``from embedchain.utils.eval import EvalData`` -> ``from ragmeter.judges import EvalData``
- ``from embedchain.evaluation.metrics import ContextRelevance, AnswerRelevance, Groundedness,
  BaseMetric`` -> ``from ragmeter.judges import ...`` (same names)
- ``from embedchain.config.evaluation.base import ContextRelevanceConfig, AnswerRelevanceConfig,
  GroundednessConfig`` -> ``from ragmeter.judges import ...`` (same names)
- ``from embedchain.config.base_config import BaseConfig`` -> ``from ragmeter.judges import
  BaseConfig``
- ``App().evaluate(questions)`` -> ``evaluate_rag(questions, retriever, generator)``

Differences, all deliberate: any OpenAI-compatible endpoint works (``base_url=`` or
``OPENAI_BASE_URL``; embedchain is OpenAI-only, mem0#1235), or any judge (``judge=``); the model
defaults to ``$RAGMETER_JUDGE_MODEL``, and to ``gpt-4`` only when talking to api.openai.com;
the judge labels numbered sentences and claims and answers in validated JSON, so context
relevancy stays in [0, 1] and a ``-1`` verdict never turns groundedness into NaN; a sample that
fails is counted and reported (``metric.last_results``) instead of silently dropped, and a
metric with no usable sample returns ``nan`` with a warning instead of ``0.0``. Custom prompts
use the same ``$placeholders`` as embedchain's; the answer format is appended by ragmeter.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from ...exceptions import InvalidInputError, JudgeConfigurationError, UndefinedMetricWarning
from ..clients.chat import OpenAICompatibleJudge
from ..clients.embeddings import OpenAICompatibleEmbedder
from ..clients.environment import (
    ENV_EMBEDDING_MODEL,
    ENV_MODEL,
    env_value,
    is_openai_url,
    resolve_api_key,
    resolve_endpoint,
)
from ..clients.resolve import resolve_embedder, resolve_judge
from ..clients.secrets import Secret, checked_secret
from ..engine.cache import JudgeCache
from ..engine.settings import MaxTokens
from ..engine.tasks import gather_all, run_sync
from ..evaluation import evaluate
from ..metrics import AnswerRelevancyMetric, ContextRelevancyMetric, GroundednessMetric
from ..metrics.answer import cosine_similarity
from ..metrics.base import Metric
from ..prompts import ANSWER_RELEVANCY_PROMPT as _ANSWER_RELEVANCY
from ..prompts import CLAIMS_PROMPT as _CLAIMS
from ..prompts import CONTEXT_RELEVANCY_PROMPT as _CONTEXT_RELEVANCY
from ..prompts import GROUNDEDNESS_PROMPT as _GROUNDEDNESS
from ..prompts import format_items
from ..registry import resolve_metrics
from ..results import JudgeResults
from ..sample import Sample
from ..text import joined_contexts, resolve_splitter

__all__ = [
    "ANSWER_RELEVANCY_PROMPT",
    "CONTEXT_RELEVANCY_PROMPT",
    "DEFAULT_EMBEDCHAIN_EMBEDDER",
    "DEFAULT_EMBEDCHAIN_MODEL",
    "GROUNDEDNESS_ANSWER_CLAIMS_PROMPT",
    "GROUNDEDNESS_CLAIMS_INFERENCE_PROMPT",
    "AnswerRelevance",
    "AnswerRelevanceConfig",
    "BaseConfig",
    "BaseMetric",
    "ContextRelevance",
    "ContextRelevanceConfig",
    "EvalData",
    "EvalMetric",
    "Groundedness",
    "GroundednessConfig",
    "evaluate_rag",
]

CONTEXT_RELEVANCY_PROMPT: str = _CONTEXT_RELEVANCY.template
ANSWER_RELEVANCY_PROMPT: str = _ANSWER_RELEVANCY.template
GROUNDEDNESS_ANSWER_CLAIMS_PROMPT: str = _CLAIMS.template
GROUNDEDNESS_CLAIMS_INFERENCE_PROMPT: str = _GROUNDEDNESS.template
DEFAULT_EMBEDCHAIN_MODEL = "gpt-4"
DEFAULT_EMBEDCHAIN_EMBEDDER = "text-embedding-ada-002"
EMBEDCHAIN_METRICS = ("answer_relevancy", "groundedness", "context_relevancy")


class EvalMetric(Enum):
    """The names of embedchain's evaluation metrics (embedchain's ``EvalMetric``).

    Examples
    --------
    >>> EvalMetric.GROUNDEDNESS.value
    'groundedness'
    """

    CONTEXT_RELEVANCY = "context_relevancy"
    ANSWER_RELEVANCY = "answer_relevancy"
    GROUNDEDNESS = "groundedness"


@dataclass
class EvalData:
    """One evaluation record, as embedchain's ``EvalData`` (``ground_truth`` is optional).

    ``evaluate`` reads it as a :class:`Sample` (``ground_truth`` is the reference).
    """

    question: str
    contexts: list[str]
    answer: str
    ground_truth: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


class BaseConfig:
    """Base of the evaluation configs (embedchain's ``BaseConfig``): ``as_dict()``."""

    def as_dict(self) -> dict[str, Any]:
        """The config's settings as a dict (never the API key)."""
        settings = {k.lstrip("_"): v for k, v in vars(self).items() if k != "_api_key"}
        # Resolved settings (model, embedder) as their properties give them.
        for name in settings:
            if isinstance(getattr(type(self), name, None), property):
                settings[name] = getattr(self, name)
        return settings


def _model_for(model: str | None, base_url: str) -> str:
    resolved = model or env_value(ENV_MODEL)
    if resolved:
        return resolved
    if is_openai_url(base_url):
        return DEFAULT_EMBEDCHAIN_MODEL
    raise JudgeConfigurationError(
        f"No judge model is configured for {base_url}: pass model=... or set {ENV_MODEL}=<model "
        "name> (gpt-4 is the default only on api.openai.com)"
    )


class _JudgeConfig(BaseConfig):
    def __init__(
        self,
        model: str | None,
        api_key: str | None,
        *,
        base_url: str | None,
        judge: Any,
        cache: JudgeCache | str | None,
        max_tokens: MaxTokens,
        timeout_s: float,
        max_concurrency: int | None,
    ):
        self._model = model
        self._api_key = checked_secret(api_key, argument="api_key")
        self.base_url = base_url
        self.judge = judge
        self.cache = cache
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.max_concurrency = max_concurrency

    @property
    def model(self) -> str | None:
        """The judge model: as given, else ``$RAGMETER_JUDGE_MODEL``, else ``gpt-4`` when the
        endpoint is api.openai.com (embedchain's default); None when none is known yet."""
        if self._model or env_value(ENV_MODEL):
            return self._model or env_value(ENV_MODEL)
        shown, _ = resolve_endpoint(self.base_url)
        return DEFAULT_EMBEDCHAIN_MODEL if is_openai_url(shown) else None

    @model.setter
    def model(self, model: str | None) -> None:
        self._model = model

    @property
    def api_key(self) -> Secret | None:
        """The API key given, as a :class:`Secret` that never shows but equals the ``str`` it
        holds (``None`` when not given; ``$OPENAI_API_KEY`` is read when the judge is made)."""
        return self._api_key

    def check_endpoint(self, what: str) -> None:
        """Raise :class:`JudgeConfigurationError` (a ``ValueError``) now if no judge is given
        and the endpoint needs an API key that is not set (embedchain checks at construction)."""
        if self.judge is None:
            shown, _ = resolve_endpoint(self.base_url)
            resolve_api_key(self._api_key, shown, what=what)

    def make_judge(self) -> Any:
        """The configured judge: ``judge=`` if given, else an OpenAI-compatible endpoint."""
        if self.judge is not None:
            return resolve_judge(self.judge)
        shown, _ = resolve_endpoint(self.base_url)
        return OpenAICompatibleJudge(
            base_url=self.base_url,
            model=_model_for(self._model, shown),
            api_key=self._api_key,
            timeout_s=self.timeout_s,
            max_concurrency=self.max_concurrency,
        )

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{k}={v!r}" for k, v in self.as_dict().items() if not k.endswith("prompt")
        )
        key = "'***'" if self._api_key else "None"
        return f"{type(self).__name__}({shown}, api_key={key})"


class ContextRelevanceConfig(_JudgeConfig):
    """Config of :class:`ContextRelevance`: ``model``, ``api_key``, ``language``, ``prompt``.

    ``language`` is recorded and passed to the judge run; sentence splitting is ragmeter's
    regex splitter (pass ``sentence_splitter=`` for another, for example pysbd's).
    ragmeter adds, keyword-only: ``base_url`` (any OpenAI-compatible server; default
    ``$OPENAI_BASE_URL``), ``judge`` (any judge instead), ``cache`` (a sqlite path or
    :class:`JudgeCache`), ``max_tokens`` (default ``"auto"``: finite), ``timeout_s`` and
    ``max_concurrency`` (default 2 for a server on this machine): what a local model needs.

    Raises
    ------
    InvalidInputError
        a malformed ``api_key``.

    Examples
    --------
    >>> config = ContextRelevanceConfig(model="qwen2.5-7b", base_url="http://127.0.0.1:8080/v1",
    ...                                 max_tokens=512, timeout_s=300)
    >>> judge = config.make_judge()
    >>> judge.model, judge.limits.max_concurrency
    ('qwen2.5-7b', 2)
    """

    def __init__(
        self,
        model: str | None = None,
        api_key: str | None = None,
        language: str = "en",
        prompt: str = CONTEXT_RELEVANCY_PROMPT,
        *,
        base_url: str | None = None,
        judge: Any = None,
        cache: JudgeCache | str | None = None,
        max_tokens: MaxTokens = "auto",
        timeout_s: float = 60.0,
        max_concurrency: int | None = None,
        sentence_splitter: Callable[[str], list[str]] | None = None,
    ):
        super().__init__(
            model,
            api_key,
            base_url=base_url,
            judge=judge,
            cache=cache,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
            max_concurrency=max_concurrency,
        )
        self.language = language
        self.prompt = prompt
        self.sentence_splitter = sentence_splitter


class AnswerRelevanceConfig(_JudgeConfig):
    """Config of :class:`AnswerRelevance`: ``model``, ``embedder``, ``api_key``,
    ``num_gen_questions``, ``prompt``.

    ``embedder`` is an embedding model name or any embedder; default
    ``$RAGMETER_EMBEDDING_MODEL``, else ``text-embedding-ada-002`` on api.openai.com. A model
    name is served by ``embeddings_base_url``, else by the judge's ``base_url``, which may
    serve no embeddings (a chat-only local server): then the error says so.
    ragmeter adds, keyword-only: ``base_url`` (any OpenAI-compatible server; default
    ``$OPENAI_BASE_URL``), ``judge`` (any judge instead), ``cache`` (a sqlite path or
    :class:`JudgeCache`), ``max_tokens`` (default ``"auto"``: finite), ``timeout_s`` and
    ``max_concurrency`` (default 2 for a server on this machine): what a local model needs.
    ``language`` sets the language of the generated questions.

    Raises
    ------
    InvalidInputError
        a malformed ``api_key``.
    """

    def __init__(
        self,
        model: str | None = None,
        embedder: Any = None,
        api_key: str | None = None,
        num_gen_questions: int = 1,
        prompt: str = ANSWER_RELEVANCY_PROMPT,
        *,
        base_url: str | None = None,
        judge: Any = None,
        cache: JudgeCache | str | None = None,
        max_tokens: MaxTokens = "auto",
        timeout_s: float = 60.0,
        max_concurrency: int | None = None,
        language: str | None = None,
        embeddings_base_url: str | None = None,
    ):
        super().__init__(
            model,
            api_key,
            base_url=base_url,
            judge=judge,
            cache=cache,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
            max_concurrency=max_concurrency,
        )
        self._embedder = embedder
        self.num_gen_questions = num_gen_questions
        self.prompt = prompt
        self.language = language
        self.embeddings_base_url = embeddings_base_url

    @property
    def embedder(self) -> Any:
        """The embedder: as given (a model name or an embedder), else
        ``$RAGMETER_EMBEDDING_MODEL``, else ``text-embedding-ada-002`` when the embeddings
        endpoint is api.openai.com (embedchain's default); None when none is known yet."""
        if self._embedder is not None or env_value(ENV_EMBEDDING_MODEL):
            return self._embedder if self._embedder is not None else env_value(ENV_EMBEDDING_MODEL)
        shown, _ = resolve_endpoint(self.embeddings_base_url or self.base_url)
        return DEFAULT_EMBEDCHAIN_EMBEDDER if is_openai_url(shown) else None

    @embedder.setter
    def embedder(self, embedder: Any) -> None:
        self._embedder = embedder

    def make_embedder(self) -> Any:
        """The configured embedder: ``embedder=`` if an object, else an OpenAI-compatible one.

        A model name is served by ``embeddings_base_url``, else by the judge's ``base_url``
        (which may serve no embeddings: a 404 there says to set ``embeddings_base_url``).
        """
        if self._embedder is not None and not isinstance(self._embedder, str):
            return resolve_embedder(self._embedder)
        url = self.embeddings_base_url or self.base_url
        shown, _ = resolve_endpoint(url)
        model = self._embedder or env_value(ENV_EMBEDDING_MODEL)
        if not model:
            if not is_openai_url(shown):
                raise JudgeConfigurationError(
                    f"answer relevancy needs an embedding model on {shown}: pass embedder=... "
                    f"or set {ENV_EMBEDDING_MODEL}=<model name>"
                )
            model = DEFAULT_EMBEDCHAIN_EMBEDDER
        return OpenAICompatibleEmbedder(
            base_url=url,
            model=model,
            api_key=self._api_key,
            timeout_s=self.timeout_s,
            max_concurrency=self.max_concurrency,
        )


class GroundednessConfig(_JudgeConfig):
    """Config of :class:`Groundedness`: ``model``, ``api_key``, ``answer_claims_prompt``,
    ``claims_inference_prompt``.

    ragmeter adds, keyword-only: ``base_url`` (any OpenAI-compatible server; default
    ``$OPENAI_BASE_URL``), ``judge`` (any judge instead), ``cache`` (a sqlite path or
    :class:`JudgeCache`), ``max_tokens`` (default ``"auto"``: finite), ``timeout_s`` and
    ``max_concurrency`` (default 2 for a server on this machine): what a local model needs.

    Raises
    ------
    InvalidInputError
        a malformed ``api_key``.
    """

    def __init__(
        self,
        model: str | None = None,
        api_key: str | None = None,
        answer_claims_prompt: str = GROUNDEDNESS_ANSWER_CLAIMS_PROMPT,
        claims_inference_prompt: str = GROUNDEDNESS_CLAIMS_INFERENCE_PROMPT,
        *,
        base_url: str | None = None,
        judge: Any = None,
        cache: JudgeCache | str | None = None,
        max_tokens: MaxTokens = "auto",
        timeout_s: float = 60.0,
        max_concurrency: int | None = None,
    ):
        super().__init__(
            model,
            api_key,
            base_url=base_url,
            judge=judge,
            cache=cache,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
            max_concurrency=max_concurrency,
        )
        self.answer_claims_prompt = answer_claims_prompt
        self.claims_inference_prompt = claims_inference_prompt


class BaseMetric(ABC):
    """Base of evaluation metrics (embedchain's ``BaseMetric``): a ``name`` and ``evaluate``.

    Subclass it for a custom metric of :func:`evaluate_rag` (as in embedchain's guide).

    Examples
    --------
    >>> class AnswerLength(BaseMetric):
    ...     def __init__(self):
    ...         super().__init__(name="answer_length")
    ...     def evaluate(self, dataset):
    ...         return sum(len(d.answer) for d in dataset) / len(dataset)
    >>> AnswerLength().evaluate([EvalData(question="Q?", contexts=[], answer="Yes.")])
    4.0
    """

    def __init__(self, name: str = ""):
        self.name = name

    @abstractmethod
    def evaluate(self, dataset: list[EvalData]) -> float:
        """The metric's value over ``dataset``."""


def mean_or_nan(results: JudgeResults, metric: str) -> float:
    """Mean over ok samples (warns when some failed); ``nan`` with a warning when none is ok."""
    summary = results.summary(metric)
    if summary.mean is None:
        warnings.warn(f"{summary} -> returning nan", UndefinedMetricWarning, stacklevel=3)
        return math.nan
    if summary.n_undefined or summary.n_error:
        warnings.warn(str(summary), UndefinedMetricWarning, stacklevel=3)
    return summary.mean


class _JudgedMetric(BaseMetric):
    config: _JudgeConfig

    def __init__(self, name: str, config: _JudgeConfig):
        super().__init__(name=name)
        config.check_endpoint(type(self).__name__)
        self.config = config
        self.last_results: JudgeResults | None = None

    def _metric(self) -> Metric:
        raise NotImplementedError

    def _embedder(self) -> Any:
        return None

    def evaluate_results(self, dataset: Sequence[Any]) -> JudgeResults:
        """Per-sample results (values, statuses, reasons, evidence, usage) over ``dataset``."""
        results = evaluate(
            list(dataset),
            [self._metric()],
            judge=self.config.make_judge(),
            embedder=self._embedder(),
            cache=self.config.cache,
            language=getattr(self.config, "language", None),
            max_tokens=self.config.max_tokens,
        )
        self.last_results = results
        return results

    def evaluate(self, dataset: list[EvalData]) -> float:
        """Mean over the samples the judge could score (see ``last_results`` for the rest)."""
        return mean_or_nan(self.evaluate_results(dataset), self.name)


class ContextRelevance(_JudgedMetric):
    """embedchain's context relevancy: relevant context sentences / context sentences.

    See :class:`~ragmeter.judges.ContextRelevancyMetric` for the formula and cases.
    ``evaluate(dataset)`` returns the mean (``nan`` with a warning when no sample could be
    scored); ``last_results`` holds every row.

    Examples
    --------
    >>> from ragmeter.judges import RuleJudge
    >>> metric = ContextRelevance(ContextRelevanceConfig(judge=RuleJudge()))
    >>> metric.evaluate([EvalData(question="Where is Paris?",
    ...                           contexts=["Paris is in France. Cats sleep a lot."],
    ...                           answer="In France.")])
    0.5
    """

    def __init__(self, config: ContextRelevanceConfig | None = None):
        super().__init__("context_relevancy", config or ContextRelevanceConfig())

    def _metric(self) -> Metric:
        config = self.config
        assert isinstance(config, ContextRelevanceConfig)
        return ContextRelevancyMetric(
            prompt=_CONTEXT_RELEVANCY.with_template(config.prompt),
            sentence_splitter=config.sentence_splitter,
        )

    def _sentence_segmenter(self, text: str) -> list[str]:
        """The sentences of ``text`` as the metric counts them (``sentence_splitter=``, else
        ragmeter's regex splitter, whose sentences are stripped: embedchain's pysbd keeps the
        space after each)."""
        config = self.config
        assert isinstance(config, ContextRelevanceConfig)
        return list(resolve_splitter(config.sentence_splitter)(text))


class AnswerRelevance(_JudgedMetric):
    """embedchain's answer relevancy: mean cosine of generated questions to the question.

    See :class:`~ragmeter.judges.AnswerRelevancyMetric` for the formula and cases;
    ``evaluate`` and ``last_results`` as for :class:`ContextRelevance`.
    """

    def __init__(self, config: AnswerRelevanceConfig | None = None):
        super().__init__("answer_relevancy", config or AnswerRelevanceConfig())

    def _metric(self) -> Metric:
        config = self.config
        assert isinstance(config, AnswerRelevanceConfig)
        return AnswerRelevancyMetric(
            num_questions=config.num_gen_questions,
            prompt=_ANSWER_RELEVANCY.with_template(config.prompt),
            language=config.language,
        )

    def _embedder(self) -> Any:
        config = self.config
        assert isinstance(config, AnswerRelevanceConfig)
        return config.make_embedder()

    def _generate_prompt(self, data: EvalData) -> str:
        """The question-generation prompt the judge is sent for ``data`` (its user message)."""
        metric = self._metric()
        assert isinstance(metric, AnswerRelevancyMetric)
        values = metric.prompt_values(data.answer, getattr(self.config, "language", None))
        return metric.prompt.render(values)[-1]["content"]

    def _compute_similarity(self, original: Any, generated: Any) -> np.ndarray:
        """The cosine of ``original`` to each row of ``generated`` (NaN for a zero vector)."""
        rows = np.atleast_2d(np.asarray(generated, dtype=float))
        cosines = [cosine_similarity(list(map(float, original)), list(row)) for row in rows]
        return np.array([math.nan if c is None else c for c in cosines])


class Groundedness(_JudgedMetric):
    """embedchain's groundedness: sum of claim verdicts / number of claims.

    See :class:`~ragmeter.judges.GroundednessMetric` for the formula and cases;
    ``evaluate`` and ``last_results`` as for :class:`ContextRelevance`.
    """

    def __init__(self, config: GroundednessConfig | None = None):
        super().__init__("groundedness", config or GroundednessConfig())

    def _metric(self) -> Metric:
        config = self.config
        assert isinstance(config, GroundednessConfig)
        return GroundednessMetric(
            claims_prompt=_CLAIMS.with_template(config.answer_claims_prompt),
            verdicts_prompt=_GROUNDEDNESS.with_template(config.claims_inference_prompt),
        )

    def _generate_answer_claim_prompt(self, data: EvalData) -> str:
        """The claim-extraction prompt the judge is sent for ``data`` (its user message)."""
        config = self.config
        assert isinstance(config, GroundednessConfig)
        prompt = _CLAIMS.with_template(config.answer_claims_prompt)
        return prompt.render({"question": data.question, "answer": data.answer})[-1]["content"]

    def _generate_claim_inference_prompt(
        self, data: EvalData, claim_statements: Sequence[str]
    ) -> str:
        """The verdicts prompt for ``claim_statements`` (numbered) against ``data``'s contexts
        (its user message)."""
        config = self.config
        assert isinstance(config, GroundednessConfig)
        prompt = _GROUNDEDNESS.with_template(config.claims_inference_prompt)
        values = {
            "context": joined_contexts(data.contexts),
            "claim_statements": format_items(list(claim_statements)),
        }
        return prompt.render(values)[-1]["content"]


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    if inspect.iscoroutinefunction(fn):
        return await fn(*args)
    value = await asyncio.to_thread(fn, *args)
    if inspect.isawaitable(value):
        value = await value
    return value


def _collect(
    questions: Sequence[str],
    retriever: Callable[[str], Any],
    generator: Callable[[str, list[str]], Any],
    num_workers: int,
) -> list[Sample]:
    async def run() -> list[Sample]:
        gate = asyncio.Semaphore(num_workers)

        async def one(index: int, question: str) -> Sample:
            async with gate:
                retrieved = await _call(retriever, question)
                contexts = list(
                    Sample(question=question, contexts=tuple(retrieved or ())).contexts or ()
                )
                answer = await _call(generator, question, contexts)
            if not isinstance(answer, str):
                raise InvalidInputError(
                    f"generator must return the answer as a str, got {type(answer).__name__} "
                    f"for question {index}"
                )
            return Sample(question=question, answer=answer, contexts=tuple(contexts), id=str(index))

        return list(await gather_all(*(one(i, q) for i, q in enumerate(questions))))

    return run_sync(run)


def _default_judge() -> Any:
    shown, _ = resolve_endpoint(None)
    return OpenAICompatibleJudge(model=_model_for(None, shown))


def _default_embedder() -> Any:
    return AnswerRelevanceConfig().make_embedder()


def evaluate_rag(
    questions: Sequence[str],
    retriever: Callable[[str], Any],
    generator: Callable[[str, list[str]], Any],
    *,
    judge: Any = None,
    embedder: Any = None,
    metrics: Sequence[Any] | None = None,
    cache: JudgeCache | str | None = None,
    num_workers: int = 4,
    return_results: bool = False,
    **options: Any,
) -> Any:
    """Retrieve, generate and judge, in one call; returns ``{metric: mean}`` like embedchain.

    ``retriever(question)`` returns the contexts (strings, or objects with ``text`` /
    ``page_content``), ``generator(question, contexts)`` the answer; both may be sync or async
    and run ``num_workers`` at a time. ``metrics`` default to ``answer_relevancy``,
    ``groundedness`` and ``context_relevancy`` (embedchain's ``App.evaluate``); entries may be
    names, ragmeter Metric objects, or :class:`BaseMetric` objects (their ``evaluate(dataset)``
    is called with :class:`EvalData`). ``judge`` defaults to the environment
    (``$RAGMETER_JUDGE_MODEL``, else gpt-4 on api.openai.com). A metric with no usable sample
    maps to ``nan`` (with a warning). ``return_results=True`` returns ``(scores,
    JudgeResults)``; other keyword ``options`` go to :func:`~ragmeter.judges.evaluate`.
    """
    if isinstance(questions, str):
        raise InvalidInputError("questions must be a list of strings, got a single str")
    if num_workers < 1:
        raise InvalidInputError(f"num_workers must be >= 1, got {num_workers!r}")
    if not callable(retriever) or not callable(generator):
        raise InvalidInputError("retriever and generator must be callables")
    requested = list(metrics) if metrics is not None else list(EMBEDCHAIN_METRICS)
    custom = [m for m in requested if isinstance(m, BaseMetric)]
    unnamed = [type(m).__name__ for m in custom if not m.name]
    if unnamed:
        raise InvalidInputError(
            f"metrics {unnamed} have no name: call super().__init__(name=...) in __init__"
        )
    judged_items = [m for m in requested if not isinstance(m, BaseMetric)]
    judged = resolve_metrics(judged_items) if judged_items else []
    judged_names = {id(item): m.name for item, m in zip(judged_items, judged, strict=True)}
    samples = _collect(list(questions), retriever, generator, num_workers)
    results: JudgeResults | None = None
    if judged:
        the_judge = judge if judge is not None else _default_judge()
        needs_embedder = any(m.needs_embedder for m in judged)
        the_embedder = (
            embedder if embedder is not None or not needs_embedder else _default_embedder()
        )
        results = evaluate(
            samples, judged, judge=the_judge, embedder=the_embedder, cache=cache, **options
        )
    dataset = [
        EvalData(question=s.question, contexts=list(s.contexts or ()), answer=s.answer or "")
        for s in samples
    ]
    scores: dict[str, float] = {}
    for item in requested:
        if isinstance(item, BaseMetric):
            scores[item.name] = float(item.evaluate(dataset))
        else:
            assert results is not None
            name = judged_names[id(item)]
            scores[name] = mean_or_nan(results, name)
    return (scores, results) if return_results else scores
