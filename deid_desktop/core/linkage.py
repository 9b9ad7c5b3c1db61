"""Keyed link keys and per-person date offsets for the linkable release.

Pure functions over bytes and pandas/numpy values: the salt arrives as ``bytes`` from the
caller (the keyring lives outside core, in ``deid_desktop.secrets``) and is never stored,
logged or put into an exception here.

Link key
    ``HMAC-SHA256(salt, normalise(identifier)).hexdigest()[:length]``. The identifier is
    the MRN (or the person key when no MRN column exists). Normalisation, so that later
    extracts written by another system still link: Unicode NFKC, surrounding white space
    removed, upper case (per character, as pyarrow's ``utf8_upper``). Nothing else is
    touched: leading zeros, inner spaces, dashes stay significant ("00123" and "123" are
    different people).

Date offsets
    One whole number of days per person, in ``[-N, -1] U [1, N]``. Zero is excluded: a
    person shifted by zero days would carry their true calendar dates into the release.
    Two modes, both needing the salt so that nothing released or recorded (the seed is in
    the export record) is enough to undo the shift:

    * ``keyed``  - ``HMAC(k_off, link_key)`` with ``k_off = HMAC(salt, label)``: every
      later extract made with the same salt shifts a person by the same number of days.
    * ``random`` - ``HMAC(k_seed, link_key)`` with ``k_seed = HMAC(salt, label || seed)``:
      reproducible for the same seed (so a rerun is byte-identical), different for another
      seed, and independent of row order.

    The same study never gets one offset for everyone: one known true date would then
    undo every shift, so :func:`date_offsets` refuses an all-equal draw.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.constants import MAX_KEY_LENGTH, MAX_OFFSET_DAYS, MIN_KEY_LENGTH
from deid_desktop.core.errors import CheckFailed, InputError, UsageError
from deid_desktop.core.model import OffsetMode

DEFAULT_KEY_LENGTH = 16
MIN_SALT_BYTES = 16

FINGERPRINT_LABEL = b"deid-desktop salt fingerprint v1"
_OFFSET_LABEL = b"deid-desktop keyed date offset v1"
_RANDOM_LABEL = b"deid-desktop random date offset v1"


class _Hmac:
    """HMAC-SHA256 with the key schedule done once (RFC 2104 pads, hashlib ``copy``).

    ``hmac.new`` re-derives the pads for every message; copying two pre-fed SHA-256
    states halves the cost on a million values. Equal to ``hmac.new(key, m, sha256)``.
    """

    def __init__(self, key: bytes) -> None:
        if len(key) > 64:
            key = hashlib.sha256(key).digest()
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))

    def digests(self, messages: Sequence[bytes]) -> bytes:
        """The 32-byte digests of ``messages``, concatenated."""
        icopy, ocopy = self._inner.copy, self._outer.copy

        def one(m: bytes) -> bytes:
            i = icopy()
            i.update(m)
            o = ocopy()
            o.update(i.digest())
            return o.digest()

        return b"".join(map(one, messages))

    def hexdigests(self, messages: Sequence[bytes], length: int) -> list[str]:
        icopy, ocopy = self._inner.copy, self._outer.copy

        def one(m: bytes) -> str:
            i = icopy()
            i.update(m)
            o = ocopy()
            o.update(i.digest())
            return o.hexdigest()[:length]

        return list(map(one, messages))


def salt_fingerprint(salt: bytes) -> str:
    """First 16 hex of HMAC-SHA256(salt, fixed label): tells salts apart, reveals nothing.

    Safe to show and to put into the export record (which salt made a release)."""
    return hmac.new(salt, FINGERPRINT_LABEL, hashlib.sha256).hexdigest()[:16]


def _check_salt(salt: bytes) -> None:
    if not isinstance(salt, bytes | bytearray) or len(salt) < MIN_SALT_BYTES:
        raise UsageError(
            "The project's salt is missing or too short to make link keys.",
            hint="Check it with 'deid salt status PROJECT'; create one with 'deid salt create'.",
        )


def _normalised_arrow(values: pd.Series) -> pa.Array:
    arr = pa.array(values.astype("string[pyarrow]"), type=pa.large_string())
    if isinstance(arr, pa.ChunkedArray):  # large loads arrive in several chunks
        arr = arr.combine_chunks()
    return pc.utf8_upper(pc.utf8_trim_whitespace(pc.utf8_normalize(arr, "NFKC")))


def normalise_identifiers(values: pd.Series) -> pd.Series:
    """NFKC, strip surrounding white space, upper case; missing stays missing.

    Vectorised through pyarrow. Returns a pyarrow-backed string Series on the same index.
    """
    arr = _normalised_arrow(values).cast(pa.string())
    return pd.Series(
        pd.array(arr, dtype=pd.StringDtype("pyarrow")), index=values.index, name=values.name
    )


def _factorised(
    values: pd.Series, *, file: str | None, column: str | None
) -> tuple[np.ndarray, list[bytes]]:
    """Row codes and the distinct normalised identifiers as UTF-8 bytes.

    Missing or blank identifiers are an input error (count only).
    """
    norm = _normalised_arrow(values)
    missing = norm.null_count + int(pc.sum(pc.equal(norm, "")).as_py() or 0)
    if missing:
        raise InputError(
            f"{missing} row(s) have no identifier to derive a link key from",
            file=file,
            column=column,
            hint="Every person needs a value in this column; fix the extract or choose "
            "another person key.",
        )
    encoded = pc.dictionary_encode(norm)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    return codes, encoded.dictionary.cast(pa.large_binary()).to_pylist()


def link_keys(
    values: pd.Series,
    salt: bytes,
    length: int = DEFAULT_KEY_LENGTH,
    *,
    file: str | None = None,
    column: str | None = None,
) -> pd.Series:
    """Link key per value: HMAC-SHA256(salt, normalised value), hex, first ``length`` chars.

    The same identifier and salt give the same key in every extract. Distinct normalised
    identifiers that would share a truncated key stop the build (``CheckFailed`` with the
    count, never the values). Equal identifiers (event rows of one person) share a key.
    """
    _check_salt(salt)
    if not isinstance(length, int) or not MIN_KEY_LENGTH <= length <= MAX_KEY_LENGTH:
        raise UsageError(
            f"Link key length must be between {MIN_KEY_LENGTH} and {MAX_KEY_LENGTH} "
            f"hex characters (got {length}).",
            hint="The default, 16, suits up to several million persons.",
        )
    codes, messages = _factorised(values, file=file, column=column)
    keys = pa.array(_Hmac(bytes(salt)).hexdigests(messages, length), type=pa.string())
    distinct = len(pc.unique(keys))
    if distinct != len(keys):
        raise CheckFailed(
            f"{len(keys) - distinct} link key collision(s) among {len(keys)} distinct "
            f"identifiers at {length} hex characters.",
            hint="Use longer link keys (the project's key length) and rebuild.",
        )
    out = pd.array(keys.take(pa.array(codes)), dtype=pd.StringDtype("pyarrow"))
    return pd.Series(out, index=values.index, name="link_key")


def _offset_key(salt: bytes, mode: OffsetMode, seed: int) -> bytes:
    if mode == OffsetMode.KEYED:
        return hmac.new(salt, _OFFSET_LABEL, hashlib.sha256).digest()
    if mode == OffsetMode.RANDOM:
        seed_bytes = str(int(seed)).encode("ascii")
        return hmac.new(salt, _RANDOM_LABEL + b"\0" + seed_bytes, hashlib.sha256).digest()
    raise UsageError(f"Unknown date offset mode '{mode}'.", hint="Use 'keyed' or 'random'.")


def check_offset_days(days: int) -> None:
    if not isinstance(days, int | np.integer) or not 1 <= int(days) <= MAX_OFFSET_DAYS:
        raise UsageError(
            f"The date offset range must be a whole number of days from 1 to "
            f"{MAX_OFFSET_DAYS} (got {days}).",
            hint="The default is 180: each person's dates move by up to 180 days.",
        )


def date_offsets(
    keys: pd.Series | Sequence[str],
    *,
    mode: OffsetMode | str,
    days: int,
    seed: int,
    salt: bytes,
) -> np.ndarray:
    """Per-key whole-day offsets in ``[-days, -1] U [1, days]`` (``int64``, same order).

    ``keys`` are link keys (or any per-person text); equal keys get equal offsets. When
    there is more than one person and every offset came out equal, raises ``CheckFailed``:
    a single study-wide offset is never released.
    """
    _check_salt(salt)
    check_offset_days(days)
    mode = OffsetMode(mode)
    series = keys if isinstance(keys, pd.Series) else pd.Series(list(keys), dtype="string")
    if series.isna().any():
        raise InputError("A person has no link key; date offsets cannot be derived")
    arr = pa.array(series.astype("string[pyarrow]"))
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    encoded = pc.dictionary_encode(arr)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    uniques = encoded.dictionary.cast(pa.large_binary()).to_pylist()
    if not uniques:
        return np.zeros(len(series), dtype=np.int64)
    digests = _Hmac(_offset_key(bytes(salt), mode, seed)).digests(uniques)
    words = np.frombuffer(digests, dtype=">u8").reshape(-1, 4)[:, 0].astype(np.uint64)
    span = np.uint64(2 * int(days))
    v = (words % span).astype(np.int64)  # [0, 2N); modulo bias < 2**-50
    per_key = np.where(v < days, v - days, v - days + 1)  # [-N, -1] U [1, N]
    if len(uniques) > 1 and np.all(per_key == per_key[0]):
        raise CheckFailed(
            f"All {len(uniques)} persons drew the same date offset; one study-wide "
            "offset would let a single known date undo every shift.",
            hint="Widen the offset range (--offset-days) or choose another seed.",
        )
    return per_key[codes].astype(np.int64)


def shift_dates(dates: pd.Series, offsets: np.ndarray | Sequence[int]) -> pd.Series:
    """``dates`` (datetime64) moved by ``offsets`` whole days, row by row; NaT stays NaT."""
    off = np.asarray(offsets, dtype=np.int64)
    if off.shape != (len(dates),):
        raise ValueError("shift_dates needs exactly one offset per row")
    values = dates.to_numpy(dtype="datetime64[ns]")
    shifted = values + off.astype("timedelta64[D]")
    return pd.Series(shifted, index=dates.index, name=dates.name)


def iso_strings(dates: pd.Series, *, with_time: bool) -> pd.Series:
    """ISO text for released dates: ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM:SS``; NaT -> <NA>."""
    values = dates.to_numpy(dtype="datetime64[ns]")
    codes, uniques = pd.factorize(values.view("i8"))  # few distinct dates: format each once
    text = np.datetime_as_string(
        np.asarray(uniques).view("datetime64[ns]"), unit=("s" if with_time else "D")
    )
    arr = pa.array(text.astype(object), type=pa.string()).take(pa.array(codes))
    out = pd.Series(pd.array(arr, dtype=pd.StringDtype("pyarrow")), index=dates.index)
    return out.mask(pd.isna(values)).rename(dates.name)
