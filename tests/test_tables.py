"""Judgments and runs as tables (pyarrow, polars, DuckDB, pandas; Parquet, Arrow IPC, CSV, TSV
files) and compressed TREC files, against trec_eval built from its sources: the same random
data written as TREC files and as tables gives trec_eval's output, byte for byte, through
``ragmeter evaluate``, and the same values, to the last bit, through the Python functions."""

from __future__ import annotations

import bz2
import gzip
import lzma
import subprocess
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from test_trec_eval_dropin import random_files

import ragmeter
from ragmeter import InputTypeError, InvalidInputError
from ragmeter.cli import main
from ragmeter.io import detect_format, evaluate, read_qrels, read_run

MEASURES = ["-m", "all_trec"]
# runid has no value for tables in memory (as for mappings): their runs have no tag.
ALL_BUT_RUNID = [m.name for m in ragmeter.parse_measures("all_trec") if m.name != "runid"]


def trec_rows(path: Path, kind: str) -> list[tuple[str, str, float]]:
    """(query, doc, value) of each line of a TREC file (the test reads it line by line)."""
    rows = []
    for line in path.read_text().splitlines():
        fields = line.split()
        if kind == "qrels":
            rows.append((fields[0], fields[2], float(fields[3])))
        else:
            rows.append((fields[0], fields[2], float(fields[4])))
    return rows


def as_table(rows, kind: str, *, ints: bool = False) -> pa.Table:
    value = "relevance" if kind == "qrels" else "score"
    values = [r[2] for r in rows]
    return pa.table(
        {
            "query_id": [int(r[0]) if ints else r[0] for r in rows],
            "doc_id": [int(r[1]) if ints else r[1] for r in rows],
            value: pa.array([int(v) for v in values]) if kind == "qrels" else values,
        }
    )


def table_files(directory: Path, stem: str, table: pa.Table) -> list[Path]:
    """``table`` written in every table format (the run's file stem is its runid)."""
    parquet = directory / f"{stem}.parquet"
    pq.write_table(table, parquet, row_group_size=7)
    arrow = directory / f"{stem}.arrow"
    feather.write_feather(table, arrow)
    csv = directory / f"{stem}.csv"
    pa_csv.write_csv(table, csv)
    tsv = directory / f"{stem}.tsv"
    pa_csv.write_csv(table, tsv, write_options=pa_csv.WriteOptions(delimiter="\t"))
    return [parquet, arrow, csv, tsv]


def trec_eval_output(trec_eval: Path, *args: str) -> str:
    done = subprocess.run([str(trec_eval), *args], capture_output=True, text=True, check=True)
    return done.stdout


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("flags", [[], ["-c"], ["-J", "-M", "5"], ["-l", "2"]])
def test_table_files_print_what_trec_eval_prints(trec_eval, tmp_path, capsys, seed, flags):
    qrels, run = random_files(tmp_path, seed, graded=False, complete="-c" in flags)
    want = trec_eval_output(trec_eval, "-q", *MEASURES, *flags, str(qrels), str(run))
    # The runid of a table file is its name without the suffix: the tag of the run's last line.
    qrels_table = as_table(trec_rows(qrels, "qrels"), "qrels")
    run_table = as_table(trec_rows(run, "run"), "run")
    directory = tmp_path / f"tables{seed}"
    directory.mkdir()
    qrels_files = table_files(directory, "qrels", qrels_table)
    run_files = table_files(directory, "tagLast", run_table)
    for qrels_file, run_file in zip(qrels_files, run_files, strict=True):
        code = main(["evaluate", "-q", *MEASURES, *flags, str(qrels_file), str(run_file)])
        out = capsys.readouterr().out
        assert code == 0
        assert out == want, (qrels_file, run_file)
    # Mixed formats: TREC judgments, a Parquet run.
    assert main(["evaluate", "-q", *MEASURES, *flags, str(qrels), str(run_files[0])]) == 0
    assert capsys.readouterr().out == want


