"""A record number after its cue, in any grouping ("Unit No: 555-55-55", "MRN: 12-34-567",
"MR# 55 12 33", "Acct # 4455-21"): the pattern finders read a number of six digits or
more written whole, the dictionary the extract's own numbers; this finder the numbers of
other systems, written in groups, that only their cue tells apart from a measure.

Called from ``shapes_more`` at the cue words (found by their hash there).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from deid_desktop.core.scan.rules import CODE

C_RECORD = CODE[("MRN", "record:cued")]
#: the cue, its "no"/"#"/":", then digits in groups split by one "-", "." or space
_RECORD = re.compile(
    r"(?i)(?:mrn|mr|acct|account|record|chart|unit|hospital|member)"
    r"(?:\s*(?:no|num|number|#|id))?\.?\s*[#:]?\s*"
    r"(\d+(?:[-. ]\d+){0,4})(?![\w/])"
)
#: the words that make "unit" or "hospital" a record's cue ("Unit No", "Hospital #")
_NEEDS_NO = ("unit", "hospital", "member", "record", "chart", "account")


def record_number(text: str, p: int, add: Callable[[int, int, int], None]) -> None:
    """The record number after the cue word at ``p`` of ``text``, if any: five digits or
    more; "unit", "hospital", "record"... only with "no", "#" or "number" after them."""
    m = _RECORD.match(text, p)
    if m is None:
        return
    cue = text[p : m.start(1)].lower()
    if cue.startswith(_NEEDS_NO) and not any(k in cue for k in ("no", "num", "#", "id")):
        return  # "unit 5", "hospital 2", "record 12345" alone
    value = m.group(1)
    digits = sum(c.isdigit() for c in value)
    if digits < 5 or (digits > 12):
        return
    if (value.isdigit() and digits >= 6) or ("-" not in value and "." not in value and digits >= 7):
        return  # the patterns' own: a number whole ("MRN 1234567") or in spaced groups
    add(m.start(1), m.end(1), C_RECORD)
