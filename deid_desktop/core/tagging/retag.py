"""Re-tagging a column by hand: the one rule both the GUI (tag grid) and the CLI
(``deid tag``) apply.

* The new tag: the class chosen; the role kept unless one is chosen; the Safe Harbor
  category kept while the column stays a direct identifier (only direct columns have
  one); ``unsure`` cleared; the evidence starts with "set by hand"; the date format is
  kept only while the column stays a date.
* The person key: a table's key column stays a direct identifier with the person-key
  role - re-tagging it otherwise is refused with a message saying how to change it -
  unless the user picks another person key: giving another column of the table the
  person-key role makes that column the key (``as_person_key``) and the old key an
  ordinary direct identifier. Loading checks the relations again with the new key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from enum import Enum

from deid_desktop.core.errors import UsageError
from deid_desktop.core.model import ColumnClass, ColumnTag, IdentifierCategory, Role, TableSpec

SET_BY_HAND = "set by hand"
REKEY_HINT = (
    "To use another person key, give that column the person-key role (in the Tag step, or "
    "`deid tag PROJECT TABLE.COLUMN=direct:person_key`); this column then stays a direct "
    "identifier without the role."
)


class Keep(Enum):
    """A field of the tag left as it is."""

    KEEP = "keep"


KEEP = Keep.KEEP


def edited_tag(
    old: ColumnTag,
    *,
    cls: ColumnClass | None = None,
    role: Role | Keep | None = KEEP,
    category: IdentifierCategory | Keep | None = KEEP,
) -> ColumnTag:
    """``old`` with the user's choices (``None``/``KEEP``: unchanged)."""
    cls = old.cls if cls is None else cls
    role = old.role if role is KEEP else role
    if category is KEEP:
        category = old.category if old.cls is ColumnClass.DIRECT else None
    evidence = old.evidence if SET_BY_HAND in old.evidence else (SET_BY_HAND, *old.evidence)
    return replace(
        old,
        cls=cls,
        role=role,
        category=category if cls is ColumnClass.DIRECT else None,
        unsure=False,
        evidence=evidence,
        date_format=old.date_format if cls is ColumnClass.DATE else None,
    )


def as_person_key(tag: ColumnTag, evidence: str = "chosen as the person key") -> ColumnTag:
    """``tag`` made the person key: a direct identifier (category R, "any other unique
    code", unless it is direct with a category) with the person-key role."""
    category = tag.category if tag.cls is ColumnClass.DIRECT and tag.category else None
    return replace(
        tag,
        cls=ColumnClass.DIRECT,
        role=Role.PERSON_KEY,
        category=category or IdentifierCategory.R,
        evidence=(*tag.evidence, evidence),
        unsure=False,
    )


def keyed_tags(
    tags: Sequence[ColumnTag], key: str, evidence: str = "chosen as the person key"
) -> tuple[ColumnTag, ...]:
    """Tags with ``key`` as the one person-key column (any other loses the role)."""
    out = []
    for t in tags:
        if t.name == key:
            out.append(as_person_key(t, evidence))
        elif t.role is Role.PERSON_KEY:
            out.append(replace(t, role=None))
        else:
            out.append(t)
    return tuple(out)


def apply_tag(spec: TableSpec, tag: ColumnTag) -> TableSpec:
    """``spec`` with ``tag`` on its column, under the person-key rule (module doc).

    Raises ``UsageError`` (naming table and column only) for a change that would leave
    the table without its person key.
    """
    if tag.name == spec.key:
        if not keeps_person_key(spec, tag):
            raise UsageError(
                f"'{tag.name}' is the person key of table '{spec.name}': it stays a direct "
                "identifier with the person-key role",
                hint=REKEY_HINT,
            )
        return spec.with_column(tag)
    if tag.role is not Role.PERSON_KEY:
        return spec.with_column(tag)
    # another person key picked: it becomes the key, the old key an ordinary identifier
    tags = keyed_tags(spec.with_column(tag).columns, tag.name, "picked as the person key")
    return replace(spec, columns=tags, key=tag.name)


def keeps_person_key(spec: TableSpec, tag: ColumnTag) -> bool:
    """Whether ``tag`` leaves the table's person key where it is."""
    if tag.name == spec.key:
        return tag.cls is ColumnClass.DIRECT and tag.role is Role.PERSON_KEY
    return tag.role is not Role.PERSON_KEY


def suggested_tag(spec: TableSpec, tag: ColumnTag) -> ColumnTag | None:
    """A suggestion as "Accept all suggestions" may apply it: a suggestion never moves
    the person key (only the user picks another), so another column suggested as a key
    gets no role, and a suggestion that would re-tag the key is left out (``None``)."""
    if tag.name == spec.key:
        return tag if keeps_person_key(spec, tag) else None
    return replace(tag, role=None) if tag.role is Role.PERSON_KEY else tag


def retag(
    spec: TableSpec,
    column: str,
    *,
    cls: ColumnClass | None = None,
    role: Role | Keep | None = KEEP,
    category: IdentifierCategory | Keep | None = KEEP,
) -> TableSpec:
    """Re-tag ``column`` of ``spec`` by hand: ``edited_tag`` then ``apply_tag``."""
    tag = edited_tag(spec.column(column), cls=cls, role=role, category=category)
    return apply_tag(spec, tag)
