"""Errors and other library messages in the chosen language.

A message (:class:`comparator.errors.Msg`) is identified by its English text, a ``str.format``
template, as gettext identifies one by its msgid; :data:`MESSAGES_ZH` maps each to its
Chinese. :func:`render` fills the template of the language in, parameters that are messages
themselves included; English is the template as written.
"""

from __future__ import annotations

from comparator.errors import Msg, SuanliError
from comparator.i18n.labels import is_en
from comparator.i18n.messages_cli import CLI_ZH
from comparator.i18n.messages_compliance import COMPLIANCE_ZH
from comparator.i18n.messages_estimate import ESTIMATE_ZH
from comparator.i18n.messages_hints import HINTS_ZH
from comparator.i18n.messages_input import INPUT_ZH
from comparator.i18n.messages_limits import LIMITS_ZH
from comparator.i18n.messages_market import MARKET_ZH
from comparator.i18n.messages_plan import PLAN_ZH
from comparator.i18n.messages_refresh import REFRESH_ZH
from comparator.i18n.messages_verify import VERIFY_ZH
from comparator.i18n.messages_work import WORK_ZH

# one table per room; an id two tables translate differently is an error (a test)
TABLES_ZH: dict[str, dict[str, str]] = {
    "input": INPUT_ZH,
    "refresh": REFRESH_ZH,
    "work": WORK_ZH,
    "plan": PLAN_ZH,
    "cli": CLI_ZH,
    "compliance": COMPLIANCE_ZH,
    "verify": VERIFY_ZH,
    "market": MARKET_ZH,
    "limits": LIMITS_ZH,
    "estimate": ESTIMATE_ZH,
    "hints": HINTS_ZH,
}
MESSAGES_ZH: dict[str, str] = {k: v for table in TABLES_ZH.values() for k, v in table.items()}


def _zh(text: str) -> str | None:
    return MESSAGES_ZH.get(text)


def render(message: Msg | str, lang: str) -> str:
    """``message`` in ``lang``; text the catalogue does not know is shown as given."""
    if isinstance(message, str):
        message = Msg(message)
    return message.render(None if is_en(lang) else _zh)


def say(lang: str, text: str, /, **params: object) -> str:
    """The message ``text`` (its English id) filled with ``params``, in ``lang``."""
    return render(Msg(text, **params), lang)


def error_text(exc: SuanliError, lang: str) -> str:
    """What an error says in ``lang``."""
    return render(exc.msg, lang)
