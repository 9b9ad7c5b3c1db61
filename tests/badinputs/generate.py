"""A seeded corpus of malformed inputs for `deid init` / `deid run` (issue 16).

``generate(folder)`` writes every case under ``folder`` and returns them. Each case says
what must happen: ``init`` refused (exit 4, or 2 for a usage mistake), ``run`` refused
(exit 4: the input cannot be used as it is; exit 3: a release check failed), or the
input accepted and released (exit 0). Every case plants marker values (``QZX...``) in
its cells; no marker may ever appear in what `deid` prints.

    python -m tests.badinputs.generate OUT_FOLDER   # writes the corpus, prints a summary
"""

from __future__ import annotations

import io
import random
import re
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook

SEED = 16
INIT_ERROR, RUN_ERROR, ACCEPTED = "init refused", "run refused", "accepted"


@dataclass(frozen=True)
class Case:
    """One malformed input: its files (person table first) and what must happen."""

    name: str
    files: tuple[Path, ...]
    expect: str  # INIT_ERROR, RUN_ERROR or ACCEPTED
    markers: tuple[str, ...]
    codes: tuple[int, ...] = (4,)  # the exit codes that count as the expected refusal
    named: str | None = None  # the file name the message must carry (default: files[0])
    init_args: tuple[str, ...] = ()
    says: str = ""  # a phrase the message must hold (lower case)


@dataclass
class _Maker:
    folder: Path
    rng: random.Random
    cases: list[Case] = field(default_factory=list)
    serial: int = 0

    def marker(self) -> str:
        self.serial += 1
        return f"QZX{self.serial:05d}{self.rng.randrange(16**4):04X}"

    def rows(self, n: int = 12) -> tuple[list[str], list[list[str]], list[str]]:
        """A small person table: header, rows, and the markers planted in them."""
        header = ["mrn", "full_name", "birth_date", "sex", "zip", "comments"]
        rows, markers = [], []
        for _ in range(n):
            mrn, name = self.marker(), self.marker()
            markers += [mrn, name]
            born = f"{self.rng.randint(1940, 2005)}-{self.rng.randint(1, 12):02d}-13"
            sex = self.rng.choice("FM")
            zip_code = f"{self.rng.randint(10000, 99999)}"
            rows.append([mrn, name.title(), born, sex, zip_code, f"seen {self.marker()}"])
        return header, rows, markers

    def path(self, case: str, name: str) -> Path:
        folder = self.folder / case
        folder.mkdir(parents=True, exist_ok=True)
        return folder / name

    def add(self, name: str, files: list[Path], expect: str, markers: list[str], **kw) -> None:
        self.cases.append(Case(name, tuple(files), expect, tuple(markers), **kw))


def _csv(header: list[str], rows: list[list[str]], sep: str = ",", end: str = "\n") -> str:
    return end.join(sep.join(r) for r in [header, *rows]) + end


def _xlsx_bytes(sheets: list[tuple[str, list[list[object]]]], hidden: int | None = None) -> bytes:
    wb = Workbook()
    wb.remove(wb.active)
    for i, (title, rows) in enumerate(sheets):
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
        if i == hidden:
            ws.sheet_state = "hidden"
    return _saved(wb)


def _entry(name: str) -> zipfile.ZipInfo:
    """A ZIP entry with a fixed time, so the same seed gives the same bytes."""
    info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _saved(wb: Workbook) -> bytes:
    """The workbook's bytes, the same on every run (fixed document and ZIP entry times)."""
    wb.properties.created = wb.properties.modified = datetime(2024, 1, 1)
    buf = io.BytesIO()
    wb.save(buf)
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            data = src.read(info)
            data = re.sub(rb"<dcterms:modified[^<]*</dcterms:modified>", b"", data)
            dst.writestr(_entry(info.filename), data)
    return out.getvalue()


def _raw_xlsx(parts: dict[str, bytes]) -> bytes:
    """A minimal workbook package from its XML parts (for hand-made pathologies)."""
    base = {
        "[Content_Types].xml": (
            b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats'
            b'.org/package/2006/content-types"><Default Extension="rels" ContentType="applica'
            b'tion/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" Co'
            b'ntentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType='
            b'"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><'
            b'Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.open'
            b'xmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl'
            b'/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            b'spreadsheetml.sharedStrings+xml"/></Types>'
        ),
        "_rels/.rels": (
            b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openx'
            b'mlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://s'
            b'chemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Targ'
            b'et="xl/workbook.xml"/></Relationships>'
        ),
        "xl/workbook.xml": (
            b'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlfor'
            b'mats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/off'
            b'iceDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="r'
            b'Id1"/></sheets></workbook>'
        ),
        "xl/_rels/workbook.xml.rels": (
            b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openx'
            b'mlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://s'
            b'chemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="w'
            b'orksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlforma'
            b'ts.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xm'
            b'l"/></Relationships>'
        ),
    }
    base.update(parts)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data in base.items():
            z.writestr(_entry(name), data)
    return buf.getvalue()


