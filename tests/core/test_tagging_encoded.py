"""Values in an encoding or cipher anyone can undo (``tagging.encoded``): found by their
look, suggested as direct identifiers, and ordinary words and codes left alone."""

from __future__ import annotations

import base64
import codecs
import hashlib

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.model import ColumnClass
from deid_desktop.core.resources import resource
from deid_desktop.core.tagging.decide import decide_column
from deid_desktop.core.tagging.encoded import decodes_to_text
from deid_desktop.core.tagging.values import profile_values

GIVEN = resource("names", "given_names.txt").read_text().split()
SURNAMES = resource("names", "surnames.txt").read_text().split()
NAMES = [f"{g.title()} {s.title()}" for g in GIVEN[100:150] for s in SURNAMES[300:340]]

text = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=6, max_size=40
).filter(lambda t: any(c.isalpha() for c in t))


@settings(max_examples=300, deadline=None)
@given(text)
def test_base64_and_base32_of_text_are_read_back(value: str) -> None:
    raw = value.encode()
    assert decodes_to_text(base64.b64encode(raw).decode())
    assert decodes_to_text(base64.urlsafe_b64encode(raw).decode().rstrip("="))
    b32 = base64.b32encode(raw).decode()
    # base32 of a multiple of 5 bytes in capitals alone (a word's look): words and spaces
    assert decodes_to_text(b32) or not all(c.isalpha() or c == " " for c in value)


def test_words_and_codes_are_rarely_taken_for_encoded_text() -> None:
    """Of the bundled clinical and English words that fit base64's alphabet (8 letters
    or more), as written, capitalised and in capitals, at most 1 in 1,000 decodes to
    text; codes and digests never do."""
    words = resource("words", "clinical.txt").read_text().split()
    words += resource("words", "english_web2.txt").read_text().split()[::7]
    forms = [f for w in words if len(w) >= 8 for f in (w, w.title(), w.upper())]
    assert len(forms) > 50_000
    taken = sum(map(decodes_to_text, forms))
    assert taken <= len(forms) / 1000
    codes = [f"MRN{i:07d}" for i in range(500)] + [f"AB12CD{i:04d}" for i in range(500)]
    codes += [hashlib.md5(str(i).encode()).hexdigest() for i in range(500)]
    codes += [base64.b64encode(hashlib.sha1(str(i).encode()).digest()).decode() for i in range(500)]
    assert not any(map(decodes_to_text, codes))


def _suggested(values: list[str]) -> ColumnClass:
    series = pd.Series(values * 3, dtype="string[pyarrow]")
    return decide_column((), profile_values(series), is_person=True).cls


def test_encoded_and_shifted_names_are_suggested_as_direct() -> None:
    assert _suggested([base64.b64encode(n.encode()).decode() for n in NAMES]) is ColumnClass.DIRECT
    assert _suggested([base64.b32encode(n.encode()).decode() for n in NAMES]) is ColumnClass.DIRECT
    assert _suggested([codecs.encode(n, "rot13") for n in NAMES]) is ColumnClass.DIRECT
    # a surname of five letters alone is 7 characters and its padding ("U2luZ2g=")
    surnames = [base64.b64encode(n.split()[1].encode()).decode() for n in NAMES]
    assert _suggested(surnames) is ColumnClass.DIRECT
    small, big = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    by_three = str.maketrans(small + big, small[3:] + small[:3] + big[3:] + big[:3])
    shifted = [n.translate(by_three) for n in NAMES]  # "Mark" -> "Pdun"
    profile = profile_values(pd.Series(shifted, dtype="string[pyarrow]"))
    assert profile.shifted_name_share > 0.9
    digests = [base64.b64encode(hashlib.sha256(n.encode()).digest()).decode()[:22] for n in NAMES]
    assert _suggested(digests) is ColumnClass.DIRECT


def test_codes_of_letters_are_not_names_in_a_cipher() -> None:
    """ "AB-000123" shifts to one name ("ed" for "ab"): one name is no column of names."""
    profile = profile_values(pd.Series([f"AB-{i:06d}" for i in range(3000)], dtype="string"))
    assert profile.shifted_name_share == 0.0
    words = pd.Series(["Hypertension", "Diabetes", "Pneumonia", "Dyspnoea", "Edema"] * 40)
    assert profile_values(words.astype("string")).shifted_name_share == 0.0
