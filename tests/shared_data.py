"""Where the project's shared data are (../shared: trec_eval's sources and test files), from
a checkout or from a git worktree one level deeper."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SHARED"]

SHARED = next(
    (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path(__file__).resolve().parents[1].parent / "shared",
)
