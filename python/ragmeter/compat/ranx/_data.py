"""ranx's ``Qrels`` and ``Run`` (re-exported by :mod:`ragmeter.compat.ranx` and
``ragmeter.compat.ranx.data_structures``): ``{query_id: {doc_id: value}}`` mappings with
ranx's constructors, readers and writers."""

from __future__ import annotations

import io
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..._files import atomic_write_bytes, atomic_write_text
from ..._optional import import_optional
from ...exceptions import InputTypeError, InvalidInputError
from ...io import read_qrels, read_run
from ._arrays import plain
from ._kinds import file_kind

__all__ = ["Qrels", "Run"]


class _Judged:
    """A ``{query_id: {doc_id: value}}`` mapping with ranx's constructors."""

    # Set by each subclass: its reader, the keyword naming its value column, the file ranx's
    # save writes by default, the file kinds it writes and its TREC lines.
    _read: Any
    _value_column: str
    _default_file: str

    @staticmethod
    def _file_kind(path: str, kind: str | None) -> str:
        raise NotImplementedError

    def _trec_lines(self) -> list[str]:
        raise NotImplementedError

    def __init__(
        self, data: Mapping[Any, Mapping[Any, Any]] | None = None, name: str | None = None
    ):
        if data is not None and not isinstance(data, Mapping):
            raise InputTypeError(
                f"{type(self).__name__}: expected a dict {{query_id: {{doc_id: value}}}}, got "
                f"{type(data).__name__} (for ids and values in lists or arrays, use add_multi)"
            )
        self._data: dict[Any, dict[Any, Any]] = {}
        for query_id, docs in (data or {}).items():
            if not isinstance(docs, Mapping):
                raise InputTypeError(
                    f"{type(self).__name__}: query {query_id!r}: expected a dict "
                    f"{{doc_id: value}}, got {type(docs).__name__} (for ids and values in lists "
                    f"or arrays, use add_multi)"
                )
            self._data[query_id] = dict(docs)
        self.name = name
        #: Whether :meth:`sort` ordered the queries and documents (ranx's ``sorted``).
        self.sorted = False

    def add_score(self, q_id: Any, doc_id: Any, score: Any) -> None:
        """Set the value of one document of one query (ranx's ``add_score``)."""
        self._data.setdefault(plain(q_id), {})[plain(doc_id)] = plain(score)
        self.sorted = False

    def sort(self) -> None:
        """Order the queries by id and each query's documents by value, highest first (ranx's
        ``sort``; equal values keep their order, where ranx's order of ties is NumPy's
        quicksort's)."""
        self._data = {
            query_id: dict(sorted(self._data[query_id].items(), key=lambda item: -item[1]))
            for query_id in sorted(self._data)
        }
        self.sorted = True

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with ranx's columns ``q_id``, ``doc_id`` and ``score`` (needs
        ``ragmeter[pandas]``)."""
        pandas = import_optional("pandas", extra="pandas", purpose="to_dataframe")
        rows = [(q, d, v) for q, docs in self._data.items() for d, v in docs.items()]
        return pandas.DataFrame.from_dict(
            {
                "q_id": [q for q, _, _ in rows],
                "doc_id": [d for _, d, _ in rows],
                "score": [v for _, _, v in rows],
            }
        )

    @classmethod
    def from_parquet(
        cls,
        path: Any,
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        pd_kwargs: Mapping[str, Any] | None = None,
        name: str | None = None,
    ) -> Any:
        """From a Parquet file with ranx's default column names (read by ragmeter's Parquet
        reader; ``pd_kwargs``, pandas' options in ranx, are refused unless empty)."""
        if pd_kwargs:
            raise InvalidInputError(
                f"pd_kwargs: {sorted(pd_kwargs)} are pandas.read_parquet options, which the "
                "drop-in does not use (it reads Parquet itself); read the file with pandas and "
                "pass the DataFrame to from_df"
            )
        columns = {"query_col": q_id_col, "doc_col": doc_id_col, cls._value_column: score_col}
        return cls(cls._read(path, **columns), name=name)

    def save(self, path: str = "", kind: str | None = None) -> None:
        """Write the file ranx's ``save`` writes, atomically: JSON (indented by 2), TREC
        (a qrels or a run named by its ``name``), Parquet (``q_id``, ``doc_id``, ``score``) or,
        for a run, ranx's ``.lz4`` (``ragmeter[ranx]``); the kind from the suffix as ranx
        infers it, or ``kind``. As in ranx, the data are sorted first."""
        from_suffix = self._file_kind(path or self._default_file, kind)
        path = path or self._default_file
        if not self.sorted:
            self.sort()
        if from_suffix == "json":
            atomic_write_text(path, json.dumps(self.to_dict(), indent=2, ensure_ascii=False))
        elif from_suffix == "lz4":
            atomic_write_bytes(path, _lz4_bytes(self.to_dict()))
        elif from_suffix == "parquet":
            import_optional("pyarrow", extra="arrow", purpose="save as Parquet")
            buffer = io.BytesIO()
            self.to_dataframe().to_parquet(buffer, index=False)
            atomic_write_bytes(path, buffer.getvalue())
        else:
            atomic_write_text(path, "\n".join(self._trec_lines()))

    def add(self, q_id: Any, doc_ids: Iterable[Any], scores: Iterable[Any]) -> None:
        """Set the values of a query's documents (ranx's ``add``)."""
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(
        self,
        q_ids: Iterable[Any],
        doc_ids: Iterable[Iterable[Any]],
        scores: Iterable[Iterable[Any]],
    ) -> None:
        """Set the values of several queries at once (ranx's ``add_multi``): ``doc_ids[i]``
        and ``scores[i]`` are the documents and values of ``q_ids[i]`` (lists or NumPy
        arrays, of the same lengths)."""
        queries, docs, values = list(q_ids), list(doc_ids), list(scores)
        if not len(queries) == len(docs) == len(values):
            raise InvalidInputError(
                f"add_multi: {len(queries)} query ids, {len(docs)} lists of doc ids and "
                f"{len(values)} lists of scores; give one list of each per query"
            )
        for query_id, query_docs, query_values in zip(queries, docs, values, strict=True):
            query_docs, query_values = list(query_docs), list(query_values)
            if len(query_docs) != len(query_values):
                raise InvalidInputError(
                    f"add_multi: query {query_id!r} has {len(query_docs)} doc ids and "
                    f"{len(query_values)} scores"
                )
            judged = self._data.setdefault(plain(query_id), {})
            for doc_id, value in zip(query_docs, query_values, strict=True):
                judged[plain(doc_id)] = plain(value)

    @property
    def size(self) -> int:
        """The number of queries (ranx's ``size``)."""
        return len(self._data)

    @classmethod
    def from_dict(cls, data: Mapping[Any, Mapping[Any, Any]], name: str | None = None) -> Any:
        """From ``{query_id: {doc_id: value}}``."""
        return cls(data, name=name)

    @classmethod
    def from_file(cls, path: Any, kind: str | None = None, name: str | None = None) -> Any:
        """From a file: TREC (plain or compressed), JSON, Parquet, Arrow IPC, CSV or TSV, told
        apart by content (``kind`` is accepted for ranx's signature and not needed)."""
        if kind == "lz4" or str(path).endswith(".lz4"):
            return cls(_read_lz4(path), name=name)
        return cls(cls._read(path), name=name)

    @classmethod
    def from_df(
        cls,
        df: Any,
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        name: str | None = None,
    ) -> Any:
        """From a DataFrame (or any Arrow table) with ranx's default column names."""
        columns = {"query_col": q_id_col, "doc_col": doc_id_col, cls._value_column: score_col}
        return cls(cls._read(df, **columns), name=name)

    def to_typed_list(self) -> list[np.ndarray]:
        """ranx's array form: one array of rows ``[doc_id, value]`` per query, queries in
        sorted order, rows by value descending (ties in insertion order), as ranx's
        ``to_typed_list`` orders them (object arrays: ids stay str)."""
        out = []
        for query_id in self.get_query_ids():
            docs = sorted(self._data[query_id].items(), key=lambda item: -float(item[1]))
            out.append(np.array([[d, v] for d, v in docs], dtype=object).reshape(-1, 2))
        return out

    def to_dict(self) -> dict[Any, dict[Any, Any]]:
        """The mapping, ``{query_id: {doc_id: value}}``."""
        return {q: dict(d) for q, d in self._data.items()}

    def get_query_ids(self) -> list[Any]:
        """The query ids in ranx's order (sorted)."""
        return sorted(self._data)

    def keys(self) -> Any:
        return self._data.keys()

    def __getitem__(self, query_id: Any) -> dict[Any, Any]:
        return self._data[query_id]

    def __contains__(self, query_id: object) -> bool:
        return query_id in self._data

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} queries, name={self.name!r})"


