"""The scan's fast paths give the same hits as the plain ones: the word index against the
full automaton, the numpy cue reader against the cue regex, batching, and the edge cases
of joining notes (separators, first and last note, empty and missing notes, characters
outside the BMP)."""

from __future__ import annotations

import itertools
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.scan import (
    ScanDictionary,
    build_dictionary_from_values,
    cues,
    digit_shapes,
    engine,
    patterns,
    regions,
    scan_frames,
    scan_texts,
)
from deid_desktop.core.scan.fold import fold, fold_slow

VALUES = {
    "name": ["Ann Smith", "Mary Ann", "Ann Lee", "May Son", "Peña", "Jo", "Abcdefghijklmnopqrs"],
    "mrn": ["MRN-00123", "4455667"],
    "phone": ["(555) 123-4567"],
    "email": ["j.oneil@example.org"],
    "id": ["HP 55512", "x9 y8 z7"],
}
DICT = build_dictionary_from_values(VALUES)
WORDS = [
    "ann", "smith", "mary", "lee", "may", "son", "dr", "mr", "march", "http", "www",
    "pena", "jo", "mrn", "00123", "hp", "55512", "x9", "y8", "z7", "j", "oneil", "example",
    "org", "abcdefghijklmnopqrs", "abcdefghijklmnopqrst", "annx", "xann", "4455667", "the",
]  # fmt: skip


def full_automaton(padded: str) -> list[tuple[int, int]]:
    return list(DICT.matcher.automaton.iter(padded))


def index_path(padded: str) -> list[tuple[int, int]]:
    last, ids = patterns._automaton_matches(DICT.matcher, padded)
    return list(zip(last.tolist(), ids.tolist(), strict=True))


folded_texts = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from([" ", "  ", "   "])), max_size=40
).map(lambda parts: "".join(w + s for w, s in parts))


@settings(max_examples=300, deadline=None)
@given(folded_texts)
def test_word_index_finds_what_the_full_automaton_finds(text: str) -> None:
    padded = f" {text} "
    assert index_path(padded) == full_automaton(padded)


def test_word_index_with_every_term_sharing_a_bucket(monkeypatch: pytest.MonkeyPatch) -> None:
    # with 2 buckets almost every term is "hard": the automaton over candidate parts
    monkeypatch.setattr(regions, "_BITS", 1)
    monkeypatch.setattr(regions, "_SHIFT", np.uint64(63))
    auto = DICT.matcher.automaton
    words = [k[1:-1] for k in sorted(auto.keys(), key=auto.get)]  # by word number
    index = regions.WordIndex.build(words)
    assert index.easy.max() < 0 or np.count_nonzero(index.easy >= 0) <= 2
    for n in range(60):
        text = " " + "  ".join(words[(n * 7 + i) % len(words)] for i in range(n % 9 + 1)) + " "
        last, ids = index.matches(text.encode("ascii"))
        got = list(zip(last.tolist(), ids.tolist(), strict=True))
        assert got == full_automaton(text)


def test_word_index_with_presence_bitmaps(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bitmaps a table of millions of terms gets, on every table here: the words of
    # a shared bucket and the two-word terms are found as without them
    monkeypatch.setattr(regions, "_BITS", 1)
    monkeypatch.setattr(regions, "_SHIFT", np.uint64(63))
    monkeypatch.setattr(regions, "_PRESENCE_MIN", 1)
    auto = DICT.matcher.automaton
    words = [k[1:-1] for k in sorted(auto.keys(), key=auto.get)]
    index = regions.WordIndex.build(words)
    assert index.shared.presence is not None and index.pairs.presence is not None
    for n in range(60):
        text = " " + "  ".join(words[(n * 5 + i) % len(words)] for i in range(n % 9 + 1)) + " "
        text = text.replace("  ", " ", n % 2)  # one space: two-word terms too
        last, ids = index.matches(text.encode("ascii"))
        got = list(zip(last.tolist(), ids.tolist(), strict=True))
        assert got == full_automaton(text)
    h = index.shared.hashes
    assert index.shared.presence.maybe(h).all()  # every hash of the table is let through
    rng = np.random.default_rng(3)
    other = rng.integers(0, 2**63, 10_000, dtype=np.int64).view(np.uint64)
    assert index.shared.presence.maybe(other).mean() < 0.5  # and most others are not


name_tails = st.text(alphabet=" \t.,:Ab-'_9xZÉé’😀", max_size=70)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["dr", "mrs", "son", "wife"]), name_tails)
def test_cue_names_with_numpy_match_the_regex(word: str, tail: str) -> None:
    text = "x " + word + tail
    end = 2 + len(word)
    raw = cues.projection(text)
    title = word in patterns._TITLES
    found, start, stop, rest = cues.cue_names(raw, np.array([end]), np.array([title]))
    expected = patterns._cue_name(text, end, title)
    if rest.size:
        return  # past the window: the regex decides, as checked above
    assert (expected is not None) == bool(found.size)
    if expected is not None:
        assert (int(start[0]), int(stop[0])) == expected


