"""ranx's data-structure tests read and write ``tests/unit/ranx/test_data/...`` relative to
ranx's repository root: each runs in a copy of ``../_root`` (which holds those files, copied
from ranx at commit 2cae52f00c2c15136a07d573027744109792604d, MIT licence, ranx's authors), so
that the files they save never change the checked-in ones."""

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "_root"


@pytest.fixture(autouse=True)
def _in_ranx_root(tmp_path, monkeypatch):
    shutil.copytree(ROOT, tmp_path / "ranx")
    monkeypatch.chdir(tmp_path / "ranx")
