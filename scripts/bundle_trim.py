"""Trims applied to the built one-folder bundle on Linux (called from build.spec).

Each trim needs a tool (``patchelf``, ``icupkg``, binutils' ``as``/``ld``/``nm``/``readelf``);
when one is missing the trim is skipped with a message and the bundle keeps the full
files (bigger, not broken). ``bash scripts/package`` installs the tools.

1. pyarrow's extra libraries. Every pyarrow extension lists all of Arrow's libraries as
   NEEDED, but the modules the app imports (``lib``, ``_compute``, ``_csv``; checked by
   running the self-test and ``deid run``) use no symbol from Parquet, Dataset, Acero or
   Substrait (checked with ``nm -D``). ``prune_pyarrow_needed`` removes those NEEDED entries
   with patchelf; build.spec leaves the four libraries (~18 MB) and the Python modules that
   would load them out of the bundle.
2. ICU's data (``libicudata.so.73``, 32 MB) shipped with Qt. Qt Core calls ICU only for
   case mapping, collation (QCollator), text codecs (QStringConverter) and time-zone
   display names. ``slim_icu_data`` rebuilds the library keeping the root and English
   collation, the converter alias table and the small (< 40 KB) converters, and the core
   locale tables: ~3 MB. What is lost: locale-tailored collation other than English,
   the CJK multi-byte codecs inside Qt (the app reads files with Python, not Qt), and
   localized time-zone names. Case mapping and normalization data live in ICU's code.
3. ``missing_needed`` lists every NEEDED library that neither the bundle nor the system
   provides: scripts/package fails the build on any.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

#: Arrow libraries no imported pyarrow module uses (see the module doc).
ARROW_UNUSED_LIBS = ("libarrow_substrait", "libarrow_dataset", "libarrow_acero", "libparquet")
#: pyarrow modules that would load them: excluded from the bundle with them.
ARROW_UNUSED_MODULES = (
    "pyarrow.parquet", "pyarrow._parquet", "pyarrow.dataset", "pyarrow._dataset",
    "pyarrow._dataset_parquet", "pyarrow.acero", "pyarrow._acero", "pyarrow.substrait",
    "pyarrow._substrait",
)  # fmt: skip

#: ICU data items kept at the top level of the package (besides *.nrm, *.spp, small *.cnv).
ICU_KEEP_TOP = {
    "cnvalias.icu", "ulayout.icu", "root.res", "res_index.res", "pool.res", "supplementalData.res",
    "likelySubtags.res", "metadata.res", "zoneinfo64.res", "timezoneTypes.res",
    "windowsZones.res", "metaZones.res", "plurals.res", "pluralRanges.res",
    "numberingSystems.res", "icuver.res", "icustd.res", "keyTypeData.res", "dayPeriods.res",
    "genderList.res", "grammaticalFeatures.res", "currencyNumericCodes.res", "units.res",
}  # fmt: skip
ICU_KEEP_COLL = {"root.res", "ucadata.icu", "res_index.res"}
ICU_SMALL_CNV = 40_000


def tools(*names: str) -> bool:
    return all(shutil.which(n) for n in names)


def _run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


# -- pyarrow ----------------------------------------------------------------------------
def needed(lib: Path) -> list[str]:
    out = _run("readelf", "-dW", str(lib))
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def prune_pyarrow_needed(internal: Path, unused: Iterable[str] = ARROW_UNUSED_LIBS) -> int:
    """Remove NEEDED entries naming ``unused`` libraries from pyarrow's shipped binaries;
    return how many entries were removed."""
    removed = 0
    for lib in sorted((internal / "pyarrow").glob("*.so*")):
        if lib.is_symlink() or not lib.is_file():
            continue
        drop = [n for n in needed(lib) if n.split(".so")[0] in unused]
        for name in drop:
            _run("patchelf", "--remove-needed", name, str(lib))
            removed += 1
    return removed


# -- ICU data ---------------------------------------------------------------------------
def _symbol_bytes(lib: Path, pattern: str) -> tuple[str, bytes]:
    """(name, contents) of the one exported data symbol matching ``pattern``."""
    syms = [
        line.split()
        for line in _run("nm", "-D", "-S", "--defined-only", str(lib)).splitlines()
        if len(line.split()) == 4 and re.fullmatch(pattern, line.split()[3])
    ]
    if len(syms) != 1:
        raise RuntimeError(f"{lib.name}: expected one symbol matching {pattern}")
    addr, size, _kind, name = syms[0]
    vaddr, length = int(addr, 16), int(size, 16)
    for line in _run("readelf", "-lW", str(lib)).splitlines():
        parts = line.split()
        if parts[:1] == ["LOAD"]:
            offset, start, filesz = int(parts[1], 16), int(parts[2], 16), int(parts[4], 16)
            if start <= vaddr and vaddr + length <= start + filesz:
                data = lib.read_bytes()[offset + vaddr - start : offset + vaddr - start + length]
                return name, data
    raise RuntimeError(f"{lib.name}: {name} lies in no loaded segment")


def icu_keep(item: str, size: int) -> bool:
    folder, _, name = item.rpartition("/")
    if folder == "coll":
        return name in ICU_KEEP_COLL or name.startswith("en")
    if folder:
        return False  # lang, region, zone, curr, unit, rbnf, translit, brkitr
    if name.endswith((".nrm", ".spp")):
        return True
    if name.endswith(".cnv"):
        return size <= ICU_SMALL_CNV
    return name in ICU_KEEP_TOP or (name.startswith("en") and name.endswith(".res"))


def slim_icu_data(lib: Path) -> tuple[int, int]:
    """Rebuild ``lib`` (libicudata.so.NN) with a reduced data package, in place.

    Returns (bytes before, bytes after)."""
    before = lib.stat().st_size
    symbol, blob = _symbol_bytes(lib, r"icudt\d+_dat")
    package = symbol.removesuffix("_dat") + "l"  # icudt73l: little-endian package name
    dynamic = _run("readelf", "-dW", str(lib))
    soname = re.findall(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", dynamic)
    with tempfile.TemporaryDirectory(prefix="deid-icu-") as tmp:
        work = Path(tmp)
        (work / "in").mkdir()
        (work / "out").mkdir()
        src = work / "in" / f"{package}.dat"
        src.write_bytes(blob)
        items = [x.strip() for x in _run("icupkg", "-l", str(src)).splitlines() if x.strip()]
        extracted = work / "items"
        extracted.mkdir()
        _run("icupkg", "-x", "*", "-d", str(extracted), str(src))
        remove = {i for i in items if not icu_keep(i, (extracted / i).stat().st_size)}
        out = work / "out" / f"{package}.dat"
        for _ in range(20):  # drop what depends on a dropped item, until consistent
            (work / "remove.lst").write_text("\n".join(sorted(remove)) + "\n")
            out.unlink(missing_ok=True)
            done = subprocess.run(
                ["icupkg", "-r", str(work / "remove.lst"), str(src), str(out)],
                capture_output=True,
                text=True,
            )
            if done.returncode == 0 and out.exists():
                break
            dependents = set(re.findall(r"^Item (\S+) depends on missing", done.stderr, re.M))
            if not dependents - remove:
                raise RuntimeError(f"icupkg failed: {done.stderr.strip()[:300]}")
            remove |= dependents
        else:
            raise RuntimeError("icupkg: could not make a consistent package")
        asm = work / "data.s"
        asm.write_text(
            "    .section .rodata\n"
            f"    .globl {symbol}\n"
            f"    .type {symbol}, @object\n"
            "    .balign 16\n"
            f"{symbol}:\n"
            f'    .incbin "{out}"\n'
            f"    .size {symbol}, . - {symbol}\n"
            '    .section .note.GNU-stack,"",@progbits\n'
        )
        _run("as", "-o", str(work / "data.o"), str(asm))
        new = work / lib.name
        name = soname[0] if soname else lib.name
        _run("ld", "-shared", "-soname", name, "-o", str(new), str(work / "data.o"))
        shutil.copyfile(new, lib)
    return before, lib.stat().st_size


# -- checks -----------------------------------------------------------------------------
def _system_libs() -> set[str]:
    out = _run("ldconfig", "-p") if shutil.which("ldconfig") else ""
    return {line.split()[0] for line in out.splitlines()[1:] if line.strip()}


def elf_files(folder: Path) -> list[Path]:
    found = []
    for p in folder.rglob("*"):
        if p.is_file() and not p.is_symlink():
            with open(p, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    found.append(p)
    return sorted(found)


def missing_needed(folder: Path, ignore: Iterable[str] = ()) -> list[str]:
    """``file: lib`` for every NEEDED library found neither in the bundle nor on the system.

    ``ignore`` (glob patterns) names libraries the bundle relies on the system for."""
    shipped = {p.name for p in folder.rglob("*")}
    system = _system_libs()
    problems = []
    for elf in elf_files(folder):
        for lib in needed(elf):
            if lib in shipped or lib in system or any(fnmatch.fnmatch(lib, g) for g in ignore):
                continue
            problems.append(f"{elf.relative_to(folder)}: {lib}")
    return problems


if __name__ == "__main__":  # python scripts/bundle_trim.py dist/deid-desktop/_internal
    import sys

    for problem in missing_needed(Path(sys.argv[1])):
        print(problem)