def in_memory_forms(table: pa.Table) -> list[object]:
    """The same table as pyarrow (plain, dictionary-encoded, large strings, several batches),
    a RecordBatchReader, polars, pandas and DuckDB objects."""
    dictionary = table.set_column(
        1, "doc_id", pa.compute.dictionary_encode(table.column("doc_id"))
    ).set_column(0, "query_id", pa.compute.dictionary_encode(table.column("query_id")))
    large = table.cast(
        pa.schema(
            [
                ("query_id", pa.large_string()),
                ("doc_id", pa.large_string()),
                table.schema.field(2),
            ]
        )
    )
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=3))
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=5))
    polars_frame = pl.from_arrow(table)
    categorical = polars_frame.with_columns(pl.col("doc_id").cast(pl.Categorical))
    return [
        table,
        dictionary,
        large,
        chunked,
        reader,
        polars_frame,
        categorical,
        table.to_pandas(),
        duckdb.from_arrow(table),
    ]


@pytest.mark.parametrize("seed", range(6))
def test_tables_equal_trec_files_to_the_last_bit(tmp_path, seed):
    qrels, run = random_files(tmp_path, seed, graded=True, complete=False)
    want = ragmeter.evaluate_trec(
        qrels, run, metrics=ALL_BUT_RUNID, per_query=True, zero_division="trec_eval"
    )
    qrels_table = as_table(trec_rows(qrels, "qrels"), "qrels")
    run_table = as_table(trec_rows(run, "run"), "run")
    for judged, ranked in zip(
        in_memory_forms(qrels_table), in_memory_forms(run_table), strict=True
    ):
        got = evaluate(
            judged, ranked, metrics=ALL_BUT_RUNID, per_query=True, zero_division="trec_eval"
        )
        for name, values in want.items():
            assert got[name] == values, (name, type(ranked))
        assert sorted(got.unjudged) == sorted(want.unjudged)


def test_integer_ids_tie_break_by_their_decimal_text(trec_eval, tmp_path):
    # Ties between 9, 10 and 100: byte-wise descending is 9, 100, 10.
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 10 1\n1 0 9 0\n2 0 100 1\n2 0 5 1\n")
    run = tmp_path / "run.txt"
    run.write_text(
        "1 Q0 9 1 1.0 t\n1 Q0 10 2 1.0 t\n1 Q0 100 3 1.0 t\n2 Q0 100 1 0.5 t\n2 Q0 5 2 0.5 t\n"
    )
    metrics = ["map", "P.1", "recip_rank"]
    want = ragmeter.evaluate_trec(qrels, run, metrics=metrics, per_query=True)
    qrels_table = as_table(trec_rows(qrels, "qrels"), "qrels", ints=True)
    run_table = as_table(trec_rows(run, "run"), "run", ints=True)
    assert qrels_table.schema.field("doc_id").type == pa.int64()
    got = ragmeter.ranking_metrics(qrels_table, run_table, metrics=metrics, average=None)
    assert got == {m: {int(q): v for q, v in want[m].items()} for m in want}
    # and the values are trec_eval's: 10 is third (after 9 and 100), 5 is first.
    out = trec_eval_output(trec_eval, "-q", "-m", "recip_rank", str(qrels), str(run))
    assert "recip_rank            \t1\t0.3333\nrecip_rank            \t2\t1.0000" in out
    assert got["recip_rank"] == {1: 1 / 3, 2: 1.0}


