"""Where the shipped data lives: resources/ in a source checkout or a PyInstaller bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The resources/ folder, from source (editable install) or from a frozen bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parents[2] / "resources"


def resource(*parts: str) -> Path:
    path = resources_dir().joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"Shipped resource missing: resources/{'/'.join(parts)}")
    return path
