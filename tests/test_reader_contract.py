"""The reader contract, run against every format ragmeter reads (``FORMATS``, each compression
and encoding, see ``_hostile_files.VARIANTS``): a damaged, cut, changed or odd file is either
read with exactly the values of the intact file or refused with a RagmeterError naming it,
never a crash, another library's exception or other values.

* truncation at seeded points: refused or equal, where the format can tell a cut file from a
  shorter one (every format but plain text: a TREC, CSV or TSV file cut at a line end is a
  valid shorter file);
* seeded byte flips: refused or equal where the format verifies all of its content (gzip,
  bzip2 and xz CRCs, zstd content checksums, Parquet page CRCs); elsewhere no crash and only
  RagmeterErrors;
* nulls in each column, plain and dictionary-encoded (a null key and a null dictionary value);
  a needed column named twice; a needed column missing;
* a file that changes (cut, or replaced) after it was opened and before its batches are read.

Reads that go through pyarrow's C++ decoders run in a subprocess (one per variant), where a
crash is a failure naming the case instead of the end of the test run; the others run here.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import textwrap
from functools import cache
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.feather
import pyarrow.parquet as pq
import pytest
from _hostile_files import CHANGES, RUN, VARIANTS, Variant, run_table, xxh64

import ragmeter
import ragmeter.io as rio
from ragmeter import RagmeterError
from ragmeter.io._formats import FORMATS

#: Variants read through pyarrow's C++ decoders: hostile reads run in a subprocess.
IN_SUBPROCESS = {"parquet", "ipc", "csv", "tsv"}

N_TRUNCATIONS = 12
N_FLIPS = 40
SEED = 25


def test_every_format_has_a_variant():
    assert {v.format for v in VARIANTS} == {f.name for f in FORMATS if f.reads_as}


def test_xxh64_matches_the_published_value_of_the_empty_input():
    # (Longer inputs are checked by the decoder: the zstd variants' intact files, whose
    # checksums come from this function, must read back; see outcomes().)
    assert xxh64(b"") == 0xEF46DB3751D8E999


def detects_truncation(variant: Variant) -> bool:
    """Whether a cut file is distinguishable from a shorter valid one: not so for plain text,
    cut at a line end (a compressed file of several members or frames cut between two is
    valid too, but no seeded cut lands there)."""
    return variant.name not in ("trec", "csv", "tsv")


def cases(variant: Variant, intact: bytes) -> list[tuple[str, bytes]]:
    rng = random.Random(f"{SEED}-{variant.name}")
    n = len(intact)
    out = [(f"cut at {k}", intact[:k]) for k in sorted(rng.sample(range(1, n), N_TRUNCATIONS))]
    out.append((f"cut at {n - 1}", intact[: n - 1]))
    for _ in range(N_FLIPS):
        at, bit = rng.randrange(n), rng.randrange(8)
        flipped = bytearray(intact)
        flipped[at] ^= 1 << bit
        out.append((f"flip bit {bit} of byte {at}", bytes(flipped)))
    return out


#: Runs the cases of one variant: a line "start i" before case i, then its outcome as JSON.
WORKER = textwrap.dedent(
    """
    import json, sys
    import ragmeter.io as rio
    from ragmeter import RagmeterError
    path, cases_file, intact_file = sys.argv[1:4]
    cases = json.load(open(cases_file))
    intact = json.load(open(intact_file))
    for i, data in enumerate(cases):
        print("start", i, flush=True)
        open(path, "wb").write(bytes.fromhex(data))
        try:
            got = rio.read_run(path)
        except RagmeterError as error:
            outcome = ("refused", str(error)[:300])
        except BaseException as error:
            outcome = ("foreign", f"{type(error).__name__}: {error}"[:300])
        else:
            got = {q: {d: float(s) for d, s in docs.items()} for q, docs in got.items()}
            outcome = ("same", "") if got == intact else ("other", str(got)[:300])
        print(json.dumps([i, *outcome]), flush=True)
    """
)


def read_outcome(path: Path, intact: dict) -> tuple[str, str]:
    try:
        got = rio.read_run(path)
    except RagmeterError as error:
        return "refused", str(error)
    except Exception as error:  # the contract's failure: reported, not raised
        return "foreign", f"{type(error).__name__}: {error}"
    got = {q: {d: float(s) for d, s in docs.items()} for q, docs in got.items()}
    return ("same", "") if got == intact else ("other", str(got)[:300])


@cache
def outcomes(name: str, folder: str) -> dict[str, tuple[str, str]]:
    """The outcome of every hostile case of the variant ``name``, by case label."""
    variant = next(v for v in VARIANTS if v.name == name)
    path = variant.path(Path(folder))
    variant.write(path)
    intact_bytes = path.read_bytes()
    intact = {q: {d: float(s) for d, s in docs.items()} for q, docs in rio.read_run(path).items()}
    assert intact == RUN, f"{name}: the intact file does not read as the run it holds"
    labelled = cases(variant, intact_bytes)
    results: dict[str, tuple[str, str]] = {}
    if variant.format not in IN_SUBPROCESS:
        for label, data in labelled:
            path.write_bytes(data)
            results[label] = read_outcome(path, intact)
        return results
    cases_file, intact_file = Path(folder) / "cases.json", Path(folder) / "intact.json"
    cases_file.write_text(json.dumps([data.hex() for _, data in labelled]))
    intact_file.write_text(json.dumps(intact))
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(path), str(cases_file), str(intact_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    started = None
    for line in done.stdout.splitlines():
        if line.startswith("start "):
            started = int(line.split()[1])
            continue
        i, outcome, message = json.loads(line)
        results[labelled[i][0]] = (outcome, message)
        started = None
    if started is not None:
        results[labelled[started][0]] = ("crash", f"exit {done.returncode}: {done.stderr[-500:]}")
    return results


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return {v.name: str(tmp_path_factory.mktemp(v.name.replace(".", "-"))) for v in VARIANTS}


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_a_cut_file_is_refused_or_read_whole(variant, folders):
    results = outcomes(variant.name, folders[variant.name])
    cut = {k: v for k, v in results.items() if k.startswith("cut")}
    allowed = {"refused", "same"} if detects_truncation(variant) else {"refused", "same", "other"}
    bad = {k: v for k, v in cut.items() if v[0] not in allowed}
    assert not bad, f"{variant.name}: {bad}"


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_a_flipped_bit_is_refused_or_read_as_before(variant, folders):
    results = outcomes(variant.name, folders[variant.name])
    flips = {k: v for k, v in results.items() if k.startswith("flip")}
    allowed = {"refused", "same"} if variant.verified else {"refused", "same", "other"}
    bad = {k: v for k, v in flips.items() if v[0] not in allowed}
    assert not bad, f"{variant.name}: {bad}"
    if variant.verified:
        # The checks are not vacuous: most flips are refused.
        assert sum(v[0] == "refused" for v in flips.values()) > len(flips) // 2


# -- nulls, duplicate and missing columns -----------------------------------------------------


def encodings(values: list, column: str) -> dict[str, pa.Array]:
    """``values`` (holding one None) in each encoding a column of ``column`` may have."""
    if column == "score":
        return {
            "float64": pa.array(values, pa.float64()),
            "float32": pa.array(values, pa.float32()),
        }
    with_null = pa.array(values, pa.string())
    return {
        "utf8": with_null,
        "large_utf8": pa.array(values, pa.large_string()),
        "string_view": pa.array(values, pa.string_view()),
        # A null key (the usual dictionary encoding of a null) and a null stored in the
        # dictionary's values, referenced by a valid key.
        "dictionary-null-key": with_null.dictionary_encode(),
        "dictionary-null-value": with_null.dictionary_encode(null_encoding="encode"),
    }


def table_writers() -> dict[str, object]:
    def parquet(table, path):
        pq.write_table(table, path)

    def feather(table, path):
        pyarrow.feather.write_feather(table, path, compression="uncompressed")

    def stream(table, path):
        with pa.OSFile(os.fspath(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as o:
            o.write_table(table)

    return {"table": None, ".parquet": parquet, ".arrow": feather, ".arrows": stream}


def read_as(table: pa.Table, suffix: str, folder: Path):
    writer = table_writers()[suffix]
    if writer is None:
        return rio.read_run(table)
    path = folder / f"run{suffix}"
    writer(table, path)  # type: ignore[operator]
    return rio.read_run(path)


NULL_CASES = [
    (column, encoding)
    for column in ("query_id", "doc_id", "score")
    for encoding in encodings([None], column)
]


#: Parquet stores no null inside a dictionary (pyarrow refuses to write one) and reads a
#: string_view column back as plain strings: those pairs do not exist as Parquet files.
NOT_IN_PARQUET = {"dictionary-null-value", "string_view"}


@pytest.mark.parametrize(
    ("column", "encoding", "where"),
    [
        (column, encoding, where)
        for column, encoding in NULL_CASES
        for where in table_writers()
        if not (where == ".parquet" and encoding in NOT_IN_PARQUET)
    ],
)
def test_a_null_in_any_column_and_encoding_is_refused(column, encoding, where, tmp_path):
    table = run_table()
    values = table[column].to_pylist()
    values[7] = None
    array = encodings(values, column)[encoding]
    table = table.set_column(table.schema.get_field_index(column), column, array)
    with pytest.raises(RagmeterError, match=f"column '{column}' holds 1 null value"):
        read_as(table, where, tmp_path)


def duplicate(table: pa.Table, column: str) -> pa.Table:
    index = table.schema.get_field_index(column)
    other = pa.array([1.0] * len(table)) if column == "score" else pa.array(["x"] * len(table))
    return pa.Table.from_arrays(
        [*table.columns, other], names=[*table.column_names, table.column_names[index]]
    )


@pytest.mark.parametrize("where", [*table_writers(), ".csv", ".tsv"])
@pytest.mark.parametrize("column", ["query_id", "doc_id", "score"])
def test_a_needed_column_named_twice_is_refused_naming_it(column, where, tmp_path):
    table = duplicate(run_table(), column)
    if where in (".csv", ".tsv"):
        path = tmp_path / f"run{where}"
        delimiter = "," if where == ".csv" else "\t"
        pacsv.write_csv(table, path, write_options=pacsv.WriteOptions(delimiter=delimiter))
        call = lambda: rio.read_run(path)  # noqa: E731
    else:
        call = lambda: read_as(table, where, tmp_path)  # noqa: E731
    with pytest.raises(RagmeterError, match=f"2 columns named '{column}'"):
        call()


@pytest.mark.parametrize("where", [*table_writers(), ".csv"])
def test_a_missing_column_is_refused_naming_it(where, tmp_path):
    table = run_table().drop_columns(["doc_id"])
    if where == ".csv":
        path = tmp_path / "run.csv"
        pacsv.write_csv(table, path)
        call = lambda: rio.read_run(path)  # noqa: E731
    else:
        call = lambda: read_as(table, where, tmp_path)  # noqa: E731
    with pytest.raises(RagmeterError, match="no column 'doc_id'"):
        call()


# -- a file that changes while it is read ----------------------------------------------------

#: Opens each table variant, changes the file (CHANGES of _hostile_files), then reads the
#: batches; one JSON line per case ("start" first, so a crash names its case).
CHANGED_WORKER = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    from _hostile_files import CHANGES, RUN, VARIANTS
    from ragmeter import RagmeterError, _core
    from ragmeter._inputs import TableColumns
    from ragmeter.io._formats import detect
    folder = Path(sys.argv[1])
    for variant in VARIANTS:
        if not variant.table:
            continue
        for change_name, change in CHANGES.items():
            case = f"{variant.name}-{change_name}"
            print("start", case, flush=True)
            path = variant.path(folder / case)
            path.parent.mkdir()
            variant.write(path)
            columns = TableColumns()
            reader = detect(path, columns).open(os.fspath(path), columns, "run")
            change(path)
            spec = columns.spec("run", os.fspath(path), "run")
            try:
                got = _core.read_table_dict(reader, spec, "run")
            except RagmeterError as error:
                outcome = ("refused", str(error)[:300])
            except BaseException as error:
                outcome = ("foreign", f"{type(error).__name__}: {error}"[:300])
            else:
                got = {q: {d: float(s) for d, s in docs.items()} for q, docs in got.items()}
                outcome = ("same", "") if got == RUN else ("other", str(got)[:300])
            print(json.dumps([case, *outcome]), flush=True)
    """
)


