"""``--help`` in the ``--lang`` language: the click command tree's texts from the catalogue."""

from __future__ import annotations

from typing import Any

from comparator.i18n import HELP_CHROME_ZH, HELP_OPTION_ZH, help_zh, is_en

_ORIGINAL_CHROME: dict[str, Any] = {}


def _folded(make: Any) -> Any:
    """typer's help-text builder, folding instead of cutting: CJK has no spaces to wrap at."""

    def make_folded(*args: Any, **kwargs: Any) -> Any:
        text = make(*args, **kwargs)
        if hasattr(text, "overflow"):
            text.overflow = "fold"
        return text

    return make_folded


def _set_chrome(chinese: bool) -> None:
    """typer's own words (panel titles, default notes) in the language; wrapping that folds."""
    from typer import rich_utils

    for name, text in HELP_CHROME_ZH.items():
        _ORIGINAL_CHROME.setdefault(name, getattr(rich_utils, name))
        setattr(rich_utils, name, text if chinese else _ORIGINAL_CHROME[name])
    if hasattr(rich_utils, "_make_rich_text"):
        original = _ORIGINAL_CHROME.setdefault("_make_rich_text", rich_utils._make_rich_text)
        rich_utils._make_rich_text = _folded(original)


def untranslated(command: Any) -> list[str]:
    """Every help text of ``command`` and its subcommands that the catalogue lacks."""
    missing: list[str] = []
    texts = [command.help, *(getattr(p, "help", None) for p in command.params)]
    missing += [t for t in texts if t and help_zh(t) is None]
    for sub in getattr(command, "commands", {}).values():
        missing += untranslated(sub)
    return missing


def _translate(command: Any) -> None:
    if command.help:
        command.help = help_zh(command.help) or command.help
    for param in command.params:
        if getattr(param, "help", None):
            param.help = help_zh(param.help) or param.help
    original = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = original(ctx)
        if option is not None:
            option.help = HELP_OPTION_ZH
        return option

    command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        _translate(sub)


def localize(command: Any, lang: str) -> Any:
    """``command`` (a click command tree) with its help in ``lang``; English is as written."""
    chinese = not is_en(lang)
    _set_chrome(chinese)
    if chinese:
        _translate(command)
    return command
