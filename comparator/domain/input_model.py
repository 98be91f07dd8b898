"""What pydantic models of input files share: one field-check error, rendered through the catalogue.

A file model (:mod:`comparator.domain.job_model`) declares each key with a type whose
``BeforeValidator`` checks the value the way a person wrote it (TOML types, a province's short
name, a GPU alias) and raises :func:`bad` with the catalogue's words for what was expected.
:func:`render_errors` turns pydantic's first error into the one-line message every input error
has: ``{path}: {key}: expected {expected} (got {got!r})``, in both languages. A field's
``description`` is a catalogue message too (English text, Chinese in ``messages_input``): it
is what a missing key was expected to be, and what an editor shows from the JSON Schema.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from comparator.errors import InputError, Msg, as_msg

# pydantic's custom error: its first argument is an error *type* id, not a message
_field_error = PydanticCustomError
_KIND = "suanli"


class FileTable(BaseModel):
    """One table of an input file: its keys are exactly the fields (no unknown key passes)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


Loc = tuple[str | int, ...]  # where in the file: table and key names, row indexes (0-based)
RowName = Callable[[Loc], "str | None"]  # the name of the row at a loc ending in its index
MAX_GOT = 80  # characters of a value shown back in an error


def bad(
    expected: str | Msg,
    got: object = None,
    *,
    key: str | None = None,
    field: Loc = (),
    hint: Msg | None = None,
) -> PydanticCustomError:
    """A field check that failed: ``expected`` in the catalogue's words, what was ``got``;
    when the check of a whole table blames one of its keys, ``key`` (dotted, from the file's
    top) or ``field`` (the loc under the table checked, rows included: ``("datacenters", 1,
    "id")``); ``hint``, what to do next when the catalogue knows better than the command's
    general hint."""
    context = {
        "expected": as_msg(expected),
        "got": got,
        "key": key,
        "field": field,
        "hint": hint,
    }
    return _field_error(_KIND, "{expected}", context)


def reason(why: Msg, *, key: str | None = None) -> PydanticCustomError:
    """A field check whose whole reason is ``why`` (an unknown GPU says what it knows)."""
    return _field_error(_KIND, "{reason}", {"reason": why, "key": key})


def render_errors(
    exc: ValidationError,
    model: type[BaseModel],
    path: str,
    error: type[InputError],
    row_name: RowName | None = None,
) -> InputError:
    """The first of pydantic's errors as ``error``, naming file, table and key: ``a.b`` for a
    key of a table, ``[[rows]] #2 (name) key`` for one of an array of tables (``row_name``
    names a row by its loc, such as a source by its provider)."""
    first = exc.errors(include_url=False)[0]
    context: Mapping[str, Any] = first.get("ctx") or {}
    loc: Loc = (*first["loc"], *(context.get("field") or ()))
    kind = first["type"]
    key = context.get("key") or place(loc, row_name)
    if kind == _KIND and "reason" in context:
        return error("{path}: {key}: {reason}", path=path, key=key, reason=context["reason"])
    if kind == _KIND:
        found = _expected(error, path, key, context["expected"], context.get("got"))
        found.hint = context.get("hint") or found.hint
        return found
    field = _field(model, loc)
    if kind == "extra_forbidden":
        names = ", ".join(_fields_of(model, loc[:-1]))
        return _expected(error, path, key, Msg("one of {names}", names=names), loc[-1])
    if field is not None and _is_table(field):
        key = f"[[{key}]]" if _is_rows(field) else f"[{key}]"
    if kind == "missing":
        return _expected(error, path, key, _described(field), None)
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return _expected(error, path, key, Msg("a table"), first.get("input"))
    if kind in ("list_type", "tuple_type") and field is not None and _is_rows(field):
        rows = Msg("an array of tables [[{key}]]", key=loc[-1])
        return _expected(error, path, key, rows, first.get("input"))
    return _expected(error, path, key, _described(field), first.get("input"))


def _expected(
    error: type[InputError], path: str, key: str, expected: Msg, got: object
) -> InputError:
    if isinstance(got, str) and len(got) > MAX_GOT:
        got = f"{got[:MAX_GOT]}… ({len(got)})"
    if got is None:
        return error("{path}: {key}: expected {expected}", path=path, key=key, expected=expected)
    return error(
        "{path}: {key}: expected {expected} (got {got!r})",
        path=path,
        key=key,
        expected=expected,
        got=got,
    )


def place(loc: Loc, row_name: RowName | None = None) -> str:
    """``loc`` as an error names it: ``schedule.deadline``, ``[[licenses]] #1 number``."""
    text, dotted = "", list[str]()
    for index, part in enumerate(loc):
        if isinstance(part, int) and index > 0:
            rows = ".".join(str(p) for p in dotted)
            name = row_name(loc[: index + 1]) if row_name else None
            text = f"{text} [[{rows}]] #{part + 1}".strip()
            text += f" ({name})" if name else ""
            dotted = []
        else:
            dotted.append(str(part))
    return f"{text} {'.'.join(dotted)}".strip()


def _described(field: Any) -> Msg:
    text = getattr(field, "description", None)
    return Msg(text) if text else Msg("a value of the right kind")


def _model_at(model: type[BaseModel], loc: Sequence[str | int]) -> type[BaseModel] | None:
    current: type[BaseModel] | None = model
    for part in loc:
        if isinstance(part, int):
            continue  # a row of an array of tables: the same table model
        if current is None or part not in current.model_fields:
            return None
        current = _table_class(current.model_fields[part].annotation)
    return current


def _field(model: type[BaseModel], loc: Sequence[str | int]) -> Any:
    if not loc or isinstance(loc[-1], int):
        return None
    parent = _model_at(model, loc[:-1])
    return parent.model_fields.get(loc[-1]) if parent is not None else None


def _fields_of(model: type[BaseModel], loc: Sequence[str | int]) -> list[str]:
    parent = _model_at(model, loc)
    return sorted(parent.model_fields) if parent is not None else []


def _is_table(field: Any) -> bool:
    return _table_class(field.annotation) is not None


def _is_rows(field: Any) -> bool:
    """An array of tables (``list[Table]``)."""
    return any(getattr(arg, "__origin__", None) in (list, tuple) for arg in _alternatives(field))


def _alternatives(field: Any) -> tuple[Any, ...]:
    annotation = field.annotation
    return (annotation, *getattr(annotation, "__args__", ()))


def _table_class(annotation: Any) -> type[BaseModel] | None:
    """The FileTable class of ``annotation`` (``X`` or ``X | None``), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
        if getattr(arg, "__origin__", None) in (list, tuple):
            return _table_class(arg)  # X | list[X]
    return None
