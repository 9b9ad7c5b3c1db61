"""The ZIP3 allow-list: which three-digit ZIP prefixes Safe Harbor may keep.

45 CFR 164.514(b)(2)(i)(B): the first three ZIP digits may stay only where the area
formed by all ZIP codes sharing them holds more than 20,000 people; otherwise they
become "000". ZCTAs stand in for ZIP codes, as in the HHS guidance.

The table is data with provenance, never typed into code. One derivation serves both
the shipped file (``resources/zip3/derive.py`` builds it from the 2020 Census DHC P1
table) and a newer Census file the user loads (:func:`load_census_file`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.errors import InputError
from deid_desktop.core.facts.digits import five_digit_values
from deid_desktop.core.facts.text import arrow_text, trim_whitespace
from deid_desktop.core.resources import resource

#: A prefix is kept only if its population is MORE than this.
POPULATION_THRESHOLD = 20_000
#: What a prefix that may not be kept becomes.
ZIP3_UNKNOWN = "000"

BUNDLED_CSV = "zip3_population_2020.csv"
BUNDLED_META = "zip3_population_2020.json"
TABLE_COLUMNS = ("zip3", "population", "zcta_count")

_POP_COLUMNS = ("P1_001N", "P001001")  # 2020 (PL, DHC) / 2010 SF1 total population
_PLAIN_ZCTA_COLUMNS = ("zcta", "zcta5", "zcta5ce20", "zcta5ce10")
_PLAIN_POP_COLUMNS = ("population", "pop", "total_population")
_CENSUS_NAME = re.compile(r"^DECENNIAL([A-Z0-9]+?)((?:19|20)\d{2})\.([A-Z0-9]+)", re.IGNORECASE)
_ZIP_SHAPE = r"^\d{5}(?:-?\d{4})?$"


@dataclass(frozen=True)
class Zip3Table:
    """Population by ZIP3 prefix, with where it came from.

    ``vintage`` is a plain label ("2020 Census DHC P1", "user file pop.csv") that goes
    into the export record; ``source`` names the file and its SHA-256.
    """

    vintage: str
    source: str
    populations: dict[str, int]
    zcta_counts: dict[str, int] = field(default_factory=dict)
    _allowed: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kept = frozenset(z for z, p in self.populations.items() if p > POPULATION_THRESHOLD)
        object.__setattr__(self, "_allowed", kept)

    def allowed(self, zip3: str) -> bool:
        """True if the prefix is in the table with more than 20,000 people."""
        return zip3 in self._allowed

    @property
    def allowed_prefixes(self) -> frozenset[str]:
        return self._allowed

    @property
    def restricted(self) -> tuple[str, ...]:
        """Prefixes in the table with 20,000 people or fewer, sorted."""
        return tuple(sorted(z for z, p in self.populations.items() if p <= POPULATION_THRESHOLD))

    @property
    def total_population(self) -> int:
        return sum(self.populations.values())

    def to_frame(self) -> pd.DataFrame:
        """``zip3,population,zcta_count`` sorted by prefix (the shipped file's layout)."""
        zips = sorted(self.populations)
        return pd.DataFrame(
            {
                "zip3": zips,
                "population": [self.populations[z] for z in zips],
                "zcta_count": [self.zcta_counts.get(z, 0) for z in zips],
            }
        )


# --------------------------------------------------------------------------- derivation


def derive_zip3(zcta: pd.DataFrame) -> pd.DataFrame:
    """Sum population by ZIP3 over ZCTAs (columns ``zcta``, ``population``).

    Returns ``zip3,population,zcta_count`` sorted by prefix. This is the only place
    the derivation is written; the shipped file and a user's file both go through it.
    """
    zip3 = zcta["zcta"].astype(str).str[:3]
    grouped = (
        pd.DataFrame({"zip3": zip3, "population": zcta["population"].astype("int64")})
        .groupby("zip3", dropna=False, sort=True)["population"]
        .agg(population="sum", zcta_count="size")
        .reset_index()
    )
    grouped["zip3"] = grouped["zip3"].astype(str)
    return grouped[list(TABLE_COLUMNS)]


def table_from_zcta(zcta: pd.DataFrame, *, vintage: str, source: str) -> Zip3Table:
    derived = derive_zip3(zcta)
    return Zip3Table(
        vintage=vintage,
        source=source,
        populations=dict(zip(derived["zip3"], derived["population"].astype(int), strict=True)),
        zcta_counts=dict(zip(derived["zip3"], derived["zcta_count"].astype(int), strict=True)),
    )


# --------------------------------------------------------------------------- reading


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _read_text_csv(path: Path) -> pd.DataFrame:
    """Every field as text (leading zeros survive); BOM and quotes handled by the reader."""
    name = path.name
    try:
        frame = pd.read_csv(
            path,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            encoding="utf-8-sig",
            skip_blank_lines=True,
        )
    except FileNotFoundError as exc:
        raise InputError(
            "The population file was not found", file=name, hint="Choose the file again."
        ) from exc
    except UnicodeDecodeError as exc:
        raise InputError(
            "The population file is not UTF-8 text",
            file=name,
            hint="Download the CSV from data.census.gov again, or save it as UTF-8.",
        ) from exc
    except pd.errors.EmptyDataError as exc:
        raise InputError("The population file is empty", file=name) from exc
    except pd.errors.ParserError as exc:
        found = re.search(r"line (\d+)", str(exc))
        raise InputError(
            "The population file has a line with the wrong number of fields",
            file=name,
            row=int(found.group(1)) if found else None,
            hint="Check the file is an unedited CSV export.",
        ) from exc
    except (OSError, csv.Error) as exc:
        raise InputError("The population file cannot be read", file=name) from exc
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def _find(columns: list[str], wanted: tuple[str, ...]) -> str | None:
    lowered = {c.lower(): c for c in columns}
    for w in wanted:
        if w.lower() in lowered:
            return lowered[w.lower()]
    return None


def _census_vintage(name: str, pop_col: str) -> str:
    found = _CENSUS_NAME.match(name)
    if found:
        product, year, table = found.groups()
        return f"{year} Census {product.upper()} {table.upper()}"
    decade = "2020" if pop_col.upper() == "P1_001N" else "2010 or earlier"
    return f"{decade} Census P1 ({pop_col}), file {name}"


def _first_bad_line(mask: pd.Series, frame: pd.DataFrame) -> int:
    """1-based file line of the first True in ``mask`` (header = line 1)."""
    pos = int(np.flatnonzero(mask.to_numpy())[0])
    return int(frame.index[pos]) + 2


def read_zcta_populations(path: Path) -> tuple[pd.DataFrame, str]:
    """Read a Census ZCTA population file: ``(frame[zcta, population], vintage)``.

    Layouts: the data.census.gov CSV (``GEO_ID,NAME,P1_001N`` or the 2010 ``P001001``,
    with its label row on line 2; BOM, quotes and a trailing empty column tolerated),
    or a plain ``zcta,population`` CSV. Problems raise :class:`InputError` with the line.
    """
    path = Path(path)
    name = path.name
    raw = _read_text_csv(path)
    columns = list(raw.columns)
    geo_col = _find(columns, ("GEO_ID",))
    pop_col = _find(columns, _POP_COLUMNS)
    if geo_col and pop_col:
        geo = raw[geo_col].str.strip()
        if len(raw) and not re.search(r"\d{5}$", geo.iloc[0]):
            raw, geo = raw.iloc[1:], geo.iloc[1:]  # the label row ("Geography", ...)
        zcta = geo.str[-5:]
        bad = ~geo.str.contains(r"US\d{5}$", regex=True)
        if bad.any():
            raise InputError(
                f"{int(bad.sum())} GEO_ID values are not 5-digit ZCTA identifiers",
                file=name,
                column=geo_col,
                row=_first_bad_line(bad, raw),
                hint="Export table P1 for the geography 'All 5-digit ZIP Code Tabulation Areas'.",
            )
        population = raw[pop_col].str.strip()
        vintage = _census_vintage(name, pop_col)
        zcta_name = geo_col
    else:
        z_col = _find(columns, _PLAIN_ZCTA_COLUMNS)
        p_col = _find(columns, _PLAIN_POP_COLUMNS)
        if not (z_col and p_col):
            raise InputError(
                "The population file has neither the Census layout (GEO_ID and P1_001N "
                "or P001001) nor the plain layout (zcta and population columns)",
                file=name,
                row=1,
                hint="Use the CSV exported from data.census.gov, or a CSV with the "
                "header 'zcta,population'.",
            )
        zcta = raw[z_col].str.strip()
        short = zcta.str.fullmatch(r"\d{3,4}")
        zcta = zcta.where(~short, zcta.str.zfill(5))  # leading zeros lost by a spreadsheet
        bad = ~zcta.str.fullmatch(r"\d{5}")
        if bad.any():
            raise InputError(
                f"{int(bad.sum())} ZCTA values are not 5-digit codes",
                file=name,
                column=z_col,
                row=_first_bad_line(bad, raw),
                hint="Each row needs a 5-digit ZCTA code.",
            )
        population = raw[p_col].str.strip().str.replace(",", "", regex=False)
        vintage = f"user file {name}"
        pop_col, zcta_name = p_col, z_col
    if len(zcta) == 0:
        raise InputError("The population file has no data rows", file=name)
    bad_pop = ~population.str.fullmatch(r"\d+")
    if bad_pop.any():
        raise InputError(
            f"{int(bad_pop.sum())} population values are not whole numbers",
            file=name,
            column=pop_col,
            row=_first_bad_line(bad_pop, raw),
            hint="Population must be a count of people, e.g. 17242.",
        )
    dup = zcta.duplicated()
    if dup.any():
        raise InputError(
            f"{int(dup.sum())} ZCTA codes appear more than once",
            file=name,
            column=zcta_name,
            row=_first_bad_line(dup, raw),
            hint="Each ZCTA may appear once.",
        )
    frame = pd.DataFrame(
        {"zcta": zcta.to_numpy(dtype=object), "population": population.astype("int64").to_numpy()}
    )
    return frame, vintage


def load_census_file(path: Path | str) -> Zip3Table:
    """A user's Census ZCTA population file, derived exactly as the shipped table."""
    path = Path(path)
    zcta, vintage = read_zcta_populations(path)
    return table_from_zcta(zcta, vintage=vintage, source=f"{path.name} sha256:{sha256_of(path)}")


def load_zip3_csv(path: Path, *, vintage: str, source: str) -> Zip3Table:
    """Read a derived ``zip3,population,zcta_count`` file (the shipped layout)."""
    raw = _read_text_csv(path)
    if list(raw.columns)[:2] != ["zip3", "population"]:
        raise InputError("Not a zip3,population table", file=path.name, row=1)
    bad = ~raw["zip3"].str.fullmatch(r"\d{3}") | ~raw["population"].str.fullmatch(r"\d+")
    if bad.any():
        raise InputError(
            f"{int(bad.sum())} rows are not a 3-digit prefix with a whole-number population",
            file=path.name,
            row=_first_bad_line(bad, raw),
        )
    counts = raw["zcta_count"] if "zcta_count" in raw.columns else pd.Series("0", index=raw.index)
    return Zip3Table(
        vintage=vintage,
        source=source,
        populations=dict(zip(raw["zip3"], raw["population"].astype(int), strict=True)),
        zcta_counts=dict(zip(raw["zip3"], counts.astype(int), strict=True)),
    )


@lru_cache(maxsize=1)
def load_bundled_zip3() -> Zip3Table:
    """The shipped table (2020 Census DHC P1), with its vintage from the metadata file."""
    meta = json.loads(resource("zip3", BUNDLED_META).read_text(encoding="utf-8"))
    return load_zip3_csv(
        resource("zip3", BUNDLED_CSV),
        vintage=str(meta["vintage"]),
        source=f"{meta['source_file']} sha256:{meta['source_sha256']}",
    )


def load_table_for(setting: str | None) -> Zip3Table:
    """The table a project asks for: ``None`` = bundled, else a Census file path."""
    return load_bundled_zip3() if not setting else load_census_file(Path(setting))


# --------------------------------------------------------------------------- applying


def zip3_or_000(zips: pd.Series, table: Zip3Table) -> pd.Series:
    """First three digits of each valid 5-digit ZIP (or ZIP+4) if allowed, else "000".

    Restricted prefixes, prefixes absent from the table (PO-box, military, unique
    ZIPs), malformed and missing values all become "000". Vectorised; index kept.
    """
    text = trim_whitespace(arrow_text(zips.astype(pd.StringDtype("pyarrow"))))
    if five_digit_values(text):  # every filled value a plain ZIP: the shape holds
        valid = pc.is_valid(text)
    else:
        valid = pc.fill_null(pc.match_substring_regex(text, _ZIP_SHAPE), False)
    prefix = pc.utf8_slice_codeunits(text, 0, 3)
    allowed = pa.array(sorted(table.allowed_prefixes), type=pa.large_string())
    keep = pc.and_(valid, pc.is_in(prefix, value_set=allowed, skip_nulls=True))
    out = pc.if_else(keep, prefix, pa.scalar(ZIP3_UNKNOWN, pa.large_string()))
    return pd.Series(
        pd.StringDtype("pyarrow").__from_arrow__(pa.chunked_array([out])),
        index=zips.index,
        name=zips.name,
        copy=False,
    )
