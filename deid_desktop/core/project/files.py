"""Project files: the project as JSON, its integrity stamp, and reading and writing it.

The file carries ``format``, ``schema_version`` (older files are migrated in memory by
``MIGRATIONS``, oldest first) and ``content_sha256``, the SHA-256 of the canonical JSON
of everything else, so a file changed outside deid-desktop is refused with a plain
message instead of being trusted silently. Every problem with a project file is a
``ProjectError`` naming the file and the field; never a traceback.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from deid_desktop.core.atomic import atomic_write_bytes
from deid_desktop.core.errors import ProjectError
from deid_desktop.core.model import SCHEMA_VERSION, ColumnTag, Project
from deid_desktop.core.project import migrations
from deid_desktop.core.project.migrations import FORMAT
from deid_desktop.core.project.schema import Invalid, decode, encode

#: Larger than any real project; refuse anything bigger before parsing it.
MAX_PROJECT_BYTES = 20 * 1024 * 1024
#: The keys a project file holds besides the model's fields.
_ENVELOPE = ("format", "schema_version", "content_sha256")

REBUILD_HINT = (
    "Restore the project from a trusted copy, or build a fresh one with `deid init` "
    "(or New project in the app) and tag the columns again."
)
TAMPER_HINT = (
    "deid-desktop refuses a project edited by hand, because a changed tag could release "
    "an identifier. Make changes in the app or with `deid tag`, which re-stamp the file. "
    + REBUILD_HINT
)


def _fail(file: str | None, problem: str, hint: str = REBUILD_HINT) -> NoReturn:
    raise ProjectError(f"The project file {problem}", file=file, hint=hint)


# --------------------------------------------------------------------- project -> JSON


def tag_to_dict(tag: ColumnTag) -> dict[str, Any]:
    """One column's tag as plain JSON-ready data (as stored in the project file)."""
    out: dict[str, Any] = encode(tag)
    return out


def project_to_dict(project: Project) -> dict[str, Any]:
    """The project as plain JSON-ready data (without the integrity field)."""
    return {"format": FORMAT, "schema_version": SCHEMA_VERSION, **encode(project)}


def _canonical(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def content_sha256(body: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a project body (every field but this one)."""
    rest = {k: v for k, v in body.items() if k != "content_sha256"}
    return hashlib.sha256(_canonical(rest)).hexdigest()


def project_to_json(project: Project) -> str:
    """The text of a project file: sorted keys, two-space indent, integrity field."""
    body = project_to_dict(project)
    project_from_dict(body)  # never write a file this version could not read back
    body["content_sha256"] = content_sha256(body)
    return json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------- JSON -> project


def _version_of(data: Any, file: str | None) -> int:
    if not isinstance(data, dict):
        _fail(file, "is not a deid-desktop project (it does not hold a JSON object)")
    if "schema_version" not in data:
        _fail(file, "is not a deid-desktop project (it has no schema_version)")
    v = data["schema_version"]
    if not isinstance(v, int) or isinstance(v, bool):
        _fail(file, "is not valid: field schema_version must be a whole number")
    if v > SCHEMA_VERSION:
        _fail(
            file,
            f"was made by a newer version of deid-desktop (project format {v}; "
            f"this version reads up to {SCHEMA_VERSION})",
            hint="Open it with the newer version of deid-desktop that saved it.",
        )
    if v < 0:
        _fail(file, "is not valid: field schema_version must be 0 or more")
    return v


def project_from_dict(data: Any, *, file: str | None = None) -> Project:
    """Validate (strictly) and build a project from its JSON data.

    Older versions are migrated first. If the data carries ``content_sha256`` it must
    match. Every problem is a ``ProjectError`` naming the field; ``file`` names the
    file in the message.
    """
    version = _version_of(data, file)
    if "content_sha256" in data and data["content_sha256"] != content_sha256(data):
        _fail(file, "was changed outside deid-desktop", hint=TAMPER_HINT)
    body = {k: v for k, v in data.items() if k != "content_sha256"}
    try:
        body = migrations.migrate(body, version)
    except KeyError:
        _fail(file, f"uses project format version {version}, which this version cannot read")
    if body.get("format") != FORMAT:
        _fail(file, "is not a deid-desktop project (its format field is not recognised)")
    model = {k: v for k, v in body.items() if k not in _ENVELOPE}
    try:
        project: Project = decode(model, Project, "")
    except Invalid as exc:
        _fail(file, f"is not valid: field {exc}")
    return project


def project_from_json(text: str, *, file: str | None = None, trust_edits: bool = False) -> Project:
    """Parse a project file's text. The integrity field is required from version 1 on
    unless ``trust_edits`` (the app may offer that after asking the user)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProjectError(
            f"The project file is not valid JSON: {exc.msg} at character {exc.colno}",
            file=file,
            row=exc.lineno,
            hint=REBUILD_HINT,
        ) from None
    except RecursionError:
        _fail(file, "is not valid: it is nested too deeply")
    version = _version_of(data, file)
    if trust_edits:
        data = {k: v for k, v in data.items() if k != "content_sha256"}
    elif version >= 1 and "content_sha256" not in data:
        _fail(file, "has no integrity field (content_sha256)", hint=TAMPER_HINT)
    return project_from_dict(data, file=file)


# ------------------------------------------------------------------------------- files


def save_project(project: Project, path: Path) -> None:
    """Save atomically. Refuses (``ProjectError``) a project it could not load back."""
    path = Path(path)
    text = project_to_json(project)
    if not path.parent.is_dir():
        raise ProjectError(
            "The folder for the project file does not exist",
            file=str(path),
            hint="Choose an existing folder.",
        )
    try:
        atomic_write_bytes(path, text.encode("utf-8"))
    except OSError as exc:
        raise ProjectError(
            f"The project file could not be written ({exc.strerror or type(exc).__name__})",
            file=str(path),
            hint="Check that the folder is writable and the disk is not full.",
        ) from None


def load_project(path: Path, *, trust_edits: bool = False) -> Project:
    """Read and validate a project file. Every problem is a ``ProjectError``."""
    path = Path(path)
    name = str(path)
    try:
        size = path.stat().st_size
        if path.is_dir():
            raise IsADirectoryError
        if size > MAX_PROJECT_BYTES:
            _fail(name, "is far too large to be a deid-desktop project")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ProjectError(
            "The project file was not found", file=name, hint="Check the path and try again."
        ) from None
    except IsADirectoryError:
        raise ProjectError(
            "The project path is a folder, not a project file",
            file=name,
            hint="Give the path of the .deid.json file.",
        ) from None
    except OSError as exc:
        raise ProjectError(
            f"The project file could not be read ({exc.strerror or type(exc).__name__})",
            file=name,
            hint="Check that the file exists and you may read it.",
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        _fail(name, "is not UTF-8 text, so it is not a deid-desktop project")
    return project_from_json(text, file=name, trust_edits=trust_edits)
