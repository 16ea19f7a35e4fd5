"""The GitHub Actions workflow of docs/guides/quality-gates.md runs as written (issue 50 item
2): it builds ragmeter from its checkout (ragmeter is not on PyPI), installs the wheel in a
fresh Python environment, evaluates a candidate and gates it against the committed baseline.

What a GitHub runner does and this machine cannot is stood in for: ``actions/checkout`` of
ragmeter is this repository (``RAGMETER_SRC``), ``actions/setup-python`` a fresh virtual
environment, ``scripts/retrieve.py`` (the user's retriever) a script that writes a run. Every
``run:`` step is executed as written, with GitHub's shell (``bash -eo pipefail``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guides" / "quality-gates.md"


def _workflow() -> dict:
    text = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    return yaml.safe_load(blocks[0])


def test_the_workflow_builds_ragmeter_from_its_checkout() -> None:
    workflow = _workflow()
    steps = workflow["jobs"]["gate"]["steps"]
    scripts = "\n".join(step.get("run", "") for step in steps)
    # Never from a package index: there is no ragmeter there.
    assert not re.search(r"pip install\s+(-\S+\s+)*['\"]?ragmeter\b", scripts)
    checkouts = [s for s in steps if s.get("uses", "").startswith("actions/checkout")]
    assert any(s.get("with", {}).get("repository") == "ragmeter/ragmeter" for s in checkouts)
    assert "maturin build --release --locked" in scripts and "dist/ragmeter-*.whl" in scripts


def _workspace(tmp: Path) -> Path:
    """The user's repository: judgments, queries, a committed baseline, a retriever."""
    work = tmp / "workspace"
    (work / "eval").mkdir(parents=True)
    (work / "scripts").mkdir()
    (work / "baselines").mkdir()
    topics = [f"t{i}" for i in range(30)]
    (work / "eval" / "qrels.txt").write_text(
        "".join(f"{t} 0 d{t}-{j} {1 + j % 2}\n" for t in topics for j in range(3))
    )
    (work / "eval" / "queries.jsonl").write_text(
        "".join(f'{{"id": "{t}", "text": "query {t}"}}\n' for t in topics)
    )
    # The candidate ranks each topic's relevant documents first, above the baseline's ranking
    # (the gate must pass).
    (work / "scripts" / "retrieve.py").write_text(
        "import argparse, json\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--queries'); parser.add_argument('--output')\n"
        "args = parser.parse_args()\n"
        "with open(args.queries) as f, open(args.output, 'w') as out:\n"
        "    for line in f:\n"
        "        t = json.loads(line)['id']\n"
        "        docs = [f'd{t}-0', f'd{t}-1', f'd{t}-2', 'noise-a', 'noise-b']\n"
        "        for rank, d in enumerate(docs, 1):\n"
        "            out.write(f'{t} Q0 {d} {rank} {10 - rank} candidate\\n')\n"
    )
    return work


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )


def test_the_workflow_runs_as_written(tmp_path) -> None:
    work = _workspace(tmp_path)
    venv = tmp_path / "python"  # actions/setup-python
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    workflow = _workflow()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))},
        **{k: str(v) for k, v in workflow.get("env", {}).items()},
        "RAGMETER_SRC": str(ROOT),  # actions/checkout of ragmeter: this repository
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(venv),
    }
    # The committed baseline, as the guide says it is written on the main branch.
    baseline_run = work / "main.trec"
    baseline_run.write_text(
        "".join(
            f"t{i} Q0 {d} {r} {10 - r} main\n"
            for i in range(30)
            for r, d in enumerate([f"dt{i}-0", f"dt{i}-1", "noise-a", f"dt{i}-2"], 1)
        )
    )
    ran = []
    for step in workflow["jobs"]["gate"]["steps"]:
        if "run" not in step:
            continue
        done = _bash(step["run"], work, env)
        assert done.returncode == 0, (step.get("name"), done.stdout[-2000:], done.stderr[-3000:])
        ran.append(step.get("name", step["run"].split()[0]))
        if step.get("name", "").startswith("Build ragmeter"):
            # Installed from the wheel just built, in the fresh environment.
            where = _bash("python -c 'import ragmeter; print(ragmeter.__file__)'", work, env)
            assert str(venv) in where.stdout
            made = _bash(
                "ragmeter evaluate -q -m ndcg@10 -m recall@100 --format json "
                "eval/qrels.txt main.trec > baselines/main.json",
                work,
                env,
            )
            assert made.returncode == 0, made.stderr
    assert len(ran) == 3
    summary = (tmp_path / "summary.md").read_text()
    assert "gate ✅ passed" in summary and "ndcg@10" in summary
    suite = ET.parse(work / "gate.xml").getroot()
    assert suite.find(".//failure") is None and len(suite.findall(".//testcase")) == 2
