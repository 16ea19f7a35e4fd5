"""BEIR's evaluation code, ported as a test oracle (see evaluation.py)."""
