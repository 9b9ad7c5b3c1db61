"""The demo extract: a synthetic heart-failure trial shaped like the HF-HOME file.

Three tables, every value synthetic and every column text, deterministic by seed:

- ``demographics`` (one row per person): patient_id, mrn, first_name, last_name, dob,
  age (completed years at discharge, consistent with dob), sex, race, ethnicity, zip,
  phone, notes;
- ``baseline`` (one row per person): patient_id, discharge_date, lvef, nt_probnp, sbp,
  creatinine, nyha_class;
- ``visits`` (about 2.5 per person): patient_id, visit_date, visit_type, visit_day
  (exactly visit_date minus discharge_date, in days).

It plants the cases a de-identification tool must get right: ZIP codes with leading
zeros, ZIP codes in restricted prefixes (taken from the shipped Census ZIP3 table, never
typed here), ages over 89, missing values, non-ASCII names, notes naming the patient,
one note naming a relative who is in no column, and notes holding a phone number or a
date. Names are common given names and surnames; MRNs are ``SYN-`` codes; telephone
numbers use the fictional 555-01 exchange. ZIP codes are real codes, so the ZIP3 rule
behaves as it would on real data.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.atomic import atomic_write_bytes
from deid_desktop.core.demo_tags import DEMO_TAGS
from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import (
    ExportMeta,
    Pathway,
    Project,
    RiskSettings,
    TableSpec,
    TransformOptions,
)
from deid_desktop.core.project import PROJECT_SUFFIX, project_to_json
from deid_desktop.core.zip3 import load_bundled_zip3

DEFAULT_ROWS = 2432
DEFAULT_SEED = 20260423
MIN_ROWS = 50
MAX_ROWS = 5_000_000
PROJECT_FILE = f"demo{PROJECT_SUFFIX}"
TABLE_FILES = {
    "demographics": "demographics.csv",
    "baseline": "baseline.csv",
    "visits": "visits.csv",
}

_TEXT = pd.StringDtype("pyarrow")

# Common given names and surnames (no one in particular). Sarah is left out on purpose:
# the relative named in one note must be in no column.
_FEMALE = (
    "Elena", "Yolanda", "Dana", "Maria", "Linda", "Patricia", "Barbara", "Susan", "Karen",
    "Nancy", "Lisa", "Betty", "Margaret", "Sandra", "Ashley", "Dorothy", "Carol", "Ruth",
    "Sharon", "Michelle", "Laura", "Donna", "Carmen", "Rosa", "Gloria", "Teresa", "Joan",
    "Evelyn", "Judith", "Alice", "Grace", "Helen", "Anna", "Diane", "Julie", "Irene",
    "Lucia", "Mei", "Priya", "Aisha",
)  # fmt: skip
_MALE = (
    "Victor", "James", "John", "Robert", "Michael", "William", "David", "Richard",
    "Joseph", "Thomas", "Charles", "Daniel", "Matthew", "Anthony", "Mark", "Donald",
    "Steven", "Paul", "Andrew", "Kenneth", "George", "Edward", "Ronald", "Timothy",
    "Jason", "Frank", "Raymond", "Gregory", "Samuel", "Walter", "Henry", "Arthur",
    "Carlos", "Luis", "Miguel", "Wei", "Raj", "Omar", "Hiroshi", "Ahmed",
)  # fmt: skip
_SURNAMES = (
    "Patel", "Ruiz", "Fox", "Underwood", "Morales", "Smith", "Johnson", "Williams",
    "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez",
    "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson",
    "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark",
    "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright",
    "Scott", "Torres", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall",
    "Rivera", "Campbell", "Mitchell", "Carter", "Roberts", "Kim", "Chen", "Wang",
    "Singh", "Tran", "Cohen", "O'Brien", "Sullivan", "Murphy", "Reyes", "Castillo",
)  # fmt: skip
# Non-ASCII names, planted in about 2% of rows.
_FEMALE_ACCENTED = ("Zoë", "Renée", "Inés")
_MALE_ACCENTED = ("José", "Björn", "Łukasz")
_SURNAMES_ACCENTED = ("Peña", "Müller", "Nguyễn", "Ibáñez", "Gonçalves")
RELATIVE_NOTE = "Daughter Sarah will manage medications at home."

# Real ZIP codes. Most patients live in San Diego County, as in HF-HOME; a few moved in
# from New England, whose ZIP codes start with 0 (the leading zero must survive).
_SAN_DIEGO_ZIPS = (
    "92101", "92102", "92103", "92104", "92105", "92106", "92107", "92108", "92109",
    "92110", "92111", "92113", "92114", "92115", "92116", "92117", "92119", "92120",
    "92121", "92122", "92123", "92124", "92126", "92127", "92128", "92129", "92130",
    "92131", "92139", "92154", "92093", "92021", "92019", "92020", "92024", "92025",
    "92026", "92027", "92037", "92040", "92054", "92056", "92057", "92064", "92065",
    "92069", "92071", "92075", "92078", "92081", "92083", "92084", "91910", "91911",
    "91913", "91914", "91915", "91932", "91941", "91942", "91945", "91950", "91977",
)  # fmt: skip
_LEADING_ZERO_ZIPS = (
    "02139", "01013", "06511", "02115", "01609", "06106", "02908", "01060", "06830",
    "07030", "08540",
)  # fmt: skip

_RACES = (
    ("White", 0.60),
    ("Black or African American", 0.17),
    ("Asian", 0.09),
    ("American Indian or Alaska Native", 0.01),
    ("Native Hawaiian or Other Pacific Islander", 0.01),
    ("More than one race", 0.04),
    ("Not reported", 0.05),
    (None, 0.03),
)
_ETHNICITIES = (
    ("Hispanic or Latino", 0.22),
    ("Not Hispanic or Latino", 0.68),
    ("Not reported", 0.06),
    (None, 0.04),
)
_NYHA = (("I", 0.10), ("II", 0.45), ("III", 0.36), ("IV", 0.09))
_VISITS = (  # label, scheduled day, share attending, +/- days
    ("Day 7", 7, 0.92, 2),
    ("Day 30", 30, 0.80, 5),
    ("Day 90", 90, 0.55, 10),
    ("Day 180", 180, 0.20, 14),
)
_UNSCHEDULED_SHARE = 0.06
_FIRST_DISCHARGE = np.datetime64("2023-01-02")
_LAST_DISCHARGE = np.datetime64("2025-06-13")  # visits (<= day 194) end within 2025


# --------------------------------------------------------------------------------------
# Shipped tables the demo draws on
# --------------------------------------------------------------------------------------


def restricted_prefixes() -> tuple[str, ...]:
    """Restricted ZIP3 prefixes where people live, from the shipped Census table (sorted).

    Prefixes with no population at all (federal buildings) are left out: nobody's home
    ZIP is there.
    """
    table = load_bundled_zip3()
    return tuple(p for p in table.restricted if table.populations[p] > 0)


# --------------------------------------------------------------------------------------
# Building columns: every column is a draw of indices into a small vocabulary, so the
# generator is vectorised end to end (a million persons in a few seconds).
# --------------------------------------------------------------------------------------


def _series(arr: pa.Array | pa.ChunkedArray) -> pd.Series:
    return pd.Series(pd.arrays.ArrowStringArray(arr))


def _column(
    vocab: list[str] | np.ndarray, idx: np.ndarray, missing: np.ndarray | None = None
) -> pd.Series:
    """``vocab[idx]`` as a text column; ``missing`` rows become <NA>."""
    arr = pa.array(list(vocab), type=pa.large_string()).take(pa.array(idx, type=pa.int64()))
    if missing is not None and missing.any():
        arr = pc.if_else(pa.array(missing), pa.scalar(None, pa.large_string()), arr)
    return _series(arr)


def _numbers(values: np.ndarray, missing: np.ndarray | None = None) -> pd.Series:
    arr = pc.cast(pa.array(values, type=pa.int64()), pa.large_string())
    if missing is not None and missing.any():
        arr = pc.if_else(pa.array(missing), pa.scalar(None, pa.large_string()), arr)
    return _series(arr)


def _draw(
    rng: np.random.Generator, table: tuple[tuple[str | None, float], ...], n: int
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Draw ``n`` labels by weight; a ``None`` label means missing. (vocab, idx, missing)."""
    vocab = [lab or "" for lab, _ in table]
    weights = np.array([w for _, w in table])
    idx = rng.choice(len(table), size=n, p=weights / weights.sum())
    missing = np.array([lab is None for lab, _ in table])[idx]
    return vocab, idx, missing


