"""Modules imported on first use, so the window opens before numpy is loaded.

``from deid_desktop.gui.lazy import numpy as np`` gives an object whose attributes are
numpy's: the real import happens at the first attribute access (a page's first review),
not when the GUI modules are imported at start-up.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name

    def _module(self) -> ModuleType:
        return importlib.import_module(self._name)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._module(), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


numpy = LazyModule("numpy")
