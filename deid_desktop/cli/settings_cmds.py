"""`deid show` and `deid set`: every release-changing decision of a project, by key.

- ``deid show PROJECT [--json]`` lists each decision (pathway, seed, the options of the
  pathways, risk settings, free-text action per column, export metadata) with its
  dotted key and current value.
- ``deid set PROJECT KEY=VALUE ...`` changes any of them; all are checked before the
  project is saved (atomically). An unknown key exits 2 with the nearest keys.

The keys and the rules live in ``core/project/settings.py``; this module only prints.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from deid_desktop.cli.output import print_json


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    show = subparsers.add_parser(
        "show",
        help="list every release-changing setting of a project",
        description="List every decision of the project that changes a release, with its "
        "key and value: the pathway, the seed, the options of the pathways, the risk "
        "settings, the free-text action of each free-text column and the export metadata. "
        "Change one with `deid set PROJECT KEY=VALUE`; column tags with `deid tags`.",
    )
    show.add_argument("project", type=Path, metavar="PROJECT", help="the project file")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    show.set_defaults(func=run_show)

    set_ = subparsers.add_parser(
        "set",
        help="change project settings (KEY=VALUE)",
        description="Change settings and re-save the project. Each change is KEY=VALUE with "
        "a key from `deid show`: whole numbers, true/false, a choice's name, lists "
        "comma-separated (risk.age_bands=0,18,65), an empty value for none or an empty "
        "list. Examples: seed=12345  risk.k_target=5  pathway=linkable  "
        "transform.free_text.demographics.notes=redact. All changes are checked before "
        "any is saved.",
    )
    set_.add_argument("project", type=Path, metavar="PROJECT", help="the project file")
    set_.add_argument("changes", nargs="+", metavar="KEY=VALUE", help="settings to change")
    set_.set_defaults(func=run_set)


def run_show(args: argparse.Namespace) -> int:
    from deid_desktop.core.project import load_project
    from deid_desktop.core.project.settings import settings

    project = load_project(args.project)
    found = settings(project)
    if args.json:
        print_json({"project": project.name, "settings": {s.key: s.value for s in found}})
        return 0
    print(f"Project: {project.name} ({args.project})")
    width = max(len(s.key) for s in found)
    shown = [
        (s.key, s.text or "(none)", f"{s.help} [{s.kind}]" if s.help else f"[{s.kind}]")
        for s in found
    ]
    vwidth = max(len(v) for _, v, _ in shown)
    for key, value, kind in shown:
        print(f"  {key.ljust(width)}  {value.ljust(vwidth)}  {kind}")
    print(f"Change one with: deid set {args.project} KEY=VALUE ...  (column tags: deid tags)")
    return 0


def run_set(args: argparse.Namespace) -> int:
    from deid_desktop.core.project import load_project, save_project
    from deid_desktop.core.project.settings import apply_settings

    project = load_project(args.project)
    changed, changes = apply_settings(project, args.changes)
    save_project(changed, args.project)
    print(f"Saved {args.project}:")
    for c in changes:
        note = " (unchanged)" if c.old == c.new else ""
        print(f"  {c.key}: {c.old or '(none)'} -> {c.new or '(none)'}{note}")
    return 0
