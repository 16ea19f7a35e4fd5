"""Readers and writers of evaluation data: TREC run and qrels files."""

from __future__ import annotations

from .trec import evaluate_trec, read_trec_qrels, read_trec_run, write_trec_run

__all__ = ["evaluate_trec", "read_trec_qrels", "read_trec_run", "write_trec_run"]
