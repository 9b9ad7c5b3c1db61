"""Build the shipped ZIP3 population table from a Census ZCTA population file.

    .venv/bin/python resources/zip3/derive.py ../shared/data/census/DECENNIALDHC2020.P1-Data.csv

Writes zip3_population_2020.csv (zip3,population,zcta_count) and its metadata
(zip3_population_2020.json) beside this script, through the same derivation the app
uses when a user loads a newer Census file (deid_desktop.core.zip3), and prints the
checks recorded in PROVENANCE.md. Run it again after any rebuild and update
PROVENANCE.md with the figures it prints.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from deid_desktop.core.zip3 import (
    BUNDLED_CSV,
    BUNDLED_META,
    derive_zip3,
    read_zcta_populations,
    sha256_of,
)

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(argv[0])
    zcta, vintage = read_zcta_populations(source)
    table = derive_zip3(zcta)
    out_csv = HERE / BUNDLED_CSV
    with out_csv.open("w", encoding="utf-8", newline="") as fh:
        table.to_csv(fh, index=False, lineterminator="\n")
    restricted = table[table["population"] <= 20_000]
    meta = {
        "vintage": vintage,
        "source_file": source.name,
        "source_sha256": sha256_of(source),
        "output_file": out_csv.name,
        "output_sha256": sha256_of(out_csv),
        "zcta_rows": len(zcta),
        "total_population": int(zcta["population"].sum()),
        "zip3_prefixes": len(table),
        "restricted_prefixes": len(restricted),
        "licence": "public domain (U.S. Census Bureau, 17 U.S.C. 105)",
    }
    (HERE / BUNDLED_META).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    for key, value in meta.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
