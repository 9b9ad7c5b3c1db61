"""The export record: what went out, when, to whom, why, under which rules.

Two versions of one record:

- the FULL record (seed, crosswalk folder, file and SHA-256, project file hash) is
  written into the crosswalk folder as ``export_record_full.json`` / ``.txt`` and
  appended to the register;
- the RELEASE record (``export_record.json`` / ``.txt`` in the release folder) is the
  same record with the re-identification mechanism taken out (45 CFR 164.514(c)(2)):
  the seed that drew the subject IDs and the crosswalk's location and hash read
  "held back with the crosswalk" (``release_record``).

Both hold hashes, names, counts, parameters and check outcomes - never a data value
and never the salt (any parameter named like a salt, and any raw bytes, are dropped).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

from deid_desktop.buildinfo import commit as build_commit
from deid_desktop.core.export.cells import neutralise_names
from deid_desktop.core.model import Project, Release
from deid_desktop.core.pathways.registry import pathway_spec

RECORD_VERSION = 1
RECORD_JSON = "export_record.json"
RECORD_TXT = "export_record.txt"
RECORD_FILES = (RECORD_JSON, RECORD_TXT)
FULL_RECORD_JSON = "export_record_full.json"
FULL_RECORD_TXT = "export_record_full.txt"
FULL_RECORD_FILES = (FULL_RECORD_JSON, FULL_RECORD_TXT)
HELD_BACK_WITH_CROSSWALK = "held back with the crosswalk"
HELD_BACK_IN_REGISTER = "held back in the sender's export register"


def _is_secret_key(key: str) -> bool:
    k = key.lower()
    return "salt" in k or "secret" in k or k in {"key_bytes", "hmac_key"}


def jsonable(obj: Any) -> Any:
    """A JSON-safe copy: dataclasses, enums, paths, tuples, numpy scalars. Bytes dropped."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return jsonable({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, Mapping):
        return {
            str(k): jsonable(v)
            for k, v in obj.items()
            if not _is_secret_key(str(k)) and not isinstance(v, bytes | bytearray)
        }
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, list | tuple | set | frozenset):
        items = [jsonable(v) for v in obj if not isinstance(v, bytes | bytearray)]
        return sorted(items, key=str) if isinstance(obj, set | frozenset) else items
    if isinstance(obj, dt.datetime | dt.date):
        return obj.isoformat()
    if isinstance(obj, bool | int | float | str) or obj is None:
        return obj
    item = getattr(obj, "item", None)  # numpy scalar
    if callable(item):
        return jsonable(item())
    return str(obj)


def zip3_vintage(parameters: Mapping[str, Any]) -> Any:
    """The ZIP3 table the pathway used, as it reported it (keys starting with 'zip3')."""
    found = {k: v for k, v in parameters.items() if str(k).lower().startswith("zip3")}
    if not found:
        return None
    return jsonable(found)


def column_tags(project: Project) -> dict[str, dict[str, dict[str, str | None]]]:
    return {
        t.name: {
            c.name: {
                "class": c.cls.value,
                "role": c.role.value if c.role else None,
                "category": c.category.value if c.category else None,
            }
            for c in t.columns
        }
        for t in project.tables
    }


def build_record(
    *,
    now: dt.datetime,
    app_version: str,
    project: Project,
    release: Release,
    checks: Sequence[Mapping[str, Any]],
    risk: Mapping[str, Any] | None,
    scan: Mapping[str, Any] | None,
    inputs: Mapping[str, tuple[Path, str]],
    input_rows: Mapping[str, int],
    outputs: Sequence[Mapping[str, Any]],
    out_dir: Path,
    crosswalk: Mapping[str, Any] | None,
    meta: Mapping[str, Any],
    neutralised: Mapping[str, int],
) -> dict[str, Any]:
    spec = pathway_spec(release.pathway)
    # the options every pathway uses, then the pathway's own (a linkable release's)
    pathway_options: dict[str, Any] = {"transform": jsonable(project.transform)}
    if spec.options_field is not None:
        pathway_options[spec.options_field] = jsonable(spec.options_of(project))
    rows = {
        name: {
            "input": input_rows.get(name),
            "released": len(frame),
            "suppressed": int(release.suppressed_rows.get(name, 0)),
        }
        for name, frame in release.tables.items()
    }
    when = now.astimezone(dt.UTC) if now.tzinfo else now.replace(tzinfo=dt.UTC)
    return {
        "record_version": RECORD_VERSION,
        "time_utc": when.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "app": {"name": "deid-desktop", "version": app_version, "commit": build_commit()},
        "project": {
            "id": project.project_id,
            "name": project.name,
            "schema_version": project.schema_version,
        },
        "pathway": release.pathway.value,
        "label": release.label,
        "seed": project.seed,
        "parameters": {
            "release": jsonable(release.parameters),
            **pathway_options,
            "risk": jsonable(project.risk),
            # text columns the gate's scan no longer fails on: accepted after review
            "accepted_text_columns": list(project.transform.accepted_text_columns),
        },
        "zip3_table": zip3_vintage(release.parameters),
        "column_tags": column_tags(project),
        "transformations": list(release.transformations),
        "checks": [dict(c) for c in checks],
        "checks_passed": all(c["passed"] for c in checks if c.get("severity") == "blocking"),
        "risk": jsonable(risk),
        "scan": jsonable(scan),
        "rows": rows,
        "rows_suppressed": int(sum(release.suppressed_rows.values())),
        "inputs": [
            {"table": name, "file": Path(p).name, "path": str(p), "sha256": h}
            for name, (p, h) in sorted(inputs.items())
        ],
        "outputs": {"folder": str(out_dir), "files": [dict(f) for f in outputs]},
        "crosswalk": None if crosswalk is None else dict(crosswalk),
        "meta": jsonable(meta),
        "cells_neutralised": {k: int(v) for k, v in sorted(neutralised.items())},
        "warnings": list(release.warnings),
    }


