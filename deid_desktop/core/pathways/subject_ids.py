"""Random subject IDs (45 CFR 164.514(c)): a seeded permutation written ``S`` + zero-padded
digits, never equal to a person key and never holding its own person's key. Written and
compared as fixed-width byte matrices: no Python string per person.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.persons import MIN_KEY_LENGTH
from deid_desktop.core.facts.text import STRING, arrow_text

#: The column name of the subject ID.
SUBJECT_ID = "subject_id"
#: Subject-ID prefixes tried in turn until no ID equals a person key.
_ID_PREFIXES = "SRTUVWXZ"


@dataclass(frozen=True)
class SubjectIds:
    """Random subject IDs, one per person row, and their numbers (for ordering)."""

    ids: pd.Series  # string, aligned with the person table's rows
    numbers: np.ndarray  # 1..n, a permutation
    width: int
    prefix: str
    reassigned: int  # IDs moved because they happened to contain the person's own key

    @cached_property
    def _by_number(self) -> pa.Array:
        """The IDs in the order of their numbers (1, 2, ...), taken once."""
        inverse = np.empty(len(self.numbers), dtype=np.int64)
        inverse[self.numbers - 1] = np.arange(len(self.numbers))
        return arrow_text(self.ids).take(pa.array(inverse))

    def in_order(self, rows: np.ndarray) -> pd.Series:
        """The IDs of person rows ``rows`` (index reset), as ``take_rows(ids, rows)``
        gives them. ``rows`` in release order have rising numbers, so the IDs are read
        forward from those in number order rather than gathered at random."""
        taken = self._by_number.take(pa.array(self.numbers[rows] - 1))
        return pd.Series(
            self.ids.dtype.__from_arrow__(pa.chunked_array([taken])), name=self.ids.name, copy=False
        )


def _id_bytes(numbers: np.ndarray, prefix: str, width: int) -> np.ndarray:
    """The IDs ``prefix`` + ``width`` zero-padded digits of ``numbers``, as a rows x
    (1 + width) matrix of ASCII bytes (digits by integer division, no string per row)."""
    out = np.empty((len(numbers), 1 + width), dtype=np.uint8)
    out[:, 0] = ord(prefix)
    rest = np.asarray(numbers, dtype=np.int64).copy()
    for k in range(width, 0, -1):
        out[:, k] = rest % 10 + 48
        rest //= 10
    return out


def _format_ids(numbers: np.ndarray, prefix: str, width: int) -> pa.Array:
    """The IDs as Arrow text: one fixed-width byte matrix, no string per row."""
    size = 1 + width
    if len(numbers) and int(np.max(numbers)) >= 10**width:  # wider than the width: as text
        digits = pc.utf8_lpad(pa.array(numbers).cast(pa.string()), width, "0")
        return pc.binary_join_element_wise(prefix, digits, "")
    data = _id_bytes(numbers, prefix, width)
    offsets = np.arange(0, (len(numbers) + 1) * size, size, dtype=np.int32)
    return pa.StringArray.from_buffers(
        len(numbers), pa.py_buffer(offsets), pa.py_buffer(data.tobytes())
    )


def _contains_own_key(
    numbers: np.ndarray, prefix: str, width: int, keys: pa.Array, eligible: np.ndarray
) -> np.ndarray:
    """Rows (ascending) whose ID contains the person's own key, among ``eligible`` rows
    (``keys`` holds their keys, in row order, ASCII): only those IDs are written, as
    byte matrices, and compared window by window with the keys of each length."""
    if not len(eligible):
        return eligible
    ids = _id_bytes(numbers[eligible], prefix, width)
    bufs = keys.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64)[keys.offset : keys.offset + len(keys) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0, "u1")
    sizes = np.diff(offsets)
    hit = np.zeros(len(eligible), dtype=bool)
    for size in np.unique(sizes).tolist():
        if size == sizes[0] and (sizes == size).all():  # one width (the usual): no gather
            rows = slice(None)
            key = data[offsets[0] : offsets[-1]].reshape(len(sizes), size)
            own = ids
        else:
            rows = np.flatnonzero(sizes == size)
            key = data[offsets[rows][:, None] + np.arange(size)]
            own = ids[rows]
        found = np.zeros(len(key), dtype=bool)
        for start in range(1 + width - size + 1):
            found |= (own[:, start : start + size] == key).all(axis=1)
        hit[rows] = found
    return eligible[hit]


def _equals_an_id(keys: pa.Array, prefix: str, width: int, n: int) -> bool:
    """Whether a key equals one of the IDs ``prefix`` + ``width`` zero-padded digits of
    1..n: without writing the n IDs, a key must be the prefix followed by exactly
    ``width`` digits whose number is 1..n."""
    shaped = pc.and_(pc.starts_with(keys, prefix), pc.equal(pc.utf8_length(keys), width + 1))
    digits = pc.utf8_slice_codeunits(pc.filter(keys, shaped), 1)
    digits = pc.filter(digits, pc.match_substring_regex(digits, f"^[0-9]{{{width}}}$"))
    if not len(digits):
        return False
    number = pc.cast(digits, pa.int64())
    inside = pc.and_(pc.greater_equal(number, 1), pc.less_equal(number, n))
    return bool(pc.any(inside).as_py())


def random_subject_ids(person_keys: pd.Series, seed: int) -> SubjectIds:
    """``S`` + zero-padded random number for each person, from ``seed`` only.

    Not derived from any identifier (45 CFR 164.514(c)): numbers are a seeded random
    permutation. No ID equals any person key (the prefix letter changes if one would),
    and no ID contains its own person's key (such a coincidence is swapped away).
    """
    n = len(person_keys)
    rng = np.random.default_rng(seed)
    numbers = rng.permutation(n).astype(np.int64) + 1
    width = max(4, len(str(n)))
    key_text = arrow_text(person_keys.astype(STRING).fillna(""))
    prefix = next(
        (p for p in _ID_PREFIXES if not _equals_an_id(key_text, p, width, n)),
        _ID_PREFIXES[0],
    )
    # a key can lie inside an ID (ASCII) only if it is ASCII and no longer than the ID
    length = pc.binary_length(key_text).to_numpy(zero_copy_only=False)
    ascii_ = pc.string_is_ascii(key_text).to_numpy(zero_copy_only=False)
    eligible = np.flatnonzero((length >= MIN_KEY_LENGTH) & (length <= len(prefix) + width) & ascii_)
    keys = key_text.take(pa.array(eligible))
    offenders = _contains_own_key(numbers, prefix, width, keys, eligible)
    reassigned = 0
    for _ in range(50):
        if len(offenders) == 0 or n < 2:
            break
        for i in offenders:  # few: a random coincidence, swapped with another person
            j = int(rng.integers(0, n))
            numbers[i], numbers[j] = numbers[j], numbers[i]
            reassigned += 1
        offenders = _contains_own_key(numbers, prefix, width, keys, eligible)
    series = pd.Series(
        pd.arrays.ArrowStringArray(_format_ids(numbers, prefix, width)),
        index=person_keys.index,
        name=SUBJECT_ID,
    )
    return SubjectIds(series, numbers, width, prefix, reassigned)