def test_cue_names_past_a_non_ascii_character_need_no_regex() -> None:
    """A non-ASCII character after the name ("SpO₂", a curly quote) leaves the cue
    to numpy; one in the name leaves it to the regex."""
    text = "x dr. Smith said SpO₂ 97% ’ok’ | wife Renée came"
    ends = np.array([4, text.index("wife") + 4])
    found, start, stop, rest = cues.cue_names(cues.projection(text), ends, np.array([True, False]))
    assert [text[a:b] for a, b in zip(start.tolist(), stop.tolist(), strict=True)] == ["Smith"]
    assert found.tolist() == [0]
    assert rest.tolist() == [1]


def test_cue_window_fits_in_the_spare_bytes_of_a_batch() -> None:
    """The cue reader reads WINDOW + 1 bytes past a cue at the end of a batch: the
    batch's shared projection has that many zero bytes after it."""
    from deid_desktop.core.scan.fold import SPARE, padded_projection

    assert cues.WINDOW < SPARE
    text = "seen by Dr"
    found = cues.cue_names(cues.projection(text), np.array([10]), np.array([True]))
    assert padded_projection(text) == text.encode() + bytes(SPARE)
    assert found[0].size == 0 and found[3].size == 0  # no name, nothing left to the regex


def test_cue_names_past_the_short_window_read_in_the_long_one() -> None:
    """A name that ends past the short window is read in the whole window, with numpy."""
    text = "x dr. Abcdefghijklmnopqrstuv Smithson-Jones, and son Al Bo."
    ends = np.array([4, text.index("son Al") + 3])
    found, start, stop, rest = cues.cue_names(cues.projection(text), ends, np.array([True, False]))
    spans = [text[a:b] for a, b in zip(start.tolist(), stop.tolist(), strict=True)]
    assert spans == ["Abcdefghijklmnopqrstuv Smithson-Jones", "Al Bo"]
    assert found.tolist() == [0, 1]
    assert rest.size == 0


def _rows(notes: list[str | None]) -> list[tuple[int, str, str]]:
    frame = pd.DataFrame({"c": pd.Series(notes, dtype="string")})
    report = scan_frames({"t": frame}, {"t": ["c"]}, DICT)
    return [(h.row, h.kind, h.text_in(notes[h.row] or "")) for h in report.hits]


def test_first_last_empty_and_missing_notes() -> None:
    notes = ["Ann first", "", None, "plain", None, "", "call (555) 123-4567"]
    assert _rows(notes) == [(0, "NAME", "Ann"), (6, "PHONE", "(555) 123-4567")]
    assert _rows(["", None, ""]) == []
    assert _rows(["Smith"]) == [(0, "NAME", "Smith")]


@pytest.mark.parametrize("accent", [False, True])  # the ASCII batch and the other one
def test_no_hit_spans_two_notes(accent: bool) -> None:
    head, tail = ("é ", " é") if accent else ("", "")
    notes = [
        f"{head}plan HP",
        f"55512 noted{tail}",
        f"{head}mail j.oneil@example",
        f".org{tail}",
        f"{head}Dr.",
        f"Smith{tail}",
        f"{head}x9 y8",
        f"z7{tail}",
        f"{head}March 3,",
        f"2024{tail}",
    ]
    hits = scan_texts(notes, DICT)
    assert [h for h in hits if h[3] in ("ID", "EMAIL") or h[4] == "pattern:date"] == []
    # "March 3" is a date without a year inside note 8; the year is in the next note
    assert [(h[0], h[4]) for h in hits if h[3] == "DATE"] == [(8, "date:no-year")]
    assert [(row, rule) for row, _, _, kind, rule in hits if kind == "NAME"] == [
        (5, "dictionary:name")  # Smith from the dictionary, not named by the cue
    ]


