"""The package surface: version, exception hierarchy, optional-dependency errors."""

import tomllib
from pathlib import Path

import pytest

import ragmeter
from ragmeter._optional import import_optional

ROOT = Path(__file__).resolve().parents[1]


def test_version_comes_from_cargo_toml():
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    assert ragmeter.__version__ == cargo["package"]["version"]


def test_input_errors_are_value_errors():
    assert issubclass(ragmeter.InvalidInputError, ValueError)
    assert issubclass(ragmeter.TrecFormatError, ValueError)
    assert issubclass(ragmeter.MissingDependencyError, ImportError)


def test_every_public_name_is_importable():
    for name in ragmeter.__all__:
        assert hasattr(ragmeter, name), name


def test_missing_optional_dependency_names_the_extra():
    with pytest.raises(ragmeter.MissingDependencyError, match=r"ragmeter\[plot\]"):
        import_optional("surely_not_installed_module_xyz", extra="plot", purpose="Plotting")
