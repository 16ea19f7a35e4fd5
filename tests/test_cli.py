"""The ragmeter command: trec_eval-compatible output on trec_eval's own test data."""

import json
import subprocess
import sys

import pytest
from vendored import TREC_EVAL_TESTS

from ragmeter.cli import main

ORACLE = TREC_EVAL_TESTS


def trec_eval_lines(name, measures):
    lines = []
    for line in (ORACLE / name).read_text().splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0] in measures:
            lines.append((fields[0], fields[1], fields[2]))
    return lines


def test_evaluate_prints_trec_eval_columns(capsys):
    measures = ["map", "P_5", "ndcg_cut_10", "recip_rank"]
    args = [
        "evaluate",
        str(ORACLE / "qrels.test"),
        str(ORACLE / "results.trunc"),
        "-q",
        "-c",
        "-M",
        "100",
    ]
    for m in measures:
        args += ["-m", m]
    assert main(args) == 0
    ours = [tuple(line.split()) for line in capsys.readouterr().out.splitlines()]
    want = trec_eval_lines("out.test.aqcM", measures)
    # The values of trec_eval -q -c -M100, topic by topic, then "all" (trec_eval orders the
    # measures of a topic its own way).
    assert sorted(ours) == sorted(want)
    assert [q for _, q, _ in ours] == sorted([q for _, q, _ in want], key=lambda q: q == "all")


