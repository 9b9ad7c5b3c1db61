"""The batch's word screen (scan/screen.py) lets every word of each registered set
through with its set's bit: a finder that reads only the screened words finds all of
its words."""

from __future__ import annotations

import numpy as np

from deid_desktop.core.scan import context_staff, shapes_more, spoken
from deid_desktop.core.scan import screen as screen_module
from deid_desktop.core.scan.fold import fold
from deid_desktop.core.scan.screen import TABLE, register, screen
from deid_desktop.core.scan.words import cut_words


def _words_of(text: str):  # type: ignore[no-untyped-def]
    return cut_words(text, fold(text))


def test_each_set_word_passes_with_its_bit() -> None:
    text = "Pt aware, per Dr Lee; eight five eight five five five oh one; SSN on file. Other words."
    w = _words_of(text)
    for table, bit in (
        (context_staff._CUES, context_staff._SCREEN),
        (spoken._HASHES, spoken._SCREEN),
        (shapes_more._SORTED_HASH, shapes_more._SCREEN),
    ):
        members = np.flatnonzero(np.isin(w.hashes, table))
        assert members.size  # the text holds words of every set
        assert set(members.tolist()) <= set(w.screen(bit).tolist())


def test_screen_reads_the_top_bits_and_keeps_other_bits() -> None:
    h = np.array([0xABCD << 48 | 5, 0x1234 << 48, 7], dtype=np.uint64)
    before, bits_before = TABLE.copy(), screen_module._bits
    try:
        bit = register(h[:1])
        at, bits = screen(h)
        assert 0 in at.tolist()
        assert bits[at.tolist().index(0)] & bit
        # a word whose top 16 bits no set holds is screened out
        assert 1 not in at.tolist() or TABLE[0x1234] != 0
    finally:
        TABLE[:] = before
        screen_module._bits = bits_before
