"""The local register: where it lives, appending, reading back, damage handling."""

from __future__ import annotations

from pathlib import Path

import pytest

from deid_desktop.core.errors import InputError
from deid_desktop.core.register import (
    REGISTER_ENV,
    append_register,
    default_register_path,
    read_register,
)


def test_location_env_overrides_platform_folder(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv(REGISTER_ENV, raising=False)
    default = default_register_path()
    assert default.name == "register.jsonl" and "deid-desktop" in str(default)
    monkeypatch.setenv(REGISTER_ENV, str(tmp_path / "r.jsonl"))
    assert default_register_path() == tmp_path / "r.jsonl"
    assert read_register() == []  # missing register is empty


def test_append_then_read_in_order(tmp_path: Path) -> None:
    reg = tmp_path / "deep" / "register.jsonl"
    append_register(reg, {"n": 1, "recipient": "Lab A"})
    append_register(reg, {"n": 2, "recipient": "Lab B", "nested": {"k": 5}})
    assert read_register(reg) == [
        {"n": 1, "recipient": "Lab A"},
        {"n": 2, "recipient": "Lab B", "nested": {"k": 5}},
    ]
    assert reg.read_bytes().count(b"\n") == 2


def test_torn_last_line_is_skipped_and_the_next_entry_starts_clean(tmp_path: Path) -> None:
    reg = tmp_path / "register.jsonl"
    append_register(reg, {"n": 1})
    with open(reg, "ab") as fh:
        fh.write(b'{"n": 2, "trunc')  # an export interrupted while appending
    assert read_register(reg) == [{"n": 1}]
    append_register(reg, {"n": 3})
    lines = reg.read_bytes().splitlines()
    assert lines[-1] == b'{"n": 3}'
    with pytest.raises(InputError, match="line 2"):
        read_register(reg)  # the damage is now in the middle: said plainly, with its line


def test_entries_are_single_ascii_lines(tmp_path: Path) -> None:
    reg = tmp_path / "register.jsonl"
    append_register(reg, {"purpose": "line one\nline two", "who": "Zoë"})
    raw = reg.read_bytes()
    assert raw.count(b"\n") == 1 and raw.isascii()
    assert read_register(reg) == [{"purpose": "line one\nline two", "who": "Zoë"}]