def test_evaluate_table_and_json(capsys):
    qrels, run = str(ORACLE / "qrels.test"), str(ORACLE / "results.test")
    trunc = str(ORACLE / "results.trunc")
    assert main(["evaluate", qrels, run, trunc, "-c", "-m", "map", "--format", "table"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["metric", "results.test", "results.trunc"]
    # out.test.aq and out.test.aqc: map over all topics.
    assert table[1].split() == ["map", "0.1785", "0.1016"]
    assert table[2].split() == ["queries", "3", "3"]
    assert main(["evaluate", qrels, run, "-m", "map", "-m", "P_10", "--format", "json"]) == 0
    saved = json.loads(capsys.readouterr().out)
    # The saved form of ranking evaluations (MetricResults.read reads it back): a head, then
    # the runs by the name given on the command line.
    assert (saved["kind"], saved["format_version"]) == ("ragmeter.evaluation", 3)
    payload = saved["runs"][run]
    assert round(payload["means"]["map"], 4) == 0.1785
    assert payload["n_queries"] == {"map": 3, "P_10": 3}
    assert payload["missing_from_run"] == [] and payload["unjudged"] == []


def test_errors_exit_2_with_a_message(capsys, tmp_path):
    assert main(["evaluate", str(ORACLE / "qrels.test"), str(ORACLE / "results.trunc")]) == 2
    assert "judged topics missing from the run" in capsys.readouterr().err
    assert main(["evaluate", str(ORACLE / "qrels.test"), str(tmp_path / "none.txt")]) == 2
    assert "none.txt" in capsys.readouterr().err
    assert (
        main(["evaluate", str(ORACLE / "qrels.test"), str(ORACLE / "results.test"), "-m", "bleu"])
        == 2
    )
    assert "unknown metric 'bleu'" in capsys.readouterr().err


def test_console_script_runs():
    out = subprocess.run(
        [sys.executable, "-m", "ragmeter", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("ragmeter ")


@pytest.mark.parametrize("flag", ["--help"])
def test_help(flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", flag])
    assert exc.value.code == 0
    assert "trec_eval -c" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("qrels", "runs", "flags"),
    [
        ("qrels.test", ["results.test", "results.trunc"], ["-q", "-c"]),
        ("qrels.test", ["results.test", "results.trunc"], ["-c", "--format", "json"]),
        # results.trunc lacks judged topics: the first run is printed, then the error.
        ("qrels.test", ["results.test", "results.trunc"], ["--format", "table"]),
        # One topic without relevant documents: warnings on stderr.
        ("qrels.comment.test", ["results.comment.test"], ["-q"]),
    ],
)
def test_evaluate_on_dask_prints_what_it_prints_locally(qrels, runs, flags, capsys):
    from dask.distributed import LocalCluster

    args = ["evaluate", str(ORACLE / qrels), *[str(ORACLE / run) for run in runs], *flags]
    with LocalCluster(
        n_workers=1, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        on_dask_code = main([*args, "--dask", cluster.scheduler_address])
        on_dask = capsys.readouterr()
    local_code = main(args)
    local = capsys.readouterr()
    assert (on_dask_code, on_dask.out, on_dask.err) == (local_code, local.out, local.err)
    assert local.out or local.err


def _as_json(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize(
    ("qrels", "run", "flags"),
    [
        ("qrels.test", "results.test", ["-q"]),
        ("qrels.test", "results.trunc", ["-c", "-M", "100", "--format", "json"]),
        ("qrels.comment.test", "results.comment.test", ["-q", "-l", "2"]),
        # TREC files are evaluated and printed by the core alone, other files through the
        # values' matrix: every kind of column (runid, num_q, relstring, counts, gm_, -c's
        # resets and num_rel summary) printed the same both ways.
        ("qrels.test", "results.trunc", ["-c", "-q", "-m", "all_trec"]),
        ("qrels.test", "results.test", ["-q", "-J", "-M", "20", "-m", "all_trec"]),
        ("qrels.test", "results.trunc", ["-c", "-n", "-q", "-m", "official"]),
    ],
)
@pytest.mark.parametrize("as_json", ["both", "run"])
def test_json_files_evaluate_like_their_trec_files(qrels, run, flags, as_json, tmp_path, capsys):
    from ragmeter import read_trec_qrels, read_trec_run

    trec_args = ["evaluate", str(ORACLE / qrels), str(ORACLE / run), *flags]
    assert main(trec_args) == 0
    from_trec = capsys.readouterr()
    json_run = _as_json(tmp_path, "run.json", read_trec_run(ORACLE / run))
    json_qrels = (
        _as_json(tmp_path, "qrels.json", read_trec_qrels(ORACLE / qrels))
        if as_json == "both"
        else str(ORACLE / qrels)
    )
    assert main(["evaluate", json_qrels, json_run, *flags]) == 0
    from_json = capsys.readouterr()
    # The same numbers (the TREC output is checked against trec_eval elsewhere); only the
    # file names in the JSON output and in the messages, and the runid (a JSON run has no tag:
    # its runid is the file's stem), differ.
    assert "\trun\n" in from_json.out or "--format" in flags or "-n" in flags

    def comparable(text, path):
        lines = text.replace(path, str(ORACLE / run)).splitlines()
        # (the checksum of a saved result is of its content, which holds the run's name)
        return [
            line
            for line in lines
            if not line.startswith("runid") and '"runid"' not in line and '"sha256"' not in line
        ]

    assert comparable(from_json.out, json_run) == comparable(from_trec.out, json_run)
    assert from_json.err.replace(json_run, str(ORACLE / run)) == from_trec.err


def test_bad_json_files_are_errors_naming_the_file(tmp_path, capsys):
    qrels = _as_json(tmp_path, "qrels.json", {"q1": {"d1": 1}})
    repeated = tmp_path / "repeated.json"
    repeated.write_text('{"q1": {"d1": 0.5, "d1": 0.7}}')
    broken = tmp_path / "broken.json"
    broken.write_text('{"q1": {"d1": 0.5}')
    listed = _as_json(tmp_path, "list.json", [["q1", "d1", 0.5]])
    for path, message in (
        (repeated, "key 'd1' appears twice in one object"),
        (broken, "not valid JSON"),
        (listed, "holds one object"),
    ):
        assert main(["evaluate", qrels, str(path)]) == 2
        err = capsys.readouterr().err
        assert str(path) in err and message in err, err


def test_progress_over_the_runs(capsys):
    runs = [str(ORACLE / "results.test")] * 2
    args = ["evaluate", str(ORACLE / "qrels.test"), *runs, "--format", "table"]
    assert main(args) == 0
    plain = capsys.readouterr()
    assert main([*args, "--progress"]) == 0
    with_progress = capsys.readouterr()
    assert with_progress.out == plain.out
    assert "evaluating runs" in with_progress.err and "2/2" in with_progress.err


def test_no_arguments_prints_the_commands_with_an_example_each(capsys):
    from ragmeter.cli import COMMANDS

    assert main([]) == 0
    out = capsys.readouterr().out
    for name, (_, _, example) in COMMANDS.items():
        assert f"  {name} " in out and example in out


def test_a_closed_pipe_ends_quietly():
    # `ragmeter evaluate ... | head -1`: no "Broken pipe" message, no traceback.
    command = (
        f"{sys.executable} -m ragmeter evaluate -q -m all_trec {ORACLE / 'qrels.test'} "
        f"{ORACLE / 'results.test'} | head -1"
    )
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True)
    assert done.stdout.startswith("num_ret")
    assert done.stderr == ""
    assert done.returncode in (0, 141)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["-M", "9" * 30], "max_docs: must be a positive integer from 1 to"),
        (["-M", "0"], "max_docs: must be a positive integer"),
        (["--threads", "100000"], "n_threads: must be a positive integer from 1 to 256"),
        (["-m", "ndcg@99999999999999999999999"], "the cutoff k must be a positive integer"),
        (["-l", "0"], "relevance_threshold: must be a finite number > 0"),
    ],
)
def test_bad_flags_are_one_line_errors(flags, message, capsys):
    args = ["evaluate", *flags, str(ORACLE / "qrels.test"), str(ORACLE / "results.test")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("ragmeter: error: ") and message in err
    assert "Traceback" not in err


def test_table_format_with_per_query_values(capsys):
    qrels, run = str(ORACLE / "qrels.test"), str(ORACLE / "results.test")
    assert main(["evaluate", "-q", "-m", "map", "-m", "P.5", "--format", "table", qrels, run]) == 0
    lines = capsys.readouterr().out.splitlines()
    # The summary table, then one row per topic with every per-topic measure (-q was
    # silently ignored by the table format before).
    want = {(m, q): v for m, q, v in trec_eval_lines("out.test.aq", ["map", "P_5"])}
    header = lines.index(next(line for line in lines if line.startswith("query")))
    assert lines[header].split() == ["query", "map", "P_5"]
    for row in lines[header + 1 :]:
        topic, ap, p5 = row.split()
        assert (ap, p5) == (want[("map", topic)], want[("P_5", topic)])
    assert len(lines) - header - 1 == 3
