"""ZIP codes that lost their leading zeros (Excel stores 02139 as the number 2139)."""

from __future__ import annotations

import pandas as pd

from deid_desktop.core.facts.digits import five_digit_values
from deid_desktop.core.facts.text import arrow_text
from deid_desktop.core.io.frames import TEXT

#: 3 or 4 digits, optionally with a ZIP+4 suffix, optionally written as a float ("2139.0").
_SHORT = r"\d{3,4}(?:-\d{4})?"
_FLOAT = r"\d{3,5}\.0+"
#: What a US ZIP code looks like once restored: 5 digits, ZIP+4 with or without the dash.
_ZIP_LIKE = r"\d{5}(?:-?\d{4})?"


def restore_zip_zeros(values: pd.Series) -> tuple[pd.Series, int]:
    """Left-pad 3-4 digit ZIPs (and their ZIP+4 forms) to 5 digits; return the count.

    "2139" -> "02139", "501-1234" -> "00501-1234", "2139.0" -> "02139". Missing values
    and anything else are left as they are.
    """
    text = values.astype(TEXT)
    if five_digit_values(arrow_text(text)):  # every ZIP whole (no regex pass needed)
        return (values if values.dtype == text.dtype else text), 0
    floats = text.str.fullmatch(_FLOAT).fillna(False).astype(bool)
    if floats.any():
        text = text.mask(floats, text.str.replace(r"\.0+$", "", regex=True))
    short = text.str.fullmatch(_SHORT).fillna(False).astype(bool)
    if not short.any() and not floats.any():  # nothing to pad: no column-wide zfill
        return (values if values.dtype == text.dtype else text), 0
    has_plus4 = text.str.contains("-", regex=False).fillna(False).astype(bool)
    padded = text.mask(short & ~has_plus4, text.str.zfill(5))
    padded = padded.mask(short & has_plus4, text.str.zfill(10))
    changed = short | (floats & ~short)
    return padded.astype(values.dtype) if values.dtype == text.dtype else padded, int(changed.sum())


def count_not_zip_like(values: pd.Series) -> int:
    """Non-missing values that are not 5-digit ZIPs or ZIP+4 (after restoration)."""
    text = values.astype(TEXT)
    if five_digit_values(arrow_text(text)):
        return 0
    ok = text.str.fullmatch(_ZIP_LIKE)
    return int((text.notna() & ~ok.fillna(False).astype(bool)).sum())