#: Variants read whole when they are opened (an IPC stream into memory; a CSV or TSV file's
#: first block of 16 MiB, all of these small files): later changes cannot reach the values.
SNAPSHOT = {"ipc-stream", "csv", "tsv", "csv.gz"}


@cache
def changed_outcomes(folder: str) -> dict[str, tuple[str, str]]:
    tests = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run(
        [sys.executable, "-c", CHANGED_WORKER, folder],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")]),
        },
    )
    results: dict[str, tuple[str, str]] = {}
    started = None
    for line in done.stdout.splitlines():
        if line.startswith("start "):
            started = line.split(maxsplit=1)[1]
            continue
        case, outcome, message = json.loads(line)
        results[case] = (outcome, message)
        started = None
    if started is not None:
        results[started] = ("crash", f"exit {done.returncode}: {done.stderr[-500:]}")
    return results


@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.parametrize("variant", [v for v in VARIANTS if v.table], ids=lambda v: v.name)
def test_a_file_changed_after_it_was_opened_is_read_as_opened_or_refused(
    variant, change, tmp_path_factory
):
    folder = tmp_path_factory.getbasetemp() / "changed"
    folder.mkdir(exist_ok=True)
    outcome = changed_outcomes(str(folder)).get(f"{variant.name}-{change}")
    assert outcome is not None, "the worker ended before this case"
    if change == "overwritten" and not (variant.verified or variant.name in SNAPSHOT):
        # Bytes rewritten in place under a reader of a format without checksums can be other
        # values; what must never happen is a crash or another library's exception.
        assert outcome[0] in ("same", "refused", "other"), outcome
    else:
        assert outcome[0] in ("same", "refused"), outcome