_SHEET = (
    b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.'
    b'org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"'
    b' t="s"><v>1</v></c></row><row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v>3</v>'
    b"</c></row></sheetData></worksheet>"
)


def _sst(entries: Iterator[bytes] | list[bytes], count: int) -> bytes:
    head = (
        b'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org'
        b'/spreadsheetml/2006/main" count="%d" uniqueCount="%d">' % (count, count)
    )
    return head + b"".join(entries) + b"</sst>"


# --- the kinds of malformed input ------------------------------------------------------


def empty_files(m: _Maker) -> None:
    for label, data, suffix in (
        ("empty", b"", ".csv"),
        ("blank-lines", b"\n\n\r\n\n", ".csv"),
        ("spaces", b"   \t  \n  ", ".txt"),
        ("bom-only", b"\xef\xbb\xbf", ".csv"),
        ("empty-xlsx", b"", ".xlsx"),
    ):
        p = m.path(f"empty-{label}", f"persons{suffix}")
        p.write_bytes(data)
        m.add(f"empty file ({label})", [p], INIT_ERROR, [], says="empty")


def headerless(m: _Maker) -> None:
    _header, rows, _markers = m.rows()
    first_rows = {
        "mrn": rows[0],
        "date": [rows[0][2], rows[0][3], rows[0][4]],
        "number": [rows[0][4], "7", "12.5"],
        "names": ["Maria", "Garcia", "F"],
    }
    for label, first in first_rows.items():
        body = [first] + [r[: len(first)] for r in rows[1:]]
        for fmt in ("comma", "semicolon", "xlsx"):
            case = f"headerless-{label}-{fmt}"
            if fmt == "xlsx":
                p = m.path(case, "persons.xlsx")
                p.write_bytes(_xlsx_bytes([("Sheet1", body)]))
            else:
                sep = "," if fmt == "comma" else ";"
                p = m.path(case, "persons.csv")
                p.write_text(_csv(body[0], body[1:], sep), encoding="utf-8")
            planted = [v for v in first if v.startswith("QZX")] + (
                ["Maria", "Garcia"] if label == "names" else []
            )
            m.add(
                f"no header row ({label}, {fmt})", [p], INIT_ERROR, planted, says="no row of column"
            )


def header_only(m: _Maker) -> None:
    header, rows, markers = m.rows()
    p = m.path("header-only-csv", "persons.csv")
    p.write_text(",".join(header) + "\n", encoding="utf-8")
    m.add("person table with a header only (CSV)", [p], INIT_ERROR, [], says="no rows")
    p = m.path("header-only-xlsx", "persons.xlsx")
    p.write_bytes(_xlsx_bytes([("Persons", [header])]))
    m.add("person table with a header only (XLSX)", [p], INIT_ERROR, [], says="no rows")
    p = m.path("header-only-events", "persons.csv")
    p.write_text(",".join(header) + "\n", encoding="utf-8")
    ev = m.path("header-only-events", "visits.csv")
    ev.write_text(_csv(["mrn", "visit_date"], [[r[0], "2020-01-02"] for r in rows]), "utf-8")
    m.add("empty person table, full event table", [p, ev], INIT_ERROR, markers, says="no rows")


