"""Small constants the command line needs to build its parser, kept free of heavy imports.

``deid --help`` builds every subcommand's parser; importing ``deid_desktop.secrets``
(keyring, cryptography), ``core.linkage`` (numpy, pyarrow) or ``core.scan`` (pandas) just
for these values made it take about a second. This module imports only the standard
library; the modules that use the constants re-export them under their old names.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: Shortest link key, in hex characters: 48 bits keep collisions improbable up to ~1M persons.
MIN_KEY_LENGTH = 12
#: Longest link key, in hex characters: the whole SHA-256 digest.
MAX_KEY_LENGTH = 64
#: Largest keyed or random date offset, in days, either way.
MAX_OFFSET_DAYS = 3650

#: Shown before a salt rotation (CLI description and warning, refusal without --yes).
ROTATE_WARNING = (
    "Rotating the salt gives every person a new link key and new keyed date offsets. "
    "Releases made with the new salt will NOT link with any release made before: "
    "linkage with every earlier release of this project is broken for good (unless the "
    "old salt was escrowed)."
)

#: Dictionary kinds accepted by ``build_dictionary_from_values`` -> hit kind.
DICT_KINDS: Mapping[str, str] = MappingProxyType(
    {
        "name": "NAME",
        "mrn": "MRN",
        "phone": "PHONE",
        "email": "EMAIL",
        "ssn": "SSN",
        "id": "ID",
        "site": "LOCATION",
    }
)

#: A word list kind -> the scan dictionary kind its terms enter as.
WORD_KINDS: Mapping[str, str] = MappingProxyType(
    {
        "NAME": "name",
        "LOCATION": "site",
        "ID": "id",
        "MRN": "mrn",
        "PHONE": "phone",
        "CONTACT": "email",
        "EMAIL": "email",
        "SSN": "ssn",
        "OTHER": "id",
    }
)

#: The file name ending of a saved project.
PROJECT_SUFFIX = ".deid.json"