def held_back_note(has_crosswalk: bool) -> str:
    """Where the release record says the seed and the full record are."""
    return HELD_BACK_WITH_CROSSWALK if has_crosswalk else HELD_BACK_IN_REGISTER


def without_seed(text: str, seed: int) -> str:
    """A sentence with "seed <seed>" replaced by "seed held back" (pathway wording)."""
    return re.sub(rf"\bseed {int(seed)}(?!\d)", "seed held back", text)


def release_record(full: Mapping[str, Any], *, seed: int) -> dict[str, Any]:
    """The record for the release folder: ``full`` without the re-identification mechanism.

    Taken out: the seed (top level and in the pathway's parameters), the crosswalk's
    folder, file name and SHA-256, and the project file's hash (the project file holds
    the seed). Pathway sentences naming the seed say "seed held back".
    """
    record = json.loads(json.dumps(full))  # a deep copy (the record is JSON already)
    has_crosswalk = full.get("crosswalk") is not None
    note = held_back_note(has_crosswalk)
    record["seed"] = note
    release_params = record.get("parameters", {}).get("release")
    if isinstance(release_params, dict) and "seed" in release_params:
        release_params["seed"] = note
    if has_crosswalk:
        record["crosswalk"] = {"held_back": True, "where": HELD_BACK_WITH_CROSSWALK}
    project = record.get("project")
    if isinstance(project, dict):
        project.pop("sha256", None)
    for key in ("transformations", "warnings"):
        record[key] = [without_seed(str(t), seed) for t in record.get(key, [])]
    record["full_record"] = note
    return record


def record_json(record: Mapping[str, Any]) -> str:
    return json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _kv(lines: list[str], key: str, value: Any, indent: int = 2) -> None:
    lines.append(f"{' ' * indent}{key}: {'-' if value in (None, '') else value}")


def _findings_text(record: Mapping[str, Any]) -> list[str]:
    """The intruder test, the risk across releases and the small cells (counts only)."""
    lines: list[str] = []
    intruder = record.get("intruder")
    if intruder:
        lines += ["", "Motivated intruder (the source's demographics linked to the release)"]
        _kv(lines, "linked on", ", ".join(intruder["on"]))
        _kv(lines, "re-identified with certainty", f"{intruder['certain']:,}")
        _kv(lines, "expected correct matches", intruder["expected_matches"])
        hidden = ", ".join(f"{b}: {n:,}" for b, n in intruder["hidden_among"].items())
        _kv(lines, "persons by look-alikes", hidden)
    cross = record.get("cross_release")
    if cross:
        lines += ["", "Risk across releases"]
        _kv(lines, "earlier releases of the same source", len(cross.get("releases", [])))
        lines += [f"  - {w}" for w in cross.get("warnings", [])] or ["  isolates no person"]
    cells = record.get("small_cells")
    if cells and cells.get("columns"):
        lines += ["", "Small cells in event tables (values held by fewer than k persons)"]
        for c in cells["columns"]:
            lines.append(
                f"  {c['table']}.{c['column']}: {c['small_cells']:,} of {c['distinct']:,} "
                f"values, held by {c['persons']:,} persons"
            )
    return lines


