"""The engine's nouns. Frozen dataclasses and enums; no behaviour beyond small helpers.

A ``Project`` holds every choice that changes a release, and never a data value or
the salt. Loaded data lives in ``LoadedTable``/``Extract`` (io), released data in
``Release`` (pathways).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: importing the model must not load pandas (CLI start)
    import pandas as pd


class ColumnClass(StrEnum):
    DIRECT = "direct"
    QUASI = "quasi"
    DATE = "date"
    FREE_TEXT = "free_text"
    CLINICAL = "clinical"

    @property
    def label(self) -> str:
        return CLASS_LABELS[self][0]

    @property
    def explanation(self) -> str:
        return CLASS_LABELS[self][1]


CLASS_LABELS: dict[ColumnClass, tuple[str, str]] = {
    ColumnClass.DIRECT: (
        "Direct identifier",
        "Identifies a person on its own (name, record number, phone, e-mail, SSN, address, "
        "account or device number, URL, IP...). Removed from the release; the person key "
        "is replaced by a code.",
    ),
    ColumnClass.QUASI: (
        "Quasi-identifier",
        "Harmless alone but identifying in combination (age, sex, ZIP, race, ethnicity, "
        "occupation...). Generalized, then small groups can be suppressed.",
    ),
    ColumnClass.DATE: (
        "Date",
        "A date about the person (birth, admission, discharge, visit, death). Reduced to "
        "the year (Safe Harbor) or shifted per person (linkable release).",
    ),
    ColumnClass.FREE_TEXT: (
        "Free text",
        "Notes, comments, any narrative. Removed by default; can be scanned and redacted "
        "on an explicit choice. A scan can never prove a note clean.",
    ),
    ColumnClass.CLINICAL: (
        "Clinical",
        "The science: measurements, lab values, outcomes. Kept as it is.",
    ),
}


class Role(StrEnum):
    PERSON_KEY = "person_key"
    BIRTH_DATE = "birth_date"
    AGE = "age"
    ZIP = "zip"
    SEX = "sex"
    SENSITIVE = "sensitive"
    INDEX_DATE = "index_date"  # reference date for computing age (e.g. discharge)


class IdentifierCategory(StrEnum):
    """The 18 identifiers of 45 CFR 164.514(b)(2)(i), lettered A-R."""

    A = "A"
    B = "B"
    C = "C"
    D = "D"
    E = "E"
    F = "F"
    G = "G"
    H = "H"
    I = "I"  # noqa: E741
    J = "J"
    K = "K"
    L = "L"
    M = "M"
    N = "N"
    O = "O"  # noqa: E741
    P = "P"
    Q = "Q"
    R = "R"

    @property
    def title(self) -> str:
        return CATEGORY_TITLES[self]


CATEGORY_TITLES: dict[IdentifierCategory, str] = {
    IdentifierCategory.A: "Names",
    IdentifierCategory.B: "Geographic subdivisions smaller than a state (street, city, county, "
    "precinct, ZIP, geocodes)",
    IdentifierCategory.C: "Dates (except year) related to the person, and ages over 89",
    IdentifierCategory.D: "Telephone numbers",
    IdentifierCategory.E: "Fax numbers",
    IdentifierCategory.F: "E-mail addresses",
    IdentifierCategory.G: "Social Security numbers",
    IdentifierCategory.H: "Medical record numbers",
    IdentifierCategory.I: "Health plan beneficiary numbers",
    IdentifierCategory.J: "Account numbers",
    IdentifierCategory.K: "Certificate or licence numbers",
    IdentifierCategory.L: "Vehicle identifiers and serial numbers, licence plates",
    IdentifierCategory.M: "Device identifiers and serial numbers",
    IdentifierCategory.N: "Web addresses (URLs)",
    IdentifierCategory.O: "IP addresses",
    IdentifierCategory.P: "Biometric identifiers (finger and voice prints)",
    IdentifierCategory.Q: "Full-face photographs and comparable images",
    IdentifierCategory.R: "Any other unique identifying number, characteristic or code",
}


class Pathway(StrEnum):
    SAFE_HARBOR = "safe_harbor"
    LINKABLE = "linkable"
    LIMITED_DATA_SET = "limited_data_set"


_LABELS: dict[str, str] = {}
#: The honest label of each pathway, read-only. Its home is the pathway's spec
#: (``core.pathways.registry.PathwaySpec.label``); registering a spec fills this view,
#: kept for the gate until it reads ``spec_for(pathway).label``.
PATHWAY_LABELS: Mapping[str, str] = MappingProxyType(_LABELS)


def register_pathway_label(pathway: str, label: str | None) -> None:
    """Called by the pathway registry only (``None`` removes the pathway's label)."""
    if label is None:
        _LABELS.pop(str(pathway), None)
    else:
        _LABELS[str(pathway)] = label


class FreeTextAction(StrEnum):
    SUPPRESS = "suppress"
    REDACT = "redact"  # replace each scan hit with [KIND]; explicit choice, recorded


class OffsetMode(StrEnum):
    KEYED = "keyed"  # derived from the keyed hash: later extracts shift identically
    RANDOM = "random"  # random in +/-N days, seeded


@dataclass(frozen=True)
class ColumnTag:
    """One column's classification. ``evidence`` explains a suggestion in plain words."""

    name: str
    cls: ColumnClass
    role: Role | None = None
    category: IdentifierCategory | None = None  # only for DIRECT columns
    evidence: tuple[str, ...] = ()
    unsure: bool = False  # the suggestion chose the more protective class when unsure
    date_format: str | None = None  # strptime format found for DATE columns, e.g. "%Y-%m-%d"


@dataclass(frozen=True)
class TableSpec:
    """One input table. ``path`` is stored relative to the project file where possible."""

    name: str  # logical name, e.g. "demographics" (file stem by default); unique
    path: str
    sha256: str
    key: str  # the person-key column in this table
    is_person: bool  # exactly one table is the person table (one row per person)
    columns: tuple[ColumnTag, ...] = ()
    sheet: str | None = None  # XLSX sheet
    rows: int | None = None

    def column(self, name: str) -> ColumnTag:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def with_column(self, tag: ColumnTag) -> TableSpec:
        cols = tuple(tag if c.name == tag.name else c for c in self.columns)
        return replace(self, columns=cols)

    def by_class(self, cls: ColumnClass) -> tuple[ColumnTag, ...]:
        return tuple(c for c in self.columns if c.cls == cls)

    def by_role(self, role: Role) -> ColumnTag | None:
        for c in self.columns:
            if c.role == role:
                return c
        return None


@dataclass(frozen=True)
class TransformOptions:
    """Options every pathway uses: the age reference, the ZIP3 table, free-text actions.

    Filed under ``transform`` in the project file (format 2 on; ``safe_harbor`` before).
    """

    # "index" = each person's index-date column (role INDEX_DATE), else an ISO date.
    age_reference: str = "index"
    # None = the bundled ZIP3 table; else a path to a user-loaded Census ZCTA file.
    zip3_table: str | None = None
    # column ("table.column") -> action; columns not listed are suppressed.
    free_text: dict[str, FreeTextAction] = field(default_factory=dict)
    # "table.column" of text columns not tagged free text that the user reviewed and
    # accepted: the gate's text scan no longer fails the release on their hits.
    accepted_text_columns: tuple[str, ...] = ()
    # which scan hits "redact hits" replaces, by confidence: "high", "high_medium" or
    # "all" (the safe default: every hit, low-confidence ones included)
    redact_level: str = "all"


@dataclass(frozen=True)
class LinkableOptions:
    offset_days: int = 180
    offset_mode: OffsetMode = OffsetMode.KEYED
    key_length: int = 16
    zip_rule: str = "zip3"  # "zip3" | "drop"


@dataclass(frozen=True)
class RiskSettings:
    quasi_identifiers: tuple[str, ...] = ()  # released column names; () = quasi-tagged
    k_target: int = 5
    sensitive: tuple[str, ...] = ()
    age_bands: tuple[int, ...] = ()  # band lower edges, e.g. (0, 18, 30, 45, 65, 75, 90)
    drop_zip3: bool = False
    suppress_below_k: bool = False


@dataclass(frozen=True)
class GeneralizedColumn:
    """One released person-table column of a chosen generalization (``deid generalize
    --apply``): its hierarchy (a built-in kind, or an ARX CSV file stored relative to the
    project with its SHA-256) and the level released (None: the column as released)."""

    name: str
    level: int | None = None
    builtin: str | None = None  # built-in hierarchy kind (core.risk.builtin_hierarchies)
    path: str | None = None  # ARX CSV hierarchy file, relative to the project file
    sha256: str | None = None  # of that file, checked at load like an input
    sep: str = ";"  # the file's separator


@dataclass(frozen=True)
class Generalization:
    """The generalization chosen by the optimal search: levels per quasi-identifier, then
    the records still in groups smaller than ``k`` suppressed (at most ``max_suppression``
    of them, as searched). ``metric`` is the information loss the search minimised."""

    columns: tuple[GeneralizedColumn, ...]
    k: int = 5
    max_suppression: float = 0.05
    metric: str = "loss"


@dataclass(frozen=True)
class ExportMeta:
    purpose: str = ""
    recipient: str = ""
    retention: str = ""
    dua: str = ""
    formats: tuple[str, ...] = ("csv",)


SCHEMA_VERSION = 2


@dataclass(frozen=True)
class Project:
    """Everything that changes a release. No data value, never the salt."""

    project_id: str  # uuid4 hex; names the salt's keyring account
    name: str
    tables: tuple[TableSpec, ...]
    pathway: Pathway = Pathway.SAFE_HARBOR
    seed: int = 20260423
    transform: TransformOptions = field(default_factory=TransformOptions)
    linkable: LinkableOptions = field(default_factory=LinkableOptions)
    risk: RiskSettings = field(default_factory=RiskSettings)
    export: ExportMeta = field(default_factory=ExportMeta)
    generalization: Generalization | None = None  # deid generalize --apply
    schema_version: int = SCHEMA_VERSION

    @property
    def person_table(self) -> TableSpec:
        for t in self.tables:
            if t.is_person:
                return t
        raise KeyError("no person table")

    @property
    def event_tables(self) -> tuple[TableSpec, ...]:
        return tuple(t for t in self.tables if not t.is_person)

    def table(self, name: str) -> TableSpec:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)

    def with_table(self, spec: TableSpec) -> Project:
        return replace(self, tables=tuple(spec if t.name == spec.name else t for t in self.tables))


