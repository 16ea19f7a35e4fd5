"""mteb's retrieval metrics, ported as a test oracle (see retrieval_metrics.py)."""
