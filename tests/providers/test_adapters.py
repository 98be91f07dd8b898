"""The adapter registry: every adapter is registered, named, documented and tested."""

from __future__ import annotations

import inspect

import pytest

import providers
from comparator.errors import InputError
from providers import ADAPTERS, adapter_class
from providers.base import Adapter
from tests.conftest import REPO


def _adapter_classes() -> list[type[Adapter]]:
    """Every concrete Adapter subclass defined anywhere in the providers package."""
    import pkgutil

    found: list[type[Adapter]] = []
    for module_info in pkgutil.walk_packages(providers.__path__, "providers."):
        module = __import__(module_info.name, fromlist=["_"])
        for _, cls in inspect.getmembers(module, inspect.isclass):
            is_adapter = issubclass(cls, Adapter) and cls is not Adapter
            if is_adapter and not inspect.isabstract(cls) and cls not in found:
                found.append(cls)
    return found


def test_every_adapter_class_is_registered_under_its_name() -> None:
    classes = _adapter_classes()
    assert classes, "no adapter classes found"
    for cls in classes:
        assert isinstance(cls.name, str) and cls.name, f"{cls.__name__} has no name"
        assert ADAPTERS.get(cls.name) is cls, f"{cls.__name__} is not registered as {cls.name!r}"
    assert set(ADAPTERS) == {cls.name for cls in classes}


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_every_registered_adapter_has_its_own_test_module(name: str) -> None:
    test_file = REPO / "tests" / "providers" / f"test_adapters_{name}.py"
    assert test_file.is_file(), f"adapter {name!r} has no {test_file.name}"
    assert ADAPTERS[name].__name__ in test_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_every_adapter_documents_its_options(name: str) -> None:
    cls = ADAPTERS[name]
    assert cls.__doc__, f"{cls.__name__} needs a docstring"
    assert all(help_text.strip() for help_text in cls.option_help.values())


def test_unknown_adapter_names_the_known_ones() -> None:
    with pytest.raises(InputError, match=r"sources\.toml #3: adapter: expected one of http_json"):
        adapter_class("excel", "sources.toml #3")
