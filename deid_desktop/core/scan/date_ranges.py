"""Two days of a month written as one range ("intubated 1/16-7/1"), read where the
day-month finder of ``context`` leaves them (a third part after the first date)."""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan.rules import CODE
from deid_desktop.core.scan.words import Words

C_NOYEAR = CODE[("DATE", "date:no-year")]
_SEP = np.zeros(256, dtype=bool)
_SEP[[45, 46, 47]] = True  # - . /


def date_ranges(w: Words, a: np.ndarray, b: np.ndarray, ok: np.ndarray, out: list) -> None:  # type: ignore[type-arg]
    """Append "m/d-m/d" to ``out``: ``a``, ``b`` the first date's month and day (a
    range's first date, ``ok``), then '-', a month, '/', a day, and no more parts."""
    c, d = b + 1, b + 2
    gc, gd = w.gap(c), w.gap(d)
    vc, vd = w.value(c), w.value(d)
    ok = ok & (w.gap(b).first == 47) & (gc.first == 45) & (gd.length == 1) & (gd.first == 47)
    ok &= w.valid(d) & (vc >= 1) & (vc <= 12) & (vd >= 1) & (vd <= 31) & (w.length(d) <= 2)
    ok &= ~(_SEP[w.gap(d + 1).first] & (w.gap(d + 1).length == 1) & w.digits[d + 1])
    out.append((w.start[a[ok]], w.end[d[ok]], C_NOYEAR))
