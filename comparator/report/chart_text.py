"""How wide a chart label is drawn, so that the charts size their label columns from the text
they show and never cut a label (pure, no fonts are opened).

Advance widths (em/1000) of the printable ASCII characters U+0020…U+007E in Noto Sans CJK SC
Regular, the charts' first font: read from the ``hmtx`` table of
``/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc`` (Debian ``fonts-noto-cjk``
1:20220127, font revision 2.004, 1000 units per em) with fontTools. Every other character (CJK
ideographs, ``·``, ``×``, full-width punctuation) is counted one em, which is its advance in
that font or more. The bold face is up to 6 % wider (``NotoSansCJK-Bold.ttc``, same table), so
widths are taken 6 % larger: a fallback font may differ a little, never by a whole character.
"""

from __future__ import annotations

import re

_ASCII_ADVANCES = (
    224, 323, 474, 555, 555, 921, 680, 278, 338, 338, 467, 555, 278, 347, 278, 392,
    555, 555, 555, 555, 555, 555, 555, 555, 555, 555, 278, 278, 555, 555, 555, 474,
    946, 608, 657, 638, 688, 589, 552, 689, 728, 293, 535, 646, 543, 812, 723, 742,
    633, 742, 635, 596, 599, 721, 575, 878, 573, 531, 603, 338, 392, 338, 555, 559,
    606, 563, 618, 510, 620, 554, 325, 564, 607, 275, 275, 552, 284, 926, 610, 606,
    620, 620, 388, 468, 377, 607, 521, 802, 498, 521, 475, 338, 270, 338, 555,
)  # fmt: skip
_BOLD_MARGIN = 1.06
# the form factor in a GPU name: H800-SXM5-80GB → H800-80GB when a label must be shorter
_FORM_FACTOR = re.compile(r"-(?:SXM\d*|PCIE\d*|NVL\d*|OAM|HGX)(?=-|$)", re.IGNORECASE)


def text_width(text: str, font_size: float) -> float:
    """The drawn width of ``text`` at ``font_size`` (user units), rounded up a little."""
    ems = 0.0
    for char in text:
        code = ord(char)
        ems += _ASCII_ADVANCES[code - 32] / 1000 if 32 <= code < 127 else 1.0
    return ems * font_size * _BOLD_MARGIN


def short_gpu(gpu: str) -> str:
    """A GPU name without its form factor (``H800-SXM5-80GB`` → ``H800-80GB``)."""
    return _FORM_FACTOR.sub("", gpu)


def fit_text(text: str, font_size: float, room: float) -> str:
    """``text`` cut at its end with ``…`` so that it fits ``room`` (whole when it fits)."""
    if text_width(text, font_size) <= room:
        return text
    kept = text
    while kept and text_width(kept + "…", font_size) > room:
        kept = kept[:-1]
    return kept.rstrip() + "…"
