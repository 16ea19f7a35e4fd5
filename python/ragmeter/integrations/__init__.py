"""ragmeter where its users already are: thin clients of the engine for other tools.

Each integration is a module imported on its own (``import ragmeter`` imports none of them),
with the optional dependency of its extra:

* :mod:`ragmeter.integrations.ir_measures` (extra ``pyterrier``): a provider of ir_measures
  that computes every measure ragmeter computes with ir_measures' semantics, placed first in
  ``ir_measures.DefaultPipeline`` by :func:`~ragmeter.integrations.ir_measures.install`;
* :mod:`ragmeter.integrations.pyterrier` (extra ``pyterrier``): significance tests for
  ``pt.Experiment(test=...)`` and ``pt.Experiment(..., perquery=True)`` output as
  :class:`~ragmeter.PerQueryResults`;
* :mod:`ragmeter.integrations.mlflow` (extra ``mlflow``): scorers for
  ``mlflow.genai.evaluate`` and :func:`~ragmeter.integrations.mlflow.compare_runs`;
* :mod:`ragmeter.integrations.tracing` (extra ``otel`` for Phoenix's evaluation frames and
  its spans saved as Parquet; OTLP/JSON and Langfuse exports need nothing): runs and judge
  samples from OTLP JSON,
  OpenInference and Langfuse exports (read through :mod:`ragmeter.io`), and results written
  back as ``gen_ai.evaluation.result`` events and Phoenix evaluation frames.

Every integration reads files through :mod:`ragmeter.io`, produces
:class:`~ragmeter.PerQueryResults` and takes its statistics from :mod:`ragmeter.stats`.
"""

from __future__ import annotations

__all__: list[str] = []