@dataclass(frozen=True)
class LoadReport:
    """What loading found. Counts and names only."""

    file: str  # file name as shown to the user
    rows: int
    columns: int
    encoding: str | None = None  # CSV
    delimiter: str | None = None  # CSV
    sheet: str | None = None  # XLSX
    formula_cells: int = 0  # XLSX cells that held formulas (cached values used)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoadedTable:
    """A table as read: every column pandas string (pyarrow-backed); missing = <NA>."""

    name: str
    path: Path
    sha256: str
    frame: pd.DataFrame
    report: LoadReport


@dataclass(frozen=True)
class Extract:
    """The person table plus event tables, relationships checked."""

    person: LoadedTable
    events: tuple[LoadedTable, ...] = ()
    #: column -> hierarchy read from the project's generalization files (hash checked)
    hierarchies: Mapping[str, Any] = field(default_factory=dict)  # core.risk Hierarchy

    @property
    def tables(self) -> tuple[LoadedTable, ...]:
        return (self.person, *self.events)

    def table(self, name: str) -> LoadedTable:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)


@dataclass(frozen=True)
class Release:
    """The released frames and what was done to make them. Held in memory until export."""

    pathway: Pathway
    label: str
    tables: dict[str, pd.DataFrame]  # table name -> released frame (strings)
    crosswalk: pd.DataFrame | None  # held back: subject/link key <-> person key
    id_column: str  # "subject_id" or "link_key"
    transformations: tuple[str, ...] = ()  # plain sentences for README and record
    suppressed_rows: dict[str, int] = field(default_factory=dict)  # table -> rows removed
    warnings: tuple[str, ...] = ()
    parameters: dict[str, object] = field(default_factory=dict)  # for the export record
    #: each crosswalk row's row in the extract's person table, where the pathway knows
    #: it (None: found by the keys); the gate holds it against the keys before use
    crosswalk_rows: Any = field(default=None, compare=False, repr=False)
