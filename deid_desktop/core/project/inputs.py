"""Checking a saved project's inputs against their files, and re-pointing a table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from deid_desktop.core.errors import InputError, Problem
from deid_desktop.core.model import ColumnTag, Project, Role, TableSpec
from deid_desktop.core.project.paths import resolve_path, store_path


@dataclass(frozen=True)
class InputProblem(Problem):
    """A problem with one table's input, saying which table and what kind.

    ``kind``: "missing" (file not found: re-point it), "changed" (SHA-256 differs),
    "unreadable", "column_lost" (a tagged column is gone: re-point or re-tag),
    "column_new" (an untagged column appeared: tag it).
    """

    table: str = ""
    kind: str = ""


def _header(spec: TableSpec, path: Path) -> list[str]:
    from deid_desktop.core.io import read_table

    return [str(c) for c in read_table(path, name=spec.name, sheet=spec.sheet).frame.columns]


def _column_problems(spec: TableSpec, columns: Sequence[str], shown: str) -> list[InputProblem]:
    def problem(column: str, says: str, severity: str, kind: str) -> InputProblem:
        return InputProblem(
            f"Column '{column}' of table '{spec.name}' {says}",
            file=shown,
            column=column,
            severity=severity,
            table=spec.name,
            kind=kind,
        )

    tagged = [c.name for c in spec.columns]
    present, known = set(columns), set(tagged)
    lost = [
        problem(c, "is no longer in its input file.", "error", "column_lost")
        for c in tagged
        if c not in present
    ]
    new = [
        problem(c, "is new and not tagged yet.", "warning", "column_new")
        for c in columns
        if c not in known
    ]
    return lost + new


def check_inputs(
    project: Project, project_path: Path, *, hashes: bool = True
) -> list[InputProblem]:
    """What changed in the inputs since the project was saved.

    Each table's file must exist and have the recorded SHA-256; when the hash differs
    the file's header is read to report columns lost (errors) and new columns left
    untagged (warnings). Nothing is reported for an unchanged input.

    ``hashes=False``: a file with a recorded SHA-256 is not hashed here, for a caller
    about to load it (the load hashes the bytes it reads and stops when they differ;
    it then asks again with hashes, as the CLI does). What is reported
    for an unchanged input is the same: nothing.
    """
    from deid_desktop.core.io import sha256_file

    problems: list[InputProblem] = []
    for spec in project.tables:
        path = resolve_path(project_path, spec.path)
        shown = str(path)
        if not path.is_file():
            problems.append(
                InputProblem(
                    f"The input of table '{spec.name}' was not found; it may have been moved "
                    "or renamed. Re-point the table to the file's new place.",
                    file=shown,
                    severity="error",
                    table=spec.name,
                    kind="missing",
                )
            )
            continue
        if not hashes and spec.sha256:
            continue  # the load checks it
        try:
            digest = sha256_file(path)
        except (InputError, OSError):
            digest = None
        if digest == spec.sha256:
            continue
        if digest is None:
            problems.append(
                InputProblem(
                    f"The input of table '{spec.name}' could not be read.",
                    file=shown,
                    severity="error",
                    table=spec.name,
                    kind="unreadable",
                )
            )
            continue
        problems.append(
            InputProblem(
                f"The input of table '{spec.name}' changed since the project was saved "
                "(its SHA-256 differs). Check the tags, then re-point the table to accept "
                "the new file.",
                file=shown,
                severity="error",
                table=spec.name,
                kind="changed",
            )
        )
        try:
            columns = _header(spec, path)
        except InputError as exc:
            problems.append(
                InputProblem(
                    f"The changed input of table '{spec.name}' cannot be read: {exc.message}",
                    file=shown,
                    severity="error",
                    table=spec.name,
                    kind="unreadable",
                )
            )
            continue
        problems.extend(_column_problems(spec, columns, shown))
    return problems + _hierarchy_problems(project, project_path)


def _hierarchy_problems(project: Project, project_path: Path) -> list[InputProblem]:
    """The chosen generalization's hierarchy files: gone, or changed since --apply
    (``deid run`` refuses them; kinds "hierarchy_missing", "hierarchy_changed")."""
    import hashlib

    chosen = project.generalization
    out: list[InputProblem] = []
    for col in chosen.columns if chosen is not None else ():
        if col.path is None:
            continue
        path = resolve_path(project_path, col.path)
        try:
            same = hashlib.sha256(path.read_bytes()).hexdigest() == col.sha256
        except OSError:
            says, kind = "is missing or cannot be read", "hierarchy_missing"
        else:
            if same:
                continue
            says, kind = "changed since the generalization was chosen", "hierarchy_changed"
        out.append(
            InputProblem(
                f"The hierarchy file of column '{col.name}' {says}; run deid generalize "
                "PROJECT --apply again.",
                file=str(path),
                severity="error",
                kind=kind,
            )
        )
    return out


def repoint_table(project: Project, table: str, new_path: Path, project_path: Path) -> Project:
    """The project with ``table`` reading ``new_path``: path and SHA-256 updated, tags
    kept for columns still present, tags dropped for columns gone, new columns
    auto-tagged (marked by their evidence). The key column must still be there."""
    from deid_desktop.core.io import read_table
    from deid_desktop.core.tagging import suggest_tags

    try:
        spec = project.table(table)
    except KeyError:
        raise InputError(f"The project has no table named '{table}'") from None
    new_path = Path(new_path)
    loaded = read_table(new_path, name=spec.name, sheet=spec.sheet)
    columns = [str(c) for c in loaded.frame.columns]
    if spec.key not in columns:
        raise InputError(
            f"The new file for table '{table}' has no person-key column '{spec.key}'",
            file=new_path.name,
            column=spec.key,
            hint="Choose the file that holds this table, with its person-key column.",
        )
    old = {c.name: c for c in spec.columns}
    new_names = [c for c in columns if c not in old]
    suggested: dict[str, ColumnTag] = {}
    if new_names:
        tags = suggest_tags(loaded.frame[new_names], table=spec.name, is_person=spec.is_person)
        suggested = {
            t.name: replace(
                t,
                role=None if t.role is Role.PERSON_KEY else t.role,
                evidence=(*t.evidence, "new column: suggested, please check"),
            )
            for t in tags
        }
    tags_out = tuple(old[c] if c in old else suggested[c] for c in columns)
    new_spec = replace(
        spec,
        path=store_path(new_path, project_path),
        sha256=loaded.sha256,
        columns=tags_out,
        rows=len(loaded.frame),
    )
    return project.with_table(new_spec)
