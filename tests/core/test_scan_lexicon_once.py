"""The bundled lexicon is built once per process, however a caller asks for it."""

from __future__ import annotations

from deid_desktop.core.scan import lexicon as lx


def test_the_default_lexicon_is_one_object() -> None:
    assert lx.load_lexicon() is lx.load_lexicon(False)
    assert lx.load_lexicon(full=False) is lx.load_lexicon()
    assert lx.load_lexicon(True) is lx.load_lexicon(full=True)
    assert lx.load_lexicon(True) is not lx.load_lexicon()
