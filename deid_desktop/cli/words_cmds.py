"""`deid words PROJECT add KIND TERM` / `deid words PROJECT list`: the project word list,
the terms the scan must find in every note, kept in the held-back (crosswalk) folder -
never in the project file, never in a release. The terms are shown here only: this is
the sender's own terminal."""

from __future__ import annotations

import argparse
from pathlib import Path

from deid_desktop.cli.output import print_json


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from deid_desktop.core.constants import WORD_KINDS

    words = subparsers.add_parser(
        "words",
        help="add to or list the project word list (terms the scan must find)",
        description="The project word list: terms the scan missed, found and redacted in "
        "every note from then on by deid scan, check and run. It lives in the held-back "
        "folder (the crosswalk folder, default: 'crosswalk' beside the project file), "
        "never in the project file or a release; the export record counts its terms.",
    )
    words.add_argument("project", help="a project (.deid.json)")
    words.add_argument(
        "--held-back", type=Path, help="the crosswalk folder (default: beside the project)"
    )
    words.add_argument("--json", action="store_true", help="machine-readable output")
    actions = words.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    add = actions.add_parser("add", help="add a term with its kind")
    add.add_argument("kind", help="one of " + ", ".join(WORD_KINDS))
    add.add_argument("term", help="the word or words, as written in the notes")
    actions.add_parser("list", help="the terms, by kind")
    words.set_defaults(func=run_words)


def run_words(args: argparse.Namespace) -> int:
    from deid_desktop.core import engine
    from deid_desktop.core.held_back import held_back_folder
    from deid_desktop.core.scan.wordlist import add_word, load_word_list

    project, _problems = engine.open_project(args.project)
    folder = args.held_back or held_back_folder(Path(args.project), project.name)
    if args.action == "add":
        path = add_word(folder, args.kind, args.term)
        if not args.json:
            print(f"Added to the word list: {path}")
    words = load_word_list(folder)
    if args.json:
        print_json({"folder": str(folder), **words.summary_dict(), "words": words.terms})
        return 0
    if args.action == "list":
        print(f"Word list in {folder}: {len(words)} term(s)")
        for kind, terms in sorted(words.terms.items()):
            for term in terms:
                print(f"  {kind}\t{term}")
    return 0
