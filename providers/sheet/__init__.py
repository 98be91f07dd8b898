"""Price sheets: CSV/TSV, XLSX and JSON files (or URLs) with canonical or Chinese headers.

:mod:`.columns` maps headers to fields, :mod:`.values` checks and converts each column,
:mod:`.parse` turns a sheet into offers (every bad row listed), :mod:`.adapter` is the
``sheet`` adapter of the weekly refresh.
"""

from providers.sheet.known import KnownCatalog
from providers.sheet.parse import parse_sheet, parse_sheet_columns
from providers.sheet.sheet_limits import read_sheet_file

__all__ = ["KnownCatalog", "parse_sheet", "parse_sheet_columns", "read_sheet_file"]
