"""Errors and other library messages in the chosen language.

A message (:class:`comparator.errors.Msg`) is identified by its English text, a ``str.format``
template, as gettext identifies one by its msgid; :data:`MESSAGES_ZH` maps each to its
Chinese. :func:`render` fills the template of the language in, parameters that are messages
themselves included; English is the template as written.
"""

from __future__ import annotations

from comparator.errors import Msg, SuanliError
from comparator.i18n.labels import is_en
from comparator.i18n.messages_input import INPUT_ZH
from comparator.i18n.messages_market import MARKET_ZH
from comparator.i18n.messages_plan import PLAN_ZH
from comparator.i18n.messages_refresh import REFRESH_ZH
from comparator.i18n.messages_work import WORK_ZH

MESSAGES_ZH: dict[str, str] = {**INPUT_ZH, **REFRESH_ZH, **WORK_ZH, **PLAN_ZH, **MARKET_ZH}


def _zh(text: str) -> str | None:
    return MESSAGES_ZH.get(text)


def render(message: Msg | str, lang: str) -> str:
    """``message`` in ``lang``; text the catalogue does not know is shown as given."""
    if isinstance(message, str):
        message = Msg(message)
    return message.render(None if is_en(lang) else _zh)


def error_text(exc: SuanliError, lang: str) -> str:
    """What an error says in ``lang``."""
    return render(exc.msg, lang)
