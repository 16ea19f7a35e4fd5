"""Compatibility layers: other evaluation libraries' APIs on ragmeter's engine."""
