"""The plain text of console markup (comparator.cli.markup_text) is rich's, character for
character, and fails where rich fails."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.errors import MarkupError
from rich.markup import escape, render

from comparator.cli.markup_text import plain_text

PIECES = [
    "[bold]", "[/bold]", "[/]", "[dim]", "[/dim]", "[red on white]", "[/red on white]",
    "[link=https://a.b/c]", "[/link]", "[@click]", "[/@click]", "[BOLD]", "[/ bold ]",
    "\\[bold]", "\\\\[bold]", "\\\\\\[dim]", "[", "]", "\\", "[1]", "[x=y]", "[/x]",
    ":smile:", ":thumbs_up:", "12:00:00", ": ", "广东·深圳", "✓ ", "a", "b c", "=", "@",
]  # fmt: skip


def _rich(markup: str) -> str | type[MarkupError]:
    try:
        return render(markup).plain
    except MarkupError:
        return MarkupError


def _mine(markup: str) -> str | type[MarkupError]:
    try:
        return plain_text(markup)
    except MarkupError:
        return MarkupError


@settings(max_examples=600)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_plain_text_is_richs(markup: str) -> None:
    assert _mine(markup) == _rich(markup)


@settings(max_examples=300)
@given(st.text(alphabet="[]/\\ab=@: ", max_size=24))
def test_plain_text_is_richs_on_any_brackets(markup: str) -> None:
    assert _mine(markup) == _rich(markup)


@pytest.mark.parametrize(
    "markup",
    [
        "✓ scale-00042 ICP filing: [bold]B1-20200712[/] [dim](profile.toml)[/]",
        f"· {escape('[weird] provider')} own data centre: yes [dim]({escape('a[b]c')})[/]",
        "[bold]unclosed",
        "closing nothing[/]",
        "[bold]x[/dim]",
    ],
)
def test_plain_text_of_cli_lines(markup: str) -> None:
    assert _mine(markup) == _rich(markup)
