"""Help → About names the version and the build's git commit."""

from __future__ import annotations

from PySide6.QtGui import QAction

from deid_desktop import __version__, buildinfo


def test_about_names_the_version_and_the_build_commit(window, dialogs) -> None:  # type: ignore[no-untyped-def]
    dialogs.answer("about", None)
    window.findChild(QAction, "about").trigger()
    (text,) = dialogs.texts("about")
    assert f"deid-desktop {__version__}" in text
    assert f"commit {buildinfo.commit()}" in text
    assert buildinfo.commit() != buildinfo.UNKNOWN
