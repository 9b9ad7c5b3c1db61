"""A person's own identifier written in another form, in a column tagged clinical, fails
the direct-value check: an MRN's digits without its letters and leading zeros, a
surname alone with an initial, a name turned round. Both passed the gate before (the
dictionary searches a value as the extract writes it). Words that are also names
(race "White" in the row of a Mr White) and numbers that merely look like IDs pass."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.model import ColumnClass, ColumnTag, IdentifierCategory
from deid_desktop.core.pathways.linkable import build_linkable
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor
from deid_desktop.core.verify import verify_release
from deid_desktop.core.verify.own_names import name_tokens
from deid_desktop.core.verify.own_tokens import cell_tokens, soundex, whole_digits
from tests.core.linkable_fixtures import SALT
from tests.core.support import CL, TEXT
from tests.core.test_safe_harbor_support import PEOPLE_TAGS, make_case, replace_frame

N = 120
SURNAMES = ["Kowalczyk", "Abernathy", "Okonkwo", "Lindqvist", "Haverford", "White", "Nakamura"]


def _case(extra: dict[str, list[str | None]], *, seed: int = 3):  # type: ignore[no-untyped-def]
    """The hand-built case with N persons of varied names and MRNs, plus clinical
    columns ``extra`` (each a function of the persons' rows) in the person table."""
    extract, project = make_case(N)
    rng = random.Random(seed)
    people = extract.person.frame.copy()
    people["last_name"] = pd.array([rng.choice(SURNAMES) for _ in range(N)], dtype=TEXT)
    people["mrn"] = pd.array([f"MRN-{rng.randint(1000, 999_999):07d}" for _ in range(N)], TEXT)
    for name, make in extra.items():
        people[name] = pd.array(make(people), dtype=TEXT)  # type: ignore[operator]
    extract = replace_frame(extract, "people", people)
    tags = (*PEOPLE_TAGS, *(ColumnTag(name, CL) for name in extra))
    spec = replace(project.table("people"), columns=tags)
    project = replace(project, tables=tuple(spec if t.is_person else t for t in project.tables))
    return extract, project


def _direct_values(extract, project, release=None):  # type: ignore[no-untyped-def]
    release = release or build_safe_harbor(extract, project)
    return verify_release(extract, release, project).outcome("no_direct_values")


def _mrn_digits(people: pd.DataFrame) -> list[str]:
    return [str(int(m[4:])) for m in people["mrn"]]


def test_an_mrns_digits_without_their_leading_zeros_fail_the_check() -> None:
    extract, project = _case({"hosp_ref": _mrn_digits})
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.hosp_ref"]["rows"] == N
    assert outcome.count >= N


def test_a_surname_alone_with_an_initial_fails_the_check() -> None:
    def label(p: pd.DataFrame) -> list[str]:
        return [
            f"{ln.upper()}, {fn[0]}" for ln, fn in zip(p["last_name"], p["first_name"], strict=True)
        ]

    extract, project = _case({"chart_label": label})
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.chart_label"]["rows"] == N


def test_initials_fail_the_check_in_any_common_writing() -> None:
    def initials(p: pd.DataFrame) -> list[str]:
        forms = ["{f}{l}", "{f}.{l}.", "{f} {l}", "{l}{f}"]
        return [
            forms[i % 4].format(f=fn[0], l=ln[0])
            for i, (fn, ln) in enumerate(zip(p["first_name"], p["last_name"], strict=True))
        ]

    extract, project = _case({"pt_initials": initials})
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.pt_initials"]["rows"] == N


def test_a_username_made_of_the_name_fails_the_check() -> None:
    def user(p: pd.DataFrame) -> list[str]:
        names = zip(p["first_name"], p["last_name"], strict=True)
        return [
            f"{fn[0]}{ln}".lower() if i % 2 else f"{ln}.{fn}" for i, (fn, ln) in enumerate(names)
        ]

    extract, project = _case({"login": user})
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.login"]["rows"] == N


def test_codes_built_from_the_beginnings_of_the_names_fail_the_check() -> None:
    """``SCOMA`` for Mark Scott (three letters of the surname, two of the first name),
    kept as a clinical registry code, passed: no word of it is a name."""

    def code(k: int, j: int, surname_first: bool):  # type: ignore[no-untyped-def]
        def make(p: pd.DataFrame) -> list[str]:
            pairs = zip(p["last_name"], p["first_name"], strict=True)
            return [
                (ln[:k] + fn[:j] if surname_first else fn[:j] + ln[:k]).upper() for ln, fn in pairs
            ]

        return make

    extract, project = _case(
        {"reg_code": code(3, 2, True), "site_code": code(4, 1, False), "ref": code(2, 3, True)}
    )
    found = _direct_values(extract, project).detail["found"]
    assert set(found) == {"people.reg_code", "people.site_code", "people.ref"}
    assert all(f["rows"] == N for f in found.values())


def test_the_soundex_of_the_surname_fails_the_check() -> None:
    """A record-linkage column of each person's surname Soundex (``K426``) passed."""

    def codes(p: pd.DataFrame) -> list[str]:
        return [soundex(ln.lower()).upper() for ln in p["last_name"]]

    extract, project = _case({"sdx": codes})
    found = _direct_values(extract, project).detail["found"]
    assert found["people.sdx"]["rows"] == N
    # the same codes drawn at random among the surnames' codes hold no one's own
    rng = random.Random(5)
    pool = sorted({soundex(s.lower()).upper() for s in SURNAMES})
    extract, project = _case({"sdx": lambda p: [rng.choice(pool) for _ in range(N)]})
    assert _direct_values(extract, project).passed


def test_a_surname_written_backwards_fails_the_check() -> None:
    extract, project = _case({"mask": lambda p: [ln[::-1].upper() for ln in p["last_name"]]})
    assert _direct_values(extract, project).detail["found"]["people.mask"]["rows"] == N


def test_name_codes_of_other_persons_pass() -> None:
    """The same codes shuffled among the persons hold no one's own name: they pass."""

    def shuffled(p: pd.DataFrame) -> list[str]:
        codes = [
            (ln[:3] + fn[:2]).upper()
            for ln, fn in zip(p["last_name"], p["first_name"], strict=True)
        ]
        return codes[7:] + codes[:7]

    extract, project = _case({"reg_code": shuffled})
    assert _direct_values(extract, project).passed


def test_two_letter_codes_that_are_not_the_persons_initials_pass() -> None:
    """US state codes drawn at random: some equal a person's initials by chance."""
    rng = random.Random(11)
    states = ["MA", "NY", "CA", "TX", "EP", "VK", "DP", "RO", "JM", "OK"]
    extract, project = _case({"state": lambda p: [rng.choice(states) for _ in range(N)]})
    assert _direct_values(extract, project).passed


def _short_mrns(extract, project, extra):  # type: ignore[no-untyped-def]
    """The case with MRNs of a few digits (``SYN-0042``) and clinical columns ``extra``."""
    people = extract.person.frame.copy()
    people["mrn"] = pd.array([f"SYN-{i + 1:04d}" for i in range(N)], dtype=TEXT)
    for name, make in extra.items():
        people[name] = pd.array(make(people), dtype=TEXT)
    extract = replace_frame(extract, "people", people)
    return extract, project


def test_a_phone_without_its_area_code_fails_the_check() -> None:
    """``555-0142`` of ``(858) 555-0142`` kept as a clinical ``callback`` passed: the
    phone was searched only as the extract writes it."""
    extract, project = _case({"callback": lambda p: [str(x)[-8:] for x in p["phone"]]})
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.callback"]["rows"] == N


def test_a_short_id_copied_as_a_number_fails_the_check() -> None:
    """A key or record number of a few digits (``0042`` kept as a clinical ``42``) was
    searched by nobody: numbers under 6 digits match by chance. Paired with its own
    person, it is found."""
    extract, project = _case({"hosp_no": lambda p: ["0"] * N})
    extract, project = _short_mrns(
        extract, project, {"hosp_no": lambda p: [str(int(m[4:])) for m in p["mrn"]]}
    )
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.hosp_no"]["rows"] == N


def test_small_numbers_that_are_not_the_persons_own_pass() -> None:
    """Blood pressures from 90 to 180 beside record numbers 1 to 120: a few agree with
    their own person's by chance, as many as chance says."""
    rng = random.Random(3)
    extract, project = _case({"sbp": lambda p: ["0"] * N})
    extract, project = _short_mrns(
        extract, project, {"sbp": lambda p: [str(rng.randint(90, 180)) for _ in range(N)]}
    )
    assert _direct_values(extract, project).passed


def test_a_count_that_follows_the_row_order_like_the_keys_passes() -> None:
    """A count 0-6 repeating down the rows beside keys 1, 2, 3...: the first six persons'
    counts equal their keys, more than chance says but a handful of the column's rows,
    where a copied key is copied for (nearly) every row."""
    extract, project = _case({"visits": lambda p: ["0"] * N})
    extract, project = _short_mrns(
        extract, project, {"visits": lambda p: [str((i + 1) % 7) for i in range(N)]}
    )
    assert _direct_values(extract, project).passed


def test_a_short_id_copied_for_half_the_persons_fails_the_check() -> None:
    extract, project = _case({"ref": lambda p: ["0"] * N})
    extract, project = _short_mrns(
        extract,
        project,
        {"ref": lambda p: [str(int(m[4:])) if i % 2 else "0" for i, m in enumerate(p["mrn"])]},
    )
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.ref"]["rows"] == N // 2


def test_the_plain_sentence_names_the_column_and_what_it_holds() -> None:
    from deid_desktop.core.verify.plain import plain_failure

    extract, project = _case({"hosp_ref": _mrn_digits})
    sentence = plain_failure(_direct_values(extract, project)).sentence
    assert "people.hosp_ref" in sentence and "own name or ID" in sentence
    assert all(d not in sentence for d in _mrn_digits(extract.person.frame))


def test_a_word_that_is_also_a_surname_passes() -> None:
    """Race "White" for most persons, some of whom are named White: chance, not a copy."""
    rng = random.Random(5)
    extract, project = _case(
        {"race": lambda p: [rng.choice(["White"] * 3 + ["Black"]) for _ in range(N)]}
    )
    assert (extract.person.frame["last_name"] == "White").sum() >= 10
    assert _direct_values(extract, project).passed


def test_numbers_of_the_same_shape_as_the_ids_but_not_the_persons_own_pass() -> None:
    """Six-digit counts drawn from the same range as the MRN digits, unrelated to them."""
    rng = random.Random(9)
    extract, project = _case(
        {"steps": lambda p: [str(rng.randint(1000, 999_999)) for _ in range(N)]}
    )
    assert _direct_values(extract, project).passed


def test_the_persons_own_digits_in_an_event_table_fail_the_check() -> None:
    extract, project = _case({})
    visits = extract.table("visits").frame.copy()
    mrn = dict(zip(extract.person.frame["pid"], _mrn_digits(extract.person.frame), strict=True))
    visits["comment"] = pd.array([f"ref {mrn[p]}" for p in visits["pid"]], dtype=TEXT)
    extract = replace_frame(extract, "visits", visits)
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["visits.comment"]["rows"] == len(visits)


def test_rows_the_pathway_gives_wrongly_are_not_trusted() -> None:
    """The gate holds the pathway's crosswalk rows against the keys: rows that do not
    agree are found again by the keys, and the copy is still caught."""
    extract, project = _case({"hosp_ref": _mrn_digits})
    release = build_safe_harbor(extract, project)
    assert release.crosswalk_rows is not None
    wrong = replace(release, crosswalk_rows=release.crosswalk_rows[::-1].copy())
    outcome = _direct_values(extract, project, wrong)
    assert outcome.detail["found"]["people.hosp_ref"]["rows"] == N


def test_the_linkable_release_is_held_to_it_too() -> None:
    extract, project = _case({"hosp_ref": _mrn_digits})
    release = build_linkable(extract, project, salt=SALT)
    outcome = _direct_values(extract, project, release)
    assert not outcome.passed
    assert "people.hosp_ref" in outcome.detail["found"]


def test_a_few_copies_among_ordinary_values_fail() -> None:
    """Five persons' own MRN digits among blank cells: a partial leak is a leak."""

    def some(p: pd.DataFrame) -> list[str | None]:
        return [d if i % 24 == 0 else None for i, d in enumerate(_mrn_digits(p))]

    extract, project = _case({"hosp_ref": some})
    outcome = _direct_values(extract, project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.hosp_ref"]["rows"] == N // 24


def test_tokens_split_letters_from_digits_and_drop_leading_zeros() -> None:
    found = cell_tokens(
        pa.array(["MRN-0042002", "Kowalczyk^John", "123-45-6789", "Dr. Al", "J.K."])
    )
    pairs = sorted(zip(found.owner.tolist(), found.token.to_pylist(), strict=True))
    assert (0, "mrn") in pairs and (0, "42002") in pairs
    assert (1, "kowalczyk") in pairs and (1, "john") in pairs
    assert (2, "6789") in pairs and (2, "123") not in pairs  # runs under 4 digits dropped
    assert not any(o == 3 for o, _ in pairs)  # "dr", "al": words under 3 letters dropped
    assert (4, "\x01jk") in pairs  # a cell of initials alone
    present = pa.array(["123456789", "42002"], type=pa.large_string())
    whole = whole_digits(pa.array(["123-45-6789", "MRN-0042002", "12"]), present)
    assert sorted(zip(whole.owner.tolist(), whole.token.to_pylist(), strict=True)) == [
        (0, "123456789"), (1, "42002"),
    ]  # fmt: skip


def test_name_tokens_give_words_initials_and_usernames_of_each_person() -> None:
    first = pa.array(["John", "Mary Ann", None, "José", "Mary Ann"])
    last = pa.array(["Kowalczyk", "Smith-Jones", "Lee", "Peña", "Lee"])
    wanted = ["kowalczyk", "\x01jk", "\x01kj", "jkowalczyk", "kowalczykj", "johnkowalczyk",
              "\x01mal", "\x01mj", "jones", "jose", "pena"]  # fmt: skip
    present = pa.array([*wanted, "lee", "\x01jl"], type=pa.large_string())
    found = name_tokens([first, last], present)
    pairs = set(zip(found.owner.tolist(), found.token.to_pylist(), strict=True))
    assert {(0, t) for t in wanted[:6]} <= pairs
    assert {(1, "\x01mj"), (1, "jones")} <= pairs  # first and last words' first letters
    assert (4, "\x01mal") in pairs  # every word's first letter, in order
    assert (2, "lee") in pairs and not any(o == 2 and t.startswith("\x01") for o, t in pairs)
    assert {(3, "jose"), (3, "pena")} <= pairs  # read as written without the accents


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_an_unrelated_clinical_column_never_fails(seed: int) -> None:
    """Property: values drawn without looking at the person (codes, numbers, words that are
    surnames) never fail the check, whatever the draw."""
    rng = random.Random(seed)
    pool = [*SURNAMES, "stable", "12345", "104522", "MRN", "Kowalczyk J"]
    extract, project = _case(
        {"note_code": lambda p: [rng.choice(pool) for _ in range(N)]}, seed=seed
    )
    outcome = _direct_values(extract, project)
    assert "found" not in outcome.detail, outcome.detail.get("found")


def test_whole_numbers_found_among_present_equal_marking_every_value() -> None:
    # whole_digits and local_numbers mark only the digits found among the present whole
    # numbers: the tokens are those of marking every value and then keeping the present.
    from deid_desktop.core.verify import own_tokens as ot

    values = pa.array(["MRN-0042002", "0042", None, "858-555-0157", "77", "", "(858) 555 0199"])
    present = pa.array(["\x0242002", "\x0242", "42002", "\x025550157", "\x028585550199", "77"])
    text = pc.utf8_ltrim(ot.only_digits(ot.arrow_text(values).fill_null("")), "0")
    found = ot.Tokens(np.arange(len(text), dtype=np.int64), text)
    want = ot.among([found, ot._whole(found)], present)
    got = ot.whole_digits(values, present)
    assert got.owner.tolist() == want.owner.tolist()
    assert got.token.to_pylist() == want.token.to_pylist()
    local = ot.local_numbers(values, present)
    assert local.owner.tolist() == [3]
    assert local.token.to_pylist() == ["\x025550157"]


def test_the_last_four_digits_of_a_phone_fail_the_check() -> None:
    """``4281`` of ``(617) 555-4281``, kept as a clinical ``pin``, passed: four digits
    were no token of the person's. Paired with its own person it is found (an ending
    with a leading zero, read as a short number, is left to chance: 1 phone in 10)."""
    phones = [f"(617) 555-{1000 + (i * 7919) % 9000}" for i in range(N)]
    outcome = _phones_and_pins(phones, [x[-4:] for x in phones])
    assert not outcome.passed
    assert outcome.detail["found"]["people.pin"]["rows"] == N


def _phones_and_pins(phones: list[str], pins: list[str]):  # type: ignore[no-untyped-def]
    """The direct-value check of the case with these phones and a clinical ``pin``."""
    extract, project = _case({"pin": lambda p: ["0"] * N})
    people = extract.person.frame.copy()
    people["phone"] = pd.array(phones, dtype=TEXT)
    people["pin"] = pd.array(pins, dtype=TEXT)
    return _direct_values(replace_frame(extract, "people", people), project)


def test_phone_endings_with_a_leading_zero_fail_the_check() -> None:
    """``0157`` of ``(858) 555-0157`` (one phone in ten ends so): compared as written,
    zero kept, so a count of 157 is never read as one."""
    phones = [f"(858) 555-0{100 + (i * 7919) % 900}" for i in range(N)]
    outcome = _phones_and_pins(phones, [x[-4:] for x in phones])
    assert not outcome.passed
    assert outcome.detail["found"]["people.pin"]["rows"] == N
    assert _phones_and_pins(phones, [x[-3:] for x in phones]).passed  # a count of 157


def test_four_digit_numbers_that_are_not_the_persons_own_pass() -> None:
    """Four-digit lab values (NT-proBNP 1000-9999) beside the phones: by chance a row may
    agree with its person's last four, as rarely as chance says."""
    rng = random.Random(5)
    extract, project = _case(
        {"nt_probnp": lambda p: [str(rng.randint(1000, 9999)) for _ in range(N)]}
    )
    assert _direct_values(extract, project).passed


def test_a_name_written_letter_by_letter_fails_the_check() -> None:
    """``K.O.W.A.L.C.Z.Y.K`` or ``K O W A L C Z Y K``: single letters were no token."""
    extract, project = _case(
        {
            "dotted": lambda p: [".".join(ln.upper()) for ln in p["last_name"]],
            "spaced": lambda p: [" ".join(ln) for ln in p["last_name"]],
        }
    )
    found = _direct_values(extract, project).detail["found"]
    assert found["people.dotted"]["rows"] == N
    assert found["people.spaced"]["rows"] == N


def test_the_last_four_digits_of_an_ssn_fail_the_check() -> None:
    """An SSN's last four (``6789`` of ``123-45-6789``) in a clinical column: found."""
    extract, project = _case({"ssn4": lambda p: ["0"] * N})
    people = extract.person.frame.copy()
    ssns = [f"{100 + i}-{10 + i % 89}-{1000 + (i * 7919) % 9000}" for i in range(N)]
    people["ssn"] = pd.array(ssns, dtype=TEXT)
    people["ssn4"] = pd.array([x[-4:] for x in ssns], dtype=TEXT)
    spec = project.table("people")
    ssn = ColumnTag("ssn", ColumnClass.DIRECT, category=IdentifierCategory.G)
    spec = replace(spec, columns=(*spec.columns, ssn))
    project = replace(project, tables=tuple(spec if t.is_person else t for t in project.tables))
    outcome = _direct_values(replace_frame(extract, "people", people), project)
    assert not outcome.passed
    assert outcome.detail["found"]["people.ssn4"]["rows"] == N


def test_a_phone_said_in_words_fails_the_check() -> None:
    """``eight five eight, five five five, oh one four two``, alone in a cell or in a
    sentence: the digits it says."""
    said = dict(
        enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])
    )

    def words(p: pd.DataFrame) -> list[str]:
        return [" ".join(said[int(c)] for c in str(x) if c.isdigit()) for x in p["phone"]]

    def sentences(p: pd.DataFrame) -> list[str]:
        return [f"cb number {w}, after 5 pm" for w in words(p)]

    found = _direct_values(*_case({"callback": words, "memo": sentences})).detail["found"]
    assert found["people.callback"]["rows"] == N
    assert found["people.memo"]["rows"] == N


