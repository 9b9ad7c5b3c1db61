"""Project files: every choice that changes a release, saved as versioned JSON.

A project file holds input paths (relative to the project file when the input sits in
the project's folder or below it, absolute otherwise; POSIX separators), each input's
SHA-256, the tables and how they link (each table's person-key column; exactly one
person table), every column's tag, the pathway and its parameters, the risk settings,
the seed and the export metadata. It never holds a data value or the salt.

The package, by concern:

- ``schema``: the declarative schema (model dataclass fields + the ``RULES`` table) and
  the generic reading and writing it drives;
- ``files``: the project as JSON, its integrity stamp, load and save;
- ``migrations``: older layouts brought up to date;
- ``paths``: how input paths are stored and found;
- ``build``: a new, auto-tagged project from loaded tables;
- ``inputs``: checking inputs against their files, re-pointing a table;
- ``settings``: every release-changing decision by dotted key (`deid show`, `deid set`).
"""

from __future__ import annotations

from deid_desktop.core.constants import PROJECT_SUFFIX
from deid_desktop.core.model import SCHEMA_VERSION
from deid_desktop.core.project.build import new_project, new_seed
from deid_desktop.core.project.files import (
    MAX_PROJECT_BYTES,
    content_sha256,
    load_project,
    project_from_dict,
    project_from_json,
    project_to_dict,
    project_to_json,
    save_project,
    tag_to_dict,
)
from deid_desktop.core.project.inputs import InputProblem, check_inputs, repoint_table
from deid_desktop.core.project.migrations import FORMAT, MIGRATIONS
from deid_desktop.core.project.paths import rebase_paths, resolve_path, store_path

__all__ = [
    "FORMAT",
    "MAX_PROJECT_BYTES",
    "MIGRATIONS",
    "PROJECT_SUFFIX",
    "SCHEMA_VERSION",
    "InputProblem",
    "check_inputs",
    "content_sha256",
    "load_project",
    "new_project",
    "new_seed",
    "project_from_dict",
    "project_from_json",
    "project_to_dict",
    "project_to_json",
    "rebase_paths",
    "repoint_table",
    "resolve_path",
    "save_project",
    "store_path",
    "tag_to_dict",
]