def ragged(m: _Maker) -> None:
    for where in ("second", "middle", "last"):
        for how in ("extra", "short"):
            for sep in (",", "\t"):
                header, rows, markers = m.rows()
                i = {"second": 0, "middle": len(rows) // 2, "last": len(rows) - 1}[where]
                rows[i] = rows[i] + [m.marker()] if how == "extra" else rows[i][:3]
                name = "tab" if sep == "\t" else "comma"
                p = m.path(f"ragged-{where}-{how}-{name}", "persons.csv")
                p.write_text(_csv(header, rows, sep), encoding="utf-8")
                m.add(f"ragged row ({how}, {where}, {name})", [p], INIT_ERROR, markers)


def quotes(m: _Maker) -> None:
    for where in ("second", "middle", "last"):
        header, rows, markers = m.rows()
        i = {"second": 0, "middle": len(rows) // 2, "last": len(rows) - 1}[where]
        rows[i][5] = '"' + rows[i][5]
        p = m.path(f"quote-{where}", "persons.csv")
        p.write_text(_csv(header, rows), encoding="utf-8")
        m.add(f"unclosed quote ({where} row)", [p], INIT_ERROR, markers)


def nul_and_binary(m: _Maker) -> None:
    for where in ("start", "middle", "end"):
        header, rows, markers = m.rows()
        data = _csv(header, rows).encode()
        at = {"start": 0, "middle": len(data) // 2, "end": len(data) - 1}[where]
        p = m.path(f"nul-{where}", "persons.csv")
        p.write_bytes(data[:at] + b"\x00" + data[at:])
        m.add(f"NUL byte ({where})", [p], INIT_ERROR, markers)
    blobs = {
        "random-1k": bytes(m.rng.randrange(256) for _ in range(1024)),
        "random-64k": bytes(m.rng.randrange(256) for _ in range(65536)),
        "png": b"\x89PNG\r\n\x1a\n" + bytes(m.rng.randrange(256) for _ in range(2000)),
        "gzip": b"\x1f\x8b\x08\x00" + bytes(m.rng.randrange(256) for _ in range(2000)),
        "pdf": b"%PDF-1.4\n" + bytes(m.rng.randrange(256) for _ in range(2000)),
        "elf": b"\x7fELF\x02\x01\x01" + bytes(9) + bytes(m.rng.randrange(256) for _ in range(999)),
    }
    for label, blob in blobs.items():
        p = m.path(f"binary-{label}", "persons.csv")
        p.write_bytes(blob)
        m.add(f"binary junk ({label})", [p], INIT_ERROR, [])


def encodings(m: _Maker) -> None:
    header, rows, markers = m.rows()
    rows[1][1] = "José Müller"
    text = _csv(header, rows)
    for label, data, expect in (
        ("utf-16-le-bom", b"\xff\xfe" + text.encode("utf-16-le"), ACCEPTED),
        ("utf-16-be-bom", b"\xfe\xff" + text.encode("utf-16-be"), ACCEPTED),
        ("utf-16-no-bom", text.encode("utf-16-le"), INIT_ERROR),
        ("utf-8-bom", b"\xef\xbb\xbf" + text.encode("utf-8"), ACCEPTED),
        ("cp1252", text.encode("cp1252"), ACCEPTED),
        ("utf-8-crlf", text.replace("\n", "\r\n").encode(), ACCEPTED),
        (
            "mixed-utf8-cp1252",
            text.encode() + "Zoë,x,1990-01-13,F,02139,a\n".encode("cp1252"),
            INIT_ERROR,
        ),
        ("utf-32", text.encode("utf-32"), INIT_ERROR),
    ):
        p = m.path(f"encoding-{label}", "persons.csv")
        p.write_bytes(data)
        m.add(f"encoding {label}", [p], expect, markers)


def wrong_names(m: _Maker) -> None:
    header, rows, markers = m.rows()
    book = _xlsx_bytes([("Persons", [header, *rows])])
    for label, data, name in (
        ("workbook named .csv", book, "persons.csv"),
        ("workbook named .txt", book, "persons.txt"),
        ("CSV named .xlsx", _csv(header, rows).encode(), "persons.xlsx"),
        ("old OLE header named .xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "p.xls"),
        ("old OLE header named .xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "p.xlsx"),
    ):
        p = m.path("wrongname-" + label.replace(" ", "-").replace(".", ""), name)
        p.write_bytes(data)
        m.add(label, [p], INIT_ERROR, markers)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr(_entry("persons.csv"), _csv(header, rows))
    p = m.path("wrongname-zip-of-csv", "persons.xlsx")
    p.write_bytes(zipped.getvalue())
    m.add("a ZIP of a CSV named .xlsx", [p], INIT_ERROR, markers)


def broken_workbooks(m: _Maker) -> None:
    header, rows, markers = m.rows()
    book = _xlsx_bytes([("Persons", [header, *rows])])
    for frac in (0.1, 0.5, 0.9, 0.99):
        p = m.path(f"truncated-{int(frac * 100)}", "persons.xlsx")
        p.write_bytes(book[: int(len(book) * frac)])
        m.add(f"truncated workbook ({int(frac * 100)} %)", [p], INIT_ERROR, markers)
    bomb_count = 5_000_100
    entry = b"<si><t>a</t></si>"
    p = m.path("bomb-shared-strings", "persons.xlsx")
    p.write_bytes(
        _raw_xlsx(
            {
                "xl/sharedStrings.xml": _sst([entry] * bomb_count, bomb_count),
                "xl/worksheets/sheet1.xml": _SHEET,
            }
        )
    )
    m.add("shared strings bomb (5 million entries)", [p], INIT_ERROR, [], says="shared strings")
    mark = m.marker()
    long_text = b"<si><t>" + mark.encode() + b"x" * (3 << 20) + b"</t></si>"
    p = m.path("bomb-long-string", "persons.xlsx")
    p.write_bytes(
        _raw_xlsx(
            {
                "xl/sharedStrings.xml": _sst(
                    [
                        b"<si><t>mrn</t></si>",
                        b"<si><t>notes</t></si>",
                        b"<si><t>A1</t></si>",
                        long_text,
                    ],
                    4,
                ),
                "xl/worksheets/sheet1.xml": _SHEET,
            }
        )
    )
    m.add("a 3 MB text in one cell", [p], INIT_ERROR, [mark], says="32,767")
    dtd = (
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "'
        + m.marker().encode()
        + b'">]>'
        + _SHEET[_SHEET.index(b"<worksheet") :]
    )
    p = m.path("sheet-with-dtd", "persons.xlsx")
    p.write_bytes(
        _raw_xlsx(
            {
                "xl/sharedStrings.xml": _sst(
                    [b"<si><t>%s</t></si>" % s for s in (b"mrn", b"notes", b"A1", b"x")], 4
                ),
                "xl/worksheets/sheet1.xml": dtd,
            }
        )
    )
    m.add("a sheet with an entity declaration", [p], INIT_ERROR, [])
    wb = Workbook()
    ws = wb.active
    ws.append(["mrn", "total"])
    for r in rows:
        ws.append([r[0], "=1+1"])  # openpyxl saves formulas without a cached result
    p = m.path("uncached-formulas", "persons.xlsx")
    p.write_bytes(_saved(wb))
    m.add("formulas without a saved result", [p], INIT_ERROR, markers, says="formula")


def sheets(m: _Maker) -> None:
    header, rows, markers = m.rows()
    secret = [["QZXhidden", m.marker()], ["1", m.marker()]]
    p = m.path("hidden-first-sheet", "persons.xlsx")
    p.write_bytes(_xlsx_bytes([("Lookup", secret), ("Persons", [header, *rows])], hidden=0))
    m.add("a hidden first sheet", [p], ACCEPTED, [*markers, secret[0][1], secret[1][1]])
    p = m.path("empty-first-sheet", "persons.xlsx")
    p.write_bytes(_xlsx_bytes([("Cover", []), ("Persons", [header, *rows])]))
    m.add("an empty first sheet", [p], INIT_ERROR, markers, says="empty")
    p = m.path("sheet-named", "persons.xlsx")
    p.write_bytes(_xlsx_bytes([("Cover", [["x"]]), ("Persons", [header, *rows])]))
    m.add("the sheet named with --sheet", [p], ACCEPTED, markers, init_args=("--sheet", "Persons"))
    p = m.path("no-such-sheet", "persons.xlsx")
    p.write_bytes(_xlsx_bytes([("Persons", [header, *rows])]))
    m.add("a sheet that does not exist", [p], INIT_ERROR, markers, init_args=("--sheet", "Nope"))


def header_problems(m: _Maker) -> None:
    for label, change in (
        ("duplicate names", lambda h: [*h[:-1], h[0]]),
        ("blank name", lambda h: [*h[:2], "", *h[3:]]),
        ("blank first name", lambda h: ["", *h[1:]]),
    ):
        header, rows, markers = m.rows()
        p = m.path("header-" + label.replace(" ", "-"), "persons.csv")
        p.write_text(_csv(change(header), rows), encoding="utf-8")
        m.add(f"header with a {label}", [p], INIT_ERROR, markers)
    for sep in (",", ";"):
        header, rows, markers = m.rows()
        rows[3][0] = rows[2][0]
        p = m.path(f"duplicate-keys-{'semicolon' if sep == ';' else 'comma'}", "persons.csv")
        p.write_text(_csv(header, rows, sep), encoding="utf-8")
        m.add(f"duplicate person keys ({sep!r})", [p], INIT_ERROR, markers)


def accepted_oddities(m: _Maker) -> None:
    header, rows, markers = m.rows()
    for r in rows[:4]:
        r[4] = str(int(r[4][1:]))  # a ZIP such as 02139 saved as a number: 2139
    p = m.path("zip-lost-zero", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("ZIPs that lost their leading zero", [p], ACCEPTED, markers)
    for sign in ("=", "+", "@", "-"):
        header, rows, markers = m.rows()
        header = [*header, f"{sign}cmd|' /C calc'!A0"]
        rows = [[*r, f"{sign}SUM(A{i}:B{i})"] for i, r in enumerate(rows, start=2)]
        p = m.path(f"formula-{ord(sign)}", "persons.csv")
        p.write_text(_csv(header, rows), encoding="utf-8")
        m.add(f"formula-like column name and cells ({sign})", [p], ACCEPTED, markers)
    header, rows, markers = m.rows()
    header = [*header, "link"]
    rows = [[*r, f'=HYPERLINK("http://{m.marker().lower()}.example.org")'] for r in rows]
    p = m.path("formula-hyperlink", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("web addresses in formulas", [p], RUN_ERROR, markers, codes=(3,))
    header, rows, markers = m.rows()
    rows[2][5] = "x" * (2 << 20)
    p = m.path("huge-line", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("a 2 MB line", [p], ACCEPTED, markers)
    header, rows, markers = m.rows()
    rows[3][5] = '"line one\nline two, with a comma"'
    p = m.path("quoted-newline", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("a quoted field over two lines", [p], ACCEPTED, markers)
    header, rows, markers = m.rows()
    rows[4][5] = "bell\x07 and \x1b escape"
    p = m.path("control-characters", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("control characters in a cell", [p], ACCEPTED, markers)
    header, rows, markers = m.rows()
    p = m.path("trailing-blank-lines", "persons.csv")
    p.write_text(_csv(header, rows) + "\n\n,,,,,\n\n", encoding="utf-8")
    m.add("trailing blank lines", [p], ACCEPTED, markers)
    header, rows, markers = m.rows()
    p = m.path("cr-only", "persons.csv")
    p.write_text(_csv(header, rows, end="\r"), encoding="utf-8", newline="")
    m.add("old Mac line ends (CR only)", [p], ACCEPTED, markers)
    for sep, label in (("|", "pipe"), (";", "semicolon"), ("\t", "tab")):
        header, rows, markers = m.rows()
        p = m.path(f"delimiter-{label}", "persons.txt")
        p.write_text(_csv(header, rows, sep), encoding="utf-8")
        m.add(f"{label}-delimited", [p], ACCEPTED, markers)
    header, rows, markers = m.rows()
    wide_header = header + [f"lab_{i:03d}" for i in range(120)]
    wide_rows = [r + [str(m.rng.randint(1, 99)) for _ in range(120)] for r in rows]
    p = m.path("wide", "persons.csv")
    p.write_text(_csv(wide_header, wide_rows), encoding="utf-8")
    m.add("126 columns", [p], ACCEPTED, markers)
    header, rows, markers = m.rows()
    p = m.path("long-header", "persons.csv")
    p.write_text(_csv([*header[:-1], "c" * 5000], rows), encoding="utf-8")
    # the unnamed comments column (unique codes in text) is released, and the gate's
    # text scan refuses it
    m.add("a 5,000-character column name", [p], RUN_ERROR, markers, codes=(3,))
    header, rows, markers = m.rows()
    p = m.path("xlsx-plain", "persons.xlsx")
    p.write_bytes(_xlsx_bytes([("Persons", [header, *rows])]))
    m.add("a plain workbook", [p], ACCEPTED, markers)
    header, rows, markers = m.rows()
    xrows: list[list[object]] = [[*r[:4], int(r[4]), r[5]] for r in rows]
    p = m.path("xlsx-numeric-zip", "persons.xlsx")
    p.write_bytes(_xlsx_bytes([("Persons", [header, *xrows])]))
    m.add("a workbook with ZIPs as numbers", [p], ACCEPTED, markers)


def bad_dates(m: _Maker) -> None:
    header, rows, markers = m.rows()
    for r in rows[::2]:
        y, mo, d = r[2].split("-")
        r[2] = f"{d}/{mo}/{y}"
    p = m.path("dates-mixed", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("birth dates in two formats", [p], RUN_ERROR, markers, says="date")
    header, rows, markers = m.rows()
    for r in rows:
        y, mo, _ = r[2].split("-")
        r[2] = f"{int(mo):02d}/{m.rng.randint(1, 12):02d}/{y}"
    p = m.path("dates-ambiguous", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("birth dates month/day or day/month", [p], RUN_ERROR, markers, says="month/day")
    header, rows, markers = m.rows()
    rows[5][2] = "2021-02-30"
    p = m.path("dates-impossible", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("an impossible birth date", [p], RUN_ERROR, markers)
    header, rows, markers = m.rows()
    rows[5][2] = m.marker()
    markers.append(rows[5][2])
    p = m.path("dates-text", "persons.csv")
    p.write_text(_csv(header, rows), encoding="utf-8")
    m.add("a word in a date column", [p], RUN_ERROR, markers)


def event_tables(m: _Maker) -> None:
    header, rows, markers = m.rows()
    person = m.path("events-no-key", "persons.csv")
    person.write_text(_csv(header, rows), encoding="utf-8")
    ev = m.path("events-no-key", "visits.csv")
    ev.write_text(_csv(["visit_code", "note"], [[m.marker(), "x"] for _ in rows]), "utf-8")
    m.add(
        "an event table without the person key",
        [person, ev],
        INIT_ERROR,
        markers,
        codes=(2,),  # a usage question: say which column with --key
        named="visits.csv",
    )
    header, rows, markers = m.rows()
    person = m.path("events-orphans", "persons.csv")
    person.write_text(_csv(header, rows), encoding="utf-8")
    orphan = m.marker()
    ev = m.path("events-orphans", "visits.csv")
    ev_rows = [[r[0], "2020-01-02"] for r in rows] + [[orphan, "2020-01-03"]] * 3
    ev.write_text(_csv(["mrn", "visit_date"], ev_rows), "utf-8")
    m.add(
        "event rows of unknown persons",
        [person, ev],
        INIT_ERROR,
        [*markers, orphan],
        named="visits.csv",
    )
    header, rows, markers = m.rows()
    person = m.path("events-twice", "persons.csv")
    person.write_text(_csv(header, rows), encoding="utf-8")
    m.add("the same file twice", [person, person], INIT_ERROR, markers, codes=(2,), says="twice")
    header, rows, markers = m.rows()
    person = m.path("events-headerless", "persons.csv")
    person.write_text(_csv(header, rows), encoding="utf-8")
    ev = m.path("events-headerless", "visits.csv")
    ev.write_text(
        _csv([rows[0][0], "2020-01-02"], [[r[0], "2020-01-02"] for r in rows[1:]]), "utf-8"
    )
    m.add("a headerless event table", [person, ev], INIT_ERROR, markers, named="visits.csv")
    header, rows, markers = m.rows()
    person = m.path("events-ok", "persons.csv")
    person.write_text(_csv(header, rows), encoding="utf-8")
    ev = m.path("events-ok", "visits.csv")
    ev.write_text(_csv(["mrn", "visit_date"], [[r[0], "2020-01-02"] for r in rows]), "utf-8")
    m.add("a person table and an event table", [person, ev], ACCEPTED, markers)


def missing_paths(m: _Maker) -> None:
    folder = m.path("directory-as-file", "persons.csv")
    folder.mkdir()
    m.add("a folder named like a CSV", [folder], INIT_ERROR, [])
    m.add("a file that does not exist", [m.path("missing", "persons.csv")], INIT_ERROR, [])


KINDS: tuple[Callable[[_Maker], None], ...] = (
    empty_files,
    headerless,
    header_only,
    ragged,
    quotes,
    nul_and_binary,
    encodings,
    wrong_names,
    broken_workbooks,
    sheets,
    header_problems,
    accepted_oddities,
    bad_dates,
    event_tables,
    missing_paths,
)


def generate(folder: Path, seed: int = SEED) -> list[Case]:
    """Write the whole corpus under ``folder`` (same seed, same files) and list it."""
    maker = _Maker(Path(folder), random.Random(seed))
    for kind in KINDS:
        kind(maker)
    return maker.cases


if __name__ == "__main__":  # pragma: no cover - a manual aid
    cases = generate(Path(sys.argv[1]))
    for expect in (INIT_ERROR, RUN_ERROR, ACCEPTED):
        print(f"{expect}: {sum(c.expect == expect for c in cases)}")
    print(f"{len(cases)} cases")
