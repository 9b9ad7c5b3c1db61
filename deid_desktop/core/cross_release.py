"""Risk across releases: what combining this release with earlier ones isolates.

Several releases built from the same source can be joined per person by whoever holds
them together (a shared link key, or a recipient who receives both). A person who is in
a class of k or more in each release alone may be lone once the quasi-identifiers of two
releases are put side by side. The sender alone can measure that, because only the
sender holds the crosswalks.

At export (``write_quasi_identifiers``), each released person's quasi-identifier values,
exactly as released, are written into the held-back crosswalk folder (never the release
folder) as ``QI_FILE``, keyed by the person key - the crosswalk in the same folder holds
that key already, so the file is as secret as the crosswalk and is kept with it. Its
name, SHA-256, row count and column names go into the crosswalk part of the full record
and the register; no value ever does.

At check time (``check_cross_release``) the register's earlier releases of the same
source (same project id, or the same person-table input file by SHA-256) are read; for
each, its file is loaded (a missing or changed file is a warning naming the release,
never a crash), joined on the person, and the combined quasi-identifiers are measured.
Counted: persons who are lone (or below the k target) in the combination but not in the
new release alone. A person not in the earlier release keeps "not released then" as
that release's value (someone holding both releases can see it). Counts only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import STRING
from deid_desktop.core.model import Project, Release
from deid_desktop.core.register import read_register
from deid_desktop.core.risk.classes import class_sizes, combine, factorize_column

QI_FILE = "released-quasi-identifiers-DO-NOT-DISCLOSE.arrow"
QI_RECORD_KEY = "quasi_identifiers_file"
PERSON = "__person_key__"


# ---------------------------------------------------------------- at export


def released_quasi_identifiers(
    person_frame: pd.DataFrame | None, crosswalk: pd.DataFrame | None, qis: Sequence[str]
) -> pd.DataFrame | None:
    """The person key and the released quasi-identifiers of each released person.

    ``crosswalk``: the release's held-back crosswalk (released ID, person key). None when
    there is no person table, no crosswalk or no quasi-identifier.
    """
    if person_frame is None or crosswalk is None or crosswalk.shape[1] < 2 or not qis:
        return None
    id_col, key_col = crosswalk.columns[0], crosswalk.columns[1]
    if id_col not in person_frame.columns or any(q not in person_frame.columns for q in qis):
        return None
    ids, crosswalk_ids = _keys(person_frame[id_col]), _keys(crosswalk[id_col])
    if _same_unique(ids, crosswalk_ids):  # the crosswalk in the person table's order
        person_keys = _keys(crosswalk[key_col])
    else:
        found = pc.index_in(ids, value_set=crosswalk_ids)
        if found.null_count:
            return None  # every released person must be in the crosswalk
        person_keys = _keys(crosswalk[key_col]).take(found)
    columns = {PERSON: person_keys}
    columns.update({q: _keys(person_frame[q]) for q in qis})
    return pa.table(columns).to_pandas(types_mapper=lambda _t: STRING)


def _same_unique(ids: pa.Array, other: pa.Array) -> bool:
    """Whether ``other`` is ``ids`` cell for cell, and the IDs rise strictly (so each is
    unique and found at its own row): no hash join needed."""
    if len(ids) != len(other) or ids.null_count or other.null_count:
        return False
    if len(ids) and not pc.all(pc.equal(ids, other)).as_py():
        return False
    return len(ids) < 2 or bool(
        pc.all(pc.greater(ids.slice(1), ids.slice(0, len(ids) - 1))).as_py()
    )


def write_quasi_identifiers(frame: pd.DataFrame, path: Path) -> dict[str, Any]:
    """Write ``frame`` as an Arrow IPC file (zstd) at ``path``; what the record keeps (no
    value). Arrow's own file format, not Parquet: the packaged app leaves Parquet out."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    with (
        pa.OSFile(str(path), "wb") as sink,
        pa.ipc.new_file(sink, table.schema, options=options) as out,
    ):
        out.write_table(table)
    return {
        "file": path.name,
        "sha256": _sha256(path),
        "rows": len(frame),
        "columns": [c for c in frame.columns if c != PERSON],
    }


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------- at check


@dataclass(frozen=True)
class EarlierRelease:
    """One earlier release combined with the new one: counts only."""

    time_utc: str
    recipient: str
    folder: str
    quasi_identifiers: tuple[str, ...]
    status: str  # "checked", "missing", "changed", "unreadable"
    persons_in_both: int = 0
    lone: int = 0  # lone in the combination, not lone in the new release alone
    below_k: int = 0  # below k in the combination, at least k in the new release alone


