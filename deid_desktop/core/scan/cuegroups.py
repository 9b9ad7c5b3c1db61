"""The cue words of the note finders (``context_notes``, ``context_places``), in groups.

Plain data, read by ``lexicon`` (which flags the rare groups' words) and by ``cuewords``.
"""

from __future__ import annotations

IS, SPOKE, WITH, COVERING, FROM, ROLE, COUNTY, SAINT, ADDRESS, UNIT, ADMIT, STREET2 = range(1, 13)
CRED, GENERIC, PLACE_IN, INLAW, FAC_WORD, DEPT, EMPLOY, HOLIDAY = 13, 14, 15, 16, 17, 18, 19, 20
SERVICE = 21
GROUPS: dict[int, tuple[str, ...]] = {
    IS: ("is", "was", "named"),
    SPOKE: ("spoke", "talked", "spoken", "speaking", "met", "discussed"),
    WITH: ("with", "to", "w"),
    COVERING: ("covering", "attending", "pcp", "cc"),
    FROM: ("from",),
    ROLE: ("pt", "ot", "sw", "case", "social", "nutrition", "pharmacy", "rehab", "chaplaincy",
           "hospice", "vna", "transport", "radiology", "lab", "admitting", "billing", "psych",
           "dietary", "speech", "slp", "cm", "palliative", "pastoral", "security"),
    COUNTY: ("county", "parish", "cnty"),
    SAINT: ("st", "saint", "ste"),
    ADDRESS: ("address", "addr", "lives", "resides", "residing", "living", "located"),
    UNIT: ("apt", "unit", "suite", "apartment", "fl", "floor", "rm", "lot"),
    ADMIT: ("admitted", "transferred", "moved", "tx", "transfer", "admit", "sent", "returned",
            "transfered", "tranfered", "trans", "brought", "taken", "transported", "flown",
            "fly", "return", "returning", "came", "presented", "arrived", "go", "went",
            "going"),
    STREET2: ("alley", "annex", "bay", "bend", "bluff", "bridge", "brook", "burg", "bypass",
              "byway", "camp", "canyon", "cape", "causeway", "cliff", "commons", "corners",
              "cove", "creek", "crescent", "crest", "crossing", "crossroad", "dale", "dam",
              "estates", "expressway", "extension", "ferry", "field", "fields", "flat",
              "flats", "ford", "forest", "forge", "fork", "fort", "freeway", "garden",
              "gardens", "gateway", "glen", "green", "grove", "harbor", "haven", "heights",
              "hill", "hills", "hollow", "inlet", "island", "isle", "junction", "knoll",
              "lake", "landing", "lodge", "mall", "manor", "meadow", "meadows", "mews",
              "mill", "mission", "motorway", "mount", "mountain", "neck", "orchard", "oval",
              "overpass", "park", "parks", "passage", "pine", "pines", "plain",
              "plaza", "point", "port", "prairie", "ranch", "ridge", "river", "route",
              "shoal", "shore", "shores", "skyway", "spring", "springs", "stravenue",
              "stream", "summit", "throughway", "trace", "trafficway", "tunnel",
              "underpass", "valley", "viaduct", "vista", "ville", "esplanade", "parade",
              "hwy", "rte", "center", "common", "corner", "curve", "estate", "view", "views",
              "village", "walk", "wall", "wells", "row", "key", "lock", "club",
              "union", "radial", "ramp", "divide", "loaf", "well", "rapid",
              "rapids", "rue", "branch", "highlands", "locks",
              "mills", "ridges", "squares", "trails", "turnpike", "harbors", "keys", "lakes",
              "landings", "ports", "streets", "villages", "burgs", "crossings", "glens"),
    INLAW: ("law",),  # "sister-in-law"
    FAC_WORD: ("care", "health", "dialysis", "assisted", "living", "skilled", "nursing",
               "senior", "rehabilitation", "rehab", "medical", "surgical", "memorial",
               "regional", "university", "veterans", "childrens", "womens", "behavioral",
               "extended", "long", "term", "acute", "hospice", "respite", "adult", "day"),
    CRED: ("np", "rn", "md", "pa", "lpn", "cna", "aprn", "crna", "fnp", "pac", "licsw", "lcsw",
           "rrt", "anp"),
    GENERIC: ("outside", "another", "local", "nearby", "area", "other", "different", "previous",
              "prior", "same", "nearest", "private", "general", "community", "osh", "state",
              "veterans"),
    PLACE_IN: ("in", "from", "near", "lives", "live", "living", "moved", "resides", "reside",
               "residing", "outside", "born", "raised", "grew"),
    # a hospital's department an abbreviated hospital name stands before ("RK EW")
    DEPT: ("er", "ew", "ed", "cath"),
    # an employer a place's name follows ("retired from HT")
    EMPLOY: ("retired", "works", "worked", "employed", "working"),
    # a holiday names a day ("home for thanksgiving")
    HOLIDAY: ("thanksgiving", "christmas", "xmas", "easter", "halloween", "hanukkah",
              "chanukah", "passover", "kwanzaa"),
    # what a hospital's or a service's name stands before ("Joslin consult", "... scale")
    SERVICE: ("consult", "consults", "scale", "campus"),
}  # fmt: skip
#: The groups whose words the lexicon flags (``lexicon.NOTE_CUE``): rare words, found
#: among a batch's anchor words; the other groups' words are frequent ("is", "with",
#: "from") and are only asked about at the few words next to an anchor.
FLAGGED = (
    SPOKE, COVERING, ROLE, COUNTY, SAINT, ADDRESS, ADMIT, STREET2, INLAW, DEPT, EMPLOY, HOLIDAY,
    SERVICE,
)  # fmt: skip
FLAGGED_WORDS = tuple(
    sorted({w for g in FLAGGED for w in GROUPS[g]} - {"pt", "ot", "sw", "cm", "slp"})
)  # those five are credentials: anchors already, and frequent
