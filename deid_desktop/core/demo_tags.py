"""The demo project's column tags: what a careful user would tag each demo column, with
the reason shown as evidence (``core.demo`` writes them into the demo project)."""

from __future__ import annotations

from deid_desktop.core.model import ColumnClass, ColumnTag, IdentifierCategory, Role


def _tag(
    name: str,
    cls: ColumnClass,
    why: str,
    *,
    role: Role | None = None,
    category: IdentifierCategory | None = None,
    date_format: str | None = None,
) -> ColumnTag:
    return ColumnTag(
        name=name,
        cls=cls,
        role=role,
        category=category,
        evidence=(why,),
        date_format=date_format,
    )


_D, _Q, _DT, _FT, _CL = (
    ColumnClass.DIRECT,
    ColumnClass.QUASI,
    ColumnClass.DATE,
    ColumnClass.FREE_TEXT,
    ColumnClass.CLINICAL,
)
_KEY_TAG = _tag(
    "patient_id",
    _D,
    "demo: the study's person key; replaced by a code in the release",
    role=Role.PERSON_KEY,
    category=IdentifierCategory.R,
)
_ISO_FMT = "%Y-%m-%d"

#: The demo's tags, set right by hand (the suggestion is tested against them).
DEMO_TAGS: dict[str, tuple[ColumnTag, ...]] = {
    "demographics": (
        _KEY_TAG,
        _tag("mrn", _D, "demo: medical record number", category=IdentifierCategory.H),
        _tag("first_name", _D, "demo: given name", category=IdentifierCategory.A),
        _tag("last_name", _D, "demo: surname", category=IdentifierCategory.A),
        _tag("dob", _DT, "demo: date of birth", role=Role.BIRTH_DATE, date_format=_ISO_FMT),
        _tag("age", _Q, "demo: age at discharge, in years", role=Role.AGE),
        _tag("sex", _Q, "demo: sex", role=Role.SEX),
        _tag("race", _Q, "demo: race"),
        _tag("ethnicity", _Q, "demo: ethnicity"),
        _tag("zip", _Q, "demo: 5-digit ZIP code of residence", role=Role.ZIP),
        _tag("phone", _D, "demo: telephone number", category=IdentifierCategory.D),
        _tag("notes", _FT, "demo: free-text nurse notes"),
    ),
    "baseline": (
        _KEY_TAG,
        _tag(
            "discharge_date",
            _DT,
            "demo: discharge date, the index date for ages",
            role=Role.INDEX_DATE,
            date_format=_ISO_FMT,
        ),
        _tag("lvef", _CL, "demo: left-ventricular ejection fraction, %"),
        _tag("nt_probnp", _CL, "demo: NT-proBNP, pg/mL"),
        _tag("sbp", _CL, "demo: systolic blood pressure, mmHg"),
        _tag("creatinine", _CL, "demo: serum creatinine, mg/dL"),
        _tag("nyha_class", _CL, "demo: NYHA functional class"),
    ),
    "visits": (
        _KEY_TAG,
        _tag("visit_date", _DT, "demo: date of the follow-up visit", date_format=_ISO_FMT),
        _tag("visit_type", _CL, "demo: scheduled follow-up visit"),
        _tag("visit_day", _CL, "demo: days since discharge (an interval, not a date)"),
    ),
}