@dataclass(frozen=True)
class CrossReleaseReport:
    """The new release against each earlier one of the same source, and all together."""

    k_target: int
    persons: int
    releases: tuple[EarlierRelease, ...]
    all_lone: int = 0
    all_below_k: int = 0
    warnings: tuple[str, ...] = field(default=())

    @property
    def lone(self) -> int:
        """Persons lone only through a combination: all earlier releases together (or the
        one checked), counted once."""
        checked = [r for r in self.releases if r.status == "checked"]
        return self.all_lone if len(checked) > 1 else sum(r.lone for r in checked)

    @property
    def below_k(self) -> int:
        checked = [r for r in self.releases if r.status == "checked"]
        return self.all_below_k if len(checked) > 1 else sum(r.below_k for r in checked)

    @property
    def checked(self) -> int:
        """Earlier releases actually combined with this one."""
        return sum(r.status == "checked" for r in self.releases)

    def to_dict(self) -> dict[str, Any]:
        return {
            "k_target": self.k_target,
            "persons": self.persons,
            "releases": [
                {**asdict(r), "quasi_identifiers": list(r.quasi_identifiers)} for r in self.releases
            ],
            "all_combined": {"lone": self.all_lone, "below_k": self.all_below_k},
            "warnings": list(self.warnings),
        }

    def public_dict(self) -> dict[str, Any]:
        """``to_dict`` for what leaves with the release (its README and record): the
        earlier releases by date only - no recipient, no folder, which are the sender's."""
        out = self.to_dict()
        out["releases"] = [
            {k: v for k, v in r.items() if k not in ("recipient", "folder")}
            for r in out["releases"]
        ]
        out["warnings"] = list(_warnings(self.releases, self.k_target, self.all_lone,
                                         self.all_below_k, public=True))  # fmt: skip
        return out