def _read_lz4(path: Any) -> dict[Any, dict[Any, Any]]:
    """ranx's ``.lz4`` file: LZ4 frames holding the CBOR of ``{query_id: {doc_id: value}}``
    (ranx's ``save_lz4``)."""
    lz4_frame = import_optional("lz4.frame", extra="ranx", purpose="reading ranx's .lz4 files")
    cbor2 = import_optional("cbor2", extra="ranx", purpose="reading ranx's .lz4 files")
    try:
        with lz4_frame.open(path, mode="r") as file:
            content = cbor2.loads(lz4_frame.decompress(file.read()))
    except OSError as error:
        raise InvalidInputError(f"path: cannot read the ranx .lz4 file {path}: {error}") from None
    except Exception as error:  # lz4's and cbor2's own errors: not a ranx .lz4 file
        raise InvalidInputError(
            f"path: {path} is not a ranx .lz4 file (LZ4 frames of CBOR): {error}"
        ) from None
    if not isinstance(content, dict) or not all(isinstance(v, dict) for v in content.values()):
        raise InvalidInputError(
            f"path: {path} does not hold {{query_id: {{doc_id: value}}}} (ranx's .lz4 layout)"
        )
    return content


def _lz4_bytes(data: Mapping[Any, Any]) -> bytes:
    """ranx's ``save_lz4``: the CBOR of ``data`` in LZ4 frames."""
    lz4_frame = import_optional("lz4.frame", extra="ranx", purpose="writing ranx's .lz4 files")
    cbor2 = import_optional("cbor2", extra="ranx", purpose="writing ranx's .lz4 files")
    compressed: bytes = lz4_frame.compress(lz4_frame.compress(cbor2.dumps(data)))
    return compressed