# -- a stream read twice -----------------------------------------------------------------------


@pytest.mark.parametrize("how", ["an earlier call", "read_all"])
def test_a_record_batch_reader_read_already_is_refused_saying_so(how):
    # A reader is read once: read again it yields nothing, which was read as a run of no
    # rows ("the judgments and the run do not hold the same queries").
    table = run_table()
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=4))
    if how == "read_all":
        reader.read_all()
    else:
        got = rio.read_run(reader)
        assert {q: {d: float(s) for d, s in docs.items()} for q, docs in got.items()} == RUN
    with pytest.raises(
        RagmeterError,
        match=r"^run: the RecordBatchReader yields no rows: .*"
        r"read already",
    ) as caught:
        rio.read_run(reader)
    assert isinstance(caught.value, ValueError)
    qrels = pa.table({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    with pytest.raises(RagmeterError, match=r"^y_pred: the RecordBatchReader yields no rows"):
        ragmeter.ranking_metrics(qrels, reader, metrics=["map"])


# -- YAML report files: aliases ----------------------------------------------------------------


def alias_bomb(indent: str, levels: int = 9, width: int = 9) -> str:
    """YAML lines defining ``width ** levels`` values through ``levels`` nested aliases (a
    "billion laughs" document: about 1 KB)."""
    lines = [f"{indent}l0: &l0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        items = ", ".join([f"*l{level - 1}"] * width)
        lines.append(f"{indent}l{level}: &l{level} [{items}]")
    return "\n".join(lines) + "\n"


def test_a_yaml_report_with_an_alias_bomb_is_refused_at_once(tmp_path):
    # The safe loader builds aliases as shared references; the read-back check then walked
    # 9**9 values: `ragmeter report` ran 90-128 s and ended in MemoryError at 2-3 GB.
    pytest.importorskip("yaml")
    from ragmeter.judges import RuleJudge, Sample, evaluate

    sample = Sample("Who wrote Hamlet?", "Shakespeare wrote Hamlet.", ["Hamlet is by Shakespeare."])
    path = tmp_path / "judges.yaml"
    evaluate([sample], ["groundedness"], judge=RuleJudge(), progress=False).write(path)
    text = path.read_text()
    assert "  evidence:\n    n_claims: 1\n" in text
    path.write_text(text.replace("  evidence:\n", "  evidence:\n" + alias_bomb("    "), 1))
    assert len(path.read_bytes()) < 8_000
    done = subprocess.run(
        [sys.executable, "-m", "ragmeter", "report", str(path), "-o", str(tmp_path / "r.html")],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)),
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "an alias (*name)" in done.stderr and "judges.yaml" in done.stderr
    assert "line " in done.stderr  # where the first alias is


# -- memory caps on every input path -----------------------------------------------------------

# A child that evaluates the inputs under an address space capped at what it uses (after the
# same evaluation of a few lines: imports, threads, pools) minus 8 MiB, then -7, -6, ... MiB
# until the evaluation fits: every try must end in the result or a MemoryError naming the
# cause, never an aborted process ("memory allocation of 389120 bytes failed"). Tables in memory:
# test_hostile_inputs.py::test_an_allocation_failure_importing_a_table_is_an_error_not_an_abort.
UNDER_MEMORY_CAPS = """
    import ctypes, gc, resource
    import ragmeter.io as rio
    def load(path):
        return LOAD
    def call(qrels, run):
        return rio.evaluate(qrels, run, metrics=["map"], per_query=PER_QUERY)
    small, inputs = (load(SMALL_QRELS), load(SMALL_RUN)), (load(QRELS), load(RUN))
    call(*small)
    gc.collect()
    ctypes.CDLL(None).malloc_trim(0)  # the memory freed so far back to the system
    used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
    for extra in range(-8, 160):
        resource.setrlimit(resource.RLIMIT_AS, (used + (extra << 20), resource.RLIM_INFINITY))
        try:
            got = call(*inputs).to_dict()
        except MemoryError as error:
            if not str(error):
                # The interpreter's own MemoryError (in Python code): not an abort either.
                print("python-memory-error", flush=True)
                continue
            assert "not enough memory" in str(error), repr(error)
            assert "RLIMIT_AS" in str(error), repr(error)  # the cause, and what to do
            print("memory-error", flush=True)
        else:
            resource.setrlimit(resource.RLIMIT_AS, (-1, -1))
            assert got == call(*inputs).to_dict()
            print("evaluated", flush=True)
            break
        finally:
            got = None
            gc.collect()
"""

MEMORY_CAP_CALLS = {
    # name: (what is evaluated of a file at `path`, per query, the suffix of the judgments' and
    # the run's files)
    "text": ("path", False, (".txt", ".txt")),
    "per_query": ("path", True, (".txt", ".txt")),
    "gz": ("path", False, (".txt", ".txt.gz")),
    "parquet": ("path", False, (".parquet", ".parquet")),
}


@pytest.fixture(scope="module")
def capped_inputs(tmp_path_factory):
    """A 100,000-line run and its judgments, and a 2-query part of each, as text, gzip and
    Parquet (the stems of their paths, by the name the child's code gives them)."""
    folder = tmp_path_factory.mktemp("capped")
    stems = {}
    for size, n_queries in (("", 100), ("SMALL_", 2)):
        stems[f"{size}QRELS"] = str(folder / f"{size.lower()}qrels")
        stems[f"{size}RUN"] = str(folder / f"{size.lower()}run")
        write_inputs(stems[f"{size}QRELS"], stems[f"{size}RUN"], n_queries)
    # Longest names first: QRELS is inside SMALL_QRELS.
    return dict(sorted(stems.items(), key=lambda item: -len(item[0])))


def write_inputs(qrels_stem: str, run_stem: str, n_queries: int) -> None:
    import gzip

    n_docs = 1000
    run = [(f"q{q}", f"d{d}", float(n_docs - d)) for q in range(n_queries) for d in range(n_docs)]
    qrels = [(f"q{q}", f"d{d}", d % 3) for q in range(n_queries) for d in range(0, n_docs, 7)]
    text = "".join(f"{q} Q0 {d} {r % n_docs + 1} {s} t\n" for r, (q, d, s) in enumerate(run))
    Path(run_stem + ".txt").write_text(text)
    Path(run_stem + ".txt.gz").write_bytes(gzip.compress(text.encode(), compresslevel=1))
    Path(qrels_stem + ".txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    for stem, rows, last in ((run_stem, run, "score"), (qrels_stem, qrels, "relevance")):
        columns = list(zip(*rows, strict=True))
        table = pa.table({"query_id": columns[0], "doc_id": columns[1], last: columns[2]})
        pq.write_table(table, stem + ".parquet")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
@pytest.mark.parametrize("path", sorted(MEMORY_CAP_CALLS))
def test_running_out_of_memory_is_a_memory_error_on_every_input_path(path, capped_inputs):
    # Each aborted the process (SIGABRT, "memory allocation of N bytes failed") at some cap: a
    # rayon worker's or a query's small allocation, once the fallible reservations had passed.
    load, per_query, (qrels_suffix, run_suffix) = MEMORY_CAP_CALLS[path]
    code = UNDER_MEMORY_CAPS.replace("LOAD", load).replace("PER_QUERY", str(per_query))
    for name, stem in capped_inputs.items():
        suffix = qrels_suffix if name.endswith("QRELS") else run_suffix
        code = code.replace(name, repr(stem + suffix))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        # One malloc arena: a worker thread's own arena reserves 64 MiB of address space up
        # front, inside which its allocations would never meet the cap.
        # pyarrow's buffers from malloc: jemalloc keeps address space mapped ahead.
        env={**os.environ, "MALLOC_ARENA_MAX": "1", "ARROW_DEFAULT_MEMORY_POOL": "system"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcomes = done.stdout.split()
    assert "memory-error" in outcomes, done.stdout  # some cap was too low, and it said so
    assert outcomes[-1] == "evaluated", done.stdout  # and a higher one was enough
