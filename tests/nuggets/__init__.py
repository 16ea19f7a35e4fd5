"""Nugget and citation evaluation (issue 45)."""