def test_non_bmp_characters_keep_offsets() -> None:
    notes = [
        "😀 Ann Smith 🏥 (555) 123-4567 j.oneil@example.org",
        "🧪🧪 seen by Dr. Gregory House on March 3, 2024 see https://x.org/😀 ok",
        "👍 Peña MRN-00123",
    ]
    got = _rows(notes)
    texts = {(row, text) for row, _, text in got}
    assert {
        (0, "Ann"),
        (0, "Smith"),
        (0, "(555) 123-4567"),
        (0, "j.oneil@example.org"),
        (1, "Gregory House"),
        (1, "March 3, 2024"),
        (1, "https://x.org/😀"),
        (2, "Peña"),
        (2, "MRN-00123"),
    } <= texts


def test_ascii_and_other_notes_give_the_same_spans() -> None:
    # the same note through the ASCII fast paths and, with an emoji after it, the others
    base = (
        "Daughter Sarah Jones-O'Hara_2 visited Dr.\tMary  Ann Lee, son Tom; "
        "Dr. " + "Abcdefghij" * 6 + " came; x9 y8 z7, HP 55512, www.example.org/a. "
        "Call 555.123.4567 or 123-4567 on 3/5/2024, 1.2.3.4 and 1/2/20; BP 120/80."
    )
    plain = scan_texts([base], DICT)
    other = scan_texts([base + " 😀"], DICT)
    assert plain == other
    found = {base[s:e] for _, s, e, _, _ in plain}
    assert {"Sarah Jones-O'Hara_2", "Mary  Ann", "Tom", "555.123.4567", "123-4567"} <= found
    assert {"3/5/2024", "1.2.3.4", "1/2/20", "x9 y8 z7", "HP 55512"} <= found
    assert "Abcdefghij" * 6 in found  # a name longer than the numpy window
    assert not any("120" in x for x in found)


def test_batches_do_not_change_hits(monkeypatch: pytest.MonkeyPatch) -> None:
    notes = [
        f"note {i}: Ann Smith {'é' if i % 3 == 0 else ''} called (555) 123-4567, Dr. Lee"
        for i in range(200)
    ]
    whole = scan_texts(notes, DICT)
    monkeypatch.setattr(engine, "BATCH_CHARS", 300)
    assert scan_texts(notes, DICT) == whole
    assert len({row for row, *_ in whole}) == 200


def test_fold_keeps_length_for_non_bmp() -> None:
    for text in ["😀Ann", "a\U0001f3e5b", "Ǆ ß Ⅻ ² ٣"]:
        assert len(fold(text)) == len(text)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec=None, exclude_categories=()), max_size=60))
def test_fold_table_matches_folding_one_character_at_a_time(text: str) -> None:
    assert fold(text) == fold_slow(text)
    assert fold(text + "\ud800") == fold_slow(text + "\ud800")  # a lone surrogate too


def test_digit_regions_skip_short_readings_only() -> None:
    text = "BP 120/80 temp 98.6 HbA1c 7.2 call 123-4567 ip 1.2.3.4 on 1/2/20 zip 02139"
    found = [text[s:e] for _, s, e, _, _ in scan_texts([text], DICT)]
    assert found == ["123-4567", "1.2.3.4", "1/2/20", "02139"]


def _digit_matches_by_regex(regions: str) -> list[tuple[int, int, int]]:
    return [(m.start(), m.end(), m.lastindex or 0) for m in patterns._DIGITS.finditer(regions)]


_REGION_PARTS = (
    "1", "0", "5", "9", "11", " ", "-", ".", "/", "(", ")", "+", "#", "a", "Z",
    "MRN", "\x00", "555", "1234", "+1 ", "1-", "(555) ", "2024-", "\t", ",",
)  # fmt: skip
digit_regions_texts = st.lists(
    st.sampled_from(_REGION_PARTS),
    max_size=40,
).map(lambda parts: "\x00" + "".join(parts))


@settings(max_examples=500, deadline=None)
@given(digit_regions_texts)
def test_digit_matches_read_per_shape_match_the_regex(regions: str) -> None:
    buf = np.frombuffer(regions.encode("ascii"), dtype=np.uint8)
    found = digit_shapes.digit_matches(patterns._DIGITS, buf)
    assert [tuple(r) for r in found.tolist()] == _digit_matches_by_regex(regions)


