"""trec_eval's ``-Z FILE``: per-topic values as z-scores against a reference mean and
standard deviation per topic and measure (``convert_zscores.c`` and ``get_zscores.c`` of
trec_eval 10), then summarised over topics as trec_eval summarises the raw values.

The file has one line per topic and measure, ``topic measure mean stddev`` (whitespace
separated; trec_eval's ``test/zscores_file``). A value whose topic or measure the file lacks
becomes trec_eval's ``MISSING_ZSCORE_VALUE`` (-1000000), as does a value other than the mean
where the standard deviation is 0; the mean itself there is 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from .._files import trec_fields
from ..exceptions import InvalidInputError
from ..ranking.columns import MIN_GEO_MEAN
from ..ranking.names import Measure

__all__ = [
    "MISSING_ZSCORE_VALUE",
    "ZScores",
    "per_topic_value",
    "read_zscores",
    "zscore",
    "zscored_summary",
]

#: trec_eval's value of a z-score without a reference (``MISSING_ZSCORE_VALUE``).
MISSING_ZSCORE_VALUE = -1000000.0

#: ``{(topic, measure): (mean, stddev)}``
ZScores = Mapping[tuple[str, str], tuple[float, float]]


def read_zscores(path: Path) -> dict[tuple[str, str], tuple[float, float]]:
    """The references of a z-score file, refusing a line without exactly four fields or with
    a mean or deviation that is not a number (file:line in the message)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInputError(f"-Z: cannot read the z-score file {path}: {error}") from None
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        fields = trec_fields(line)
        if not fields:
            continue
        if len(fields) != 4:
            raise InvalidInputError(
                f"-Z: {path}:{number}: expected 'topic measure mean stddev', got {line!r}"
            )
        try:
            mean, stddev = float(fields[2]), float(fields[3])
        except ValueError:
            raise InvalidInputError(
                f"-Z: {path}:{number}: the mean and standard deviation must be numbers, got "
                f"{fields[2]!r} and {fields[3]!r}"
            ) from None
        table[(fields[0], fields[1])] = (mean, stddev)
    if not table:
        raise InvalidInputError(f"-Z: the z-score file {path} has no line")
    return table


def zscore(value: float, reference: tuple[float, float] | None) -> float:
    """One value as trec_eval converts it."""
    if reference is None:
        return MISSING_ZSCORE_VALUE
    mean, stddev = reference
    if stddev:
        return (value - mean) / stddev
    return 0.0 if value == mean else MISSING_ZSCORE_VALUE


def per_topic_value(measure: Measure, value: float) -> float:
    """The per-topic value trec_eval converts: the value, or for a geometric mean (gm_map,
    gm_bpref) its log(max(value, MIN_GEO_MEAN)), the value trec_eval stores per topic."""
    if measure.family.summary == "geometric":
        return math.log(value if value > MIN_GEO_MEAN else MIN_GEO_MEAN)
    return value


def zscored_summary(measure: Measure, ordered: list[float]) -> float:
    """The summary of z-scores in trec_eval's topic order, added one by one as trec_eval does:
    the mean, the sum for counts, the geometric mean for gm_*; the number of topics for
    num_q."""
    summary = measure.family.summary
    if summary == "count":
        return float(len(ordered))
    if summary == "geometric":
        # trec_eval's per-topic value of gm_* is already log(max(value, MIN_GEO_MEAN)) (see
        # per_topic_value): the z-scores of the logs are averaged and exponentiated.
        total = 0.0
        for v in ordered:
            total += v
        return math.exp(total / len(ordered)) if ordered else 0.0
    total = 0.0
    for v in ordered:
        total += v
    if summary == "sum":
        return total
    return total / len(ordered) if ordered else 0.0
