"""Messages kept for later: a text written in both languages where it is made
(:class:`Bilingual`), and the JSON form of a message, so a stored quote renders its reasons,
its infeasible message and its calendar warning in whichever language it is shown in.

JSON form: ``{"id": <English template>, "params": {name: value}}``; a parameter that is a
message is one too, a :class:`~comparator.errors.MsgList` is ``{"items": [...], "sep": "; "}``
and a :class:`Bilingual` is ``{"id": <English>, "zh": <Chinese>}``. Other values are kept as
JSON scalars (anything else as its ``str``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from comparator.errors import Lookup, Msg, MsgList
from comparator.i18n.messages import render


class Bilingual(Msg):
    """A text already written in both languages (a compliance check's message): its English
    is its id, its Chinese is shown wherever the catalogue would be looked up."""

    __slots__ = ("zh",)

    def __init__(self, en: str, zh: str) -> None:
        super().__init__(en)
        self.zh = zh

    def render(self, lookup: Lookup | None = None) -> str:
        return self.text if lookup is None else self.zh

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bilingual) and (self.text, self.zh) == (other.text, other.zh)

    def __hash__(self) -> int:
        return hash(self.text)


def msg_to_json(message: Msg) -> dict[str, Any]:
    """``message`` as JSON that :func:`msg_from_json` reads back."""
    if isinstance(message, Bilingual):
        return {"id": message.text, "zh": message.zh}
    out: dict[str, Any] = {"id": message.text}
    if message.params:
        out["params"] = {name: _param_json(value) for name, value in message.params.items()}
    return out


def _param_json(value: object) -> object:
    if isinstance(value, Msg):
        return msg_to_json(value)
    if isinstance(value, MsgList):
        return {"items": [_param_json(item) for item in value.items], "sep": value.sep}
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)


def msg_from_json(data: Mapping[str, Any]) -> Msg:
    """The message :func:`msg_to_json` wrote."""
    if "zh" in data:
        return Bilingual(str(data["id"]), str(data["zh"]))
    params = {name: _param_from_json(value) for name, value in (data.get("params") or {}).items()}
    return Msg(str(data["id"]), **params)


def _param_from_json(value: object) -> object:
    if isinstance(value, Mapping):
        if "items" in value:
            items = [_param_from_json(item) for item in value["items"]]
            return MsgList([i if isinstance(i, Msg) else str(i) for i in items], str(value["sep"]))
        return msg_from_json(value)
    return value


def stored_text(document: Mapping[str, Any], key: str, lang: str) -> str | None:
    """The text a stored document holds under ``key``, in ``lang``: rendered from its message
    (``<key>_msg``) when the document keeps one, else as stored (older documents)."""
    data = document.get(f"{key}_msg")
    if isinstance(data, Mapping):
        try:
            return render(msg_from_json(data), lang)
        except (KeyError, IndexError, ValueError, TypeError):
            pass  # a message this version cannot fill in: the stored text
    text = document.get(key)
    return None if text is None else str(text)


def stored_texts(data: object, lang: str) -> list[str] | None:
    """Stored messages (a list in JSON form, such as an exclusion's ``reason_msgs``) in
    ``lang``; None when there are none or they cannot be filled in (then: the stored texts)."""
    if not isinstance(data, list) or not data:
        return None
    try:
        return [render(msg_from_json(item), lang) for item in data]
    except (KeyError, IndexError, ValueError, TypeError, AttributeError):
        return None