class Qrels(_Judged):
    """ranx's ``Qrels``: judgments ``{query_id: {doc_id: grade}}``.

    Examples
    --------
    >>> Qrels({"q1": {"d1": 1}}).to_dict()
    {'q1': {'d1': 1}}
    """

    _read = staticmethod(read_qrels)
    _value_column = "relevance_col"

    _default_file = "qrels.json"

    @property
    def qrels(self) -> dict[Any, dict[Any, Any]]:
        """The judgments, ``{query_id: {doc_id: grade}}`` (ranx's ``qrels.qrels``)."""
        return self._data

    @qrels.setter
    def qrels(self, data: Mapping[Any, Mapping[Any, Any]]) -> None:
        self._data = {q: dict(d) for q, d in data.items()}

    def set_relevance_level(self, rel_lvl: int = 1) -> None:
        """Subtract ``rel_lvl - 1`` from every grade (ranx's ``set_relevance_level``: a grade
        of ``rel_lvl`` becomes 1, the lowest relevant grade)."""
        for docs in self._data.values():
            for doc_id in docs:
                docs[doc_id] = docs[doc_id] - (rel_lvl - 1)

    @staticmethod
    def _file_kind(path: str, kind: str | None) -> str:
        return file_kind(path, kind, ("json", "trec", "gz", "parquet"))

    def _trec_lines(self) -> list[str]:
        return [f"{q} 0 {d} {v}" for q, docs in self._data.items() for d, v in docs.items()]


class Run(_Judged):
    """ranx's ``Run``: rankings ``{query_id: {doc_id: score}}``; :func:`evaluate` saves each
    metric's per-query values in ``scores`` and its mean in ``mean_scores`` (and ``std_scores``
    with ``return_std=True``).

    Examples
    --------
    >>> run = Run({"q1": {"d1": 0.9, "d2": 0.1}}, name="bm25")
    >>> run.name, len(run)
    ('bm25', 1)
    """

    _read = staticmethod(read_run)
    _value_column = "score_col"

    def __init__(
        self, data: Mapping[Any, Mapping[Any, Any]] | None = None, name: str | None = None
    ):
        super().__init__(data, name=name)
        self.scores: defaultdict[str, dict[Any, float]] = defaultdict(dict)
        self.mean_scores: dict[str, float] = {}
        self.std_scores: dict[str, float] = {}

    _default_file = "run.json"

    @property
    def run(self) -> dict[Any, dict[Any, Any]]:
        """The rankings, ``{query_id: {doc_id: score}}`` (ranx's ``run.run``)."""
        return self._data

    @run.setter
    def run(self, data: Mapping[Any, Mapping[Any, Any]]) -> None:
        self._data = {q: dict(d) for q, d in data.items()}

    @staticmethod
    def _file_kind(path: str, kind: str | None) -> str:
        return file_kind(path, kind, ("json", "trec", "lz4", "gz", "parquet"))

    def _trec_lines(self) -> list[str]:
        return [
            f"{q} Q0 {d} {rank + 1} {v} {self.name}"
            for q, docs in self._data.items()
            for rank, (d, v) in enumerate(docs.items())
        ]

    def make_comparable(self, qrels: Any) -> Run:
        """The run on the judged queries only: empty rankings for those it lacks, its other
        queries dropped (ranx's ``make_comparable``)."""
        judged = qrels.keys() if isinstance(qrels, Mapping | Qrels) else dict(qrels).keys()
        return Run({q: self._data.get(q, {}) for q in judged}, name=self.name)
