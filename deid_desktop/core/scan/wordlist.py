"""The project word list: terms the user adds to the scan (a name the scan missed, the
hospital's own unit names), kept in the held-back folder beside the crosswalk - never in
the project file, never in a release.

``word-list.txt`` holds one term a line with its kind, ``KIND<TAB>term`` (``NAME\tSmithers``;
blank lines and lines starting with '#' ignored). The older ``site-list.txt`` (one site a
line, no kind) in the same folder is read too, as LOCATION terms: one place for the
extra terms. The terms go into the scan dictionary (``build_dictionary(words=...)``);
the record counts them, never shows them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from deid_desktop.core.constants import WORD_KINDS
from deid_desktop.core.errors import UsageError

WORD_LIST_NAME = "word-list.txt"
SITE_LIST_NAME = "site-list.txt"

_HINT = "Use one of " + ", ".join(WORD_KINDS) + "."


@dataclass(frozen=True)
class WordList:
    """The user's terms by word list kind (NAME, LOCATION, ...), in file order."""

    terms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __len__(self) -> int:
        return sum(len(t) for t in self.terms.values())

    def by_dictionary_kind(self) -> dict[str, list[str]]:
        """Dictionary kind -> terms, for ``build_dictionary(words=...)``."""
        out: dict[str, list[str]] = {}
        for kind, terms in self.terms.items():
            out.setdefault(WORD_KINDS[kind], []).extend(terms)
        return out

    def counts(self) -> dict[str, int]:
        """Terms per kind (no terms): for the record and the terminal."""
        return {k: len(v) for k, v in sorted(self.terms.items()) if v}

    def summary_dict(self) -> dict[str, object]:
        """For the export record: counts only, never a term."""
        return {"terms": len(self), "by_kind": self.counts()}


def word_list_path(held_back: Path | str) -> Path:
    """Where the project word list lives: in the held-back (crosswalk) folder."""
    return Path(held_back) / WORD_LIST_NAME


def site_list_path(held_back: Path | str) -> Path:
    """Where the user's site list lives: in the held-back folder beside the project
    (with the crosswalk), never inside a release."""
    return Path(held_back) / SITE_LIST_NAME


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    return [s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")]


def load_site_list(path: Path | str) -> list[str]:
    """The user's own hospital, unit and ward names and abbreviations, one a line
    (blank lines and lines starting with '#' ignored); [] when there is no file."""
    return _lines(Path(path))


def check_kind(kind: str) -> str:
    """The word list kind, upper case; UsageError for an unknown one."""
    k = kind.strip().upper()
    if k not in WORD_KINDS:
        raise UsageError(f"Unknown word list kind '{kind}'.", hint=_HINT)
    return k


def load_word_list(held_back: Path | str | None) -> WordList:
    """The word list (and the site list) of the held-back folder; empty when there is
    none. A malformed line is named by its number only."""
    if held_back is None:
        return WordList({})
    folder = Path(held_back)
    terms: dict[str, list[str]] = {}
    path = word_list_path(folder)
    if path.is_file():
        lines = path.read_text(encoding="utf-8-sig").splitlines()
        for number, line in enumerate(lines, start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            kind, sep, term = line.partition("\t")
            if not sep or not term.strip() or kind.strip().upper() not in WORD_KINDS:
                raise UsageError(f"{path.name}, line {number}: expected KIND<TAB>term.", hint=_HINT)
            terms.setdefault(kind.strip().upper(), []).append(term.strip())
    sites = load_site_list(site_list_path(folder))
    if sites:
        terms.setdefault("LOCATION", []).extend(sites)
    return WordList({k: tuple(dict.fromkeys(v)) for k, v in terms.items()})


def add_word(held_back: Path | str, kind: str, term: str) -> Path:
    """Append ``term`` of ``kind`` to the word list of the held-back folder (created when
    missing), atomically; a term already there is not added twice. Returns the file."""
    k = check_kind(kind)
    word = " ".join(term.split())
    if not word:
        raise UsageError("The term is empty.", hint="Give the word the scan missed.")
    folder = Path(held_back)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # held back: owner only
    path = word_list_path(folder)
    if word in load_word_list(folder).terms.get(k, ()):
        return path
    old = path.read_text(encoding="utf-8-sig") if path.is_file() else ""
    if old and not old.endswith("\n"):
        old += "\n"
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(old + f"{k}\t{word}\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path
