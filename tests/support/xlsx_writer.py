"""A fast writer of large, plain XLSX workbooks for tests (one sheet, inline strings).

openpyxl's writer needs about a minute for 500,000 rows; this one writes the sheet's XML
directly, row by row into the zip, in a few seconds. The result is what Excel calls a
workbook with inline strings (``t="inlineStr"``), which openpyxl reads like any other.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Sequence
from xml.sax.saxutils import escape

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="prices" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
    'Target="worksheets/sheet1.xml"/></Relationships>'
)


def _column(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _cell(ref: str, value: str | float) -> str:
    if isinstance(value, str):
        return f'<c r="{ref}" t="inlineStr"><is><t>{escape(value)}</t></is></c>'
    return f'<c r="{ref}"><v>{value!r}</v></c>'


def _row(number: int, cells: Sequence[str | float], columns: Sequence[str]) -> str:
    parts = [
        _cell(f"{col}{number}", value)
        for col, value in zip(columns, cells, strict=False)
        if value != ""
    ]
    return f'<row r="{number}">{"".join(parts)}</row>'


def xlsx_bytes(
    rows: Iterable[Sequence[str | float]], merged: Sequence[str] = (), dimension: str = ""
) -> bytes:
    """A workbook whose first sheet holds ``rows`` (the first is the header): texts as inline
    strings, numbers as numbers; ``dimension`` (``"A1:H500001"``) is the used range Excel
    writes before the rows (without it openpyxl reads the whole sheet once more to look for
    it);
    ``merged`` ranges (``"F2:F9"``) go to ``<mergeCells>``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("xl/workbook.xml", _WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        with archive.open("xl/worksheets/sheet1.xml", "w") as sheet:
            sheet.write(
                b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                + (f'<dimension ref="{dimension}"/>'.encode() if dimension else b"")
                + b"<sheetData>"
            )
            columns = [_column(i) for i in range(256)]
            chunk: list[str] = []
            for number, cells in enumerate(rows, 1):
                chunk.append(_row(number, cells, columns))
                if len(chunk) == 10_000:
                    sheet.write("".join(chunk).encode())
                    chunk = []
            sheet.write("".join(chunk).encode() + b"</sheetData>")
            if merged:
                refs = "".join(f'<mergeCell ref="{ref}"/>' for ref in merged)
                sheet.write(f'<mergeCells count="{len(merged)}">{refs}</mergeCells>'.encode())
            sheet.write(b"</worksheet>")
    return buffer.getvalue()