def test_digit_shapes_keep_a_leading_one_and_reuse_shapes() -> None:
    """A phone's leading 1 is kept in the shape ("1-555-123-4567" is one phone, not
    "555-123-4567"); a 1 after a digit is any digit; two regions of one shape read the
    regex's matches once, each at its own offset."""
    regions = "\x001-555-123-4567.\x00+1 555 321 7654\x00 MRN6516766.\x00 MRN2824842."
    buf = np.frombuffer(regions.encode("ascii"), dtype=np.uint8)
    assert digit_shapes.shape_of(buf[1:15]).tobytes() == b"1-000-100-0000"
    digit_shapes._SHAPES.clear()
    found = digit_shapes.digit_matches(patterns._DIGITS, buf)
    assert [tuple(r) for r in found.tolist()] == _digit_matches_by_regex(regions)
    assert [regions[s:e] for s, e, _ in found.tolist()][:2] == ["1-555-123-4567", "+1 555 321 7654"]
    assert " aaa0000000." in digit_shapes._SHAPES  # the two MRNs: one shape


def test_every_rule_code_round_trips() -> None:
    hits = scan_texts(["Mr Zed 2024-03-05 www.a.org 192.168.1.1"], DICT)
    kinds = [k for _, _, _, k, _ in hits]
    assert kinds == ["NAME", "DATE", "URL", "IP"]
    assert list(itertools.chain.from_iterable(h[4:] for h in hits)) == [
        "cue:mr",
        "pattern:date",
        "pattern:url",
        "pattern:ip",
    ]


def test_a_scans_matcher_is_freed_with_its_dictionary() -> None:
    # nothing the scan caches may keep a dictionary's matcher (its words and index: some
    # hundreds of MB at a million persons) alive once the dictionary is dropped
    import gc
    import weakref

    dictionary = build_dictionary_from_values(VALUES)
    texts = ["Dr. Smith saw Ann Lee on March 3, 2020; see http://x.org or MRN-00123."]
    assert scan_texts(texts, dictionary)  # the context words' entry table is made
    matcher = weakref.ref(dictionary.matcher)
    del dictionary
    gc.collect()
    assert matcher() is None


def test_fold_folds_only_the_characters_it_meets() -> None:
    # The BMP table is filled as characters are met, not all 65,536 up front.
    from deid_desktop.core.scan import fold as folding

    before = int(np.count_nonzero(folding._BMP))
    assert fold("Peña Ωmega ǅ ña") == "pena ωmega ǆ na"
    assert int(np.count_nonzero(folding._BMP)) - before <= 3
    assert fold("Peña") == fold_slow("Peña")


def test_only_a_batch_keeps_its_folded_bytes() -> None:
    """The word pass reads a batch's folded bytes as the fold made them; a small text
    folded elsewhere (a dictionary's millions of values) is not kept (keeping each cost
    ~2 us a value)."""
    from deid_desktop.core.scan import fold as folding

    folding.forget()
    small = fold("Ann Smith")
    assert small == "ann smith" and folding._RECENT == ()
    batch = folding.fold_batch("Seen by Dr. Smith\x00Call 555-1234")
    assert batch == "seen by dr  smith call 555 1234"
    assert folding._RECENT[0][0] is batch
    assert folding.ascii_projection(batch) == batch.encode()
    assert folding.fold_batch("Pe\u00f1a \u2044") == "pena  "  # typographic: ASCII bytes kept too
    assert folding._RECENT[0][1][2] == b"pena  "
    folding.forget()


def test_dictionary_digits_looked_up_as_numbers() -> None:
    """Digit entries are looked up as numbers: leading zeros, 18 digits, a phone's
    leading 1, entries longer than a number holds and entries in other digits."""
    digits = {
        "0012345": "MRN",
        "123456789012345678": "ID",
        "5551234567": "PHONE",
        "12345678901234567890123": "ID",
        "\u0661\u0662\u0663\u0664\u0665\u0666\u0667": "MRN",
    }
    dictionary = ScanDictionary(digits=MappingProxyType(digits))
    text = (
        "a 0012345 b 012345 c 00012345 d 123456789012345678 e 1-555-123-4567 f 555-123-4567 "
        "g 2-555-123-4567 h 12345678901234567890123 i 1234567 j 5551234567 k +1 (555) 123-4567"
    )
    found = [(text[s:e], r) for _, s, e, _, r in scan_texts([text], dictionary)]
    assert found == [
        ("0012345", "dictionary:mrn"),
        ("012345", "pattern:mrn"),
        ("00012345", "pattern:mrn"),
        ("123456789012345678", "dictionary:id"),
        ("1-555-123-4567", "dictionary:phone"),
        ("555-123-4567", "dictionary:phone"),
        ("555-123-4567", "dictionary:phone"),  # not "2-"
        ("12345678901234567890123", "dictionary:id"),
        ("1234567", "pattern:mrn"),
        ("5551234567", "dictionary:phone"),
        ("+1 (555) 123-4567", "dictionary:phone"),
    ]


