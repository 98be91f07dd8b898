"""Names of a package that load their module on first use (PEP 562), so that importing the
package — and `suanli --help`, which imports every command — stays fast.

A package lists where each public name lives (``_HOME``: module → names), keeps the explicit
imports under ``TYPE_CHECKING`` for the type checker, and sets
``__getattr__ = lazy_names(__name__, _HOME)``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, home: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: each name of ``home`` from its module."""
    module_of = {name: module for module, names in home.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    return __getattr__