def _day_vocab(lo: np.datetime64, hi: np.datetime64, fmt: str = "iso") -> list[str]:
    days = np.arange(lo, hi + 1, dtype="datetime64[D]")
    if fmt == "iso":
        return list(np.datetime_as_string(days, unit="D"))
    return [f"{d.month}/{d.day}/{d.year}" for d in days.astype(object)]


def _completed_years(born: np.ndarray, on: np.ndarray) -> np.ndarray:
    b, o = pd.DatetimeIndex(born), pd.DatetimeIndex(on)
    before_birthday = (o.month * 100 + o.day) < (b.month * 100 + b.day)
    return np.asarray(o.year - b.year) - np.asarray(before_birthday, dtype=np.int64)


class _Vocab:
    """A growing list of strings; ``add`` returns the offset of the block it appended."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, block: list[str]) -> int:
        base = len(self.items)
        self.items.extend(block)
        return base


# --------------------------------------------------------------------------------------
# The frames
# --------------------------------------------------------------------------------------


def _planted_rows(
    rng: np.random.Generator, n: int, counts: dict[str, int]
) -> dict[str, np.ndarray]:
    """Distinct rows for each planted case (no row carries two of them)."""
    rows = rng.choice(n, size=sum(counts.values()), replace=False)
    out, at = {}, 0
    for name, k in counts.items():
        out[name] = np.sort(rows[at : at + k])
        at += k
    return out


def make_demo_frames(rows: int = DEFAULT_ROWS, seed: int = DEFAULT_SEED) -> dict[str, pd.DataFrame]:
    """The demo extract as text frames: demographics, baseline, visits.

    Same ``rows`` and ``seed`` (and shipped ZIP3 table) give identical frames.
    """
    if not isinstance(rows, int) or isinstance(rows, bool) or not MIN_ROWS <= rows <= MAX_ROWS:
        raise UsageError(
            f"The demo needs between {MIN_ROWS} and {MAX_ROWS:,} persons",
            hint=f"Choose --rows from {MIN_ROWS} to {MAX_ROWS}.",
        )
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise UsageError("The demo seed must be a whole number, 0 or more")
    rng = np.random.Generator(np.random.PCG64(seed))
    n = rows
    width = max(4, len(str(n)))
    pid = pc.utf8_lpad(pc.cast(pa.array(np.arange(1, n + 1)), pa.large_string()), width, "0")

    # Discharge (index) date in enrollment order; age at discharge; date of birth.
    span = int((_LAST_DISCHARGE - _FIRST_DISCHARGE).astype(int)) + 1
    discharge = _FIRST_DISCHARGE + np.sort(rng.integers(0, span, n))
    over89 = rng.random(n) < 0.05
    target_age = np.where(
        over89,
        rng.integers(90, 103, n),
        np.clip(np.rint(rng.normal(70, 11, n)), 30, 89).astype(np.int64),
    )
    dob = discharge - np.floor(target_age * 365.2425 + rng.uniform(2, 363, n)).astype(np.int64)
    age = _completed_years(dob, discharge)

    female = rng.random(n) < 0.42
    first_vocab = [*_FEMALE, *_MALE, *_FEMALE_ACCENTED, *_MALE_ACCENTED]
    first = np.where(
        female,
        rng.integers(0, len(_FEMALE), n),
        len(_FEMALE) + rng.integers(0, len(_MALE), n),
    )
    last_vocab = [*_SURNAMES, *_SURNAMES_ACCENTED]
    last = rng.integers(0, len(_SURNAMES), n)
    mrn = 1_000_000 + rng.choice(9_000_000, size=n, replace=False)
    race_vocab, race, race_missing = _draw(rng, _RACES, n)
    eth_vocab, eth, eth_missing = _draw(rng, _ETHNICITIES, n)
    zip_vocab = [*_SAN_DIEGO_ZIPS, *_LEADING_ZERO_ZIPS]
    zips = rng.integers(0, len(_SAN_DIEGO_ZIPS), n)
    zip_missing = rng.random(n) < 0.02
    phone_vocab = [f"({a}) 555-01{i:02d}" for a in ("858", "619", "760") for i in range(100)]
    phone = rng.integers(0, len(phone_vocab), n)
    phone_missing = rng.random(n) < 0.05

    # Planted cases, each on rows of its own.
    prefixes = restricted_prefixes()
    plant = _planted_rows(
        rng,
        n,
        {
            "leading_zero": max(3, round(0.04 * n)),
            "restricted": max(3, round(0.008 * n)) if prefixes else 0,
            "accented": max(6, round(0.02 * n)),
            "phone_note": max(1, round(0.01 * n)),
            "date_note": max(1, round(0.01 * n)),
            "relative_note": 1,
        },
    )
    rows_ = plant["leading_zero"]
    zips[rows_] = len(_SAN_DIEGO_ZIPS) + rng.integers(0, len(_LEADING_ZERO_ZIPS), len(rows_))
    if prefixes:
        base = len(zip_vocab)
        zip_vocab += [p + f"{i:02d}" for p in prefixes for i in range(100)]
        rows_ = plant["restricted"]
        k = np.arange(len(rows_))
        zips[rows_] = base + (k % len(prefixes)) * 100 + rng.integers(0, 100, len(rows_))
    zip_missing[np.concatenate([plant["leading_zero"], plant["restricted"]])] = False

    # Non-ASCII names: alternately a woman and a man, so each name appears at least once.
    rows_ = plant["accented"]
    k = np.arange(len(rows_))
    female[rows_] = k % 2 == 0
    acc_f = len(_FEMALE) + len(_MALE) + (k // 2) % len(_FEMALE_ACCENTED)
    acc_m = len(_FEMALE) + len(_MALE) + len(_FEMALE_ACCENTED) + (k // 2) % len(_MALE_ACCENTED)
    first[rows_] = np.where(k % 2 == 0, acc_f, acc_m)
    last[rows_] = len(_SURNAMES) + k % len(_SURNAMES_ACCENTED)

    notes_vocab, notes = _notes(rng, n, female, first, last, discharge, plant, first_vocab)

    demographics = pd.DataFrame(
        {
            "patient_id": _series(pid),
            "mrn": _series(
                pc.utf8_replace_slice(pc.cast(pa.array(mrn), pa.large_string()), 0, 0, "SYN-")
            ),
            "first_name": _column(first_vocab, first),
            "last_name": _column(last_vocab, last),
            "dob": _column(_day_vocab(dob.min(), dob.max()), (dob - dob.min()).astype(np.int64)),
            "age": _numbers(age),
            "sex": _column(["M", "F"], female.astype(np.int64)),
            "race": _column(race_vocab, race, race_missing),
            "ethnicity": _column(eth_vocab, eth, eth_missing),
            "zip": _column(zip_vocab, zips, zip_missing),
            "phone": _column(phone_vocab, phone, phone_missing),
            "notes": _column(notes_vocab, notes, notes == 0),
        }
    )
    baseline = _baseline(rng, pid, discharge)
    visits = _visits(rng, pid, discharge)
    return {"demographics": demographics, "baseline": baseline, "visits": visits}


def _notes(
    rng: np.random.Generator,
    n: int,
    female: np.ndarray,
    first: np.ndarray,
    last: np.ndarray,
    discharge: np.ndarray,
    plant: dict[str, np.ndarray],
    first_vocab: list[str],
) -> tuple[list[str], np.ndarray]:
    """Nurse notes as (vocabulary, index); index 0 is the empty (missing) note."""
    last_vocab = [*_SURNAMES, *_SURNAMES_ACCENTED]
    nl = len(last_vocab)
    v = _Vocab()
    v.add([""])
    plain = v.add(
        ["Daily weights reviewed, no new edema.", 'Patient said "feeling better" and walks daily.']
    )
    by_last = v.add(
        [
            f"{title} {name} {text}"
            for text in (
                "reports less breathlessness on stairs.",
                "missed two doses of furosemide; education given.",
            )
            for title in ("Mr.", "Ms.")
            for name in last_vocab
        ]
    )
    by_first = v.add(
        [
            text.format(name)
            for text in (
                "{} is adherent to the diuretic; weight stable.",
                "Low-sodium diet discussed with {} and spouse.",
            )
            for name in first_vocab
        ]
    )
    phone_notes = v.add(
        [
            f"Call {title} {name} at (619) 555-01{i:02d} if weight rises 2 lb."
            for title in ("Mr.", "Ms.")
            for name in last_vocab
            for i in range(100)
        ]
    )
    lo = discharge.min() - 10
    date_notes = v.add(
        [
            f"Seen in the ED on {d} for fluid overload."
            for d in _day_vocab(lo, discharge.max(), "us")
        ]
    )
    relative = v.add([RELATIVE_NOTE])

    fem = female.astype(np.int64)
    which = rng.integers(0, 6, n)
    options = np.stack(
        [
            np.full(n, plain),
            np.full(n, plain + 1),
            by_last + fem * nl + last,
            by_last + 2 * nl + fem * nl + last,
            by_first + first,
            by_first + len(first_vocab) + first,
        ]
    )
    notes = np.where(rng.random(n) < 0.35, options[which, np.arange(n)], 0)

    rows_ = plant["phone_note"]
    line = rng.integers(0, 100, len(rows_))
    notes[rows_] = phone_notes + (fem[rows_] * nl + last[rows_]) * 100 + line
    rows_ = plant["date_note"]
    seen_on = discharge[rows_] - rng.integers(3, 10, len(rows_))
    notes[rows_] = date_notes + (seen_on - lo).astype(np.int64)
    notes[plant["relative_note"]] = relative
    return v.items, notes


def _baseline(rng: np.random.Generator, pid: pa.Array, discharge: np.ndarray) -> pd.DataFrame:
    n = len(pid)
    lvef = np.clip(np.rint(rng.normal(36, 12, n)), 10, 70).astype(np.int64)
    probnp = np.clip(np.rint(rng.lognormal(8.0, 0.9, n)), 60, 35000).astype(np.int64)
    sbp = np.clip(np.rint(rng.normal(124, 18, n)), 78, 210).astype(np.int64)
    cents = np.clip(np.rint(rng.lognormal(np.log(1.3), 0.35, n) * 100), 40, 600)
    creat_vocab = [f"{c // 100}.{c % 100:02d}" for c in range(40, 601)]
    nyha_vocab, nyha, _ = _draw(rng, _NYHA, n)
    lo = discharge.min()
    return pd.DataFrame(
        {
            "patient_id": _series(pid),
            "discharge_date": _column(
                _day_vocab(lo, discharge.max()), (discharge - lo).astype(np.int64)
            ),
            "lvef": _numbers(lvef, rng.random(n) < 0.02),
            "nt_probnp": _numbers(probnp, rng.random(n) < 0.04),
            "sbp": _numbers(sbp, rng.random(n) < 0.01),
            "creatinine": _column(creat_vocab, cents.astype(np.int64) - 40, rng.random(n) < 0.02),
            "nyha_class": _column(nyha_vocab, nyha),
        }
    )


def _visits(rng: np.random.Generator, pid: pa.Array, discharge: np.ndarray) -> pd.DataFrame:
    n = len(pid)
    labels = [v[0] for v in _VISITS] + ["Unscheduled"]
    sched = np.array([v[1] for v in _VISITS])
    share = np.array([v[2] for v in _VISITS])
    jitter = np.array([v[3] for v in _VISITS])
    attend = rng.random((n, len(_VISITS))) < share
    day = sched + rng.integers(-jitter, jitter + 1, size=(n, len(_VISITS)))
    person, slot = np.nonzero(attend)
    days = day[person, slot]
    extra = np.nonzero(rng.random(n) < _UNSCHEDULED_SHARE)[0]
    person = np.concatenate([person, extra])
    slot = np.concatenate([slot, np.full(len(extra), len(_VISITS))])
    days = np.concatenate([days, rng.integers(1, 181, len(extra))])
    order = np.lexsort((slot, days, person))
    person, slot, days = person[order], slot[order], days[order]
    visit_date = discharge[person] + days
    lo = visit_date.min()
    return pd.DataFrame(
        {
            "patient_id": _series(pid.take(pa.array(person))),
            "visit_date": _column(
                _day_vocab(lo, visit_date.max()), (visit_date - lo).astype(np.int64)
            ),
            "visit_type": _column(labels, slot),
            "visit_day": _numbers(days),
        }
    )


# --------------------------------------------------------------------------------------
# The demo project
# --------------------------------------------------------------------------------------


def _csv_field(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """RFC 4180 minimal quoting, as Python's csv.QUOTE_MINIMAL (a lone carriage return is
    quoted too); missing -> empty."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    data = values.buffers()[2]
    raw = data.to_pybytes() if data is not None else b""
    if not any(ch in raw for ch in (b",", b'"', b"\r", b"\n")):  # most columns: a quick scan
        return pc.fill_null(values, "")
    needs = pc.match_substring_regex(values, '[,"\r\n]')
    quote, empty = pa.scalar('"', values.type), pa.scalar("", values.type)
    quoted = pc.binary_join_element_wise(
        quote, pc.replace_substring(values, '"', '""'), quote, empty
    )
    return pc.fill_null(pc.if_else(needs, quoted, values), "")


