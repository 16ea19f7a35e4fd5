"""What a ranking evaluation returns, and its saved form.

* :class:`MetricResults`: what :func:`~ragmeter.ranking_metrics`, :func:`~ragmeter.evaluate_trec`
  and :func:`ragmeter.io.evaluate` return for one run, values over queries or per query;
* :class:`RunEvaluations`: the results of several runs, what ``ragmeter evaluate --format
  json`` writes (kind ``"ragmeter.evaluation"``): per run its values over queries, its
  per-query values (``-q``), or both.

Both are saved results (:class:`~ragmeter.reports.SavedResult`): ``write(path)`` writes JSON,
JSONL (one line per run), YAML or TOML, atomically; ``read(path)`` reads them back, refusing a
file that is not exactly what ragmeter writes (a changed value, an unknown field, another kind,
a newer format) with an :class:`~ragmeter.InvalidInputError` naming the file and the field. A
file written by the command and one written from Python are the same kind and read back the
same way (:meth:`MetricResults.read` takes one run of either).

The saved form of one run (format 2):

* ``query_ids`` (their types kept: ``"1"`` and ``1`` differ), ``missing_from_run``,
  ``unjudged``;
* with values over queries: ``means`` (``{measure: value}``: a number, null where undefined,
  or the text of ``runid``), ``n_queries`` (how many queries each value is over) and
  ``n_undefined`` (how many were undefined, for the means);
* with per-query values: ``keyed`` (whether the queries came keyed by id) and ``per_query``
  (``{measure: {query id as text: value}}``, null where undefined);
* ``undefined``: ``{measure: reason}`` for every measure with an undefined value, the reason
  the measure's family declares (``"no relevant document"``...);
* ``manifest`` (format 3): what made the values (:class:`~ragmeter.Manifest`: the producer,
  the measures' definitions and the settings that change the numbers, ``relevance_threshold``
  among them).

Format 2 did not record the settings: a run read from it has a manifest whose ``unknown``
names every ranking setting (a comparison says it could not check them).

Format 1 is the command's JSON before it had a ``kind`` (its keys were the runs). It is read
for its per-query values (``-q``): it did not record how many queries of a mean were
undefined, so its means are not read back, and a file of format 1 without per-query values
(which did not record the evaluated queries either) is refused with the command that writes
it again.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from .._nan_equal import canonical
from .._notebook import NotebookDisplay
from ..exceptions import InvalidInputError
from ..manifest import RANKING_SETTINGS, Manifest
from ..options import shorten
from ..per_query import PerQueryResults
from ..reports import check_saved_head, load_report, report_number, saved_head, write_report
from ..summaries import CountScore, MeanScore
from .names import Measure, measure_named

__all__ = [
    "EVALUATION_FORMAT_VERSION",
    "EVALUATION_KIND",
    "EVALUATION_READABLE_VERSIONS",
    "MetricResults",
    "RunEvaluations",
]

#: The ``kind`` of a saved ranking evaluation (``ragmeter evaluate --format json``).
EVALUATION_KIND = "ragmeter.evaluation"
#: The format written: 1 was the command's JSON without a head (its keys were the runs); 2 has
#: the head, the runs under ``runs``, each run's query ids, undefined counts and reasons; 3
#: each run's manifest (its settings and measure definitions).
EVALUATION_FORMAT_VERSION = 3
#: The formats read (see the module documentation for what formats 1 and 2 hold).
EVALUATION_READABLE_VERSIONS = (1, 2, 3)

Form = Literal["long", "wide"]

#: The name of a run saved without one.
_UNNAMED = "run"
_RUN_FIELDS = (
    "query_ids",
    "missing_from_run",
    "unjudged",
    "means",
    "n_queries",
    "n_undefined",
    "keyed",
    "per_query",
    "undefined",
    "manifest",
)
_V1_RUN_FIELDS = ("means", "n_queries", "missing_from_run", "unjudged", "per_query")


class MetricResults(NotebookDisplay, dict[str, Any]):
    """Metric name -> value over queries (:class:`MeanScore`, :class:`CountScore`, or the run
    tag for ``runid``) or per-query values, with the query set.

    A ``dict`` with four more attributes: ``query_ids`` (the evaluated queries, in order),
    ``missing_from_run`` (judged queries without a ranking: scored as empty rankings with
    ``missing="zero"``, left out with ``missing="skip"``), ``unjudged`` (ranked queries
    without judgments, never evaluated) and ``name`` (the run's name: its file for results
    read from a saved evaluation, else None). Per-query results are also
    :class:`PerQueryResults` (:meth:`per_query_results`) and tables (:meth:`to_pandas`,
    :meth:`to_polars`, :meth:`to_arrow`).

    They are saved results (:class:`~ragmeter.reports.SavedResult`): :meth:`write` saves them
    as the run of an evaluation file, the kind ``ragmeter evaluate --format json`` writes
    (``"ragmeter.evaluation"``), and :meth:`read` reads one run of such a file back, whichever
    wrote it. An undefined value is NaN in memory and null in the file, with the reason its
    measure declares.

    Examples
    --------
    >>> import numpy as np
    >>> from ragmeter import ranking_metrics
    >>> results = ranking_metrics({"q1": {"d1": 1}, "q2": {"d9": 0}},
    ...                           {"q1": ["d2", "d1"], "q2": ["d1"]},
    ...                           metrics=["recall@1", "mrr"], zero_division=np.nan)
    >>> results["recall@1"].describe()  # q2 has no relevant document
    'recall@1 = 0.0000 over 1 queries (1 undefined)'
    >>> results.write("bm25.json")  # doctest: +ELLIPSIS
    PosixPath('bm25.json')
    >>> again = MetricResults.read("bm25.json")
    >>> again["recall@1"].describe(), again.query_ids
    ('recall@1 = 0.0000 over 1 queries (1 undefined)', ['q1', 'q2'])
    """

    #: What a saved evaluation's ``kind`` field says (its schema: ``ragmeter.schemas``).
    KIND: ClassVar[str] = EVALUATION_KIND
    #: The format :meth:`write` writes.
    FORMAT_VERSION: ClassVar[int] = EVALUATION_FORMAT_VERSION
    #: The formats :meth:`read` reads.
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = EVALUATION_READABLE_VERSIONS

    query_ids: list[Any]
    missing_from_run: list[Any]
    unjudged: list[Any]
    #: The run's name (its file, for results read from a saved evaluation).
    name: str | None = None
    #: What made the values: the producer, each measure's definition and the settings that
    #: change the numbers (nothing known for results built by hand).
    manifest: Manifest = Manifest.unrecorded("unknown")

    @property
    def is_per_query(self) -> bool:
        """Whether the values are per query (``average=None``, ``per_query=True``) rather than
        over queries."""
        return any(isinstance(v, Mapping | np.ndarray | list) for v in self.values())

    def per_query_results(self, name: str | None = None) -> PerQueryResults:
        """The per-query values as :class:`PerQueryResults` (what comparisons read); the text
        measures (``runid``, ``relstring``) are left out.

        Parameters
        ----------
        name
            The system's name (default: :attr:`name`).

        Returns
        -------
        PerQueryResults
            The values of every numeric measure, aligned with :attr:`query_ids`, with
            ``missing_from_run`` and ``unjudged``.

        Raises
        ------
        InvalidInputError
            The results hold values over all queries (evaluate with ``per_query=True`` or
            ``average=None``), or no numeric per-query value.

        Examples
        --------
        >>> from ragmeter import ranking_metrics
        >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
        >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
        >>> ranking_metrics(qrels, runs, metrics=["mrr"], average=None).per_query_results()["mrr"]
        {'q1': 1.0, 'q2': 0.5}
        """
        return _per_query_of(self, self.name if name is None else name)

    def to_pandas(self, form: Form = "wide") -> Any:
        """The per-query values as a pandas DataFrame (the ``pandas`` extra; see
        :meth:`PerQueryResults.to_pandas`).

        Parameters
        ----------
        form
            ``"wide"`` (a column per measure) or ``"long"`` (a row per query and measure).

        Returns
        -------
        pandas.DataFrame
            The table.
        """
        return self.per_query_results().to_pandas(form)

    def to_polars(self, form: Form = "wide") -> Any:
        """The per-query values as a polars DataFrame (the ``polars`` extra; see
        :meth:`PerQueryResults.to_pandas` for the columns).

        Parameters
        ----------
        form
            ``"wide"`` or ``"long"``.

        Returns
        -------
        polars.DataFrame
            The table.
        """
        return self.per_query_results().to_polars(form)

    def to_arrow(self, form: Form = "wide") -> Any:
        """The per-query values as a ``pyarrow.Table`` (the ``arrow`` extra; see
        :meth:`PerQueryResults.to_pandas` for the columns).

        Parameters
        ----------
        form
            ``"wide"`` or ``"long"``.

        Returns
        -------
        pyarrow.Table
            The table.
        """
        return self.per_query_results().to_arrow(form)

    # -- saved form ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The results as a saved evaluation of one run (named :attr:`name`, else ``"run"``).

        Returns
        -------
        dict
            What :meth:`RunEvaluations.to_dict` gives (NaN stays NaN; writers make it null).

        Raises
        ------
        InvalidInputError
            Results that are not an evaluation's (a value that is not a measure's).
        """
        return RunEvaluations.of(self).to_dict()

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        run: str | None = None,
        per_query: bool | None = None,
    ) -> MetricResults:
        """One run's results from a saved evaluation's dict (:meth:`RunEvaluations.results`
        picks them).

        Parameters
        ----------
        data
            What :meth:`to_dict` (or :meth:`RunEvaluations.to_dict`) returned.
        run
            The run (needed when the evaluation holds several).
        per_query
            True: the per-query values; False: the values over queries; None: those the run
            has (the values over queries when it has both).

        Returns
        -------
        MetricResults
            The results, named after their run.

        Raises
        ------
        InvalidInputError
            Not such an evaluation, a field of the wrong type, an unknown run.
        """
        return RunEvaluations.from_dict(data).results(run, per_query=per_query)

    def to_rows(self) -> list[dict[str, Any]]:
        """The results as the one row of a saved evaluation of one run (JSONL).

        Returns
        -------
        list of dict
            What :meth:`RunEvaluations.to_rows` gives.
        """
        return RunEvaluations.of(self).to_rows()

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Mapping[str, Any]],
        *,
        run: str | None = None,
        per_query: bool | None = None,
    ) -> MetricResults:
        """One run's results from a saved evaluation's rows.

        Parameters
        ----------
        rows
            What :meth:`to_rows` (or :meth:`RunEvaluations.to_rows`) returned.
        run
            The run (needed when the rows hold several).
        per_query
            Which values, as for :meth:`from_dict`.

        Returns
        -------
        MetricResults
            The results.
        """
        return RunEvaluations.from_rows(rows).results(run, per_query=per_query)

    @classmethod
    def format_version_of(cls, data: Any) -> Any:
        """The format of a saved evaluation's data (see :meth:`RunEvaluations.format_version_of`).

        Parameters
        ----------
        data
            A parsed file.

        Returns
        -------
        int or None
            Its format.
        """
        return RunEvaluations.format_version_of(data)

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
        """Write the results to a file, atomically, as a saved evaluation of one run.

        Parameters
        ----------
        path
            The file; its suffix gives the format (``.json``, ``.jsonl``, ``.yaml``/``.yml``,
            ``.toml``).
        format
            The format, when the suffix does not say it.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        return write_report(self, path, format=format)

    @classmethod
    def read(
        cls,
        path: str | os.PathLike[str],
        *,
        run: str | None = None,
        per_query: bool | None = None,
        format: str | None = None,
    ) -> MetricResults:
        """Read one run's results from a saved evaluation: a file written by :meth:`write`,
        :meth:`RunEvaluations.write` or ``ragmeter evaluate --format json``.

        Parameters
        ----------
        path
            The file.
        run
            The run (needed when the file holds several: the command names them by their
            file as given on its command line).
        per_query
            True: the per-query values; False: the values over queries; None: those the run
            has (the values over queries when it has both, as ``ragmeter evaluate -q``
            writes).
        format
            The file's format, when its suffix does not say it.

        Returns
        -------
        MetricResults
            The results (equal to those written), named after their run.

        Raises
        ------
        InvalidInputError
            A file that is not exactly such an evaluation (edited by hand, damaged, another
            kind, a newer format), or that has not the run or the values asked for, naming
            the file and the field.
        """
        evaluations = RunEvaluations.read(path, format=format)
        try:
            return evaluations.results(run, per_query=per_query)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{os.fspath(path)}: {exc}") from None


def _per_query_of(results: MetricResults, name: str | None) -> PerQueryResults:
    numeric: dict[str, Any] = {}
    for metric, value in results.items():
        if isinstance(value, Mapping):
            if all(isinstance(v, str) for v in value.values()):
                continue  # runid, relstring: text, not values
            numeric[metric] = value
        elif isinstance(value, np.ndarray):
            if value.dtype.kind in "OUS":
                continue
            numeric[metric] = value
        elif isinstance(value, list):
            if value and all(isinstance(v, str) for v in value):
                continue
            numeric[metric] = value
        elif isinstance(value, str) or value is None:
            continue
        else:
            raise InvalidInputError(
                f"results: {metric!r} is a value over all queries ({value!r}), not per-query "
                "values; evaluate with per_query=True (evaluate_trec) or average=None "
                "(ranking_metrics)"
            )
    if not numeric:
        raise InvalidInputError(
            "results: holds no per-query numeric values (text measures such as runid cannot "
            "be compared)"
        )
    ids = list(results.query_ids)
    return PerQueryResults(
        numeric,
        ids,
        name=name,
        manifest=results.manifest.restricted(numeric),
        missing_from_run=list(results.missing_from_run),
        unjudged=list(results.unjudged),
    )


class RunEvaluations(NotebookDisplay):
    """The results of several runs, as ``ragmeter evaluate --format json`` saves them: per run
    its values over queries, its per-query values (``-q``), or both.

    Parameters
    ----------
    means
        ``{run: MetricResults}`` of values over queries.
    per_query
        ``{run: MetricResults}`` of per-query values (a run with both has the same queries
        in both).

    Raises
    ------
    InvalidInputError
        No run, a run name that is not a non-empty string, results of the wrong form, a run
        whose two results have different queries.

    Examples
    --------
    >>> from ragmeter.io import means_and_per_query
    >>> means, per_query = means_and_per_query({"q": {"d": 1}}, {"q": {"d": 0.5}},
    ...                                        metrics=["P.1"])
    >>> saved = RunEvaluations({"run.txt": means}, {"run.txt": per_query})
    >>> saved.runs
    ('run.txt',)
    >>> saved.to_dict()["runs"]["run.txt"]["per_query"]
    {'P_1': {'q': 1.0}}
    """

    #: What a saved evaluation's ``kind`` field says (its schema: ``ragmeter.schemas``).
    KIND: ClassVar[str] = EVALUATION_KIND
    #: The format :meth:`write` writes.
    FORMAT_VERSION: ClassVar[int] = EVALUATION_FORMAT_VERSION
    #: The formats :meth:`read` reads.
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = EVALUATION_READABLE_VERSIONS

    def __init__(
        self,
        means: Mapping[str, MetricResults] | None = None,
        per_query: Mapping[str, MetricResults] | None = None,
    ) -> None:
        """See the class documentation."""
        runs: dict[str, list[MetricResults | None]] = {}
        for field, given, wanted in (("means", means, False), ("per_query", per_query, True)):
            if given is None:
                continue
            if not isinstance(given, Mapping):
                raise InvalidInputError(f"{field}: expected {{run: MetricResults}}")
            for run, results in given.items():
                if not isinstance(run, str) or not run:
                    raise InvalidInputError(f"{field}: a run's name must be a non-empty str")
                if not isinstance(results, MetricResults) or results.is_per_query != wanted:
                    what = "per-query values" if wanted else "values over queries"
                    raise InvalidInputError(
                        f"{field}[{run!r}]: expected MetricResults of {what}, got "
                        f"{type(results).__name__}"
                    )
                runs.setdefault(run, [None, None])[int(wanted)] = results
        if not runs:
            raise InvalidInputError("means, per_query: an evaluation holds at least one run")
        for run, (over, by_query) in runs.items():
            if over is not None and by_query is not None and _queries(over) != _queries(by_query):
                raise InvalidInputError(
                    f"runs[{run!r}]: its values over queries and per query are not of the same "
                    "queries (query_ids, missing_from_run, unjudged)"
                )
            if over is not None and by_query is not None and over.manifest != by_query.manifest:
                raise InvalidInputError(
                    f"runs[{run!r}]: its values over queries and per query were not made the "
                    "same way (their manifests differ)"
                )
        self._runs = {run: (pair[0], pair[1]) for run, pair in runs.items()}

    @classmethod
    def of(cls, results: MetricResults) -> RunEvaluations:
        """The evaluation of one run: ``results``, named :attr:`MetricResults.name` (else
        ``"run"``).

        Parameters
        ----------
        results
            The run's results.

        Returns
        -------
        RunEvaluations
            The evaluation.
        """
        if not isinstance(results, MetricResults):
            raise InvalidInputError(
                f"results: expected MetricResults, got {type(results).__name__}"
            )
        name = results.name or _UNNAMED
        if results.is_per_query:
            return cls(per_query={name: results})
        return cls(means={name: results})

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs, in order."""
        return tuple(self._runs)

    @property
    def means(self) -> dict[str, MetricResults]:
        """``{run: values over queries}`` of the runs that have them."""
        return {run: pair[0] for run, pair in self._runs.items() if pair[0] is not None}

    @property
    def per_query(self) -> dict[str, MetricResults]:
        """``{run: per-query values}`` of the runs that have them."""
        return {run: pair[1] for run, pair in self._runs.items() if pair[1] is not None}

    def results(self, run: str | None = None, *, per_query: bool | None = None) -> MetricResults:
        """One run's results.

        Parameters
        ----------
        run
            The run (default: the only one).
        per_query
            True: its per-query values; False: its values over queries; None: those it has
            (the values over queries when it has both).

        Returns
        -------
        MetricResults
            The results.

        Raises
        ------
        InvalidInputError
            No ``run`` given for several runs, an unknown run, values the run has not.
        """
        if run is None:
            if len(self._runs) != 1:
                raise InvalidInputError(
                    f"run: the evaluation holds {len(self._runs)} runs "
                    f"({', '.join(map(repr, self._runs))}); name one"
                )
            run = next(iter(self._runs))
        if run not in self._runs:
            raise InvalidInputError(
                f"run: {shorten(run)} is not a run of the evaluation; its runs are "
                f"{', '.join(map(repr, self._runs))}"
            )
        over, by_query = self._runs[run]
        chosen = (over if over is not None else by_query) if per_query is None else None
        if per_query is not None:
            chosen = by_query if per_query else over
        if chosen is None:
            what = "per-query values (evaluate with -q)" if per_query else "values over queries"
            raise InvalidInputError(f"runs[{run!r}]: the run has no {what}")
        return chosen

    def per_query_results(self, name: str | None = None) -> PerQueryResults:
        """The per-query values of the evaluation's one run (what a gate or a comparison of
        one system reads).

        Parameters
        ----------
        name
            The system's name (default: the run's).

        Returns
        -------
        PerQueryResults
            The values, with the run's manifest.

        Raises
        ------
        InvalidInputError
            An evaluation of several runs (each system is one run: evaluate each into its own
            file), or without per-query values (evaluate with ``-q``).
        """
        if len(self._runs) != 1:
            raise InvalidInputError(
                f"the evaluation of {len(self._runs)} runs ({', '.join(map(repr, self._runs))}); "
                "one system's values are one run: evaluate each run into its own file"
            )
        (run,) = self._runs
        by_query = self._runs[run][1]
        if by_query is None:
            raise InvalidInputError(
                "an evaluation without per-query values; comparisons pair queries: evaluate "
                "with -q (`ragmeter evaluate -q --format json ...`)"
            )
        return by_query.per_query_results(run if name is None else name)

    def __len__(self) -> int:
        return len(self._runs)

    def __eq__(self, other: object) -> bool:
        """The same runs with the same results (their saved forms equal, NaN equal to NaN)."""
        if not isinstance(other, RunEvaluations):
            return NotImplemented
        result: bool = canonical(self.to_dict()) == canonical(other.to_dict())
        return result

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        forms = {
            run: "+".join(
                name for name, r in (("means", pair[0]), ("per_query", pair[1])) if r is not None
            )
            for run, pair in self._runs.items()
        }
        return f"RunEvaluations({forms})"

    # -- saved form ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The saved evaluation: the head (``kind``, ``format_version``, ``ragmeter_version``)
        and ``runs``, each run as the module documentation describes it.

        Returns
        -------
        dict
            JSON-ready (NaN stays NaN; report writers turn it into null).

        Raises
        ------
        InvalidInputError
            Results that cannot be saved (a value that is not its measure's, query ids that
            are not str or int or that read the same as text).
        """
        runs = {run: _run_to_dict(run, *pair) for run, pair in self._runs.items()}
        return {**saved_head(self), "runs": runs}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunEvaluations:
        """Rebuild an evaluation from :meth:`to_dict` output (or the command's JSON of format 1),
        checking every field.

        Parameters
        ----------
        data
            A saved evaluation's dict.

        Returns
        -------
        RunEvaluations
            The evaluation.

        Raises
        ------
        InvalidInputError
            Another kind, a format this version does not read, a field of the wrong type, an
            unknown measure or field, values that do not fit their measure or their queries.
        """
        if cls.format_version_of(data) == 1:
            return cls._from_format_1(data)
        version = check_saved_head(data, cls, "a ranking evaluation")
        unknown = [
            key for key in data if key not in ("kind", "format_version", "ragmeter_version", "runs")
        ]
        if unknown:
            raise InvalidInputError(f"{unknown[0]}: a field ragmeter does not write")
        runs = data.get("runs")
        if not isinstance(runs, Mapping) or not runs:
            raise InvalidInputError("runs: expected {run: its results} with at least one run")
        means: dict[str, MetricResults] = {}
        per_query: dict[str, MetricResults] = {}
        for run, entry in runs.items():
            over, by_query = _run_from_dict(
                run,
                entry,
                f"runs.{run}",
                version=version,
                ragmeter_version=data.get("ragmeter_version"),
            )
            if over is not None:
                means[run] = over
            if by_query is not None:
                per_query[run] = by_query
        return cls(means, per_query)

    @classmethod
    def _from_format_1(cls, data: Mapping[str, Any]) -> RunEvaluations:
        """The per-query values of the command's JSON of format 1 (see the module
        documentation: its means are not read back)."""
        per_query: dict[str, MetricResults] = {}
        for run, entry in data.items():
            where = str(run)
            unknown = [key for key in entry if key not in _V1_RUN_FIELDS]
            if unknown:
                raise InvalidInputError(f"{where}.{unknown[0]}: a field ragmeter does not write")
            values = entry.get("per_query")
            if values is None:
                raise InvalidInputError(
                    f"{where}: an evaluation of format 1 (the JSON of `ragmeter evaluate` before "
                    "it had a kind) without per-query values: it did not record the evaluated "
                    "queries nor how many were undefined. Evaluate the runs again "
                    "(`ragmeter evaluate -q --format json ...`) to read them back"
                )
            if not isinstance(values, Mapping) or not values:
                raise InvalidInputError(
                    f"{where}.per_query: expected {{measure: {{query: value}}}}"
                )
            first = next(iter(values.values()))
            if not isinstance(first, Mapping):
                raise InvalidInputError(
                    f"{where}.per_query: expected {{measure: {{query: value}}}}"
                )
            upgraded = {
                "query_ids": list(first),
                "missing_from_run": entry.get("missing_from_run"),
                "unjudged": entry.get("unjudged"),
                "keyed": True,
                "per_query": values,
            }
            _, results = _run_from_dict(run, upgraded, where, version=1)
            assert results is not None
            per_query[str(run)] = results
        return cls(per_query=per_query)

    def to_rows(self) -> list[dict[str, Any]]:
        """One row per run (JSONL): the head, ``run`` (its name) and the run's fields.

        Returns
        -------
        list of dict
            The rows.
        """
        head = saved_head(self)
        return [
            {**head, "run": run, **_run_to_dict(run, *pair)} for run, pair in self._runs.items()
        ]

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> RunEvaluations:
        """Rebuild an evaluation from :meth:`to_rows` output, checking every field.

        Parameters
        ----------
        rows
            One row per run.

        Returns
        -------
        RunEvaluations
            The evaluation.
        """
        if not rows:
            raise InvalidInputError("rows: a saved evaluation has one row per run, got none")
        runs: dict[str, Any] = {}
        for number, row in enumerate(rows, start=1):
            if not isinstance(row, Mapping):
                raise InvalidInputError(f"row {number}: expected a mapping")
            check_saved_head(row, cls, "a ranking evaluation")
            run = row.get("run")
            if not isinstance(run, str) or not run or run in runs:
                raise InvalidInputError(
                    f"row {number}: run: expected the name of a run given once, got {shorten(run)}"
                )
            runs[run] = {
                k: v
                for k, v in row.items()
                if k not in ("kind", "format_version", "ragmeter_version", "run")
            }
        head = {
            k: rows[0][k] for k in ("kind", "format_version", "ragmeter_version") if k in rows[0]
        }
        return cls.from_dict({**head, "runs": runs})

    @classmethod
    def format_version_of(cls, data: Any) -> Any:
        """The format of a saved evaluation's data: its ``format_version``, or 1 for the
        command's JSON of format 1 (no ``kind``; every value a run holding ``means``).

        Parameters
        ----------
        data
            A parsed file (a dict, or the rows of JSONL).

        Returns
        -------
        int or None
            Its format (None when it says none).
        """
        if isinstance(data, list):
            return data[0].get("format_version") if data and isinstance(data[0], Mapping) else None
        if not isinstance(data, Mapping):
            return None
        if (
            "kind" not in data
            and data
            and all(isinstance(v, Mapping) and "means" in v for v in data.values())
        ):
            return 1
        return data.get("format_version")

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
        """Write the evaluation to a file, atomically.

        Parameters
        ----------
        path
            The file; its suffix gives the format (``.json``, ``.jsonl``, ``.yaml``/``.yml``,
            ``.toml``).
        format
            The format, when the suffix does not say it.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        return write_report(self, path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> RunEvaluations:
        """Read a saved evaluation (written by :meth:`write`, :meth:`MetricResults.write` or
        ``ragmeter evaluate --format json``).

        Parameters
        ----------
        path
            The file.
        format
            Its format, when the suffix does not say it.

        Returns
        -------
        RunEvaluations
            The evaluation (equal to the one written).

        Raises
        ------
        InvalidInputError
            A file that is not exactly such an evaluation (edited by hand, damaged, another
            kind, a newer format), naming the file and the field.
        """
        return load_report(cls, path, format=format)


# -- one run's saved form ---------------------------------------------------------------------


def _queries(results: MetricResults) -> tuple[Any, ...]:
    return (
        tuple(results.query_ids),
        tuple(results.missing_from_run),
        tuple(results.unjudged),
    )


def _query_id(value: Any, where: str) -> str | int:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInputError(
            f"{where}: a query id must be a str or an int, got {shorten(value)}"
        )
    return value


def _undefined_reason(measure: Measure) -> str:
    # The words summarize() warns with: the family's declared reason.
    return measure.family.undefined or "no value"


def _run_to_dict(
    run: str, over: MetricResults | None, by_query: MetricResults | None
) -> dict[str, Any]:
    first = over if over is not None else by_query
    assert first is not None
    where = f"runs[{run!r}]"
    ids = [_query_id(q, f"{where}.query_ids") for q in first.query_ids]
    entry: dict[str, Any] = {
        "query_ids": ids,
        "missing_from_run": [
            _query_id(q, f"{where}.missing_from_run") for q in first.missing_from_run
        ],
        "unjudged": [_query_id(q, f"{where}.unjudged") for q in first.unjudged],
    }
    undefined: dict[str, str] = {}
    if over is not None:
        means: dict[str, Any] = {}
        n_queries: dict[str, int] = {}
        n_undefined: dict[str, int] = {}
        for name, value in over.items():
            measure = measure_named(name)
            field = f"{where}.means.{name}"
            if measure.family.value_type == "str":
                if value is not None and not isinstance(value, str):
                    raise InvalidInputError(
                        f"{field}: expected the run's text, got {shorten(value)}"
                    )
                means[name] = value
            elif isinstance(value, CountScore):
                means[name] = int(value)
                n_queries[name] = int(value.n_queries)
            elif isinstance(value, MeanScore):
                means[name] = float(value)
                n_queries[name] = int(value.n_queries)
                n_undefined[name] = int(value.n_undefined)
                if value.n_undefined:
                    undefined[name] = _undefined_reason(measure)
            else:
                raise InvalidInputError(
                    f"{field}: {shorten(value)} is not a value over queries (a MeanScore or a "
                    "CountScore, which say how many queries they are over)"
                )
        entry.update(means=means, n_queries=n_queries, n_undefined=n_undefined)
    if by_query is not None:
        texts = {str(q): q for q in ids}
        if len(texts) != len(ids):
            raise InvalidInputError(
                f"{where}.query_ids: two query ids read the same as text (such as 1 and '1'); "
                "a saved evaluation keys its per-query values by the ids' text"
            )
        keyed = any(isinstance(v, Mapping) for v in by_query.values())
        per_query: dict[str, dict[str, Any]] = {}
        for name, values in by_query.items():
            measure = measure_named(name)
            field = f"{where}.per_query.{name}"
            if isinstance(values, Mapping):
                if not keyed or list(values) != list(first.query_ids):
                    raise InvalidInputError(f"{field}: its queries are not the results' query_ids")
                column = list(values.values())
            elif isinstance(values, np.ndarray | list) and not keyed:
                column = list(values.tolist() if isinstance(values, np.ndarray) else values)
                if len(column) != len(ids):
                    raise InvalidInputError(f"{field}: {len(column)} values for {len(ids)} queries")
            else:
                raise InvalidInputError(
                    f"{field}: expected per-query values, got {shorten(values)}"
                )
            cells = [_cell(measure, v, f"{field}") for v in column]
            if any(isinstance(v, float) and math.isnan(v) for v in cells):
                undefined[name] = _undefined_reason(measure)
            per_query[name] = dict(zip((str(q) for q in ids), cells, strict=True))
        entry.update(keyed=keyed, per_query=per_query)
    entry["undefined"] = undefined
    entry["manifest"] = first.manifest.to_dict()
    return entry


def _cell(measure: Measure, value: Any, field: str) -> Any:
    """A per-query value as its measure's type: text, an int, or a float (NaN undefined)."""
    kind = measure.family.value_type
    if kind == "str":
        if not isinstance(value, str):
            raise InvalidInputError(f"{field}: expected text, got {shorten(value)}")
        return value
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        raise InvalidInputError(f"{field}: expected a number, got {shorten(value)}")
    if kind == "int":
        return int(value)
    return float(value)


def _count(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(f"{field}: expected a count (an int >= 0), got {shorten(value)}")
    return value


def _id_list(value: Any, field: str, *, distinct: bool = False) -> list[str | int]:
    if not isinstance(value, list | tuple):
        raise InvalidInputError(f"{field}: expected a list of query ids, got {shorten(value)}")
    ids = [_query_id(q, field) for q in value]
    if distinct and len({(type(q), q) for q in ids}) != len(ids):
        raise InvalidInputError(f"{field}: a query id appears more than once")
    return ids


def _mapping(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{field}: expected a mapping, got {shorten(value)}")
    return value


def _run_from_dict(
    run: Any, entry: Any, where: str, *, version: int, ragmeter_version: Any = None
) -> tuple[MetricResults | None, MetricResults | None]:
    """A run's results from its saved fields (format 1's upgraded to format 2's, without the
    reasons that format did not record; formats 1 and 2 without the manifest, whose settings
    are then unknown)."""
    format_1 = version == 1
    if not isinstance(run, str) or not run:
        raise InvalidInputError(f"{where}: a run's name must be a non-empty str")
    entry = _mapping(entry, where)
    for key in entry:
        if key not in _RUN_FIELDS:
            raise InvalidInputError(f"{where}.{key}: a field ragmeter does not write")
    ids = _id_list(entry.get("query_ids"), f"{where}.query_ids", distinct=True)
    missing = _id_list(entry.get("missing_from_run"), f"{where}.missing_from_run")
    unjudged = _id_list(entry.get("unjudged"), f"{where}.unjudged")

    if version >= 3:
        manifest = Manifest.from_dict(entry.get("manifest"), f"{where}.manifest")
    elif "manifest" in entry:
        raise InvalidInputError(f"{where}.manifest: a field format {version} does not have")
    else:
        names = [*_mapping(entry.get("means", {}), f"{where}.means")]
        names += [*_mapping(entry.get("per_query", {}), f"{where}.per_query")]
        manifest = Manifest.unrecorded(
            "ragmeter.evaluate",
            [n for n in dict.fromkeys(names) if isinstance(n, str)],
            settings=RANKING_SETTINGS,
            ragmeter_version=ragmeter_version if isinstance(ragmeter_version, str) else None,
        )

    def new() -> MetricResults:
        results = MetricResults()
        results.manifest = manifest
        results.query_ids = list(ids)
        results.missing_from_run = list(missing)
        results.unjudged = list(unjudged)
        results.name = run
        return results

    over = by_query = None
    if "means" in entry:
        over = new()
        n_queries = _mapping(entry.get("n_queries", {}), f"{where}.n_queries")
        n_undefined = _mapping(entry.get("n_undefined", {}), f"{where}.n_undefined")
        for name, value in _mapping(entry["means"], f"{where}.means").items():
            field = f"{where}.means.{name}"
            measure = _measure(name, field)
            family = measure.family
            if family.summary == "none":
                raise InvalidInputError(f"{field}: {name} has no value over queries")
            if family.value_type == "str":
                if value is not None and not isinstance(value, str):
                    raise InvalidInputError(
                        f"{field}: expected the run's text, got {shorten(value)}"
                    )
                over[name] = value
                continue
            count = _count(n_queries.get(name), f"{where}.n_queries.{name}")
            if family.summary in ("count", "sum"):
                over[name] = CountScore(_count(value, field), n_queries=count, metric=name)
                continue
            over[name] = MeanScore(
                report_number(value, field),
                n_queries=count,
                n_undefined=_count(n_undefined.get(name), f"{where}.n_undefined.{name}"),
                metric=name,
            )
    if "per_query" in entry:
        by_query = new()
        keyed = entry.get("keyed")
        if not isinstance(keyed, bool):
            raise InvalidInputError(f"{where}.keyed: expected true or false, got {shorten(keyed)}")
        texts = [str(q) for q in ids]
        if len(set(texts)) != len(texts):
            raise InvalidInputError(f"{where}.query_ids: two query ids read the same as text")
        for name, values in _mapping(entry["per_query"], f"{where}.per_query").items():
            field = f"{where}.per_query.{name}"
            measure = _measure(name, field)
            values = _mapping(values, field)
            if set(values) != set(texts) or len(values) != len(texts):
                raise InvalidInputError(f"{field}: its queries are not the run's query_ids")
            column = [_saved_cell(measure, values[text], f"{field}.{text}") for text in texts]
            if keyed:
                by_query[name] = dict(zip(ids, column, strict=True))
            elif measure.family.value_type == "float":
                by_query[name] = np.array(column, dtype=np.float64)
            else:
                by_query[name] = column
    if over is None and by_query is None:
        raise InvalidInputError(f"{where}: the run holds neither means nor per_query values")
    if over is not None:
        _check_counts(over, len(ids), where)
        if by_query is not None:
            _check_means(over, by_query, where)
    if not format_1:
        computed = _run_to_dict(run, over, by_query)["undefined"]
        saved = _mapping(entry.get("undefined"), f"{where}.undefined")
        if dict(saved) != computed:
            wrong = next(
                (k for k in [*saved, *computed] if saved.get(k) != computed.get(k)), "undefined"
            )
            raise InvalidInputError(
                f"{where}.undefined.{wrong}: {shorten(saved.get(wrong))} where the values say "
                f"{shorten(computed.get(wrong))}"
            )
    return over, by_query


def _check_counts(over: MetricResults, n: int, where: str) -> None:
    """The query counts of values over ``n`` queries, as summarize() forms them: a mean is over
    every query, or over those with a value when undefined values are left out."""
    for name, value in over.items():
        field = f"{where}.n_queries.{name}"
        if isinstance(value, CountScore) and value.n_queries != n:
            raise InvalidInputError(f"{field}: {value.n_queries} where the run has {n} queries")
        if isinstance(value, MeanScore):
            if value.n_undefined > n:
                raise InvalidInputError(
                    f"{where}.n_undefined.{name}: {value.n_undefined} of {n} queries"
                )
            if value.n_queries not in (n, n - value.n_undefined):
                raise InvalidInputError(
                    f"{field}: {value.n_queries}, neither the run's {n} queries nor the "
                    f"{n - value.n_undefined} with a value"
                )
        if measure_named(name).family.summary == "count" and int(value) != n:
            raise InvalidInputError(f"{where}.means.{name}: {int(value)} where the run has {n}")


def _check_means(over: MetricResults, by_query: MetricResults, where: str) -> None:
    """The means and totals of a run saved with its per-query values must be theirs (a
    changed value would otherwise pass): arithmetic means and sums are checked (up to the
    rounding of a sum in another order); geometric means and totals over judged queries the
    run lacks (``-c``) are not."""
    for name, value in over.items():
        values = by_query.get(name)
        if values is None or isinstance(value, str) or value is None:
            continue
        family = measure_named(name).family
        column = np.asarray(
            list(values.values()) if isinstance(values, Mapping) else values, dtype=np.float64
        )
        defined = column[~np.isnan(column)]
        field = f"{where}.means.{name}"
        if family.summary == "sum" and family.complete_summary_kernel is None:
            expected: float = float(round(math.fsum(defined)))
        elif family.summary == "mean" and isinstance(value, MeanScore):
            if value.n_queries == column.size and defined.size < column.size:
                expected = math.nan  # an undefined value trec_eval prints as -nan
            else:
                expected = math.fsum(defined) / defined.size if defined.size else math.nan
        else:
            continue
        found = float(value)
        if math.isnan(expected) != math.isnan(found) or not (
            math.isnan(found) or math.isclose(found, expected, rel_tol=1e-9, abs_tol=1e-12)
        ):
            raise InvalidInputError(
                f"{field}: {found!r} where the per-query values give {expected!r}"
            )


def _measure(name: Any, field: str) -> Measure:
    try:
        return measure_named(name)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{field}: {exc}") from None


def _saved_cell(measure: Measure, value: Any, field: str) -> Any:
    """A per-query value read from a file: null is NaN (undefined) for a numeric measure."""
    kind = measure.family.value_type
    if kind == "str":
        if not isinstance(value, str):
            raise InvalidInputError(f"{field}: expected text, got {shorten(value)}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInputError(f"{field}: expected an int, got {shorten(value)}")
        return value
    return report_number(value, field)
