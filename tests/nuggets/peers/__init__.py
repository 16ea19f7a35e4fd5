"""Peers' own code, ported with its source commit: the oracles of the nugget tests."""
