"""Type stubs of the private native module ``ragmeter._core`` (users import ``ragmeter``)."""

from collections.abc import Callable, Sequence
from typing import Any, final

import numpy as np
import numpy.typing as npt

__version__: str
MAX_THREADS: int
MIN_GEO_MEAN: float

def pool_threads(n_threads: int | None = None) -> int: ...

# A measure for the core: kernel name, cutoff, numeric parameters, gain pairs (None: the
# kernel's default gains), relevance threshold (None: the call's).
_MeasureArgs = tuple[
    str, int | None, Sequence[float], Sequence[tuple[int, float]] | None, float | None
]

def measure_kernels() -> list[tuple[str, str, str, bool]]: ...

@final
class Measures:
    def __new__(cls, measures: list[_MeasureArgs]) -> Measures: ...
    def __len__(self) -> int: ...
    def needs_all_judged(self, judged_only: bool = False) -> bool: ...

def trec_order(query_ids: list[Any]) -> npt.NDArray[np.intp] | None: ...

# A column of a table of values (rust/py/columns.rs): (kind, kernel, length, judged_only,
# reset_if_missing, complete_summary_kernel), kind "kernel" (with its measure), "runid", "num_q"
# or "relstring" (with its length).
_ColumnArgs = tuple[str, _MeasureArgs | None, int, bool, bool, _MeasureArgs | None]

@final
class Columns:
    def __new__(cls, columns: list[_ColumnArgs]) -> Columns: ...
    def __len__(self) -> int: ...

@final
class ValueTable:
    @staticmethod
    def from_arrays(
        numbers: npt.NDArray[np.float64],
        texts: dict[int, list[str]],
        complete_totals: dict[int, npt.NDArray[np.float64]],
    ) -> ValueTable: ...
    @property
    def n_queries(self) -> int: ...
    def undefined_counts(self) -> list[int]: ...
    def numbers(self) -> npt.NDArray[np.float64]: ...
    def texts(self) -> dict[int, list[str]]: ...
    def complete_totals(self) -> dict[int, npt.NDArray[np.float64]]: ...
    # columns: (name, column, shown, summary, undefined value, per_query), shown "float",
    # "int", "text" or "quoted".
    def write_trec_report(
        self,
        topics: list[str],
        columns: list[tuple[str, int, str, str, float, bool]],
        per_topic: bool,
        summary: bool,
        write: Callable[[bytes], object],
    ) -> list[int]: ...

def sequential_column_sums(
    numbers: npt.NDArray[np.float64], order: npt.NDArray[np.intp]
) -> list[float]: ...
def sequential_sum(values: npt.NDArray[np.float64]) -> float: ...
def geometric_mean(values: npt.NDArray[np.float64]) -> float: ...

@final
class PreparedRankings:
    @property
    def n_queries(self) -> int: ...
    @property
    def all_judged(self) -> bool: ...
    @property
    def has_subtopics(self) -> bool: ...
    def retrieved(self) -> npt.NDArray[np.uint32]: ...
    def judged_count(self) -> npt.NDArray[np.uint32]: ...
    def evaluate_columns(
        self,
        columns: Columns,
        relevance_threshold: float,
        missing: list[bool] | None,
        complete: bool,
        run_tag: str | None,
        n_threads: int | None = None,
    ) -> ValueTable: ...

def prepare_rankings(
    query_ids: list[Any],
    judgments: list[Any],
    rankings: list[Any],
    *,
    duplicates_first: bool = False,
    max_docs: int | None = None,
    all_judged: bool = False,
    n_threads: int | None = None,
) -> PreparedRankings: ...
def prepare_rankings_in_order(
    query_ids: list[Any],
    judgments: dict[Any, Any],
    rankings: dict[Any, Any],
    *,
    duplicates_first: bool = False,
    max_docs: int | None = None,
    all_judged: bool = False,
    n_threads: int | None = None,
) -> PreparedRankings | None: ...
def prepare_trec(
    qrels_path: str,
    run_path: str,
    *,
    duplicates_first: bool = False,
    max_docs: int | None = None,
    all_judged: bool = False,
    n_threads: int | None = None,
) -> tuple[PreparedRankings, list[str], list[bool], list[str], str | None]: ...
def read_trec(
    path: str, kind: str, *, n_threads: int | None = None
) -> dict[str, dict[str, Any]]: ...

# Tables in long format (rust/py/table.rs): objects with the Arrow PyCapsule interface. A table's
# columns: (argument, source, query column, doc column, value column, rank column or None).
_ColumnSpec = tuple[str, str, str, str, str, str | None]

def prepare_tables(
    qrels: object,
    run: object,
    qrels_columns: _ColumnSpec,
    run_columns: _ColumnSpec,
    *,
    duplicates_first: bool = False,
    max_docs: int | None = None,
    all_judged: bool = False,
    n_threads: int | None = None,
) -> tuple[PreparedRankings, list[Any], list[bool], list[Any]]: ...
def read_table_dict(
    source: object, columns: _ColumnSpec, kind: str, *, n_threads: int | None = None
) -> dict[Any, dict[Any, Any]]: ...
def max_decompressed_bytes(limit: int | None = None) -> int: ...

