"""Which encoding a text sheet (CSV, TSV, JSON) is in: UTF-8, else a confident guess, else refused.

UTF-8, with or without a BOM, is read as it is. Anything else is guessed by charset-normalizer
(https://charset-normalizer.readthedocs.io, ``from_bytes``: each candidate codec's "chaos", the
share of the decoded text that looks like mojibake). A guess is used only when it is

* one of the encodings Chinese and Japanese spreadsheets are saved in (GB18030 and its subsets
  GBK/GB2312, Big5, Shift-JIS), and
* clear: its chaos is low and no candidate of *another* family comes close, since a short sheet
  of Big5 bytes may read as Shift-JIS text just as well, and
* strict: the whole sheet decodes with that codec without a single bad byte.

Otherwise the sheet is refused with the file and the candidate encodings named, and the fix
(save it again as UTF-8). GB18030 in particular is never assumed: it decodes almost any bytes,
so a Big5 or Shift-JIS sheet read as GB18030 would be stored as mojibake without a word.

Measured with charset-normalizer 3.5 on the sheets of tests/providers/test_adapters_sheet_encodings.py:
a three-row Big5 JSON sheet scores chaos 0.035 as Big5 and 0.131 as the nearest other
(ISO-8859-13), so it is read; the one-row Big5 CSV "台北算力雲端服務" scores 0.0 as cp932
(Shift-JIS) and 0.025 as Big5, so it is refused naming both.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from comparator.errors import InputError, Msg

UTF8 = "UTF-8"
MAX_CHAOS = 0.10  # a guess whose text looks more than 10 % like mojibake is weak
MIN_GAP = 0.05  # …as is one with a candidate of another family this close
SAMPLE_BYTES = 1 << 18  # what the guess reads of a large sheet; the decode reads all of it
# charset-normalizer's codec names (Python's) → the family a user knows it by
_FAMILIES = {
    "gb18030": "GB18030",
    "gbk": "GB18030",
    "gb2312": "GB18030",
    "cp936": "GB18030",
    "big5": "Big5",
    "big5hkscs": "Big5",
    "cp950": "Big5",
    "shift_jis": "Shift-JIS",
    "cp932": "Shift-JIS",
    "shift_jis_2004": "Shift-JIS",
    "shift_jisx0213": "Shift-JIS",
}
# the codec each family is decoded with: the superset that Windows and Excel write
_CODECS = {"GB18030": "gb18030", "Big5": "cp950", "Shift-JIS": "cp932"}


@dataclass(frozen=True)
class DecodedSheet:
    text: str
    encoding: str  # "UTF-8", or the family guessed: "GB18030", "Big5", "Shift-JIS"
    chaos: float = 0.0  # of the guess (0: no mojibake-like text at all)

    @property
    def guessed(self) -> bool:
        return self.encoding != UTF8


def decode_sheet(content: bytes, filename: str) -> DecodedSheet:
    """The sheet's text; :class:`InputError` naming the file when its encoding is doubtful."""
    try:
        return DecodedSheet(content.decode("utf-8-sig"), UTF8)
    except UnicodeDecodeError:
        pass
    candidates = _candidates(content)
    if not candidates:
        raise InputError(
            "{path}: not UTF-8 text, and no known text encoding fits it; save it again as "
            "UTF-8 (Excel: Save As, CSV UTF-8)",
            path=filename,
            hint=Msg(
                "save the sheet as UTF-8 (Excel: Save As, CSV UTF-8); README, section Price "
                "sheets, lists the encodings read"
            ),
        )
    family, chaos = candidates[0]
    rivals = [name for name, score in candidates[1:] if score - chaos < MIN_GAP]
    if family not in _CODECS or chaos > MAX_CHAOS or rivals:
        names = ", ".join(dict.fromkeys([family, *rivals]))
        raise InputError(
            "{path}: not UTF-8 text; it looks like {names}, but the guess is not sure enough "
            "to store its names and regions; save it again as UTF-8 (Excel: Save As, CSV UTF-8)",
            path=filename,
            names=names,
            hint=Msg(
                "save the sheet as UTF-8 (Excel: Save As, CSV UTF-8); README, section Price "
                "sheets, lists the encodings read"
            ),
        )
    try:
        text = content.decode(_CODECS[family])
    except UnicodeDecodeError as exc:
        raise InputError(
            "{path}: not UTF-8 text; it looks like {names}, but byte {byte} is not {names}; "
            "save it again as UTF-8 (Excel: Save As, CSV UTF-8)",
            path=filename,
            names=family,
            byte=exc.start + 1,
            hint=Msg(
                "save the sheet as UTF-8 (Excel: Save As, CSV UTF-8); README, section Price "
                "sheets, lists the encodings read"
            ),
        ) from None
    return DecodedSheet(text.removeprefix("\ufeff"), family, chaos)


def _candidates(content: bytes) -> list[tuple[str, float]]:
    """(family, chaos) of each family charset-normalizer finds plausible, best first."""
    from charset_normalizer import from_bytes

    sample = content[:SAMPLE_BYTES]
    if len(content) > SAMPLE_BYTES:  # do not cut the last character of the sample in two
        sample = sample[: sample.rfind(b"\n") + 1] or sample
    best: dict[str, float] = {}
    for match in from_bytes(sample):
        name = codecs.lookup(match.encoding).name.replace("-", "_")
        family = _FAMILIES.get(name, match.encoding)
        best[family] = min(best.get(family, 1.0), float(match.chaos))
    return sorted(best.items(), key=lambda item: item[1])