def _csv_bytes(frame: pd.DataFrame) -> bytes:
    """The frame as UTF-8 CSV with "\n" line ends, vectorised in Arrow (a million rows in
    well under a second; pandas' writer loops in Python)."""
    header = _csv_field(pa.array([str(c) for c in frame.columns], type=pa.large_string()))
    fields = [_csv_field(pa.array(frame[c].array, type=pa.large_string())) for c in frame.columns]
    text = pa.large_string()
    if len(fields) == 1:  # a lone empty field is written "" so the line is not blank
        fields = [pc.if_else(pc.equal(fields[0], ""), pa.scalar('""', text), fields[0])]
    lines = pc.binary_join_element_wise(*fields, pa.scalar(",", text))
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    lines = pc.binary_join_element_wise(lines, pa.scalar("\n", text), pa.scalar("", text))
    head = ",".join(header.to_pylist()) + "\n"
    if len(lines) == 0:
        return head.encode("utf-8")
    # the lines lie end to end in the array's data buffer: take that span as the body
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)
    first, last = offsets[lines.offset], offsets[lines.offset + len(lines)]
    return head.encode("utf-8") + lines.buffers()[2].slice(first, last - first).to_pybytes()


def demo_project(frames: dict[str, pd.DataFrame], digests: dict[str, str], seed: int) -> Project:
    """The ready demo project over the demo files (paths beside the project file)."""
    rows = len(frames["demographics"])
    tables = tuple(
        TableSpec(
            name=name,
            path=TABLE_FILES[name],
            sha256=digests[name],
            key="patient_id",
            is_person=name == "demographics",
            columns=DEMO_TAGS[name],
            rows=len(frames[name]),
        )
        for name in TABLE_FILES
    )
    return Project(
        project_id=uuid.uuid5(uuid.NAMESPACE_URL, f"deid-desktop:demo:{rows}:{seed}").hex,
        name="HF-HOME demo (synthetic)",
        tables=tables,
        pathway=Pathway.SAFE_HARBOR,
        seed=seed,
        transform=TransformOptions(age_reference="index"),
        risk=RiskSettings(k_target=5),
        export=ExportMeta(
            purpose="Demonstration of deid-desktop on a synthetic extract",
            formats=("csv",),
        ),
    )


def write_demo(out_dir: Path, *, rows: int = DEFAULT_ROWS, seed: int = DEFAULT_SEED) -> Path:
    """Write the demo extract (three UTF-8 CSVs) and its ready project into ``out_dir``.

    Returns the project file's path. Same ``rows`` and ``seed`` give byte-identical files.
    """
    out_dir = Path(out_dir)
    frames = make_demo_frames(rows, seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    digests: dict[str, str] = {}
    for name, file in TABLE_FILES.items():
        data = _csv_bytes(frames[name])
        digests[name] = hashlib.sha256(data).hexdigest()
        atomic_write_bytes(out_dir / file, data)
    project_path = out_dir / PROJECT_FILE
    project = demo_project(frames, digests, seed)
    atomic_write_bytes(project_path, project_to_json(project).encode("utf-8"))
    return project_path
