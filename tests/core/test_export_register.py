"""The local register: where it lives, appending, reading back, damage handling."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from deid_desktop.core.register import (
    REGISTER_ENV,
    DamagedLine,
    append_register,
    default_register_path,
    has_transaction,
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


# -- the checksummed format ---------------------------------------------------------------

#: A register as versions before the checksum wrote it (one plain JSON object a line).
OLD_REGISTER = (
    b'{"pathway": "safe_harbor", "project": {"id": "p1"}, "time_utc": "2026-01-01T00:00:00Z"}\n'
    b'{"pathway": "limited", "project": {"id": "p1"}, "time_utc": "2026-02-01T00:00:00Z"}\n'
)


def test_old_registers_are_still_read_and_appended_to(tmp_path: Path) -> None:
    reg = tmp_path / "register.jsonl"
    reg.write_bytes(OLD_REGISTER)
    assert [e["pathway"] for e in read_register(reg)] == ["safe_harbor", "limited"]
    append_register(reg, {"pathway": "linkable", "project": {"id": "p1"}}, "t1")
    got = read_register(reg)
    assert [e["pathway"] for e in got] == ["safe_harbor", "limited", "linkable"]
    assert got.damaged == () and reg.read_bytes().startswith(OLD_REGISTER)


def test_each_line_carries_its_checksum_and_transaction(tmp_path: Path) -> None:
    reg = tmp_path / "register.jsonl"
    append_register(reg, {"k": 5, "who": "Lab A"}, "abc123")
    line = json.loads(reg.read_bytes())
    assert line["_txn"] == "abc123" and len(line["_sha256"]) == 64
    assert has_transaction(reg, "abc123") and not has_transaction(reg, "other")


def test_an_altered_line_is_reported_not_read(tmp_path: Path) -> None:
    reg = tmp_path / "register.jsonl"
    for n in (1, 2, 3):
        append_register(reg, {"n": n, "k": 5}, f"t{n}")
    lines = reg.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"k": 5', b'"k": 9')  # still valid JSON, not what was written
    reg.write_bytes(b"\n".join(lines))
    got = read_register(reg)
    assert [e["n"] for e in got] == [1, 3]
    assert got.damaged == (DamagedLine(2, "checksum does not match"),)
    assert not has_transaction(reg, "t2")


def test_deid_check_warns_about_a_damaged_register(tmp_path: Path, monkeypatch, capsys) -> None:
    from deid_desktop.cli import main

    reg = tmp_path / "register.jsonl"
    append_register(reg, {"n": 1})
    with open(reg, "ab") as fh:
        fh.write(b'{"n": 2, "tru')
    monkeypatch.setenv("DEID_REGISTER", str(reg))
    assert main(["demo", "--out", str(tmp_path / "demo"), "--rows", "60"]) == 0
    capsys.readouterr()
    assert main(["check", str(tmp_path / "demo" / "demo.deid.json"), "--json"]) == 0
    out = capsys.readouterr()
    assert "warning: The register has 1 damaged line (line 2" in out.err
    assert json.loads(out.out)["earlier_releases"] == []


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(
    entries=st.lists(
        st.dictionaries(st.text(min_size=1), _values, max_size=4), min_size=1, max_size=4
    ),
    cut=st.integers(min_value=1),
)
def test_a_torn_tail_is_never_half_read(entries: list[dict], cut: int) -> None:
    """Whatever the entries, they read back exactly; cutting the file anywhere inside the
    last line loses that entry (reported) and never yields a partial one."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        reg = Path(tmp) / "register.jsonl"
        for i, e in enumerate(entries):
            append_register(reg, e, f"t{i}")
        clean = [{k: v for k, v in e.items() if k not in ("_sha256", "_txn")} for e in entries]
        assert read_register(reg) == json.loads(json.dumps(clean))
        raw = reg.read_bytes()
        start = raw.rstrip(b"\n").rfind(b"\n") + 1
        keep = start + cut % (len(raw) - 1 - start)  # inside the last line, before its newline
        reg.write_bytes(raw[:keep])
        got = read_register(reg)
        assert got == json.loads(json.dumps(clean[:-1]))
        assert [d.line for d in got.damaged] == ([len(entries)] if keep > start else [])
