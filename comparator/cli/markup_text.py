"""The plain text of console markup, as rich renders it, without building its styles.

A pipe gets plain lines: `check` of 10,000 providers writes 50,000 lines of facts and a
30,000-line table, each cell's markup rendered by ``rich.markup.render`` only for its
``.plain`` (most of its time in parsing styles and building spans that are thrown
away). :func:`plain_text` walks the same tags with rich's own pattern and keeps only the
text: the same characters, the same escapes and emoji, the same errors (tests/cli/
test_markup_text.py compares both on generated markup).
"""

from __future__ import annotations

from rich.emoji import Emoji
from rich.markup import RE_TAGS, render
from rich.style import Style


def plain_text(markup: str) -> str:
    """``rich.markup.render(markup).plain``: the text between the tags, ``\\[`` as ``[``, an
    escaped tag as its text, emoji codes replaced; markup rich refuses (a closing tag with
    nothing open to close) raises rich's ``MarkupError``, and a meta tag (``[@…]``) is left to
    rich."""
    if "[" not in markup:
        return Emoji.replace(markup)
    pieces: list[str] = []
    opened: list[str] = []
    position = 0
    for match in RE_TAGS.finditer(markup):
        full, escapes, tag = match.groups()
        start, end = match.span()
        if start > position:
            pieces.append(markup[position:start])
        position = end
        if escapes:
            backslashes, escaped = divmod(len(escapes), 2)
            if backslashes:
                pieces.append("\\" * backslashes)
            if escaped:
                pieces.append(full[len(escapes) :])
                continue
        name = tag.partition("=")[0]
        if name.startswith("@") or not _follows(name, opened):
            return render(markup).plain  # rich's meta, or rich's error
    if position < len(markup):
        pieces.append(markup[position:])
    return "".join(Emoji.replace(piece.replace("\\[", "[")) for piece in pieces)


def _follows(name: str, opened: list[str]) -> bool:
    """Open or close the tag ``name`` on the stack of ``opened`` styles as rich does; False
    where rich would refuse the close (nothing open, or no open tag of that name)."""
    if not name.startswith("/"):
        opened.append(Style.normalize(name))
        return True
    closing = name[1:].strip()
    if not closing:  # [/] closes the last tag opened
        if not opened:
            return False
        opened.pop()
        return True
    wanted = Style.normalize(closing)
    for index in range(len(opened) - 1, -1, -1):
        if opened[index] == wanted:
            del opened[index]
            return True
    return False
