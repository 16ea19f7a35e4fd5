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
import stat
import subprocess
import sys
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


def _fill_cache(path: Path, n: int = 20) -> list[str]:
    keys = [f"paid-{i}" for i in range(n)]
    with JudgeCache(path) as cache:
        for key in keys:
            cache.put(key, "chat", {"parsed": {"value": key}})
    return keys


def _replayed(path: Path, keys: list[str]) -> list[object]:
    with JudgeCache(path, "read_only") as cache:
        return [(cache.get(key) or {}).get("parsed") for key in keys]


def test_an_existing_judge_cache_on_a_full_disk_says_the_disk_is_full(full_disk, monkeypatch):
    # A cache holding 20 paid answers, on a disk that fills: opening or writing it fails in
    # sqlite's words ("disk I/O error" when the -shm file cannot grow, "database or disk is
    # full" at a commit), which was reported as "not a judge cache ... delete the file" or a
    # bare "could not be written". Every answer replays once space is back.
    folder, fill = full_disk
    path = folder / "cache.sqlite"
    keys = _fill_cache(path)
    fill()
    with pytest.raises(OSError) as caught, JudgeCache(path) as cache:
        for i in range(50):
            cache.put(f"new-{i}", "chat", {"parsed": {"value": "x" * 1000}})
        cache.flush()
    message = str(caught.value)
    assert caught.value.errno == errno.ENOSPC
    assert "is full" in message and "delete" not in message
    assert not isinstance(caught.value, JudgeCacheError)
    (folder / "filler").unlink(missing_ok=True)
    monkeypatch.undo()
    assert _replayed(path, keys) == [{"value": key} for key in keys]


FILE_SIZE_LIMITED = """
import resource, sys
from ragmeter.judges import JudgeCache
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
try:
    with JudgeCache(sys.argv[1]) as cache:
        for i in range(200):
            cache.put(f"new-{i}", "chat", {"parsed": {"value": "x" * 1000}})
except OSError as error:
    print(type(error).__name__, error.errno, error)
"""


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE is POSIX")
@pytest.mark.parametrize("limit", [5_000, 50_000])
def test_a_judge_cache_under_a_file_size_limit_says_so_and_keeps_its_answers(tmp_path, limit):
    # ulimit -f (RLIMIT_FSIZE, batch schedulers): sqlite's "disk I/O error" when it opens
    # (5,000 bytes: the -shm file cannot grow) or writes (50,000) was "not a judge cache ...
    # delete the file" or a bare "could not be written: disk I/O error".
    path = tmp_path / "cache.sqlite"
    keys = _fill_cache(path)
    done = subprocess.run(
        [sys.executable, "-c", FILE_SIZE_LIMITED, str(path), str(limit)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"OSError {errno.EFBIG} "), done.stdout
    assert f"larger than {limit} bytes" in done.stdout and "ulimit -f" in done.stdout
    assert "delete" not in done.stdout and "not a judge cache" not in done.stdout
    assert _replayed(path, keys) == [{"value": key} for key in keys]


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_a_judge_cache_is_readable_by_its_owner_only(tmp_path):
    # It holds prompts and paid answers: created 0o644 (umask 022), readable by every user.
    old = os.umask(0o022)
    try:
        path = tmp_path / "cache.sqlite"
        _fill_cache(path, 3)
        with JudgeCache(path) as cache:
            cache.put("one-more", "chat", {"parsed": {"value": 1}})
            cache.flush()
            made = sorted(p.name for p in tmp_path.iterdir())
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    finally:
        os.umask(old)
    assert made == ["cache.sqlite", "cache.sqlite-shm", "cache.sqlite-wal"]
    assert modes == dict.fromkeys(made, 0o600)


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