def test_a_release_with_an_empty_crosswalk_is_judged_not_crashed() -> None:
    """A hand-made release whose crosswalk has no row pairs no row with a person: the
    check runs (it stopped with an IndexError, which failed the gate as 'could not run')."""
    extract, project = _case({"mrn_digits": _mrn_digits})
    release = build_safe_harbor(extract, project)
    alone = replace(release, crosswalk=release.crosswalk.iloc[0:0])
    outcome = _direct_values(extract, project, alone)
    assert "could_not_run" not in outcome.detail


def test_a_coded_column_is_paired_through_its_codes_as_through_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A released column the pathway took through its dictionary (codes noted) finds each
    row's cell among the candidate cells through its code: the same rows agree as when
    its text is taken row by row, flagged or not, with missing cells."""
    from deid_desktop.core.verify import own_values

    def mixed(p: pd.DataFrame) -> list[str | None]:  # half the rows copy the MRN digits
        digits = _mrn_digits(p)
        return [None if i % 7 == 0 else digits[i] if i % 2 else "stable" for i in range(N)]

    extract, project = _case({"hosp_ref": mixed, "code": lambda p: ["A1", "B2", None] * (N // 3)})
    release = build_safe_harbor(extract, project)
    used: list[int] = []
    through = own_values._candidate_rows
    monkeypatch.setattr(own_values, "_candidate_rows", lambda *a: used.append(1) or through(*a))
    coded = verify_release(extract, release, project).outcome("no_direct_values")
    assert used  # the codes were read
    monkeypatch.setattr(own_values, "known_codes", lambda _values: None)
    text = verify_release(extract, release, project).outcome("no_direct_values")
    assert coded.detail == text.detail and coded.count == text.count
    assert coded.detail["found"]["people.hosp_ref"]["rows"] > 0
