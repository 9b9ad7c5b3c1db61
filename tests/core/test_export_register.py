"""The local register: where it lives, appending, reading back, damage handling."""

from __future__ import annotations

import json
from pathlib import Path

from deid_desktop.core.register import (
    REGISTER_ENV,
    DamagedLine,
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


def test_torn_last_line_is_reported_and_the_next_entry_starts_clean(tmp_path: Path) -> None:
    reg = tmp_path / "register.jsonl"
    append_register(reg, {"n": 1})
    with open(reg, "ab") as fh:
        fh.write(b'{"n": 2, "trunc')  # an export interrupted while appending
    got = read_register(reg)
    assert got == [{"n": 1}] and [d.line for d in got.damaged] == [2]
    append_register(reg, {"n": 3})
    lines = reg.read_bytes().splitlines()
    assert json.loads(lines[-1])["n"] == 3 and len(lines) == 3
    got = read_register(reg)  # the damage is now in the middle: reported, reading goes on
    assert got == [{"n": 1}, {"n": 3}]
    assert got.damaged == (DamagedLine(2, "not a complete entry"),)
    assert "1 damaged line (line 2" in got.damage_note()


def test_entries_are_single_ascii_lines(tmp_path: Path) -> None:
    reg = tmp_path / "register.jsonl"
    append_register(reg, {"purpose": "line one\nline two", "who": "Zoë"})
    raw = reg.read_bytes()
    assert raw.count(b"\n") == 1 and raw.isascii()
    assert read_register(reg) == [{"purpose": "line one\nline two", "who": "Zoë"}]


def test_earlier_releases_of_one_project(tmp_path: Path) -> None:
    from deid_desktop.core.register import earlier_releases

    reg = tmp_path / "register.jsonl"
    append_register(
        reg,
        {
            "project": {"id": "p1"},
            "time_utc": "2026-01-01T00:00:00Z",
            "pathway": "safe_harbor",
            "meta": {"recipient": "Lab A", "purpose": "study"},
            "risk": {"quasi_identifiers": ["age", "zip3"], "k": 2, "lone": 0},
            "outputs": {"folder": "/r1"},
        },
    )
    append_register(reg, {"project": {"id": "other"}, "time_utc": "2026-02-01T00:00:00Z"})
    append_register(reg, {"project": {"id": "p1"}, "time_utc": "2026-03-01T00:00:00Z"})
    found = earlier_releases("p1", reg)
    assert [e["time_utc"] for e in found] == ["2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z"]
    assert found[0] == {
        "time_utc": "2026-01-01T00:00:00Z",
        "pathway": "safe_harbor",
        "recipient": "Lab A",
        "purpose": "study",
        "quasi_identifiers": ["age", "zip3"],
        "k": 2,
        "lone": 0,
        "folder": "/r1",
    }
    assert found[1]["recipient"] == "" and found[1]["k"] is None