def _part(entry: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = entry.get(key)
    return value if isinstance(value, dict) else {}


def _same_source(entry: Mapping[str, Any], project_id: str, input_hashes: set[str]) -> bool:
    if project_id and _part(entry, "project").get("id") == project_id:
        return True
    inputs = entry.get("inputs")
    if not isinstance(inputs, list) or not input_hashes:
        return False
    return any(isinstance(i, dict) and i.get("sha256") in input_hashes for i in inputs)


def _name(r: EarlierRelease, *, public: bool = False) -> str:
    if public:
        return f"the release of {r.time_utc}"
    to = f" to {r.recipient}" if r.recipient else ""
    return f"the release of {r.time_utc}{to} ({Path(r.folder).name or r.folder})"


def _warnings(
    results: Sequence[EarlierRelease], k: int, all_lone: int, all_below: int, *, public: bool
) -> tuple[str, ...]:
    """One sentence per earlier release that isolates someone or could not be read, and
    one for all of them together (``public``: the release's own documents)."""
    out: list[str] = []
    for r in results:
        if r.status not in ("checked", "no file"):
            out.append(
                f"The held-back quasi-identifier file of {_name(r, public=public)} is "
                f"{r.status}; that release was not combined with this one."
            )
        elif r.status == "checked" and (r.lone or r.below_k):
            out.append(
                f"Combined with {_name(r, public=public)}, {r.lone:,} persons become lone and "
                f"{r.below_k:,} fall below k = {k} who are not so in this release alone "
                "(quasi-identifiers of both releases joined per person)."
            )
    checked = sum(r.status == "checked" for r in results)
    if checked > 1 and (all_lone or all_below):
        out.append(
            f"Combined with all {checked} earlier releases together, {all_lone:,} persons "
            f"become lone and {all_below:,} fall below k = {k} who are not so in this "
            "release alone."
        )
    return tuple(out)


def _load(entry: Mapping[str, Any]) -> tuple[pd.DataFrame | None, str]:
    """The earlier release's held-back file, or why it cannot be used."""
    cw = _part(entry, "crosswalk")
    info = _part(cw, QI_RECORD_KEY)
    if not info or not cw.get("folder"):
        return None, "no file"
    path = Path(str(cw["folder"])) / str(info.get("file", QI_FILE))
    if not path.is_file():
        return None, "missing"
    try:
        if _sha256(path) != info.get("sha256"):
            return None, "changed"
        with pa.memory_map(str(path)) as source:
            table = pa.ipc.open_file(source).read_all()
        frame = table.to_pandas(types_mapper=lambda _t: STRING)
    except (OSError, ValueError, pa.ArrowException):
        return None, "unreadable"
    if PERSON not in frame.columns:
        return None, "unreadable"
    return frame, "checked"


def _keys(series: pd.Series) -> Any:
    """The column as one Arrow large-string array (hash joins in Arrow, not Python)."""
    got = pa.array(series.astype(STRING).array)
    if isinstance(got, pa.ChunkedArray):
        got = got.combine_chunks()
    return got.cast(pa.large_string())


def _earlier_classes(
    earlier: pd.DataFrame, persons: pa.Array, unique: bool
) -> tuple[tuple[np.ndarray, int], int]:
    """The class of each new person in the earlier release: its released values there
    combined (absent from it: a value of its own per column), dense; and the persons in
    both. ``persons``: the new release's person keys (``_keys``); ``unique``: whether
    each is there once (then an earlier release of the same keys in the same order is
    read row for row, without a hash join)."""
    keys = _keys(earlier[PERSON])
    if unique and len(keys) == len(persons) and not keys.null_count and _equal(persons, keys):
        at = np.arange(len(persons), dtype=np.int64)  # the same persons in the same order
    else:  # a hash join (a second each at a million persons)
        found = pc.index_in(persons, value_set=keys)  # first match
        at = np.asarray(pc.fill_null(found, -1).to_numpy(zero_copy_only=False), dtype=np.int64)
        del found
    del keys
    absent = at < 0
    np.copyto(at, 0, where=absent)
    codes: list[tuple[np.ndarray, int]] = []
    for column in earlier.columns:
        if column == PERSON:
            continue
        col_codes, n = factorize_column(earlier[column])
        mapped = col_codes[at] if n else np.zeros(len(at), dtype=np.int64)
        del col_codes
        mapped[absent] = n
        codes.append((mapped, n + 1))
    both = int((~absent).sum())
    del at, absent
    return combine(codes, len(persons)), both


def _equal(a: pa.Array, b: pa.Array) -> bool:
    return len(a) == 0 or bool(pc.all(pc.equal(a, b)).as_py())


def _isolated(
    base: tuple[np.ndarray, int], extra: tuple[np.ndarray, int], new_size: np.ndarray, k: int
) -> tuple[int, int]:
    rows = len(new_size)
    ids, n = combine([base, extra], rows)
    _, size = class_sizes(ids, n)
    lone = int(((size == 1) & (new_size > 1)).sum())
    below = int(((size < k) & (new_size >= k)).sum())
    return lone, below


def check_cross_release(
    new: pd.DataFrame | None,
    *,
    project_id: str,
    k_target: int,
    input_hashes: Iterable[str] = (),
    register_path: Path | None = None,
    entries: Sequence[Mapping[str, Any]] | None = None,
) -> CrossReleaseReport | None:
    """Combine the new release (``released_quasi_identifiers``) with each earlier release
    of the same source in the register; None when there is nothing to combine."""
    if new is None:
        return None
    got = list(entries) if entries is not None else list(read_register(register_path))
    hashes = set(input_hashes)
    earlier = [e for e in got if _same_source(e, project_id, hashes)]
    if not earlier:
        return None
    qis = [c for c in new.columns if c != PERSON]
    rows = len(new)
    persons = _keys(new[PERSON])
    unique = not persons.null_count and pc.count_distinct(persons).as_py() == len(persons)
    base = combine([factorize_column(new[q]) for q in qis], rows)
    _, new_size = class_sizes(*base)
    k = max(int(k_target), 1)
    results: list[EarlierRelease] = []
    # the classes of all earlier releases together, kept as one dense code as they come
    # (not each release's columns side by side: at a million persons and eight earlier
    # releases those held 300 MB more); the same partition, so the same counts
    together: tuple[np.ndarray, int] | None = None
    checked = 0
    for entry in earlier:
        meta, cw = _part(entry, "meta"), _part(entry, "crosswalk")
        info = _part(cw, QI_RECORD_KEY)
        folder = str(_part(entry, "outputs").get("folder") or "")
        head = {
            "time_utc": str(entry.get("time_utc") or ""),
            "recipient": str(meta.get("recipient") or ""),
            "folder": folder,
            "quasi_identifiers": tuple(str(c) for c in info.get("columns", ())),
        }
        frame, status = _load(entry)
        if frame is None:
            results.append(EarlierRelease(**head, status=status))
            continue
        classes, both = _earlier_classes(frame, persons, unique)
        del frame  # one earlier release in memory at a time
        lone, below = _isolated(base, classes, new_size, k)
        together = classes if together is None else combine([together, classes], rows)
        checked += 1
        del classes
        results.append(
            EarlierRelease(**head, status=status, persons_in_both=both, lone=lone, below_k=below)
        )
    all_lone = all_below = 0
    if together is not None and checked > 1:
        all_lone, all_below = _isolated(base, together, new_size, k)
    elif together is not None:  # one release: all together is that one
        all_lone, all_below = next((r.lone, r.below_k) for r in results if r.status == "checked")
    warnings = _warnings(results, k, all_lone, all_below, public=False)
    return CrossReleaseReport(
        k_target=k,
        persons=rows,
        releases=tuple(results),
        all_lone=all_lone,
        all_below_k=all_below,
        warnings=tuple(warnings),
    )


def check_review(
    project: Project,
    release: Release,
    qis: Sequence[str],
    inputs: Mapping[str, tuple[Path, str]],
    *,
    register_path: Path | None = None,
    entries: Sequence[Mapping[str, Any]] | None = None,
) -> CrossReleaseReport | None:
    """``check_cross_release`` for a reviewed release (the CLI and the GUI share this)."""
    person = project.person_table.name
    held = inputs.get(person)
    hashes = set() if held is None else {held[1]}
    got = list(entries) if entries is not None else list(read_register(register_path))
    earlier = [e for e in got if _same_source(e, project.project_id, hashes)]
    if not earlier:  # the common case: nothing to join, so nothing to gather
        return None
    new = released_quasi_identifiers(release.tables.get(person), release.crosswalk, qis)
    return check_cross_release(
        new,
        project_id=project.project_id,
        k_target=project.risk.k_target,
        input_hashes=hashes,
        entries=earlier,
    )
