"""Geography by values (45 CFR 164.514(b)(2)(i)(B)): no released column holds a
geographic subdivision smaller than a state, whatever its tag.

Safe Harbor and the linkable release remove every street address, city, county,
precinct and geocode (the ZIP is cut to an allowed ZIP3 by its own checks). A column
re-tagged clinical or quasi is released as it is; these checks read what it holds:

* **its name** says place: latitude, longitude, geo(code), coordinates, address,
  street, city, town, county, municipality, village, precinct, borough, parish,
  neighbourhood, census tract, FIPS, birthplace (a column of yes/no flags excepted);
* **coordinates**: decimal degrees (four or more decimals) in nine in ten of its
  distinct values, within -90..90 or -180..180, paired with a second such column of
  the same table (a latitude/longitude pair), or both written in one cell
  ("42.2283, -72.5629");
* **street addresses**: a house number, a capitalised street name and a street word
  (St, Street, Ave, Rd, Blvd, Lane, Dr, Court, Way, Path...), anywhere in a cell;
* **the gazetteer** (``core.scan.gazetteer``: US counties, cities and towns, GeoNames,
  CC BY 4.0): half or more of its distinct values, and at least three of them, name a
  place below state level. A column of diagnoses or common words where one value
  equals a small town's name ("Normal", "Hope") is not enough.

The limited data set may keep town or city, state and ZIP (45 CFR 164.514(e)(2)); it
must still remove "postal address information" other than those, so its gate reads
street addresses only. Outcomes name columns and counts, never a value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from deid_desktop.core.facts.text import STRING
from deid_desktop.core.model import Extract, Pathway, Project, Release
from deid_desktop.core.pathways.limited import lds_keeps, name_words
from deid_desktop.core.verify.base import BLOCKING, Check, Finding, VerifyContext, released_columns

#: Column-name words that say the column holds a place smaller than a state.
PLACE_NAME_WORDS = frozenset(
    {"lat", "latitude", "lon", "lng", "longitude", "geo", "geocode", "geolocation",
     "coordinates", "coordinate", "coord", "coords", "address", "addr", "street", "city",
     "town", "county", "municipality", "village", "precinct", "borough", "parish",
     "neighborhood", "neighbourhood", "tract", "fips", "birthplace", "hometown"}
)  # fmt: skip
_FLAGS = frozenset({"y", "n", "yes", "no", "true", "false", "t", "f", "0", "1", "unknown"})
_DEGREES = r"^\s*[-+]?\d{1,3}\.\d{4,}\s*$"
_PAIR_IN_CELL = r"^\s*\(?\s*[-+]?\d{1,2}\.\d{3,}\s*[,;/ ]\s*[-+]?\d{1,3}\.\d{3,}\s*\)?\s*$"
_STREET_WORDS = (
    "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
    "Terrace|Ter|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Path|Pathway|Trail|Trl|Square|Sq|"
    "Plaza|Plz|Alley|Aly|Route|Rte|Pike|Expressway|Expy|Freeway|Fwy|Loop|Crossing|Xing|"
    "Camp|Burg|Row|Walk|Mews|Grove|Gardens|Manor|Heights|Hts|Landing|Junction|Jct|"
    "Station|Estates?|Ridge|Run|Bend|Hollow|Fork|Crescent|Close|Parade|Arcade|Orchard|Rue|"
    "Highlands|Forge|Glen|Throughway|Branch|View|Wall|Byway|Annex|Mission|Fort|"
    "Trafficway|Flat|Vista|Stravenue|Mill|Bay|Esplanade|Dale|Skyway|Green|Extension|"
    "Divide|Knoll|Ville|Haven|Underpass|Mall|Center|Rapid|Gate|Ferry|Dam|Harbor|Park|"
    "Loaf|Meadows?|Wynd|Village|Quay|Trace|Viaduct|Overpass|Well|Bridge|Key|Port|Track|"
    "Crossroad|Corner|Lodge|Ramp|Course|Gateway|Bypass|Approach|Vale|Passage|Common|"
    "Tunnel|Lock|Neck|Promenade|Union|Ranch|Spur|Light|Frontage|Brook|Trailer|Club|Rest"
)
#: A house number, one to four capitalised words, a street word (case as written).
STREET_ADDRESS = (
    r"(?:^|[^\w/.-])\d{1,6}[A-Za-z]?\s+(?:[NSEW]\.?\s+)?(?:[A-Z][A-Za-z'.-]*\s+){1,4}"
    rf"(?:{_STREET_WORDS})\.?(?:[^\w]|$)"
)
#: Distinct values read against the gazetteer per column (the most frequent first).
GAZETTEER_SAMPLE = 5_000
PLACE_SHARE = 0.5
MIN_PLACES = 3
COORDINATE_SHARE = 0.9


def names_a_place(column: str) -> bool:
    """Whether a column's name says place below state level (``LAT``, ``home_city``,
    ``AddressLine1``, ``county_fips``); ``state`` and ``zip`` are not read here."""
    words = name_words(column)
    return bool(words & PLACE_NAME_WORDS) or any(
        w.startswith(("address", "street", "latitude", "longitude")) for w in words
    )


def _text(uniq: pd.Series) -> pa.Array:
    return pa.array(pd.Series(uniq.index, dtype=STRING))


def _share(mask: pa.Array) -> float:
    return float(pc.mean(pc.cast(pc.fill_null(mask, False), pa.int8())).as_py() or 0.0)


def _degrees(uniq: pd.Series) -> tuple[bool, float]:
    """(decimal degrees in nine in ten distinct values, largest absolute value)."""
    if uniq.empty:
        return False, 0.0
    text = _text(uniq)
    shaped = pc.match_substring_regex(text, _DEGREES)
    if _share(shaped) < COORDINATE_SHARE:
        return False, 0.0
    numbers = pc.cast(pc.utf8_trim_whitespace(pc.filter(text, shaped)), pa.float64())
    biggest = float(pc.max(pc.abs(numbers)).as_py() or 0.0)
    return biggest <= 180.0, biggest


def _flags_only(uniq: pd.Series) -> bool:
    lowered = pc.utf8_lower(pc.utf8_trim_whitespace(_text(uniq)))
    return bool(pc.all(pc.is_in(lowered, value_set=pa.array(sorted(_FLAGS)))).as_py())


def _gazetteer_places(uniq: pd.Series) -> tuple[int, int]:
    """(distinct values naming a place, distinct values read), most frequent first."""
    from deid_desktop.core.scan.gazetteer import load_gazetteer

    text = _text(uniq)
    letters = pc.fill_null(pc.match_substring_regex(text, r"[A-Za-z]{3}"), False)
    counts = uniq.to_numpy()[letters.to_numpy(zero_copy_only=False)]
    words = pc.filter(text, letters)
    if not len(words):
        return 0, 0
    top = np.argsort(-counts, kind="stable")[:GAZETTEER_SAMPLE]
    sample = words.take(pa.array(top)).to_pylist()
    return int(load_gazetteer().is_place(sample).sum()), len(sample)


def _street_cells(uniq: pd.Series) -> int:
    """Rows holding a street address, from the column's distinct cells."""
    if uniq.empty:
        return 0
    hit = pc.fill_null(pc.match_substring_regex(_text(uniq), STREET_ADDRESS), False)
    return int(uniq.to_numpy()[hit.to_numpy(zero_copy_only=False)].sum())


