"""Judges and embedders: the protocol they satisfy, OpenAI-compatible HTTP and SDK clients,
offline stand-ins, and the configuration they read from the environment."""
