"""What the bundle is made of: the SBOM, the licence file and the .deb's dependencies.

Run by scripts/package with the build venv's Python (its installed distributions are
the ones PyInstaller bundled from):

    .venv/bin/python scripts/package_meta.py sbom RAW.cdx.json OUT.cdx.json --commit C
    .venv/bin/python scripts/package_meta.py licenses OUT_FILE
    .venv/bin/python scripts/package_meta.py depends

Common options: --manifest (build/build/bundle-manifest.tsv, written by build.spec: every
binary, data file and module in the bundle with the path it was copied from) and
--bundle (dist/deid-desktop).

Each bundled file is traced to where it came from: a Python distribution (through the
distributions' RECORD files), the Python interpreter and its standard library, a Debian
package (``dpkg -S``), or this project. The SBOM is cyclonedx-py's listing of the build
environment (``cyclonedx-py environment``), cut down to the distributions actually in the
bundle, plus components for CPython, PyInstaller's bootloader, every shared library
copied from a Debian package (version from dpkg) and every native library vendored
inside a wheel. THIRD_PARTY_LICENSES holds the full licence texts of all of them.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LICENSE_FILE = re.compile(r"(LICEN[CS]E|COPYING|NOTICE|AUTHORS|COPYRIGHT)", re.I)
COMMON_LICENSES = Path("/usr/share/common-licenses")
#: the glibc family: the .deb depends on libc6, the bundle never ships them
GLIBC = re.compile(r"^(libc|libm|libdl|libpthread|librt|libutil|libresolv|ld-linux[-\w]*)\.so")
#: needed only for a real X11 window (not the command line or --selftest offscreen), and
#: not on the build machine: the .deb recommends them
X11_ONLY = {
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Origins:
    """Where the bundle's files came from."""

    dists: dict[str, md.Distribution] = field(default_factory=dict)  # norm name -> dist
    dist_files: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    debs: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    python: list[str] = field(default_factory=list)
    project: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


@cache
def path_owners() -> dict[Path, md.Distribution]:
    owners: dict[Path, md.Distribution] = {}
    for dist in md.distributions():
        for f in dist.files or []:
            try:
                owners[Path(str(dist.locate_file(f))).resolve()] = dist
            except OSError:
                continue
    return owners


def read_manifest(path: Path) -> list[tuple[str, str, str]]:
    rows: dict[str, tuple[str, str, str]] = {}  # one row per bundle path (two programs)
    for line in path.read_text(encoding="utf-8").splitlines():
        kind, dest, src = [*line.split("\t"), "", ""][:3]
        rows.setdefault(dest, (kind, dest, src))
    return list(rows.values())


def _variants(path: str) -> list[str]:
    """The names dpkg may know a library by (merged /usr: /lib and /usr/lib are one)."""
    out = [path, str(Path(path).resolve())]
    for p in list(out):
        if p.startswith("/usr/lib/"):
            out.append(p.removeprefix("/usr"))
        elif p.startswith("/lib/"):
            out.append("/usr" + p)
    return list(dict.fromkeys(out))


def dpkg_owners(paths: Iterable[str]) -> dict[str, str]:
    """path -> owning Debian package, for those dpkg knows (one dpkg -S call)."""
    paths = list(paths)
    if not paths:
        return {}
    names = sorted({v for p in paths for v in _variants(p)})
    done = subprocess.run(["dpkg", "-S", *names], capture_output=True, text=True)
    owner: dict[str, str] = {}
    for line in done.stdout.splitlines():
        pkgs, sep, where = line.partition(": ")
        if sep and not pkgs.startswith("diversion"):
            owner[where.strip()] = pkgs.split(",")[0].strip().split(":")[0]
    found = {}
    for p in paths:
        pkg = next((owner[v] for v in _variants(p) if v in owner), None)
        if pkg is not None:
            found[p] = pkg
    return found


def dpkg_owner(path: Path) -> str | None:
    return dpkg_owners([str(path)]).get(str(path))