def test_ranking_metrics_reads_tables_and_mixes_them_with_mappings():
    qrels = pa.table(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d4", "d3"], "relevance": [2, 1, 1]}
    )
    run = pa.table(
        {
            "query_id": ["q1", "q1", "q1", "q2", "q2"],
            "doc_id": ["d4", "d2", "d1", "d5", "d3"],
            "sim": [0.9, 0.8, 0.7, 0.6, 0.5],
        }
    )
    mappings = (
        {"q1": {"d1": 2, "d4": 1}, "q2": {"d3": 1}},
        {"q1": {"d4": 0.9, "d2": 0.8, "d1": 0.7}, "q2": {"d5": 0.6, "d3": 0.5}},
    )
    metrics = ["ndcg@3", "map", "mrr"]
    want = ragmeter.ranking_metrics(*mappings, metrics=metrics, average=None)
    assert (
        ragmeter.ranking_metrics(qrels, run, metrics=metrics, average=None, score_col="sim") == want
    )
    assert (
        ragmeter.ranking_metrics(mappings[0], run, metrics=metrics, average=None, score_col="sim")
        == want
    )
    assert ragmeter.ranking_metrics(qrels, mappings[1], metrics=metrics, average=None) == want
    # A pandas DataFrame indexed by query id.
    indexed = qrels.to_pandas().set_index("query_id")
    assert ragmeter.ranking_metrics(indexed, mappings[1], metrics=metrics, average=None) == want
    # missing="raise" (the default) names run queries without judgments, as for mappings.
    extra = pa.concat_tables([run, pa.table({"query_id": ["q9"], "doc_id": ["d1"], "sim": [1.0]})])
    with pytest.raises(InvalidInputError, match=r"without judgments in y_true: 'q9'"):
        ragmeter.ranking_metrics(qrels, extra, score_col="sim")
    got = ragmeter.ranking_metrics(
        qrels, extra, score_col="sim", missing="skip", metrics=metrics, average=None
    )
    assert got == want and got.unjudged == ["q9"]