def test_multi_word_places_found_with_and_without_the_second_word_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only heads whose next word may be a place's second word are read in Python; every
    multi-word place of the lexicon (in title case, with a full stop or apostrophe where
    one may stand) is found as without that check."""
    from deid_desktop.core.scan import context, context_places, lexicon

    names = [n for ns in lexicon.load_lexicon().multi.values() for n in ns]
    notes = [f"Lives in {n.title()} now, moved from {n} in May." for n in names]
    notes += [f"Seen in {n.replace(' ', '. ', 1).title()} today" for n in names[:500]]
    notes += ["Lives in New Yorkshire, New Bedford's coast, St. Louis, Ko ʻOlina Hale, Ft Worth"]
    fast = scan_texts(notes, DICT)
    assert any(r == "gazetteer" for *_, r in fast)
    monkeypatch.setattr(context, "may_continue_place", lambda w, heads, lexicon: heads)
    monkeypatch.setattr(context_places, "may_continue_place", lambda w, heads, lexicon: heads)
    assert scan_texts(notes, DICT) == fast


def _emails_by_regex(text: str) -> list[tuple[int, int]]:
    """The e-mail pass as it was: the regex from each '@' (the reference)."""
    out: list[tuple[int, int]] = []
    seen_end = -1
    for at in (i for i, ch in enumerate(text) if ch == "@"):
        lo = at
        while lo > max(0, at - 64) and (fold(text[lo - 1]) != " " or text[lo - 1] in "._+-"):
            lo -= 1
        if at >= seen_end and lo < at:
            m = patterns._EMAIL.match(text, lo, min(len(text), at + 256))
            if m is not None and m.end() > at:
                out.append((m.start(), m.end()))
                seen_end = m.end()
    return out


email_texts = st.lists(
    st.sampled_from(
        [
            "@",
            ".",
            "..",
            "-",
            "_",
            "+",
            "a",
            "Bc",
            "9",
            " ",
            "é",
            "ʻ",
            "ß",
            "\x00",
            "x" * 70,
            ",",
            "ex.org",
        ]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(email_texts)
def test_emails_with_numpy_match_the_regex(text: str) -> None:
    found = patterns.find_emails_urls(text, fold(text), np.empty(0, dtype=np.int64))
    assert list(zip(found[0].tolist(), found[1].tolist(), strict=True)) == _emails_by_regex(text)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 30), st.integers(0, 30)), max_size=60),
    st.sampled_from([0, 20, 50]),
)
def test_note_order_is_the_lexsort(rows: list[tuple[int, int, int]], shift: int) -> None:
    """The merge of the ASCII and other notes' hits: one sort of a packed key, or the
    lexsort where the key would not fit (``shift`` 50)."""
    note, start, end = np.array(rows, dtype=np.int64).reshape(-1, 3).T
    start = start << shift
    assert engine._note_order(note, start, end).tolist() == np.lexsort((end, start, note)).tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 60), st.integers(1, 30)), max_size=60),
    st.sampled_from([0, 56]),
)
def test_end_order_is_the_lexsort(rows: list[tuple[int, int]], shift: int) -> None:
    """The word pass's matches by end, longest first: one sort of a packed key, or the
    lexsort where the key would not fit (``shift`` 56)."""
    last, length = np.array(rows, dtype=np.int64).reshape(-1, 2).T
    last = last << shift
    expected = np.lexsort((-length, last)).tolist()
    assert regions.end_order(last, length).tolist() == expected


@pytest.mark.parametrize("dtype", ["string[pyarrow]", "string[python]", "str", "object"])
def test_text_columns_read_as_the_same_strings(dtype: str) -> None:
    """String columns are read as objects at once, others note by note with str()."""
    values = ["Ann Smith é", None, "MRN-00123 ✓", "", "x" * 5, 12]
    if dtype != "object":
        values = [v if v is None or isinstance(v, str) else str(v) for v in values]
    series = pd.Series(values, dtype=dtype)
    positions = np.flatnonzero(series.notna().to_numpy(dtype=bool))
    texts = engine._texts(series, positions)
    assert texts == [str(series.iloc[i]) for i in positions.tolist()]
    assert all(type(t) is str for t in texts)
