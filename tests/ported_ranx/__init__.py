"""ranx's own unit tests through ragmeter.compat.ranx (see conftest.py)."""