def test_table_errors_name_the_column_and_what_to_do():
    qrels = pa.table({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]})
    run = pa.table({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    with pytest.raises(
        InvalidInputError,
        match=r"y_pred: there is no column 'points'.*"
        r"'query_id', 'doc_id', 'score'.*score_col=",
    ):
        ragmeter.ranking_metrics(qrels, run, score_col="points")
    with pytest.raises(InvalidInputError, match=r"column 'score' holds 1 null values"):
        ragmeter.ranking_metrics(qrels, run.set_column(2, "score", pa.array([None], pa.float64())))
    with pytest.raises(InvalidInputError, match=r"column 'relevance' is Boolean.*cast it to int"):
        ragmeter.ranking_metrics(qrels.set_column(2, "relevance", pa.array([True])), run)
    with pytest.raises(
        InvalidInputError,
        match=r"document ids of y_true.*are text but those "
        r"of y_pred.*are integers",
    ):
        ragmeter.ranking_metrics(qrels, run.set_column(1, "doc_id", pa.array([1])))
    with pytest.raises(InvalidInputError, match=r"query 'q': the score of document 'd' is NaN"):
        ragmeter.ranking_metrics(qrels, run.set_column(2, "score", pa.array([float("nan")])))
    twice = pa.table({"query_id": ["q", "q"], "doc_id": ["d", "d"], "score": [1.0, 2.0]})
    with pytest.raises(InvalidInputError, match=r"query 'q': document 'd' appears more than once"):
        ragmeter.ranking_metrics(qrels, twice)
    assert ragmeter.ranking_metrics(qrels, twice, duplicates="first", metrics=["mrr"]) == {
        "mrr": 1.0
    }
    with pytest.raises(InputTypeError, match=r"y_true is a table \(DataFrame\)"):
        ragmeter.ranking_metrics(pd.DataFrame({"query_id": ["q"]}), [["d"]])


def test_every_format_reads_back_the_same_judgments_and_run(tmp_path):
    qrels, run = random_files(tmp_path, 3, graded=True, complete=False)
    want_qrels = ragmeter.read_trec_qrels(qrels)
    want_run = ragmeter.read_trec_run(run)
    qrels_table = as_table(trec_rows(qrels, "qrels"), "qrels")
    run_table = as_table(trec_rows(run, "run"), "run")
    for path in table_files(tmp_path, "qrels", qrels_table):
        assert read_qrels(path) == want_qrels, path
    for path in table_files(tmp_path, "run", run_table):
        assert read_run(path) == want_run, path
    json_run = tmp_path / "run.json"
    json_run.write_text(pd.Series(want_run).to_json())
    assert read_run(json_run) == want_run
    assert read_run(run_table) == want_run


def test_formats_are_recognised_by_content_and_binary_junk_is_refused(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("q 0 d 1\n")
    table = pa.table({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    disguised = tmp_path / "run.txt"  # Parquet, whatever the name says
    pq.write_table(table, disguised)
    assert detect_format(disguised).name == "parquet"
    header = tmp_path / "run"
    header.write_text("query_id\tdoc_id\tscore\nq\td\t1.0\n")
    assert detect_format(header).name == "tsv"
    msmarco = tmp_path / "qrels.dev.tsv"  # TREC lines in a .tsv file, no header
    msmarco.write_text("q\t0\td\t1\n")
    assert detect_format(msmarco).name == "trec"
    assert main(["evaluate", "-m", "P.1", str(msmarco), str(disguised)]) == 0
    assert capsys.readouterr().out == "P_1                   \tall\t1.0000\n"
    junk = tmp_path / "run.bin"
    junk.write_bytes(bytes(range(256)) * 4)
    assert main(["evaluate", str(qrels), str(junk)]) == 2
    err = capsys.readouterr().err
    assert "binary data in no format ragmeter reads" in err
    for name in ("TREC text", "JSON", "Parquet", "Arrow IPC", "CSV", "TSV", ".gz", ".zst"):
        assert name in err, name
    fake = tmp_path / "run.parquet"
    fake.write_text("q Q0 d 1 1.0 t\n")
    with pytest.raises(InvalidInputError, match=r"named like a Parquet.*does not start like one"):
        evaluate(qrels, fake)


COMPRESSORS = {
    "gz": lambda data: gzip.compress(data, 1),
    "bz2": lambda data: bz2.compress(data, 1),
    "xz": lambda data: lzma.compress(data, preset=0),
    "zst": lambda data: pa.compress(data, codec="zstd", asbytes=True),
}


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_compressed_trec_files_read_like_plain_ones(trec_eval, tmp_path, capsys, suffix):
    qrels, run = random_files(tmp_path, 5, graded=True, complete=False)
    want = trec_eval_output(trec_eval, "-q", *MEASURES, str(qrels), str(run))
    compress = COMPRESSORS[suffix]
    packed_qrels = tmp_path / f"qrels.txt.{suffix}"
    packed_qrels.write_bytes(compress(qrels.read_bytes()))
    packed_run = tmp_path / f"run.{suffix}"
    packed_run.write_bytes(compress(run.read_bytes()))
    assert main(["evaluate", "-q", *MEASURES, str(packed_qrels), str(packed_run)]) == 0
    assert capsys.readouterr().out == want
    assert ragmeter.read_trec_run(packed_run) == ragmeter.read_trec_run(run)


def test_compressed_runs_stream_grouped_or_not_and_refuse_damage(tmp_path):
    lines = [f"q{q} Q0 d{d} {d} {1.0 / (d + 1)} t" for q in range(50) for d in range(200)]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(0, 60, 2)))
    grouped = tmp_path / "grouped.txt"
    grouped.write_text("\n".join(lines) + "\n")
    shuffled = tmp_path / "shuffled.txt"
    shuffled.write_text("\n".join(lines[1::2] + lines[::2]) + "\n")
    metrics = ["map", "P.5", "num_ret"]
    want = ragmeter.evaluate_trec(qrels, grouped, metrics=metrics, per_query=True, complete=True)
    for plain in (grouped, shuffled):
        packed = tmp_path / f"{plain.stem}.gz"
        packed.write_bytes(gzip.compress(plain.read_bytes()))
        got = ragmeter.evaluate_trec(qrels, packed, metrics=metrics, per_query=True, complete=True)
        assert got == want and got.unjudged == want.unjudged
    damaged = tmp_path / "damaged.gz"
    damaged.write_bytes(gzip.compress(grouped.read_bytes())[:-100])
    with pytest.raises(
        InvalidInputError,
        match=r"damaged.gz: the gzip data cannot be "
        r"decompressed.*damaged or truncated",
    ):
        ragmeter.evaluate_trec(qrels, damaged)
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(b"q0 Q0 d1 1 0.5 t\nq0 Q0 d2 2 high t\n"))
    with pytest.raises(ragmeter.TrecFormatError, match=r"bad.gz:2: the score 'high'"):
        ragmeter.evaluate_trec(qrels, bad, complete=True)
    # A document ranked twice in a streamed run is named at its second line, as in plain text.
    repeated = lines[:]
    repeated[6900] = "q34 Q0 d3 100 0.0 t"  # q34's d3 is also on line 6804 (34 * 200 + 3 + 1)
    for name, data in (("repeated.txt", bytes), ("repeated.gz", gzip.compress)):
        path = tmp_path / name
        path.write_bytes(data(("\n".join(repeated) + "\n").encode()))
        with pytest.raises(
            ragmeter.TrecFormatError,
            match=rf"{name}:6901: query 'q34': document 'd3' appears more than once",
        ):
            ragmeter.evaluate_trec(qrels, path)


@pytest.mark.parametrize("output", ["csv", "jsonl", "parquet"])
def test_the_command_writes_one_row_per_value(trec_eval, tmp_path, capsys, output):
    qrels, run = random_files(tmp_path, 7, graded=True, complete=False)
    want = trec_eval_output(
        trec_eval, "-q", "-m", "map", "-m", "P.5", "-m", "runid", str(qrels), str(run)
    )
    expected = {}
    for line in want.splitlines():
        measure, query, value = (part.strip() for part in line.split("\t"))
        expected[(query, measure)] = value
    target = tmp_path / f"results.{output}"
    args = ["evaluate", "-q", "-m", "map", "-m", "P.5", "-m", "runid", str(qrels), str(run)]
    assert main([*args, "--format", output, "--output", str(target)]) == 0
    if output == "csv":
        rows = pd.read_csv(target, dtype={"query_id": str})
    elif output == "jsonl":
        rows = pd.read_json(target, lines=True, dtype={"query_id": str})
    else:
        rows = pq.read_table(target).to_pandas()
    assert list(rows.columns) == [
        "run",
        "query_id",
        "measure",
        "value",
        "text",
        "n_queries",
        "n_undefined",
    ]
    got = {}
    for row in rows.itertuples():
        shown = row.text if row.measure == "runid" else f"{float(row.value):6.4f}"
        got[(row.query_id, row.measure)] = shown
        assert row.run == str(run)
        if row.query_id == "all" and row.measure != "runid":
            assert int(row.n_queries) == len({q for q, _ in expected if q != "all"})
    assert got == expected


def test_many_queries_split_across_batches_match_pytrec_eval_per_query():
    # 9,000 judged queries (more than two waves of the core's preparation), rows shuffled so
    # that each query's rows are scattered over many runs of rows and over several record
    # batches, scores from a few values (ties broken by document id), 300 unjudged run queries.
    import numpy as np
    import pytrec_eval

    rng = np.random.default_rng(5)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(9_300):
        docs = [f"d{d}" for d in rng.choice(60, size=12, replace=False)]
        run[f"q{q}"] = {d: float(s) / 8 for d, s in zip(docs, rng.integers(0, 5, 12), strict=True)}
        if q < 9_000:
            judged = rng.choice(60, size=5, replace=False)
            qrels[f"q{q}"] = {
                f"d{d}": int(g) for d, g in zip(judged, rng.integers(0, 3, 5), strict=True)
            }

    def shuffled_table(mapping, value):
        rows = [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]
        rows = [rows[i] for i in rng.permutation(len(rows))]
        table = pa.table(
            {
                "query_id": [r[0] for r in rows],
                "doc_id": [r[1] for r in rows],
                value: [r[2] for r in rows],
            }
        )
        return pa.Table.from_batches(table.to_batches(max_chunksize=7_000))

    metrics = {"map": "map", "ndcg@5": "ndcg_cut_5", "mrr": "recip_rank", "P_3": "P_3"}
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "ndcg_cut.5", "recip_rank", "P.3"}
    ).evaluate({q: run[q] for q in qrels})
    ours = ragmeter.ranking_metrics(
        shuffled_table(qrels, "relevance"),
        shuffled_table(run, "score"),
        metrics=list(metrics),
        average=None,
        missing="skip",
        zero_division=0.0,
    )
    for name, key in metrics.items():
        assert set(ours[name]) == set(qrels)
        for q in qrels:
            assert ours[name][q] == pytest.approx(expected[q][key], abs=1e-12), (name, q)
