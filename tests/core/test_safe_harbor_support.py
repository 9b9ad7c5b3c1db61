"""Small hand-built extracts for the Safe Harbor and verification tests (no tests here).

Every frame is text (pyarrow strings), like a loaded file. Restricted ZIP prefixes are
read from the Census-derived files, never typed.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from deid_desktop.core.model import (
    ColumnClass,
    ColumnTag,
    Extract,
    IdentifierCategory,
    Project,
    Role,
    TableSpec,
    TransformOptions,
)
from deid_desktop.core.zip3 import load_bundled_zip3
from tests.core.support import CL, DT, FT, D, Q, loaded, text_frame


def restricted_prefix() -> str:
    """A restricted prefix where people live, from the shipped Census table."""
    table = load_bundled_zip3()
    return next(p for p in table.restricted if table.populations[p] > 0)


def allowed_prefix(i: int = 0) -> str:
    return sorted(load_bundled_zip3().allowed_prefixes)[200 + i]


frame = text_frame


def tag(name: str, cls: ColumnClass, **kw: object) -> ColumnTag:
    return ColumnTag(name=name, cls=cls, **kw)  # type: ignore[arg-type]


KEY = tag("pid", D, role=Role.PERSON_KEY, category=IdentifierCategory.R)
PEOPLE_TAGS = (
    KEY,
    tag("mrn", D, category=IdentifierCategory.H),
    tag("first_name", D, category=IdentifierCategory.A),
    tag("last_name", D, category=IdentifierCategory.A),
    tag("dob", DT, role=Role.BIRTH_DATE),
    tag("age", Q, role=Role.AGE),
    tag("sex", Q, role=Role.SEX),
    tag("zip", Q, role=Role.ZIP),
    tag("city", D, category=IdentifierCategory.B),
    tag("phone", D, category=IdentifierCategory.D),
    tag("notes", FT),
)
STAYS_TAGS = (
    KEY,
    tag("admit_date", DT),
    tag("discharge_date", DT, role=Role.INDEX_DATE),
    tag("los", CL),
)
VISITS_TAGS = (KEY, tag("visit_date", DT), tag("sbp", CL), tag("comment", CL))


def people(n: int = 6) -> pd.DataFrame:
    """Persons: row 1 (line 3) is 94 years old, row 4 (line 6) has a restricted ZIP."""
    base = [
        # pid,   mrn,          first,   last,      dob,          age,  sex, zip
        ("P-1001", "SYN-8298957", "Elena", "Patel", "1946-10-11", "77", "F", f"{allowed_prefix()}23"),  # noqa: E501
        ("P-1002", "SYN-7150553", "Victor", "Underwood", "1930-03-28", "94", "M", f"{allowed_prefix(1)}15"),  # noqa: E501
        ("P-1003", "SYN-6004096", "Dana", "Fox", "1961-09-07", "62", "F", None),
        ("P-1004", "SYN-8882811", "José", "Peña", "1955-06-27", "68", "M", "1234"),
        ("P-1005", "SYN-5550123", "Ruth", "Morales", "1970-01-15", "54", "F", f"{restricted_prefix()}01"),  # noqa: E501
        ("P-1006", "SYN-4440987", "Omar", "King", "1980-12-31", "43", "M", f"{allowed_prefix()}99-1234"),  # noqa: E501
    ]  # fmt: skip
    rows = [base[i % len(base)] for i in range(n)]
    if n > len(base):
        rows = [(f"P-{2000 + i}", f"SYN-{9000000 + i}", *r[2:]) for i, r in enumerate(rows)]
    cols = list(zip(*rows, strict=True))
    return frame(
        {
            "pid": list(cols[0]),
            "mrn": list(cols[1]),
            "first_name": list(cols[2]),
            "last_name": list(cols[3]),
            "dob": list(cols[4]),
            "age": list(cols[5]),
            "sex": list(cols[6]),
            "zip": list(cols[7]),
            "city": ["San Diego"] * n,
            "phone": [f"(858) 555-01{i % 100:02d}" for i in range(n)],
            "notes": [f"Seen with {r[2]} today, call (858) 555-0100" for r in rows],
        }
    )


def stays(people_frame: pd.DataFrame) -> pd.DataFrame:
    pids = people_frame["pid"].tolist()
    return frame(
        {
            "pid": pids,
            "admit_date": ["2024-01-28"] * len(pids),
            "discharge_date": ["2024-02-01"] * len(pids),
            "los": ["4"] * len(pids),
        }
    )


def visits(people_frame: pd.DataFrame) -> pd.DataFrame:
    pids = people_frame["pid"].tolist()
    rows = [(p, d) for p in reversed(pids) for d in ("2024-02-08", "2024-03-02")]
    return frame(
        {
            "pid": [p for p, _ in rows],
            "visit_date": [d for _, d in rows],
            "sbp": [str(120 + i) for i in range(len(rows))],
            "comment": ["stable"] * len(rows),
        }
    )


def spec(name: str, data: pd.DataFrame, tags: tuple[ColumnTag, ...], person: bool) -> TableSpec:
    return TableSpec(
        name=name,
        path=f"{name}.csv",
        sha256="0" * 64,
        key="pid",
        is_person=person,
        columns=tags,
        rows=len(data),
    )


def make_case(
    n: int = 6,
    *,
    people_frame: pd.DataFrame | None = None,
    people_tags: tuple[ColumnTag, ...] = PEOPLE_TAGS,
    options: TransformOptions | None = None,
    seed: int = 20260423,
) -> tuple[Extract, Project]:
    """A three-table extract (people, stays, visits) and its tagged project."""
    p = people(n) if people_frame is None else people_frame
    s, v = stays(p), visits(p)
    project = Project(
        project_id="0" * 32,
        name="test",
        tables=(
            spec("people", p, people_tags, True),
            spec("stays", s, STAYS_TAGS, False),
            spec("visits", v, VISITS_TAGS, False),
        ),
        seed=seed,
        transform=options or TransformOptions(),
    )
    extract = Extract(loaded("people", p), (loaded("stays", s), loaded("visits", v)))
    return extract, project


def without(tags: tuple[ColumnTag, ...], *names: str) -> tuple[ColumnTag, ...]:
    return tuple(t for t in tags if t.name not in names)


def with_tag(tags: tuple[ColumnTag, ...], new: ColumnTag) -> tuple[ColumnTag, ...]:
    return tuple(new if t.name == new.name else t for t in tags)


def replace_frame(extract: Extract, name: str, data: pd.DataFrame) -> Extract:
    tables = [replace(t, frame=data) if t.name == name else t for t in extract.tables]
    return Extract(tables[0], tuple(tables[1:]))
