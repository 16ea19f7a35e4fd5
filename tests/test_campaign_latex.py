"""The paper tables of a 12-system campaign (12 runs x 500 topics x 3 measures: 66 pairs, 198
rows of differences) compile with pdflatex with no float too large, no overfull box and no
lost row (issue 50 item 4); ``--name`` gives runs the names a paper uses.

Oracles: pdflatex's log (its own warnings) and the text of the PDF it writes, read by pypdf:
every row of differences the command printed is on a page, in order.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from campaign12 import write_campaign

from ragmeter.cli import main

MEASURES = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10"]


def _pdflatex() -> str:
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        message = (
            "pdflatex is not installed (apt-get install texlive-latex-base "
            "texlive-latex-recommended)"
        )
        if os.environ.get("RAGMETER_REQUIRE_PDFLATEX"):
            pytest.fail(message + "; RAGMETER_REQUIRE_PDFLATEX is set, so this test must run")
        pytest.skip(message)
    return pdflatex


def _compare(folder: Path, runs: list[Path], *options: str, capsys) -> str:
    argv = ["compare", *MEASURES, "--test", "t", *options, str(folder / "qrels.txt")]
    assert main([*argv, *map(str, runs)]) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, list[Path]]:
    folder = tmp_path_factory.mktemp("campaign12")
    return folder, write_campaign(folder)


def test_twelve_systems_compile_with_every_row_and_no_overfull_box(campaign, capsys) -> None:
    pdflatex = _pdflatex()
    folder, runs = campaign
    names = [f"--name=system_{i:02d}.run=S{i}" for i in range(12)]
    latex = _compare(folder, runs, "--format", "latex", *names, capsys=capsys)
    rows = list(
        csv.DictReader(
            io.StringIO(_compare(folder, runs, "--format", "csv", *names, capsys=capsys))
        )
    )
    assert len(rows) == 66 * 3
    document = "\\documentclass{article}\n\\usepackage{booktabs,longtable}\n\\begin{document}\n"
    (folder / "paper.tex").write_text(document + latex + "\\end{document}\n")
    for _ in range(2):  # longtable settles its column widths on the second run
        done = subprocess.run(
            [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stdout[-3000:]
    log = (folder / "paper.log").read_text(errors="replace")
    for warning in ("Float too large", "Overfull \\hbox", "Overfull \\vbox", "Rerun LaTeX"):
        assert warning not in log, re.findall(f".*{re.escape(warning)}.*", log)[:3]
    pages = int(re.search(r"Output written on paper\.pdf \((\d+) pages?", log).group(1))
    assert pages >= 4  # 198 rows do not fit on one page: they were broken, not cut
    # Every row of differences is in the PDF's text, in the printed order.
    from pypdf import PdfReader

    text = "\n".join(page.extract_text() for page in PdfReader(folder / "paper.pdf").pages)
    lines = iter(text.splitlines())
    for row in rows:
        wanted = f"{row['candidate']} {row['baseline']} "
        assert any(
            line.startswith(wanted) and f"{float(row['delta']):+.4f}" in line for line in lines
        ), row
    assert "Means over 500 queries." in text and "(continued)" in text


def test_captions_are_short_and_explained_under_the_tables(campaign, capsys) -> None:
    folder, runs = campaign
    latex = _compare(folder, runs[:3], "--format", "latex", capsys=capsys)
    captions = re.findall(r"\\caption\{([^}]*)\}", latex)
    assert captions == ["Means over 500 queries.", "Differences (candidate - baseline)."]
    # The test, the correction and alpha are still said, under each table.
    assert "two-sided paired t-test" in latex and "Holm" in latex and r"$\alpha$ = 0.05" in latex
    assert latex.startswith("% needs \\usepackage{booktabs,longtable}")


def test_names_name_the_runs_everywhere(campaign, capsys) -> None:
    folder, runs = campaign
    options = ("--name", "system_00.run=BM25", "--name", "sys1=Dense", "--baseline", "BM25")
    text = _compare(folder, runs[:3], *options, capsys=capsys)
    assert "BM25" in text and "Dense" in text and "system_02.run" in text
    assert "system_00.run" not in text and "system_01.run" not in text
    for bad, words in [
        ("bm25.run", "expected RUN=NAME"),
        ("nosuch.run=X", "'nosuch.run' is none of the runs"),
        ("system_01.run=system_00.run", "names more than one run"),
    ]:
        argv = ["compare", "--name", bad, str(folder / "qrels.txt"), *map(str, runs[:2])]
        assert main(argv) == 2
        assert words in capsys.readouterr().err
