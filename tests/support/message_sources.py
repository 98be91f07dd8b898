"""Every message the library writes, read from the source: the English templates that are the
message ids of the catalogue (``comparator.i18n.MESSAGES_ZH``).

A message is a string literal given to an error class (``InputError("…", path=p)``), to
:class:`comparator.errors.Msg`, or as the *expected* part of a field error (``fail(key,
"…")``, ``RowProblem(row, column, "…")``, a sheet cell's ``_Bad("…")``). An error raised with
an f-string or any other computed text escapes the catalogue; :func:`computed_messages` finds
those.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("comparator", "providers")
BUILTIN_ERRORS = {
    "ValueError",
    "TypeError",
    "KeyError",
    "RuntimeError",
    "AssertionError",
    "NotImplementedError",
    "OSError",
    "ImportError",
    "LookupError",
    "AttributeError",
}
# call name → position of the message argument
MESSAGE_ARGS = {"Msg": 0, "_Bad": 0, "fail": 1, "RowProblem": 2, "_fail": 3}


def _files() -> Iterator[Path]:
    for top in SOURCES:
        yield from sorted((ROOT / top).rglob("*.py"))


def _called(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _message_arg(node: ast.Call) -> ast.expr | None:
    name = _called(node)
    if name is None:
        return None
    if name.endswith("Error") and name not in BUILTIN_ERRORS:
        return node.args[0] if node.args else None
    index = MESSAGE_ARGS.get(name)
    if index == 1 and len(node.args) == 1:  # a reader's fail("…", **params)
        index = 0
    if index is None or len(node.args) <= index:
        return None
    return node.args[index]


def _calls() -> Iterator[tuple[str, ast.Call, ast.expr]]:
    for path in _files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                arg = _message_arg(node)
                if arg is not None:
                    yield f"{where}:{node.lineno}", node, arg


def message_templates() -> dict[str, str]:
    """English template → where it is first written."""
    found: dict[str, str] = {}
    for where, _, arg in _calls():
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.setdefault(arg.value, where)
        elif isinstance(arg, ast.BinOp) and isinstance(arg.right, ast.Constant):
            found.setdefault(f"{{prefix}}{arg.right.value}", where)
    return found


def computed_messages() -> list[str]:
    """Where an error or message is built from an f-string or a concatenation."""
    return [
        f"{where}: {ast.unparse(arg)[:70]}"
        for where, _, arg in _calls()
        if isinstance(arg, ast.JoinedStr | ast.BinOp)
    ]
