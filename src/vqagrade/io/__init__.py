"""Streaming row readers and writers: JSON lines and CSV (`rows`), Parquet (`parquet`)."""

from ..contract import InputRow
from .rows import FORMATS, RowWriter, count_rows, detect_format, open_writer, read_rows

__all__ = [
    "FORMATS",
    "InputRow",
    "RowWriter",
    "count_rows",
    "detect_format",
    "open_writer",
    "read_rows",
]
