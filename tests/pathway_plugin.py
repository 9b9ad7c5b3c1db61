"""A throwaway fourth pathway, "Safe Harbor without ZIP3", for the registry tests.

It is what a new pathway costs: a ``Pathway`` member (patched in here, since the enum
cannot grow at run time), one module's worth of code (its builder and ``SPEC``), and its
gate rows (none: it adds no check). Nothing else in the product is edited.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from deid_desktop.core.model import Extract, Pathway, Project, Release
from deid_desktop.core.pathways import registry
from deid_desktop.core.pathways.safe_harbor import build_safe_harbor

NAME = "SAFE_HARBOR_NO_ZIP3"
VALUE = "safe_harbor_no_zip3"


def build_no_zip3(extract: Extract, project: Project, **kwargs: Any) -> Release:
    release = build_safe_harbor(extract, project, **kwargs)
    tables = {
        name: frame.drop(columns=[c for c in frame.columns if str(c).endswith("zip3")])
        for name, frame in release.tables.items()
    }
    return replace(
        release,
        pathway=Pathway(VALUE),
        label=SPEC.label,
        tables=tables,
        transformations=(*release.transformations, "The ZIP3 column was removed."),
    )


SPEC = registry.PathwaySpec(
    id=VALUE,  # type: ignore[arg-type]  # made a Pathway member by the fixture
    label="de-identified under HIPAA Safe Harbor (45 CFR 164.514(b)(2)), without ZIP3",
    title="Safe Harbor without ZIP3",
    help="Safe Harbor, and the three-digit ZIP is not released either.",
    cli_name="safe-harbor-no-zip3",
    needs_salt=False,
    builder=build_no_zip3,
    wording=registry.ReleaseWording(
        dates="reduced to the year (no ZIP3)",
        identifier="random subject ID (Safe Harbor without ZIP3)",
        zip="not released",
        age="ages over 89 shown as 90+",
    ),
)


def add_enum_member(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> Pathway:
    """Make ``Pathway(value)`` and ``list(Pathway)`` know one more member, for a test."""
    member = str.__new__(Pathway, value)
    member._name_ = name
    member._value_ = value
    monkeypatch.setitem(Pathway._value2member_map_, value, member)
    monkeypatch.setitem(Pathway._member_map_, name, member)
    monkeypatch.setattr(Pathway, "_member_names_", [*Pathway._member_names_, name])
    return member


@pytest.fixture
def fourth_pathway(monkeypatch: pytest.MonkeyPatch) -> Iterator[registry.PathwaySpec]:
    member = add_enum_member(monkeypatch, NAME, VALUE)
    spec = registry.register(replace(SPEC, id=member))
    try:
        yield spec
    finally:
        registry.unregister(member)