def _pairs_in_cells(uniq: pd.Series) -> int:
    if uniq.empty:
        return 0
    hit = pc.fill_null(pc.match_substring_regex(_text(uniq), _PAIR_IN_CELL), False)
    return int(uniq.to_numpy()[hit.to_numpy(zero_copy_only=False)].sum())


def _found(
    release: Release, project: Project, ctx: VerifyContext, *, streets_only: bool
) -> dict[str, tuple[str, int]]:
    """ "table.column" -> (what was found, rows holding it)."""
    found: dict[str, tuple[str, int]] = {}
    degrees: dict[str, list[tuple[str, float, int]]] = {}
    for t, c, values in released_columns(release):
        where = f"{t}.{c}"
        if release.pathway == Pathway.LIMITED_DATA_SET and lds_keeps(project, t, c):
            continue
        uniq = ctx.uniques(t, c, values)
        if uniq.empty:
            continue
        rows = int(uniq.sum())
        if not streets_only and names_a_place(c) and not _flags_only(uniq):
            found[where] = ("values in a column whose name says place", rows)
            continue
        streets = _street_cells(uniq)
        if streets:
            found[where] = ("street addresses", streets)
            continue
        if streets_only:
            continue
        pairs = _pairs_in_cells(uniq)
        if pairs:
            found[where] = ("latitude and longitude pairs", pairs)
            continue
        is_degrees, biggest = _degrees(uniq)
        if is_degrees:
            degrees.setdefault(t, []).append((c, biggest, rows))
            continue
        places, read = _gazetteer_places(uniq)
        if places >= MIN_PLACES and places >= PLACE_SHARE * read:
            found[where] = ("cities, towns or counties", rows)
    for t, cols in degrees.items():
        if len(cols) >= 2 and any(b <= 90.0 for _, b, _ in cols):
            for c, _b, rows in cols:
                found[f"{t}.{c}"] = ("coordinates in decimal degrees", rows)
    return found


def _finding(found: dict[str, tuple[str, int]]) -> Finding:
    messages = [
        f"Column {where} holds {rows:,} {'row' if rows == 1 else 'rows'} of {what}, a place "
        "smaller than a state; tag it as a direct identifier so that it is removed."
        for where, (what, rows) in sorted(found.items())
    ]
    count = sum(rows for _what, rows in found.values())
    detail: dict[str, object] = {
        "columns": sorted(found),
        "found": {w: {"kind": k, "rows": r} for w, (k, r) in sorted(found.items())},
        "messages": messages,
    }
    return Finding(not found, count, detail)


def check_no_geography(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    return _finding(_found(release, project, ctx, streets_only=False))


def check_lds_no_street_address(
    extract: Extract, release: Release, project: Project, ctx: VerifyContext
) -> Finding:
    return _finding(_found(release, project, ctx, streets_only=True))


CHECKS: tuple[Check, ...] = (
    Check(
        "no_geography",
        "No place smaller than a state",
        "45 CFR 164.514(b)(2)(i)(B)",
        BLOCKING,
        "Whatever its tag, no released column holds coordinates (decimal degrees in a "
        "latitude/longitude pair of columns or in one cell), street addresses (house "
        "number, street name, street word), values of a column whose name says place "
        "(latitude, longitude, geo, address, street, city, town, county, precinct...), or "
        "values half or more of which (three at least) name a US city, town or county in "
        "the bundled gazetteer (GeoNames, CC BY 4.0).",
        check_no_geography,
        frozenset({Pathway.SAFE_HARBOR, Pathway.LINKABLE}),
    ),
    Check(
        "lds_no_street_address",
        "No street address",
        "45 CFR 164.514(e)(2)(ii)",
        BLOCKING,
        "A limited data set keeps town or city, state and ZIP but no other postal address "
        "information: whatever its tag, no released column holds a street address (house "
        "number, street name, street word).",
        check_lds_no_street_address,
        frozenset({Pathway.LIMITED_DATA_SET}),
    ),
)