@cache
def trace(manifest: Path) -> Origins:
    origins = Origins()
    owners = path_owners()
    base = Path(sys.base_prefix).resolve()
    rest: list[tuple[str, str]] = []
    for _kind, dest, src in read_manifest(manifest):
        if not src or not Path(src).exists():
            continue
        real = Path(src).resolve()
        dist = owners.get(real)
        if dist is not None and norm(dist.metadata["Name"]) != "deid-desktop":
            key = norm(dist.metadata["Name"])
            origins.dists[key] = dist
            origins.dist_files[key].append(dest)
        elif real.is_relative_to(ROOT):
            origins.project.append(dest)
        elif real.is_relative_to(base):
            origins.python.append(dest)
        else:
            rest.append((dest, src))
    debs = dpkg_owners(src for _dest, src in rest)
    for dest, src in rest:
        if src in debs:
            origins.debs[debs[src]].append(dest)
        else:
            origins.unknown.append(f"{dest} <- {src}")
    return origins


# -- Debian packages ----------------------------------------------------------------
def deb_field(pkg: str, fmt: str) -> str:
    done = subprocess.run(["dpkg-query", "-W", "-f", fmt, pkg], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def deb_copyright(pkg: str) -> Path | None:
    name = pkg.split(":")[0]
    path = Path("/usr/share/doc") / name / "copyright"
    return path if path.exists() else None


def deb_licenses(pkg: str) -> list[str]:
    """The licence names a machine-readable (DEP-5) copyright file declares."""
    path = deb_copyright(pkg)
    if path is None:
        return []
    names = re.findall(r"^License:\s*(\S[^\n]*)$", path.read_text(errors="replace"), re.M)
    return sorted({n.strip() for n in names})


# -- SBOM ---------------------------------------------------------------------------
def sbom(raw_path: Path, out_path: Path, manifest: Path, commit: str) -> None:
    origins = trace(manifest)
    bom = json.loads(raw_path.read_text(encoding="utf-8"))
    main = bom.setdefault("metadata", {}).setdefault("component", {})
    main.setdefault("properties", []).append({"name": "deid:git-commit", "value": commit})
    components = bom.get("components", [])
    kept = [c for c in components if norm(c.get("name", "")) in origins.dists]
    listed = {norm(c["name"]) for c in kept}
    missing = sorted(set(origins.dists) - listed)
    if missing:
        raise SystemExit(f"SBOM: bundled distributions missing from cyclonedx-py: {missing}")
    refs = {c.get("bom-ref") for c in kept}
    root_ref = bom.get("metadata", {}).get("component", {}).get("bom-ref")
    refs.add(root_ref)
    for comp in kept:
        comp.setdefault("properties", []).append(
            {
                "name": "deid:bundled-files",
                "value": str(len(origins.dist_files[norm(comp["name"])])),
            }
        )

    extra: list[dict[str, object]] = []
    py = sys.version_info
    extra.append(
        {
            "type": "library",
            "bom-ref": "cpython",
            "name": "CPython",
            "version": f"{py.major}.{py.minor}.{py.micro}",
            "description": "the Python interpreter (libpython) and standard library",
            "licenses": [{"license": {"id": "PSF-2.0"}}],
            "purl": f"pkg:generic/cpython@{py.major}.{py.minor}.{py.micro}",
        }
    )
    pyi = md.distribution("pyinstaller")
    extra.append(
        {
            "type": "library",
            "bom-ref": "pyinstaller-bootloader",
            "name": "PyInstaller bootloader",
            "version": pyi.version,
            "description": "the deid and deid-desktop executables' start-up code",
            "licenses": [{"expression": "GPL-2.0-or-later WITH Bootloader-exception"}],
            "purl": f"pkg:pypi/pyinstaller@{pyi.version}",
        }
    )
    arch = deb_field("dpkg", "${Architecture}") or "amd64"
    for pkg, files in sorted(origins.debs.items()):
        version = deb_field(pkg, "${Version}")
        lic = deb_licenses(pkg)
        comp: dict[str, object] = {
            "type": "library",
            "bom-ref": f"deb:{pkg}",
            "name": pkg.split(":")[0],
            "version": version,
            "purl": f"pkg:deb/debian/{pkg.split(':')[0]}@{version}?arch={arch}",
            "properties": [{"name": "deid:bundled-file", "value": f} for f in sorted(files)],
        }
        if lic:
            comp["licenses"] = [{"license": {"name": name}} for name in lic]
        extra.append(comp)
    for dest, owner in vendored_libraries(origins):
        dist = origins.dists[owner]
        extra.append(
            {
                "type": "library",
                "bom-ref": f"vendored:{dest}",
                "name": Path(dest).name,
                "version": soname_version(Path(dest).name) or "",
                "description": f"native library shipped inside the {dist.metadata['Name']} "
                f"{dist.version} wheel (its licence files cover it)",
                "properties": [
                    {"name": "deid:bundled-file", "value": dest},
                    {"name": "deid:shipped-in", "value": f"{dist.metadata['Name']} {dist.version}"},
                ],
            }
        )
    for comp in extra:
        if not comp["version"]:
            del comp["version"]
    bom["components"] = kept + extra
    deps = [d for d in bom.get("dependencies", []) if d.get("ref") in refs]
    for d in deps:
        d["dependsOn"] = [r for r in d.get("dependsOn", []) if r in refs]
    for comp in extra:
        deps.append({"ref": comp["bom-ref"], "dependsOn": []})
    root = next((d for d in deps if d.get("ref") == root_ref), None)
    if root is not None:
        root["dependsOn"] = sorted(
            set(root["dependsOn"]) | {c["bom-ref"] for c in kept} | {c["bom-ref"] for c in extra}
        )
    bom["dependencies"] = deps
    out_path.write_text(json.dumps(bom, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(
        f"SBOM: {len(kept)} Python distributions, {len(origins.debs)} Debian packages, "
        f"{len(extra) - 2 - len(origins.debs)} vendored native libraries, CPython, the bootloader"
    )
    if origins.unknown:
        print("SBOM: files of unknown origin:\n  " + "\n  ".join(origins.unknown))


def soname_version(name: str) -> str | None:
    m = re.search(r"\.so\.([\d.]+)$", name)
    return m.group(1) if m else None


def vendored_libraries(origins: Origins) -> list[tuple[str, str]]:
    """(bundle path, distribution) of native libraries a wheel carries (not its own
    extension modules): numpy.libs/*, PySide6/Qt/lib/*, pyarrow/lib*.so*."""
    out = []
    for key, files in origins.dist_files.items():
        for dest in files:
            name = Path(dest).name
            if ".so" in name and name.startswith("lib") and "cpython" not in name:
                out.append((dest, key))
    return sorted(out)


# -- licences -------------------------------------------------------------------------
def dist_license_texts(dist: md.Distribution) -> list[tuple[str, str]]:
    texts = []
    for f in dist.files or []:
        parts = Path(str(f)).parts
        in_meta = parts and parts[0].endswith(".dist-info")
        if in_meta and (LICENSE_FILE.search(f.name) or "licenses" in parts):
            try:
                texts.append((str(f), Path(str(dist.locate_file(f))).read_text(errors="replace")))
            except OSError:
                continue
    return texts


def licenses(out_path: Path, manifest: Path) -> None:
    origins = trace(manifest)
    out: list[str] = []

    def section(title: str, body: Iterable[str]) -> None:
        out.extend(["=" * 78, title, "=" * 78, "", *body, ""])

    section(
        "THIRD-PARTY LICENCES OF THE deid-desktop BUNDLE",
        [
            "The deid-desktop bundle (the .deb, the tarball) contains the components below.",
            "For each: what it is, its version, its declared licence and the full licence",
            "text as its authors ship it. The SBOM (CycloneDX JSON) lists the same.",
            "",
            "Qt and PySide6/Shiboken6 are used under the GNU LGPL version 3. Their shared",
            "libraries are separate files in the bundle (_internal/PySide6/Qt/lib/,",
            "_internal/PySide6/, _internal/shiboken6/) and can be replaced by the user with",
            "compatible builds of the same version (see README: Replacing the Qt libraries).",
            "The texts of the LGPL-3.0 and of the GPL-3.0 it builds on are at the end.",
        ],
    )
    for key in sorted(origins.dists):
        dist = origins.dists[key]
        meta = dist.metadata
        declared = meta.get("License-Expression") or (meta.get("License") or "").split("\n")[0]
        classifiers = [c for c in meta.get_all("Classifier") or [] if c.startswith("License")]
        body = [
            f"Version: {dist.version}",
            f"Declared licence: {declared or ', '.join(classifiers) or 'see below'}",
            f"Home: {meta.get('Home-page') or meta.get('Project-URL') or ''}".rstrip(),
            "",
        ]
        texts = dist_license_texts(dist)
        if key in {"pyside6-essentials", "pyside6-addons", "shiboken6"}:
            body.append("Licence text: LGPL-3.0 (with the GPL-3.0 it refers to) at the end.")
        elif not texts:
            body.append(meta.get("License") or "(no licence file shipped; see the declaration)")
        for name, text in texts:
            body += [f"--- {name} ---", text.rstrip(), ""]
        section(f"Python package: {meta['Name']}", body)

    py = sys.version_info
    lic = Path(sys.base_prefix) / "lib" / f"python{py.major}.{py.minor}" / "LICENSE.txt"
    section(
        f"CPython {py.major}.{py.minor}.{py.micro} (interpreter and standard library)",
        [lic.read_text(errors="replace") if lic.exists() else "PSF-2.0 (LICENSE.txt not found)"],
    )
    pyi = md.distribution("pyinstaller")
    section(
        f"PyInstaller {pyi.version} bootloader (the deid and deid-desktop executables)",
        [text for _n, text in dist_license_texts(pyi)],
    )
    for pkg in sorted(origins.debs):
        path = deb_copyright(pkg)
        section(
            f"Debian package: {pkg} {deb_field(pkg, '${Version}')}",
            [
                "Files: " + ", ".join(sorted(origins.debs[pkg])),
                "",
                path.read_text(errors="replace") if path else "(no copyright file)",
            ],
        )
    for name in ("LGPL-3", "GPL-3"):
        path = COMMON_LICENSES / name
        section(
            f"{name}.0 (Qt, PySide6, Shiboken6)",
            [path.read_text(errors="replace") if path.exists() else f"{name}: text not found"],
        )
    out_path.write_text("\n".join(out), encoding="utf-8")
    print(f"licences: {out_path} ({out_path.stat().st_size / 1e6:.1f} MB)")


# -- .deb dependencies -----------------------------------------------------------------
def depends(bundle: Path) -> None:
    """Depends: and Recommends: for the .deb: the Debian packages providing the libraries
    that the bundle's binaries need and do not ship."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import bundle_trim

    shipped = {p.name for p in bundle.rglob("*")}
    system: dict[str, str] = {}
    for line in subprocess.run(
        ["ldconfig", "-p"], capture_output=True, text=True
    ).stdout.splitlines()[1:]:
        parts = line.split(" => ")
        if len(parts) == 2 and "x86-64" in parts[0]:
            system.setdefault(parts[0].split()[0], parts[1].strip())
    needs: set[str] = set()
    for elf in bundle_trim.elf_files(bundle):
        needs.update(bundle_trim.needed(elf))
    pkgs: set[str] = set()
    recommends = set()
    for lib in sorted(needs - shipped):
        if GLIBC.match(lib):
            continue
        if lib in X11_ONLY:
            recommends.add(X11_ONLY[lib])
            continue
        owner = dpkg_owner(Path(system[lib])) if lib in system else None
        if owner is None:
            raise SystemExit(f"depends: no Debian package provides {lib}")
        pkgs.add(owner.split(":")[0])
    glibc = deb_field("libc6", "${Version}").split("-")[0]
    deps = [f"libc6 (>= {glibc})", *sorted(pkgs - {"libc6"})]
    print("Depends: " + ", ".join(deps))
    print("Recommends: " + ", ".join(sorted(recommends)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["sbom", "licenses", "depends"])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--manifest", type=Path, default=ROOT / "build/build/bundle-manifest.tsv")
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist/deid-desktop")
    parser.add_argument("--commit", default="unknown", help="the build's git commit")
    args = parser.parse_args()
    if args.command == "sbom":
        sbom(args.paths[0], args.paths[1], args.manifest, args.commit)
    elif args.command == "licenses":
        licenses(args.paths[0], args.manifest)
    else:
        depends(args.bundle)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
