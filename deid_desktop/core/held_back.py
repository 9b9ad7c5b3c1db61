"""Where a project's output goes by default: the release folder and the held-back
(crosswalk) folder beside the project file. The held-back folder also keeps the
project word list (``scan.wordlist``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deid_desktop.core.scan.wordlist import WordList


def default_folders(
    project_path: Path | None, name: str, home: Path | None = None
) -> tuple[Path, Path]:
    """The release and crosswalk folders offered for a project: ``release`` and
    ``crosswalk`` beside the project file; when that folder is unknown or hidden (the
    demo's copy lives in the user data folder), ``~/deid-desktop releases/<name>/``."""
    home = Path.home() if home is None else home
    folder = None if project_path is None else Path(project_path).absolute().parent
    if folder is None or any(part.startswith(".") for part in folder.parts):
        stem = (name or "release").replace("/", "_").strip() or "release"
        folder = home / "deid-desktop releases" / stem
    return folder / "release", folder / "crosswalk"


def held_back_folder(project_path: Path | None, name: str) -> Path:
    """The project's default held-back (crosswalk) folder."""
    return default_folders(project_path, name)[1]


def word_list_folder(project_path: Path | None, name: str, folder: Path | None = None) -> Path:
    """Where the project word list lives: ``folder``, the crosswalk folder the user chose
    for the export (``deid run --crosswalk-dir``, the GUI's Export step), else the
    project's default held-back folder. The one rule of the CLI, the engine and the GUI."""
    return Path(folder) if folder is not None else held_back_folder(project_path, name)


def project_word_list(project_path: Path | None, name: str, folder: Path | None = None) -> WordList:
    """The project word list of ``word_list_folder``."""
    from deid_desktop.core.scan.wordlist import load_word_list  # pandas: on use

    return load_word_list(word_list_folder(project_path, name, folder))


def word_lists_differ(folder: Path, other: Path) -> bool:
    """Whether two held-back folders hold different project word lists (an unreadable
    list counts as different: the review that reads it says why)."""
    from deid_desktop.core.errors import DeidError
    from deid_desktop.core.scan.wordlist import load_word_list  # pandas: on use

    if Path(folder) == Path(other):
        return False
    try:
        return load_word_list(folder).terms != load_word_list(other).terms
    except DeidError:
        return True
