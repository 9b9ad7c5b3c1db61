"""Building blocks the pathways share: what to do with each tagged column, row order,
subject IDs, ages pooled, ZIP3, free text, the user's risk settings.

The facts the gate reads too (person positions, parsed dates, who is over 89) live one
layer down, in ``core.facts``.

Everything here is vectorised (a million persons must take seconds) and carries no
value from the data into a message: files, columns, line numbers and counts only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.ages import age_tag
from deid_desktop.core.facts.dates import is_person_date
from deid_desktop.core.facts.persons import spec_for
from deid_desktop.core.facts.text import STRING, arrow_text, in_set, one_array, remember_codes
from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    Extract,
    FreeTextAction,
    LoadedTable,
    Project,
    Role,
    TableSpec,
)
from deid_desktop.core.pathways.subject_ids import (  # noqa: F401 - re-exported
    SUBJECT_ID,
    SubjectIds,
    random_subject_ids,
)
from deid_desktop.core.zip3 import Zip3Table, zip3_or_000

#: Column names the pathways give to what they create (and ``SUBJECT_ID``).
ZIP3_COLUMN = "zip3"


# --------------------------------------------------------------------------- columns


class Treatment(StrEnum):
    """What a pathway does with one input column."""

    KEY = "key"  # replaced by the subject ID / link key
    DROP_DIRECT = "drop_direct"
    DROP_FREE_TEXT = "drop_free_text"
    DROP_UNTAGGED = "drop_untagged"
    REDACT = "redact"
    ZIP = "zip"
    DATE = "date"
    AGE = "age"
    KEEP = "keep"


def is_date_tag(tag: ColumnTag) -> bool:
    """A date about the person: DATE class, or a birth/index-date role not tagged direct."""
    return is_person_date(tag)


def column_treatments(
    spec: TableSpec,
    columns: Iterable[str],
    *,
    free_text: Mapping[str, FreeTextAction] | None = None,
    keep_direct_roles: Sequence[Role] = (Role.ZIP,),
    keep_direct_zip: bool = False,
) -> dict[str, Treatment]:
    """The treatment of each column of a table, in the frame's column order.

    The key is replaced; a ZIP-role column is cut to ZIP3, unless tagged direct: then
    it goes, as every direct column does (``keep_direct_zip``: the limited data set keeps
    it as a ZIP); other direct columns go; free text goes unless ``free_text["table.column"]`` asks
    for redaction; dates and ages (the AGE role, or a quasi or clinical column named for age) are
    transformed; quasi and clinical columns stay.
    A column without a tag is dropped (the safe side) and the caller warns.
    """
    tags = {c.name: c for c in spec.columns}
    actions = free_text or {}
    out: dict[str, Treatment] = {}
    for name in columns:
        tag = tags.get(name)
        if name == spec.key:
            out[name] = Treatment.KEY
        elif tag is None:
            out[name] = Treatment.DROP_UNTAGGED
        elif (
            tag.role == Role.ZIP
            and Role.ZIP in keep_direct_roles
            and (tag.cls != ColumnClass.DIRECT or keep_direct_zip)
        ):
            out[name] = Treatment.ZIP
        elif tag.cls == ColumnClass.DIRECT:
            out[name] = Treatment.DROP_DIRECT
        elif tag.cls == ColumnClass.FREE_TEXT:
            action = actions.get(f"{spec.name}.{name}", FreeTextAction.SUPPRESS)
            out[name] = (
                Treatment.REDACT if action == FreeTextAction.REDACT else Treatment.DROP_FREE_TEXT
            )
        elif is_date_tag(tag):
            out[name] = Treatment.DATE
        elif age_tag(tag):
            out[name] = Treatment.AGE
        else:
            out[name] = Treatment.KEEP
    return out


def year_column_name(name: str, taken: Iterable[str]) -> str:
    """``discharge_date`` -> ``discharge_year``; ``dob`` -> ``dob_year``; unique."""
    lowered = name.lower()
    stem = name
    for suffix in ("_date", "date", "_dt"):
        if lowered.endswith(suffix) and len(name) > len(suffix):
            stem = name[: -len(suffix)].rstrip("_")
            break
    candidate = f"{stem}_year" if stem else f"{name}_year"
    used = set(taken)
    if candidate in used:
        candidate = f"{name}_year"
    while candidate in used:
        candidate += "_"
    return candidate


# --------------------------------------------------------------------------- persons


def row_order(numbers: np.ndarray) -> np.ndarray:
    """Positions that order rows by ``numbers``, stable among equal numbers.

    A permutation of 1..n (the person table) is inverted in one pass instead of sorted;
    other numbers (an event table's persons) spanning less than 2**32 are sorted by a
    stable radix sort, their low then their high 16 bits (numpy's stable sort of 16-bit
    keys is a radix sort: linear); wider ones with each row's position added below them,
    so every key is distinct and the faster unstable sort gives the stable order.
    """
    n = len(numbers)
    if n and numbers.min() == 1 and numbers.max() == n:
        inverse = np.full(n, -1, dtype=np.int64)
        inverse[numbers - 1] = np.arange(n)
        if (inverse >= 0).all():  # every number once: the stable order is the inverse
            return inverse
    if n:
        low, high = int(numbers.min()), int(numbers.max())
        if high - low < 1 << 32:
            rank = (np.asarray(numbers, dtype=np.int64) - low).astype(np.uint32)
            order = np.argsort((rank & 0xFFFF).astype(np.uint16), kind="stable")
            if high - low >= 1 << 16:
                high_bits = (rank >> 16).astype(np.uint16)[order]
                order = order[np.argsort(high_bits, kind="stable")]
            return order
        if (high - low + 1) * n < 2**62:  # (number, position) fits one 64-bit key
            keys = (np.asarray(numbers, dtype=np.int64) - low) * n + np.arange(n)
            return np.argsort(keys)
    return np.argsort(numbers, kind="stable")


def take_rows(values: pd.Series, order: np.ndarray) -> pd.Series:
    """``values`` at the positions ``order``, index reset (Arrow take on one contiguous
    array for Arrow-backed columns: several times faster than pandas on 1M rows)."""
    array = values.array
    if isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow":
        arrow = one_array(pa.array(array))
        taken = pc.take(arrow, pa.array(order, type=pa.int64()))
        return pd.Series(
            values.dtype.__from_arrow__(pa.chunked_array([taken])), name=values.name, copy=False
        )
    return values.iloc[order].reset_index(drop=True)


def take_coded(values: pd.Series, order: np.ndarray) -> pd.Series:
    """``take_rows`` of a text column with few distinct values, through its dictionary:
    the integer codes are put in order (numpy) and the text looked up among the
    distinct values (which stay in cache), and the codes are noted for the gate
    (``facts.text.remember_codes``: it counts the distinct cells without hashing them
    again). A column of mostly distinct values is taken as it is."""
    if not (isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow"):
        return take_rows(values, order)
    encoded = arrow_text(values).dictionary_encode()
    if len(encoded.dictionary) > len(values) // 2:
        return take_rows(values, order)
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)[order]
    missing = codes < 0
    taken = encoded.dictionary.take(pa.array(codes, mask=missing if missing.any() else None))
    out = pd.Series(
        values.dtype.__from_arrow__(pa.chunked_array([taken])), name=values.name, copy=False
    )
    return remember_codes(out, codes, encoded.dictionary)  # int32 codes


def order_rows(frame: pd.DataFrame, numbers: np.ndarray) -> pd.DataFrame:
    """Rows ordered by the person's number, stable within a person; index reset."""
    order = row_order(np.asarray(numbers))
    if not len(frame.columns):
        return frame.iloc[order].reset_index(drop=True)
    return pd.DataFrame({c: take_rows(frame[c], order) for c in frame.columns}, copy=False)


# --------------------------------------------------------------------------- ZIP, free text


def zip3_series(values: pd.Series, table: Zip3Table) -> tuple[pd.Series, int]:
    """ZIP cut to three digits by the allow-list; and how many became "000"."""
    out = zip3_or_000(values, table).rename(ZIP3_COLUMN)
    return out, int((out == "000").sum())


@dataclass(frozen=True)
class Redaction:
    """Free-text columns kept with scan hits replaced by [KIND], and what was found."""

    columns: dict[str, dict[str, pd.Series]]  # table -> column -> redacted series
    hits: dict[str, int]  # "table.column" -> hits replaced
    notes_with_hits: dict[str, int]  # "table.column" -> notes with at least one hit
    #: "table.column" -> hits left as written (below the chosen redaction level)
    left: dict[str, int] = field(default_factory=dict)
    level: str = "all"


#: A scan of this extract already made by the caller (core.engine), reused by
#: ``redact_free_text`` so each free-text column is scanned once per review.
_PRESCANNED: ContextVar[Any] = ContextVar("deid_prescanned_free_text", default=None)


@contextlib.contextmanager
def prescanned(report: Any) -> Iterator[None]:
    """Within this block, ``redact_free_text`` reuses ``report`` (a ``ScanReport`` of the
    same extract, same project dictionary) for the columns it covers."""
    token = _PRESCANNED.set(report)
    try:
        yield
    finally:
        _PRESCANNED.reset(token)


def _covers(report: Any, chosen: Mapping[str, Sequence[str]]) -> bool:
    if report is None:
        return False
    scanned = {(c.table, c.column) for c in report.columns}
    return all((t, c) in scanned for t, cols in chosen.items() for c in cols)


def redact_free_text(
    extract: Extract,
    project: Project,
    columns: Mapping[str, Sequence[str]],
) -> Redaction:
    """Free-text columns with every scan hit replaced by [KIND] (core.scan).

    ``columns``: table -> column names the user chose to redact. The series returned
    align with the input rows. The scan cannot prove a note clean; the caller says so.
    Inside ``prescanned(report)`` the report's hits are used instead of a second scan.
    """
    chosen = {t: list(c) for t, c in columns.items() if c}
    if not chosen:
        return Redaction({}, {}, {})
    from deid_desktop.core import scan

    frames = {t: extract.table(t).frame for t in chosen}
    report = _PRESCANNED.get()
    if not _covers(report, chosen):
        report = scan.scan_frames(frames, chosen, scan.build_dictionary(extract, project))
    out: dict[str, dict[str, pd.Series]] = {}
    hits: dict[str, int] = {}
    notes: dict[str, int] = {}
    left: dict[str, int] = {}
    level = project.transform.redact_level
    for table, cols in chosen.items():
        out[table] = {}
        for col in cols:
            done = scan.redact_spans(frames[table][col], report.spans_for(table, col), level=level)
            out[table][col] = done.series
            hits[f"{table}.{col}"] = done.hits
            notes[f"{table}.{col}"] = done.notes
            left[f"{table}.{col}"] = done.left
    return Redaction(out, hits, notes, left, level)


def released_name_of(treatment: Treatment, name: str, taken: Iterable[str]) -> str | None:
    """The released name of an input column under ``treatment`` (None: not released)."""
    if treatment in (Treatment.KEEP, Treatment.AGE, Treatment.REDACT):
        return name
    if treatment == Treatment.ZIP:
        return ZIP3_COLUMN
    if treatment == Treatment.DATE:
        return year_column_name(name, taken)
    return None


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


# --------------------------------------------------------------------------- shared steps


def plan_columns(
    extract: Extract, project: Project, *, keep_direct_zip: bool = False
) -> tuple[dict[str, dict[str, Treatment]], Redaction]:
    """Table -> column -> treatment for every table (free text as the project's
    ``transform.free_text`` asks), and the columns chosen for redaction, redacted.
    ``keep_direct_zip``: a ZIP-role column tagged direct is kept as a ZIP (limited
    data set), not removed."""
    treatments = {
        t.name: column_treatments(
            spec_for(project, t),
            t.frame.columns,
            free_text=project.transform.free_text,
            keep_direct_zip=keep_direct_zip,
        )
        for t in extract.tables
    }
    redacted = redact_free_text(
        extract,
        project,
        {
            name: [c for c, tr in cols.items() if tr == Treatment.REDACT]
            for name, cols in treatments.items()
        },
    )
    return treatments, redacted


def redaction_sentences(redacted: Redaction) -> list[str]:
    """One sentence per redacted free-text column, for the README and the record."""
    out = []
    for where, count in sorted(redacted.hits.items()):
        sentence = (
            f"Kept free-text column {where} with {plural(count, 'scan hit')} in "
            f"{plural(redacted.notes_with_hits[where], 'note')} replaced by [KIND] (chosen by "
            "the user; a scan cannot prove a note clean)."
        )
        left = redacted.left.get(where, 0)
        if left:
            chosen = _LEVEL_WORDS.get(redacted.level, redacted.level)
            sentence += (
                f" {plural(left, 'scan hit')} of lower confidence {'was' if left == 1 else 'were'}"
                f" left as written (the redaction level chosen replaces {chosen} only)."
            )
        out.append(sentence)
    return out


#: the redaction levels in words
_LEVEL_WORDS = {"high": "high-confidence hits", "high_medium": "high- and medium-confidence hits"}


def crosswalk_key_name(key: str, id_column: str) -> str:
    """The crosswalk's name for the person-key column: the key's own name, unless the
    release's ID column has that name (MIMIC's person key is ``subject_id``): then
    ``source_`` + the name, so the crosswalk keeps both columns."""
    return key if key != id_column else f"source_{key}"


def subject_crosswalk(
    subjects: SubjectIds, person: LoadedTable, key: str
) -> tuple[pd.DataFrame, np.ndarray]:
    """The held-back crosswalk (subject ID <-> person key), in subject-ID order, and
    each of its rows' row in the person table (``Release.crosswalk_rows``)."""
    crosswalk = pd.DataFrame(
        {
            SUBJECT_ID: subjects.ids.reset_index(drop=True),
            crosswalk_key_name(key, SUBJECT_ID): person.frame[key]
            .reset_index(drop=True)
            .astype(STRING),
        }
    )
    order = row_order(np.asarray(subjects.numbers))
    if not len(crosswalk.columns):
        return crosswalk.iloc[order].reset_index(drop=True), order
    columns = {c: take_rows(crosswalk[c], order) for c in crosswalk.columns}
    return pd.DataFrame(columns, copy=False), order


# --------------------------------------------------------------------------- risk settings


def source_tag(spec: TableSpec | None, column: str) -> tuple[ColumnTag | None, bool]:
    """(tag of the source column, whether the released column is derived under a new name).

    Follows the pathways' naming: ``zip3`` (or ``<name>_zip3``) comes from the ZIP-role
    column, ``<stem>_year`` from ``<stem>``, ``<stem>_date``, ``<stem>date`` or ``<stem>_dt``.
    """
    if spec is None:
        return None, False
    names = {c.name: c for c in spec.columns}
    if column in names:
        return names[column], False
    if column == ZIP3_COLUMN or column.endswith("_zip3"):
        zip_tag = spec.by_role(Role.ZIP)
        if zip_tag is not None:
            return zip_tag, True
    base = column.rstrip("_")
    if base.endswith("_year"):
        stem = base[: -len("_year")]
        for candidate in (stem, f"{stem}_date", f"{stem}date", f"{stem}_dt"):
            if candidate in names:
                return names[candidate], True
    return None, False


def default_quasi_identifiers(project: Project, frame: pd.DataFrame) -> tuple[str, ...]:
    """Every released column of the person table that can identify in combination: each
    quasi-identifier (a ZIP as ``zip3`` when cut) and each date of the person (birth,
    death, index...) at the resolution released - a year under Safe Harbor, the shifted
    date in a linkable release, the date itself in a limited data set. In the released
    table's column order."""
    spec = project.person_table
    names: list[str] = []
    for column in frame.columns:
        tag, _ = source_tag(spec, str(column))
        if tag is not None and (tag.cls == ColumnClass.QUASI or is_date_tag(tag)):
            names.append(str(column))
    return tuple(names)


def counted_columns(project: Project, frame: pd.DataFrame) -> tuple[str, ...]:
    """The columns risk is measured on: the user's choice if set (those still released),
    else ``default_quasi_identifiers``."""
    chosen = project.risk.quasi_identifiers
    if chosen:
        return tuple(c for c in chosen if c in frame.columns)
    return default_quasi_identifiers(project, frame)


def released_not_counted(project: Project, frame: pd.DataFrame) -> tuple[str, ...]:
    """Released columns that can identify in combination but that the user left out of
    the risk count: the README, the record and the Review page name them."""
    counted = set(counted_columns(project, frame))
    return tuple(c for c in default_quasi_identifiers(project, frame) if c not in counted)


@dataclass(frozen=True)
class RiskApplied:
    """What ``apply_risk_settings`` did; each pathway words the suppression itself."""

    suppressed: dict[str, int]  # table -> rows removed
    notes: list[str]  # age bands and ZIP3 removal, as sentences
    quasi_identifiers: tuple[str, ...] = ()  # suppression ran on these (() = it did not)
    removed: int = 0  # persons removed by the suppression
    share: float = 0.0  # their share of the person rows


def apply_risk_settings(
    tables: dict[str, pd.DataFrame],
    project: Project,
    person: str,
    id_column: str,
    *,
    released_qis_only: bool,
    hierarchies: Mapping[str, Any] | None = None,
) -> RiskApplied:
    """The user's generalizations and suppression (``project.risk``), in place.

    Age bands on age columns, ZIP3 dropped, and persons in classes below k removed from
    the person table and, through ``id_column``, from every event table.
    ``released_qis_only``: the user's quasi-identifiers not in the released person table
    are passed over (else ``core.risk`` refuses them). Then the chosen generalization
    (``project.generalization``, hierarchy files in ``hierarchies``) and its suppression.
    """
    settings = project.risk
    notes: list[str] = []
    suppressed: dict[str, int] = {}
    chosen = project.generalization
    if not (settings.age_bands or settings.drop_zip3 or settings.suppress_below_k or chosen):
        return RiskApplied(suppressed, notes)
    from deid_desktop.core import risk

    if settings.age_bands:
        for name, frame in tables.items():
            tag = project.table(name).by_role(Role.AGE)
            if tag is not None and tag.name in frame.columns:
                frame[tag.name] = risk.apply_age_bands(
                    frame[tag.name], settings.age_bands, column=tag.name
                ).astype(STRING)
                notes.append(
                    f"Grouped ages in {name}.{tag.name} into bands "
                    + ", ".join(risk.age_band_labels(settings.age_bands))
                    + "."
                )
    if settings.drop_zip3:
        for name, frame in list(tables.items()):
            if ZIP3_COLUMN in frame.columns:
                tables[name] = frame.drop(columns=[ZIP3_COLUMN])
                notes.append(f"Removed {name}.{ZIP3_COLUMN} to raise k.")
    if chosen is not None:
        from deid_desktop.core.risk.applied import generalize_person, sentences

        done = generalize_person(tables[person], chosen, hierarchies or {})
        persons = len(done.frame)
        tables[person] = done.frame
        kept, removed, _ = risk.suppress_below_k(done.frame, done.columns, chosen.k)
        if removed:
            _remove_persons(tables, person, id_column, kept, suppressed)
        notes.extend(sentences(done, chosen, removed, persons))
    if not settings.suppress_below_k:
        return RiskApplied(suppressed, notes)
    frame = tables[person]
    qis = tuple(settings.quasi_identifiers or default_quasi_identifiers(project, frame))
    if released_qis_only:
        qis = tuple(q for q in qis if q in frame.columns)
    if not qis:
        return RiskApplied(suppressed, notes)
    kept, removed, share = risk.suppress_below_k(frame, qis, settings.k_target)
    if removed:
        _remove_persons(tables, person, id_column, kept, suppressed)
    return RiskApplied(suppressed, notes, qis, removed, share)


def _remove_persons(
    tables: dict[str, pd.DataFrame],
    person: str,
    id_column: str,
    kept: pd.DataFrame,
    suppressed: dict[str, int],
) -> None:
    """Keep only the ``kept`` person rows, and through ``id_column`` only their event
    rows; add the rows removed per table to ``suppressed``."""
    frame = tables[person]
    gone = frame[id_column][~frame.index.isin(kept.index)]
    tables[person] = kept.reset_index(drop=True)
    suppressed[person] = suppressed.get(person, 0) + len(frame) - len(kept)
    for name, other in list(tables.items()):
        if name == person:
            continue
        mask = in_set(other[id_column], gone)
        if mask.any():
            tables[name] = other.loc[~mask].reset_index(drop=True)
            suppressed[name] = suppressed.get(name, 0) + int(mask.sum())


def removed_below_k_sentences(risk: RiskApplied, k_target: int) -> list[str]:
    """The linkable and limited-data-set sentence for persons removed below k."""
    if not risk.removed:
        return []
    return [
        f"Removed {plural(risk.removed, 'person')} ({risk.share:.1%}) in groups smaller "
        f"than k = {k_target} on {', '.join(risk.quasi_identifiers)}, with their event rows."
    ]
