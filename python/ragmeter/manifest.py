"""What made a set of values: the producer's :class:`Manifest`, and the one rule that decides
whether two sets of values can be compared (:func:`check_comparable`).

Every producer of per-item values (``ranking_metrics``, ``evaluate_trec``, ``ragmeter.io.
evaluate``, ``evaluate_retrieval``, the LLM judges, a table read from a file) records with them
a manifest: who made them, with which ragmeter, what each measure means, the settings that
change the numbers and the judge. :class:`~ragmeter.PerQueryResults` carries it, every saved
result records it, and every consumer (``compare``, the gate, the report) reads it through
:func:`check_comparable`. :mod:`ragmeter.per_query` re-exports every name of this module.

Settings (:data:`VALUE_SETTINGS`), each changing what a value means:

* a ranking evaluation's (:data:`RANKING_SETTINGS`): ``relevance_threshold`` (trec_eval
  ``-l``), ``zero_division``, ``missing`` (``"zero"`` is trec_eval's ``-c``), ``max_docs``
  (``-M``; ``"none"`` when every document counts), ``judged_docs_only`` (``-J``) and
  ``collection_size`` (``-N``);
* judged values' (:data:`JUDGE_SETTINGS`): ``judge_value`` (``"one judgement"`` or ``"mean of
  N repeats"``), the judge's ``temperature`` and the ``language`` of generated text.

A setting's value is a string, a number or a bool (None is written ``"none"``, NaN ``"nan"``);
:attr:`Manifest.unknown` names what a manifest cannot vouch for: settings a file written
before they were recorded does not hold, ``"settings"`` when none is known (values from a table
or a mapping), ``"measures"`` and ``"judge"`` when the definitions or the judge are not known.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ._core import __version__
from .exceptions import InputTypeError, InvalidInputError
from .options import shorten
from .ranking.names import Measure, parse_metric

__all__ = [
    "ENDPOINT_KEYS",
    "JUDGE_SETTINGS",
    "RANKING_SETTINGS",
    "VALUE_SETTINGS",
    "Manifest",
    "check_comparable",
    "judge_identity_of",
    "measure_definition",
    "without_endpoints",
]

#: The settings of a ranking evaluation that change its numbers (the fields of
#: :class:`~ragmeter.options.EvaluationOptions` but ``duplicates``, which refuses or cleans a
#: ranking, and ``n_threads``).
RANKING_SETTINGS = (
    "relevance_threshold",
    "zero_division",
    "missing",
    "max_docs",
    "judged_docs_only",
    "collection_size",
)
#: The settings of judged values that change them.
JUDGE_SETTINGS = ("judge_value", "temperature", "language")
#: Every setting a manifest records: values computed with different ones are not compared.
VALUE_SETTINGS = RANKING_SETTINGS + JUDGE_SETTINGS
#: What ``unknown`` may name besides settings.
_ENTRIES = ("settings", "measures", "judge")
#: Values of a setting that give the same numbers (compared as the value they stand for):
#: ``"warn"`` scores an undefined value 0.0 as ``0.0`` does (with a warning), and
#: ``missing="skip"`` leaves out the judged queries a run lacks, where ``"raise"`` refuses
#: them: on the queries evaluated the values are the same.
_SAME_NUMBERS: dict[str, dict[Any, Any]] = {
    "zero_division": {"warn": 0.0},
    "missing": {"skip": "raise"},
}
#: The judges' run manifest keys that identify who judged (:attr:`Manifest.judge`).
_JUDGE_KEYS = ("judge", "judges", "embedder")


def _frozen(value: Any, where: str) -> Any:
    """JSON-ready data made read-only: mappings (str keys; None values dropped, as TOML drops
    them) become read-only mappings, lists and tuples tuples."""
    if isinstance(value, Mapping):
        frozen = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidInputError(f"{where}: keys are strings, got {shorten(key)}")
            if item is not None:
                frozen[key] = _frozen(item, f"{where}.{key}")
        return MappingProxyType(frozen)
    if isinstance(value, list | tuple):
        return tuple(_frozen(item, f"{where}[{i}]") for i, item in enumerate(value))
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = value if type(value) in (int, float) else float(value)
        if isinstance(number, float) and not math.isfinite(number):
            raise InvalidInputError(f"{where}: {number!r} is not a finite number")
        return int(number) if isinstance(value, int) else float(number)
    raise InvalidInputError(
        f"{where}: {shorten(value)} ({type(value).__name__}) is not JSON data (text, a number, "
        "a bool, a list or a mapping)"
    )


def _thawed(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _thawed(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [_thawed(item) for item in value]
    return value


def _setting(key: str, value: Any) -> Any:
    """A setting as a manifest records it: a string, a finite number or a bool."""
    if value is None:
        return "none"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number):
            raise InvalidInputError(f"settings.{key}: {value!r} is not a finite number")
        return int(value) if isinstance(value, int) else number
    raise InvalidInputError(
        f"settings.{key}: {shorten(value)} is not a setting's value (a string, a number or a bool)"
    )


#: The identity keys that say where a model is served, not which model it is: left out of every
#: judge identity a manifest records (issue 50: the same model served on another port, or by
#: another CI service container, is the same judge).
ENDPOINT_KEYS = frozenset({"base_url"})


def without_endpoints(identity: Any) -> Any:
    """A judge's (or panel's, or embedder's) identity without where it is served: every
    :data:`ENDPOINT_KEYS` key dropped, at any depth. Two models served under one model name are
    told apart by ``identity=`` on the client, which is kept.

    Parameters
    ----------
    identity
        An identity (a mapping, a list of them, or a plain value).

    Returns
    -------
    Any
        The identity without its endpoints (mappings copied, other values as they are).

    Examples
    --------
    >>> without_endpoints({"kind": "openai_compatible", "name": "m",
    ...                    "base_url": "http://127.0.0.1:41203/v1", "model": "m"})
    {'kind': 'openai_compatible', 'name': 'm', 'model': 'm'}
    """
    if isinstance(identity, Mapping):
        return {str(k): without_endpoints(v) for k, v in identity.items() if k not in ENDPOINT_KEYS}
    if isinstance(identity, list | tuple):
        return [without_endpoints(v) for v in identity]
    return identity


def judge_identity_of(run_manifest: Any) -> dict[str, Any] | None:
    """Who judged, as :attr:`Manifest.judge` records it: the ``judge``, ``judges`` and
    ``embedder`` of a judged run's manifest, without where they were served
    (:func:`without_endpoints`: a URL's host and port change from run to run, the judge does
    not; manifests written before this rule held the URL, which is dropped the same way). None
    when the run manifest says none of them.

    Parameters
    ----------
    run_manifest
        The manifest of :class:`~ragmeter.judges.JudgeResults` (or any mapping).

    Returns
    -------
    dict or None
        The identity.

    Examples
    --------
    >>> judge_identity_of({"judge": {"model": "m", "base_url": "http://127.0.0.1:5123/v1"}})
    {'judge': {'model': 'm'}}
    """
    if not isinstance(run_manifest, Mapping):
        return None
    identity = {
        k: without_endpoints(run_manifest[k])
        for k in _JUDGE_KEYS
        if run_manifest.get(k) is not None
    }
    return identity or None


def _definition_of(measure: Measure) -> dict[str, Any]:
    definition = {
        "family": measure.family.name,
        "cutoff": measure.cutoff,
        "parameters": [list(p) if isinstance(p, tuple) else p for p in measure.params],
        "gains": None if measure.gains is None else [list(g) for g in measure.gains],
        "relevance_threshold": measure.relevance_threshold,
        "judged_only": measure.judged_only,
        "undefined": measure.family.undefined,
    }
    return {k: v for k, v in definition.items() if v is not None}


def measure_definition(metric: str | Measure) -> dict[str, Any] | None:
    """What a ranking measure's name means, from its one declaration
    (:mod:`ragmeter.ranking.declarations`): its family, cutoff, parameters, gains, relevance
    threshold, whether it reads judged documents only, and its undefined rule (entries that do
    not apply are left out). None for a name that is not a ranking measure (a judge's metric).

    Parameters
    ----------
    metric
        A measure's name (any syntax :func:`~ragmeter.ranking.parse_metric` reads) or the
        measure.

    Returns
    -------
    dict or None
        The definition.

    Examples
    --------
    >>> measure_definition("P(rel=2)@5")
    {'family': 'precision', 'cutoff': 5, 'parameters': [], 'relevance_threshold': 2.0}
    >>> print(measure_definition("faithfulness"))
    None
    """
    if isinstance(metric, Measure):
        return _definition_of(metric)
    try:
        return _definition_of(parse_metric(metric))
    except (ValueError, TypeError):
        return None


@dataclass(frozen=True, eq=False)
class Manifest:
    """What made a set of values: the producer, its ragmeter version, what each measure means,
    the settings that change the numbers, the judge, and what the manifest cannot vouch for.

    Immutable: its mappings are read-only (:meth:`replace` makes a changed copy). Two manifests
    are equal when their saved forms (:meth:`to_dict`) are.

    Parameters
    ----------
    producer
        What made the values: ``"ragmeter.ranking_metrics"``, ``"ragmeter.evaluate_trec"``,
        ``"ragmeter.evaluate"`` (:func:`ragmeter.io.evaluate` and the command),
        ``"ragmeter.retrieval"``, ``"ragmeter.judges"``, ``"table"`` (a file of per-item
        values), ``"mapping"`` (values given as a mapping), ...
    ragmeter_version
        The version of ragmeter that computed them (None: not known).
    measures
        ``{metric: definition}``: for a ranking measure its declaration
        (:func:`measure_definition`), for a judge's metric its name, class, parameters and
        prompts' digests as the judges record them.
    settings
        ``{setting: value}``: the settings that change the numbers (see the module
        documentation and :data:`VALUE_SETTINGS`).
    judge
        Who judged (:func:`judge_identity_of`: never a URL's host or port), or None for values
        no judge made.
    unknown
        What this manifest cannot vouch for: the names of settings it does not know (a file
        written before they were recorded), ``"settings"`` (none is known), ``"measures"``,
        ``"judge"``.
    verified
        For values read from a saved file: whether the file carried a checksum that matched
        (False: a file written before saved results had one, read unverified); None for values
        not read from a file. Not part of the saved form nor of equality.

    Raises
    ------
    InvalidInputError
        An empty producer, a setting or definition that is not JSON data, an unknown entry
        that is neither a setting nor ``settings``, ``measures`` or ``judge``.

    Examples
    --------
    >>> manifest = Manifest("ragmeter.ranking_metrics", settings={"relevance_threshold": 2})
    >>> manifest.settings["relevance_threshold"]
    2
    >>> manifest.replace(settings={"relevance_threshold": 1}) == manifest
    False
    """

    producer: str = "unknown"
    ragmeter_version: str | None = None
    measures: Mapping[str, Any] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    judge: Mapping[str, Any] | None = None
    unknown: tuple[str, ...] = ()
    verified: bool | None = None

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        if not isinstance(self.producer, str) or not self.producer:
            raise InvalidInputError(f"producer: a non-empty string, got {shorten(self.producer)}")
        if self.ragmeter_version is not None and not isinstance(self.ragmeter_version, str):
            raise InvalidInputError(
                f"ragmeter_version: a string or None, got {shorten(self.ragmeter_version)}"
            )
        if not isinstance(self.measures, Mapping):
            raise InputTypeError(
                f"measures: expected {{metric: definition}}, got {self.measures!r}"
            )
        measures = {}
        for metric, definition in self.measures.items():
            if not isinstance(metric, str) or not isinstance(definition, Mapping):
                raise InvalidInputError(
                    f"measures: expected {{metric name: definition mapping}}, got "
                    f"{shorten(metric)}: {shorten(definition)}"
                )
            measures[metric] = _frozen(definition, f"measures.{metric}")
        set_field(self, "measures", MappingProxyType(measures))
        if not isinstance(self.settings, Mapping):
            raise InputTypeError(f"settings: expected {{setting: value}}, got {self.settings!r}")
        settings = {}
        for key, value in self.settings.items():
            if not isinstance(key, str) or not key:
                raise InvalidInputError(f"settings: names are strings, got {shorten(key)}")
            settings[key] = _setting(key, value)
        set_field(self, "settings", MappingProxyType(settings))
        if self.judge is not None:
            if not isinstance(self.judge, Mapping):
                raise InputTypeError(f"judge: expected a mapping or None, got {self.judge!r}")
            set_field(self, "judge", _frozen(self.judge, "judge"))
        if isinstance(self.unknown, str) or not isinstance(self.unknown, Iterable):
            raise InputTypeError(f"unknown: expected names, got {self.unknown!r}")
        unknown = tuple(dict.fromkeys(self.unknown))
        for name in unknown:
            if not isinstance(name, str) or not name:
                raise InvalidInputError(f"unknown: names are strings, got {shorten(name)}")
            if name in settings:
                raise InvalidInputError(f"unknown: {name!r} is known (it is among the settings)")
        set_field(self, "unknown", unknown)
        if self.verified is not None and not isinstance(self.verified, bool):
            raise InvalidInputError(f"verified: True, False or None, got {self.verified!r}")

    # -- making ------------------------------------------------------------------------------

    @classmethod
    def of_evaluation(
        cls, producer: str, options: Any, metrics: Iterable[str | Measure]
    ) -> Manifest:
        """The manifest of a ranking evaluation made with ``options``.

        Parameters
        ----------
        producer
            What evaluated (see the class documentation).
        options
            The evaluation's :class:`~ragmeter.options.EvaluationOptions` (or any object with
            the attributes of :data:`RANKING_SETTINGS`).
        metrics
            The measures (names or :class:`~ragmeter.ranking.Measure` objects; a name that is
            not a ranking measure gets no definition).

        Returns
        -------
        Manifest
            Every ranking setting known, this version of ragmeter.

        Examples
        --------
        >>> from ragmeter.options import EvaluationOptions
        >>> made = Manifest.of_evaluation("x", EvaluationOptions(relevance_threshold=2), ["P@5"])
        >>> made.settings["relevance_threshold"], made.measures["P@5"]["family"]
        (2.0, 'precision')
        """
        measures = {}
        for metric in metrics:
            name = metric.name if isinstance(metric, Measure) else metric
            definition = measure_definition(metric)
            if definition is not None:
                measures[name] = definition
        return cls(
            producer,
            __version__,
            measures,
            {key: getattr(options, key) for key in RANKING_SETTINGS},
        )

    @classmethod
    def unrecorded(
        cls,
        producer: str,
        metrics: Iterable[str] = (),
        *,
        settings: Sequence[str] | None = None,
        ragmeter_version: str | None = None,
    ) -> Manifest:
        """The manifest of values whose settings were not recorded: a saved file of a format
        from before they were, a table, a mapping. The definitions of the metrics that are
        ranking measures come from their names (a name says what it measures).

        Parameters
        ----------
        producer
            What made the values, as far as it is known.
        metrics
            The metrics.
        settings
            The settings not known (default: every setting: ``unknown`` says ``"settings"``).
        ragmeter_version
            The version that wrote the file, when it says.

        Returns
        -------
        Manifest
            The manifest.
        """
        measures = {m: d for m in metrics if (d := measure_definition(m)) is not None}
        unknown = ("settings",) if settings is None else tuple(settings)
        return cls(producer, ragmeter_version, measures, {}, None, unknown)

    def replace(self, **changes: Any) -> Manifest:
        """A copy with some fields changed (the class's parameters as keywords).

        Parameters
        ----------
        changes
            The fields to change.

        Returns
        -------
        Manifest
            The copy.
        """
        return replace(self, **changes)

    def restricted(self, metrics: Iterable[str]) -> Manifest:
        """The manifest of some of the metrics (the definitions of the others left out).

        Parameters
        ----------
        metrics
            The metrics kept.

        Returns
        -------
        Manifest
            The manifest.
        """
        kept = set(metrics)
        return self.replace(measures={m: d for m, d in self.measures.items() if m in kept})

    def definition(self, metric: str) -> Mapping[str, Any] | None:
        """What ``metric`` means: its recorded definition, else (a ranking measure) the one
        its name declares, else None.

        Parameters
        ----------
        metric
            The metric.

        Returns
        -------
        Mapping or None
            The definition.
        """
        recorded: Mapping[str, Any] | None = self.measures.get(metric)
        if recorded is not None:
            return recorded
        derived = measure_definition(metric)
        if derived is None:
            return None
        frozen: Mapping[str, Any] = _frozen(derived, metric)
        return frozen

    # -- saved form --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The manifest as saved results record it (JSON-ready; ``judge`` None when no judge).

        Returns
        -------
        dict
            ``producer``, ``ragmeter_version``, ``measures``, ``settings``, ``judge``,
            ``unknown``.
        """
        return {
            "producer": self.producer,
            "ragmeter_version": self.ragmeter_version,
            "measures": _thawed(self.measures),
            "settings": _thawed(self.settings),
            "judge": None if self.judge is None else _thawed(self.judge),
            "unknown": list(self.unknown),
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "manifest") -> Manifest:
        """A manifest from :meth:`to_dict` output (a file being read: every field is checked).

        Parameters
        ----------
        data
            The saved manifest.
        where
            Its place in the file, for errors.

        Returns
        -------
        Manifest
            The manifest.

        Raises
        ------
        InvalidInputError
            Not such a manifest: a missing, unknown or wrongly typed field.
        """
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"{where}: expected a mapping, got {shorten(data)}")
        fields = ("producer", "ragmeter_version", "measures", "settings", "judge", "unknown")
        for key in data:
            if key not in fields:
                raise InvalidInputError(f"{where}.{key}: a field ragmeter does not write")
        for key in ("producer", "measures", "settings", "unknown"):
            if key not in data:
                raise InvalidInputError(f"{where}.{key}: missing")
        unknown = data["unknown"]
        if not isinstance(unknown, list | tuple):
            raise InvalidInputError(f"{where}.unknown: expected a list of names")
        try:
            return cls(
                data["producer"],
                data.get("ragmeter_version"),
                data["measures"],
                data["settings"],
                data.get("judge"),
                tuple(unknown),
            )
        except (InvalidInputError, InputTypeError) as exc:
            raise InvalidInputError(f"{where}: {exc}") from None

    def __eq__(self, other: object) -> bool:
        """Equal saved forms (``verified`` is not compared)."""
        if not isinstance(other, Manifest):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


# -- comparability ----------------------------------------------------------------------------


def _manifest_of(values: Any, position: int) -> tuple[Manifest, str | None]:
    if isinstance(values, Manifest):
        return values, None
    manifest = getattr(values, "manifest", None)
    if not isinstance(manifest, Manifest):
        raise InputTypeError(
            f"check_comparable: argument {position} is a {type(values).__name__}; pass "
            "PerQueryResults or Manifest objects"
        )
    return manifest, getattr(values, "name", None)


def _same_numbers(key: str, a: Any, b: Any) -> bool:
    aliases = _SAME_NUMBERS.get(key, {})
    a, b = aliases.get(a, a), aliases.get(b, b)
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return not isinstance(b, bool) and float(a) == float(b)
    return type(a) is type(b) and bool(a == b)


def _difference(a: Any, b: Any, where: str = "") -> str | None:
    """Where two definitions (or identities) first differ, and how."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in dict.fromkeys([*a, *b]):
            if key not in a or key not in b:
                return f"{where}{key} (only one has it)"
            found = _difference(a[key], b[key], f"{where}{key}.")
            if found:
                return found
        return None
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _difference(x, y, f"{where.rstrip('.')}[{i}].")
            if found:
                return found
        return None
    if type(a) is type(b) and a == b:
        return None
    if isinstance(a, int | float) and isinstance(b, int | float) and float(a) == float(b):
        return None
    return f"{where.rstrip('.')}: {_thawed(a)!r} vs {_thawed(b)!r}"


def _shown_setting(value: Any) -> str:
    """A setting for messages: ``2`` for 2.0 (as ``-l 2`` was given), else its repr."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _why_unknown(manifest: Manifest, key: str) -> str:
    if key in manifest.unknown:
        return "its file was written before ragmeter recorded it"
    if "settings" in manifest.unknown:
        return f"values from {manifest.producer} record no settings"
    return f"{manifest.producer} does not record it"


def _compare_settings(
    first: Manifest,
    second: Manifest,
    labels: tuple[str, str],
    refused: list[str],
    notes: list[str],
) -> None:
    """A setting recorded on both sides with values that give other numbers is refused; one
    recorded on one side only is a note."""
    label_a, label_b = labels
    one_sided: dict[int, list[str]] = {0: [], 1: []}
    for key in dict.fromkeys([*first.settings, *second.settings]):
        if key in first.settings and key in second.settings:
            va, vb = first.settings[key], second.settings[key]
            if not _same_numbers(key, va, vb):
                refused.append(
                    f"they were evaluated with different {key} ({_shown_setting(va)} for "
                    f"{label_a}, {_shown_setting(vb)} for {label_b})"
                )
        else:
            side = 0 if key in first.settings else 1
            known, other = (first, second) if side == 0 else (second, first)
            shown = _shown_setting(known.settings[key])
            one_sided[side].append(f"{key}={shown} ({_why_unknown(other, key)})")
    for side, entries in one_sided.items():
        if entries:
            known_label, other_label = (label_a, label_b) if side == 0 else (label_b, label_a)
            notes.append(
                f"not recorded for {other_label}, so not checked against {known_label}: "
                + "; ".join(entries)
            )


def _compare_measures(
    first: Manifest,
    second: Manifest,
    labels: tuple[str, str],
    metrics: Iterable[str] | None,
    refused: list[str],
    notes: list[str],
) -> None:
    """A metric defined differently on the two sides is refused; one known on one side only
    is a note."""
    label_a, label_b = labels
    chosen = (
        [m for m in first.measures if m in second.measures] if metrics is None else list(metrics)
    )
    for metric in chosen:
        da, db = first.definition(metric), second.definition(metric)
        if da is not None and db is not None:
            difference = _difference(da, db)
            if difference:
                refused.append(
                    f"{metric!r} is not defined the same way ({difference}, {label_a} vs {label_b})"
                )
        elif (da is None) != (db is None):
            known_label = label_a if da is not None else label_b
            notes.append(f"the definition of {metric!r} is known for {known_label} only")


def _compare_origins(
    first: Manifest,
    second: Manifest,
    labels: tuple[str, str],
    refused: list[str],
    notes: list[str],
) -> None:
    """Judges that differ are refused; a judge known on one side, other versions and files
    without a checksum are notes."""
    label_a, label_b = labels
    if first.judge is not None and second.judge is not None:
        difference = _difference(first.judge, second.judge)
        if difference:
            refused.append(
                f"they were judged differently ({difference}, {label_a} vs {label_b}): a change "
                "of judge, model or prompt changes the scores by itself"
            )
    elif (first.judge is None) != (second.judge is None):
        known_label = label_a if first.judge is not None else label_b
        other = second if first.judge is not None else first
        if "judge" in other.unknown or other.producer in ("table", "mapping"):
            notes.append(f"only {known_label} says which judge scored it: not checked")
    if (
        first.ragmeter_version
        and second.ragmeter_version
        and first.ragmeter_version != second.ragmeter_version
    ):
        notes.append(
            f"{label_a} was computed by ragmeter {first.ragmeter_version}, {label_b} by "
            f"{second.ragmeter_version}"
        )
    for label, manifest in ((label_a, first), (label_b, second)):
        if manifest.verified is False:
            notes.append(
                f"the file of {label} carries no checksum (written before saved results had "
                "one): its values are unverified"
            )


def check_comparable(
    a: Any,
    b: Any,
    *,
    metrics: Iterable[str] | None = None,
    names: tuple[str, str] | None = None,
) -> list[str]:
    """Whether two sets of values mean the same thing, so that they can be compared value for
    value: refuse them if not, and return what could not be checked.

    The one rule every comparison applies (``compare``, ``compare_many``, the gate):

    * refused: a setting both manifests record with different values (``-l 2`` against ``-l
      1``; ``zero_division="warn"`` and ``0.0`` give the same numbers, and so do
      ``missing="raise"`` and ``"skip"``), a metric whose definition differs (recorded, or
      declared by its name for a ranking measure), judges whose identity differs;
    * reported (the notes returned, for the verdict): a setting recorded on one side only (the
      other side's file was written before it was recorded, or its values came from a table),
      a judge known on one side only, different ragmeter versions, values read from a file
      without a checksum.

    Parameters
    ----------
    a, b
        The two sets of values: :class:`~ragmeter.PerQueryResults` (their names name them in
        the messages) or :class:`Manifest` objects.
    metrics
        The metrics compared (default: those both record a definition of).
    names
        What to call ``a`` and ``b`` in messages (default: their names, else "the first" and
        "the second").

    Returns
    -------
    list of str
        The notes: what could not be checked, one sentence each.

    Raises
    ------
    InvalidInputError
        The values do not mean the same thing; the message names every setting, definition or
        judge that differs, with both values.

    Examples
    --------
    >>> base = Manifest("x", settings={"relevance_threshold": 2})
    >>> check_comparable(base, base.replace(settings={"relevance_threshold": 2.0}))
    []
    >>> try:
    ...     check_comparable(base, base.replace(settings={"relevance_threshold": 1}),
    ...                      names=("baseline", "candidate"))
    ... except ValueError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    baseline and candidate do not hold values that mean the same thing: they were evaluated \
with different relevance_threshold (2 for baseline, 1 for candidate)...
    """
    first, name_a = _manifest_of(a, 1)
    second, name_b = _manifest_of(b, 2)
    if names is None:
        names = (name_a or "the first", name_b or "the second")
        if names[0] == names[1]:
            names = (f"{names[0]} (first)", f"{names[1]} (second)")
    labels = names
    refused: list[str] = []
    notes: list[str] = []
    _compare_settings(first, second, labels, refused, notes)
    _compare_measures(first, second, labels, metrics, refused, notes)
    _compare_origins(first, second, labels, refused, notes)
    label_a, label_b = labels
    if refused:
        raise InvalidInputError(
            f"{label_a} and {label_b} do not hold values that mean the same thing: "
            + "; ".join(refused)
            + ". Evaluate both with the same settings, measure definitions and judges"
        )
    return notes
