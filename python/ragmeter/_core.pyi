"""Type stubs of the private native module ``ragmeter._core`` (users import ``ragmeter``)."""

__version__: str

def pool_threads(n_threads: int | None = None) -> int: ...