def render_record_text(record: Mapping[str, Any]) -> str:
    """The record for a person to read; the JSON beside it is authoritative."""
    lines: list[str] = ["EXPORT RECORD", "=============", ""]
    _kv(lines, "Time (UTC)", record["time_utc"], 0)
    _kv(lines, "Application", f"{record['app']['name']} {record['app']['version']}", 0)
    _kv(lines, "Build commit", record["app"].get("commit", "unknown"), 0)
    _kv(lines, "Project", f"{record['project']['name']} ({record['project']['id']})", 0)
    _kv(lines, "Pathway", f"{record['pathway']} - {record['label']}", 0)
    _kv(lines, "Seed", record["seed"], 0)
    if "file" in record["project"]:
        _kv(lines, "Project file", record["project"]["file"], 0)
        if "sha256" in record["project"]:
            _kv(lines, "Project file SHA-256", record["project"]["sha256"], 0)
    verdict = record.get("verdict")
    if verdict:
        _kv(lines, "Verdict", verdict["headline"], 0)
        _kv(lines, "Access model", verdict["access_model"], 0)
        accepted = verdict.get("risk_accepted")
        if accepted:
            _kv(lines, "Residual risk accepted", accepted["reason"], 0)
    lines.append("")
    lines.append("Release metadata")
    for key in ("purpose", "recipient", "retention", "dua", "formats"):
        value = record["meta"].get(key)
        _kv(lines, key, ", ".join(value) if isinstance(value, list) else value)
    lines += ["", "Inputs (SHA-256)"]
    for i in record["inputs"]:
        lines.append(f"  {i['sha256']}  {i['path']}  [{i['table']}]")
    lines += ["", f"Outputs in {record['outputs']['folder']} (SHA-256)"]
    for f in record["outputs"]["files"]:
        lines.append(f"  {f['sha256']}  {f['name']}  ({f['bytes']:,} bytes)")
    cw = record.get("crosswalk")
    lines += ["", "Crosswalk (held back, not part of the release)"]
    if cw is None:
        lines.append("  none")
    elif "sha256" not in cw:
        lines.append(f"  {cw.get('where', HELD_BACK_WITH_CROSSWALK)}")
    else:
        lines.append(f"  {cw['sha256']}  {cw['folder']}/{cw['file']}  ({cw['rows']:,} rows)")
    lines += ["", "Rows"]
    for table, r in record["rows"].items():
        inp = "-" if r["input"] is None else f"{r['input']:,}"
        lines.append(
            f"  {table}: input {inp}, released {r['released']:,}, suppressed {r['suppressed']:,}"
        )
    lines += ["", "What was done"]
    lines += [f"  - {t}" for t in record["transformations"]]
    lines += ["", "Checks"]
    for c in record["checks"]:
        mark = "pass" if c["passed"] else ("warn" if c["severity"] == "warning" else "FAIL")
        lines.append(f"  [{mark}] {c['name']} ({c['rule']}; {c['severity']}; count {c['count']:,})")
    risk = record.get("risk")
    lines += ["", "Residual risk"]
    if risk is None:
        lines.append("  not measured")
    else:
        for key in (
            "quasi_identifiers",
            "rows",
            "classes",
            "k",
            "k_target",
            "lone",
            "below_k",
            "prosecutor_max",
            "prosecutor_mean",
        ):
            v = risk.get(key)
            _kv(lines, key, ", ".join(v) if isinstance(v, list) else v)
    lines += _findings_text(record)
    scan = record.get("scan")
    lines += ["", "Free-text scan"]
    if scan is None:
        lines.append("  not run")
    elif scan.get("scanned") is False:
        _kv(lines, "not scanned", scan.get("note"))
        _kv(lines, "columns", ", ".join(scan.get("columns_not_scanned", [])))
    else:
        _kv(lines, "columns scanned", ", ".join(scan.get("columns_scanned", [])))
        _kv(lines, "hits", scan.get("hits"))
        for kind, n in (scan.get("hits_by_kind") or {}).items():
            _kv(lines, f"  {kind}", n)
    lines += [
        "",
        "Parameters",
        *(
            "  " + line
            for line in json.dumps(record["parameters"], indent=2, sort_keys=True).splitlines()
        ),
    ]
    lines += ["", f"ZIP3 table: {json.dumps(record['zip3_table'], sort_keys=True)}"]
    neutral = record.get("cells_neutralised") or {}
    if any(neutral.values()):
        lines += ["", "Cells prefixed with ' against formula injection"]
        lines += [f"  {t}: {n:,}" for t, n in neutral.items()]
    if record.get("warnings"):
        lines += ["", "Warnings", *(f"  - {w}" for w in record["warnings"])]
    tags = record.get("column_tags") or {}
    names = [*tags, *(c for columns in tags.values() for c in columns)]
    return neutralise_names("\n".join(lines) + "\n", names)
