"""Every writer keeps the old file whole: results, reports, runs, plots and caches are written
through the one atomic writer (ragmeter._files.atomic_write_bytes: a temporary file, fsync,
rename), and a full disk is reported as a full disk.

The full disk is real where the tests run as root on Linux (a 64 KiB tmpfs is mounted for the
test); elsewhere the disk's ENOSPC is raised where the kernel would raise it (the write's
fsync, sqlite's open).
"""

from __future__ import annotations

import errno
import os
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest

import ragmeter
from ragmeter import _files
from ragmeter.exceptions import JudgeCacheError
from ragmeter.judges import JudgeCache, RuleJudge, Sample, evaluate
from ragmeter.judges.engine import cache as cache_module

PACKAGE = Path(ragmeter.__file__).resolve().parent


def _mount_tiny_disk(folder: Path) -> bool:
    if os.geteuid() != 0 or not os.path.isdir("/proc"):
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
        capture_output=True,
    )
    return done.returncode == 0


@pytest.fixture
def full_disk(tmp_path, monkeypatch):
    """A directory on a disk that is full once ``fill()`` is called: (directory, fill)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if _mount_tiny_disk(folder):

        def fill() -> None:
            try:
                with open(folder / "filler", "wb") as handle:
                    handle.write(b"\0" * (1 << 20))
            except OSError as error:
                assert error.errno == errno.ENOSPC
            else:
                raise AssertionError("the tmpfs did not fill")

        try:
            yield folder, fill
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=False)
        return

    def fill() -> None:
        def no_space(*args, **kwargs):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(_files.os, "fsync", no_space)

        def connect(self):
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
            raise error

        monkeypatch.setattr(cache_module.JudgeCache, "_connect", connect)

    yield folder, fill


def judged():
    samples = [
        Sample("Who wrote Hamlet?", "Shakespeare wrote Hamlet." * n, ["Hamlet is by Shakespeare."])
        for n in range(1, 40)
    ]
    return evaluate(samples, ["groundedness"], judge=RuleJudge(), progress=False)


def test_judge_results_on_a_full_disk_keep_the_previous_file_whole(full_disk):
    # to_jsonl overwrote in place: a full disk left a cut-off file and lost the old results.
    folder, fill = full_disk
    path = folder / "results.jsonl"
    path.write_text('{"previous": true}\n')
    fill()
    with pytest.raises(OSError) as caught:
        judged().to_jsonl(path)
    assert caught.value.errno == errno.ENOSPC
    assert path.read_text() == '{"previous": true}\n'
    assert sorted(p.name for p in folder.iterdir() if p.name != "filler") == ["results.jsonl"]


def test_judge_results_are_written_whole(tmp_path):
    results = judged()
    path = tmp_path / "results.jsonl"
    results.to_jsonl(path)
    assert path.read_text() == results.to_jsonl()


def test_a_judge_cache_on_a_full_disk_says_the_disk_is_full(full_disk):
    # It said "not a judge cache ... delete the file": following that loses paid judgments.
    folder, fill = full_disk
    fill()
    with pytest.raises(OSError) as caught:
        JudgeCache(folder / "cache.sqlite")
    message = str(caught.value)
    assert caught.value.errno == errno.ENOSPC
    assert "is full" in message and "delete" not in message
    assert not isinstance(caught.value, JudgeCacheError)


#: Files that write other than through ragmeter._files, and why.
WRITERS_ALLOWED = {
    "_files.py": "the atomic writer itself",
    # A caller's open file copied to a private temporary directory for the TREC reader.
    "compat/pytrec_eval.py": "a temporary copy, never a user's file",
}
WRITE_CALL = re.compile(
    r"""open\([^)]*["'](?:w|wb|a|ab|x|xb|r\+b?|w\+b?)["']|\.write_text\(|\.write_bytes\("""
    r"""|os\.replace\(|os\.rename\(|shutil\.(?:copy|move)|savefig\(\s*(?!image\b)"""
)


def test_every_writer_of_the_package_goes_through_the_atomic_writer():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in WRITERS_ALLOWED:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.lstrip().startswith((">>>", "...", "#")):
                continue
            if WRITE_CALL.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, "write through ragmeter._files.atomic_write_*:\n" + "\n".join(found)