# Edit distance and answer metrics (rust/py/edit.rs). Strings are borrowed as UTF-8; lists are
# checked item by item in Rust. Normaliser names: "none", "basic", "squad".
def normalize_text(text: object, normalize_name: str) -> str: ...
def edit_count(a: object, b: object, normalize_name: str) -> tuple[int, int]: ...
def edit_pairwise(
    a: list[Any],
    b: list[Any],
    measure_name: str,
    normalize_name: str,
    n_threads: int | None = None,
) -> npt.NDArray[Any]: ...
def edit_one_to_many(
    query: object,
    choices: list[Any],
    measure_name: str,
    normalize_name: str,
    n_threads: int | None = None,
) -> npt.NDArray[Any]: ...
def edit_rank(
    query: object,
    choices: list[Any],
    normalize_name: str,
    limit: int | None,
    score_cutoff: float,
    n_threads: int | None = None,
) -> tuple[list[int], list[int], list[float]]: ...
def answer_scores(
    references: list[Any],
    answers: list[Any],
    metric_name: str,
    normalize_name: str,
    threshold: float,
    n_threads: int | None = None,
) -> npt.NDArray[np.float64]: ...
def edit_backend() -> tuple[str, str]: ...

# Paired randomisation tests (rust/py/signflip.rs).
def sign_flip_test(
    differences: npt.NDArray[np.float64],
    *,
    exact: bool,
    n_resamples: int,
    seed: int,
    alternative: str = "two-sided",
    n_threads: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint64], int]: ...
def bootstrap_mean_differences(
    differences: npt.NDArray[np.float64],
    *,
    n_resamples: int,
    seed: int,
    n_threads: int | None = None,
) -> npt.NDArray[np.float64]: ...
def sign_flip_pairs(
    values: npt.NDArray[np.float64],
    pairs: npt.NDArray[np.uint64],
    *,
    exact: bool,
    n_resamples: int,
    seed: int,
    alternative: str = "two-sided",
    n_threads: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint64], int]: ...
def bootstrap_pairs(
    values: npt.NDArray[np.float64],
    pairs: npt.NDArray[np.uint64],
    *,
    n_resamples: int,
    seed: int,
    confidence_level: float,
    alternative: str = "two-sided",
    n_threads: int | None = None,
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.uint64],
    npt.NDArray[np.uint64],
]: ...

# Agreement between two runs (rust/py/agreement.rs).
def rank_biased_overlap(
    query_ids: list[Any],
    rankings_a: list[list[Any]],
    rankings_b: list[list[Any]],
    *,
    p: float,
    depth: int | None = None,
    tops_a: npt.NDArray[np.uint32] | None = None,
    tops_b: npt.NDArray[np.uint32] | None = None,
    n_threads: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def top_k_overlaps(
    query_ids: list[Any],
    rankings_a: list[list[Any]],
    rankings_b: list[list[Any]],
    depths: list[int],
    *,
    n_threads: int | None = None,
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...

# Randomisation tests of many systems (rust/py/randomised.rs).
def randomised_tukey(
    scores: npt.NDArray[np.float64],
    *,
    exact: bool,
    n_resamples: int,
    seed: int,
    n_threads: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint64], int]: ...
def westfall_young(
    differences: npt.NDArray[np.float64],
    *,
    statistic: str,
    exact: bool,
    n_resamples: int,
    seed: int,
    n_threads: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], int]: ...

# BM25 over term-major postings (rust/py/bm25.rs).
def bm25_postings(
    doc_offsets: npt.NDArray[np.uintp],
    term_ids: npt.NDArray[np.uint32],
    n_terms: int,
    n_threads: int | None = None,
) -> tuple[
    npt.NDArray[np.uintp], npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]
]: ...
def bm25_idf(
    offsets: npt.NDArray[np.uintp],
    docs: npt.NDArray[np.uint32],
    tfs: npt.NDArray[np.uint32],
    doc_lengths: npt.NDArray[np.uint32],
    variant: str,
    n_threads: int | None = None,
) -> npt.NDArray[np.float64]: ...
def bm25_top_k(
    offsets: npt.NDArray[np.uintp],
    docs: npt.NDArray[np.uint32],
    tfs: npt.NDArray[np.uint32],
    doc_lengths: npt.NDArray[np.uint32],
    idf: npt.NDArray[np.float64],
    query_offsets: npt.NDArray[np.uintp],
    query_terms: npt.NDArray[np.uint32],
    *,
    k1: float,
    b: float,
    delta: float,
    variant: str,
    k: int,
    min_score: float,
    n_threads: int | None = None,
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.uint32], npt.NDArray[np.float64]]: ...

# Fusion of runs (rust/py/fusion.rs).
def fuse_runs(
    runs: list[list[dict[str, float] | None]],
    query_ids: list[str],
    run_names: list[str],
    *,
    method: str,
    norm: str | None,
    params: dict[str, Any],
    n_threads: int | None = None,
) -> tuple[npt.NDArray[np.uint64], list[str], npt.NDArray[np.float64]]: ...

@final
class FusionRuns:
    def __len__(self) -> int: ...

def prepare_fusion_runs(
    runs: list[list[dict[str, float] | None]],
    query_ids: list[str],
    run_names: list[str],
    *,
    n_threads: int | None = None,
) -> FusionRuns: ...

@final
class FusedRows:
    def __len__(self) -> int: ...
    def offsets(self) -> npt.NDArray[np.uint64]: ...
    def doc_ids(self) -> list[str]: ...
    def scores(self) -> npt.NDArray[np.float64]: ...
    def to_dict(self, query_ids: list[str]) -> dict[str, dict[str, float]]: ...

def fuse_prepared(
    prepared: FusionRuns,
    *,
    method: str,
    norm: str | None,
    params: dict[str, Any],
    n_threads: int | None = None,
) -> FusedRows: ...
def train_fusion(
    runs: list[list[dict[str, float] | None]],
    relevant: list[list[str]],
    query_ids: list[str],
    run_names: list[str],
    *,
    training: str,
    norm: str | None,
    n_segments: int | None = None,
    n_threads: int | None = None,
) -> list[list[float]]: ...
