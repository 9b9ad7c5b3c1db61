"""Values written in an encoding or a cipher that anyone can undo: base64 or base32 of
text (``TWFyayBTY290dA==`` is "Mark Scott"), base64 digests and tokens
(``q0Hs2Xb9TfJ1aW3zLx8+Qg``, an unsalted hash of a name), and letters shifted along the
alphabet (ROT13: ``Znex Fpbgg``). Shares of a column's sampled values, for the value
profile (``values.profile_values``): never a value.
"""

from __future__ import annotations

import base64
import binascii

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: What base64 looks like (the standard or URL-safe alphabet, 8 characters or more with
#: the padding: ``U2luZ2g=`` is "Singh"); ``decodes_to_text`` then tells text from binary
#: data and from words.
BASE64_SHAPE = r"^(?:[A-Za-z0-9+/_-]{8,}={0,2}|[A-Za-z0-9+/_-]{6,7}={1,2})$"
#: What base32 looks like (RFC 4648: capitals and 2-7, 8 characters or more).
BASE32_SHAPE = r"^[A-Z2-7]{8,}=*$"
#: A base64 token or digest: 11 characters or more (a 64-bit hash), with capitals,
#: small letters and digits (a word or a code of one case does not have all three).
TOKEN_SHAPE = r"^[A-Za-z0-9+/_-]{11,}={0,2}$"
#: Whitespace that written text holds (``str.isprintable`` says no to it).
_TEXT_SPACE = frozenset("\t\n\r")
#: At most this many distinct sampled values are decoded in Python.
_DECODED = 2000


def _is_text(raw: bytes) -> bool:
    """UTF-8 of three characters or more, printable, nine in ten of them ASCII, with a
    letter (6 random bytes are printable ASCII about once in 400 tries)."""
    try:
        text = raw.decode("utf-8")
    except ValueError:
        return False
    if len(text) < 3 or not all(ch.isprintable() or ch in _TEXT_SPACE for ch in text):
        return False
    plain = sum(" " <= ch <= "~" for ch in text)
    return plain >= 0.9 * len(text) and any(ch.isalpha() for ch in text)


def _words_only(raw: bytes) -> bool:
    """ASCII letters and spaces only (5 random bytes are, about once in 2,500 tries)."""
    return all(65 <= b <= 90 or 97 <= b <= 122 or b == 32 for b in raw)


def decodes_to_text(value: str) -> bool:
    """Whether ``value`` is base64 (one alphabet, strict) or base32 of written text.
    Words and codes that merely fit the alphabet decode to bytes that are not such text:
    one English word in about 2,000 does, never the most of a column's values."""
    body = value.rstrip("=")
    b32 = body.isupper() and all(ch.isalpha() or ch in "234567" for ch in body)
    if b32 and len(body) >= 8:
        # base32 is padded to 8 characters or holds a digit, or it is a word's look (in
        # capitals, 8, 16... long): then only words of letters are taken for its text
        word = body == value and body.isalpha()
        try:
            raw = base64.b32decode(body + "=" * (-len(body) % 8))
        except (binascii.Error, ValueError):
            raw = b""
        if _is_text(raw) and (not word or _words_only(raw)):
            return True
    if len(body) % 4 == 1 or (("-" in body or "_" in body) and ("+" in body or "/" in body)):
        return False
    alt = b"-_" if ("-" in body or "_" in body) else None
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=alt, validate=True)
    except (binascii.Error, ValueError):
        return False
    return _is_text(raw)


def _has_three_kinds(text: str) -> bool:
    return (
        any(ch.isupper() for ch in text)
        and any(ch.islower() for ch in text)
        and any(ch.isdigit() for ch in text)
    )


def encoded_shares(values: pa.Array, weights: np.ndarray, n: int) -> dict[str, float]:
    """Weighted shares of sampled values (``values`` distinct, ``weights`` their counts,
    ``n`` sampled) that are base64 or base32 of text (``encoded_text``) and that are
    base64 tokens or digests (``b64_token``: not text, capitals, small letters and
    digits mixed)."""
    shaped = np.asarray(
        pc.or_(
            pc.match_substring_regex(values, BASE64_SHAPE),
            pc.match_substring_regex(values, BASE32_SHAPE),
        ),
        dtype=bool,
    )
    at = np.flatnonzero(shaped)[:_DECODED]
    if at.size == 0:
        return {"encoded_text": 0.0, "b64_token": 0.0}
    texts = values.take(pa.array(at)).to_pylist()
    text = np.fromiter(map(decodes_to_text, texts), dtype=bool, count=len(texts))
    token_shape = np.asarray(
        pc.match_substring_regex(values.take(pa.array(at)), TOKEN_SHAPE), dtype=bool
    )
    mixed = np.fromiter(map(_has_three_kinds, texts), dtype=bool, count=len(texts))
    token = token_shape & mixed & ~text
    return {
        "encoded_text": float(weights[at[text]].sum() / n),
        "b64_token": float(weights[at[token]].sum() / n),
    }


def shifted(values: pa.Array, k: int) -> pa.Array:
    """Each value with its ASCII letters shifted ``k`` places along the alphabet (every
    ``k`` from 1 to 25 undoes one shift; ROT13 undoes itself), other characters kept."""
    small = "abcdefghijklmnopqrstuvwxyz"
    table = str.maketrans(
        small + small.upper(), small[k:] + small[:k] + (small[k:] + small[:k]).upper()
    )
    return pa.array([v.translate(table) for v in values.to_pylist()], type=values.type)
