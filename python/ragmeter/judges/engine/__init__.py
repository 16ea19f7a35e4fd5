"""The engine behind ``evaluate``: run settings, the call runtime, the cache, dry runs."""
