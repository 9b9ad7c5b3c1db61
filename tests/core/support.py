"""Small builders the core tests share: text frames and loaded tables made in memory."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from deid_desktop.core.model import ColumnClass, LoadedTable, LoadReport

D, Q, DT, FT, CL = (
    ColumnClass.DIRECT,
    ColumnClass.QUASI,
    ColumnClass.DATE,
    ColumnClass.FREE_TEXT,
    ColumnClass.CLINICAL,
)
TEXT = pd.StringDtype("pyarrow")


def sha(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (to compare outputs byte for byte)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def text_frame(columns: dict[str, list[str | None]]) -> pd.DataFrame:
    """A frame of text columns (pyarrow strings), like a loaded file."""
    return pd.DataFrame({k: pd.array(v, dtype=TEXT) for k, v in columns.items()})


def loaded(name: str, frame: pd.DataFrame) -> LoadedTable:
    """``frame`` as the loader would return table ``name`` (read from ``name.csv``)."""
    return LoadedTable(
        name=name,
        path=Path(f"{name}.csv"),
        sha256="0" * 64,
        frame=frame,
        report=LoadReport(f"{name}.csv", len(frame), len(frame.columns)),
    )


SYNTHEA_TABLES = (
    ("patients", "Id"),
    ("encounters", "PATIENT"),
    ("conditions", "PATIENT"),
    ("medications", "PATIENT"),
)


def synthea_project(src: Path, folder: Path, pathway: object) -> tuple:
    """Synthea unmc_crane_2023 copied verbatim into ``folder``, auto-tagged, saved and
    loaded through the engine: (project, extract). Ages at a fixed reference date (Synthea
    has no age column and no index date)."""
    import uuid

    from deid_desktop.core import engine
    from deid_desktop.core.io import read_table
    from deid_desktop.core.model import ExportMeta, Project, TableSpec, TransformOptions
    from deid_desktop.core.project import save_project, store_path
    from deid_desktop.core.tagging import suggest_tags
    from deid_desktop.core.tagging.retag import keyed_tags

    project_path = folder / "synthea.deid.json"
    specs = []
    for name, key in SYNTHEA_TABLES:
        (folder / f"{name}.csv").write_bytes((src / f"{name}.csv").read_bytes())
        table = read_table(folder / f"{name}.csv")
        tags = keyed_tags(suggest_tags(table.frame, table=name, is_person=name == "patients"), key)
        person = name == "patients"
        path = store_path(table.path, project_path)
        specs.append(TableSpec(name, path, table.sha256, key, person, tags, rows=len(table.frame)))
    project = Project(
        uuid.uuid4().hex,
        "synthea",
        tuple(specs),
        pathway=pathway,  # type: ignore[arg-type]
        transform=TransformOptions(age_reference="2024-01-01"),
        export=ExportMeta(dua="DUA-TEST-1"),
    )
    save_project(project, project_path)
    project, _ = engine.open_project(project_path)
    return project, engine.load(project, project_path)


def leak_into_written_file(monkeypatch: object, text: str, row: int = 3) -> None:
    """Make the export write ``text`` into row ``row`` of the demo's kept clinical column
    ``nyha_class`` (one the gate never scanned) just before writing: a leak only the
    read-back of the written files can catch."""
    from deid_desktop.core.export import release as release_mod

    real = release_mod.neutralise_frame

    def leaky(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
        safe, n = real(frame)
        if "nyha_class" in safe.columns:
            safe = safe.copy()
            safe["nyha_class"] = safe["nyha_class"].astype(object)
            safe.iloc[row, safe.columns.get_loc("nyha_class")] = text
        return safe, n

    monkeypatch.setattr(release_mod, "neutralise_frame", leaky)  # type: ignore[attr-defined]
