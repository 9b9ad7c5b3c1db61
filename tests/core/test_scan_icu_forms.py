"""Forms of ICU nursing notes the scan reads (places by abbreviation, years, holidays,
signatures with dotted credentials, names after two-word cues), each beside the traps of
the same notes it must leave: ventilator settings, measure ranges, "W" for "with"."""

from __future__ import annotations

import pytest

from tests.core.test_scan_context_notes import covered, found


@pytest.mark.parametrize(
    ("text", "value", "kind", "rule"),
    [
        (
            "Pt intubated in field. At RK EW he remained intubated",
            "RK",
            "LOCATION",
            "place:site-code",
        ),
        ("found unresponsive-> MP EW today.", "MP", "LOCATION", "place:site-code"),
        ("RI AMI, to AD cath lab, 3VD", "AD", "LOCATION", "place:site-code"),
        ("BROUGHT TO AW ER + FOR MI.", "AW", "LOCATION", "place:site-code"),
        ("health care proxy is her son who lives in AW.", "AW", "LOCATION", "place:site-code"),
        ("social- retired from HT. Is married", "HT", "LOCATION", "place:site-code"),
        ("works at Raytheon as an engineer", "Raytheon", "LOCATION", "place:site-code"),
        ("IN 1973 PT S/P TUMOR DEBULKING", "1973", "DATE", "date:year"),
        ("PMHX of old CVA 1965 with right hemi", "1965", "DATE", "date:year"),
        ("PMH: HTN. CVA 70'. CHOLECYSTECTOMY 40'.", "70'", "DATE", "date:short-year"),
        ("PMH: HTN. CVA 70'. CHOLECYSTECTOMY 40'.", "40'", "DATE", "date:short-year"),
        ("was home in thanksgiving. and d/c'd", "thanksgiving", "DATE", "date:holiday"),
        ("Phone msg 3/24: PCP called re: labs", "3/24", "DATE", "date:no-year"),
        ("AIRWAY PROTECTION. ADMITTED TO CCU 8/10 @2330.", "8/10", "DATE", "date:no-year"),
        ("Pt transfered to PE for cath: LAD 90%", "PE", "LOCATION", "place:after-transfer"),
        ("HPI: was admitted to EL from home", "EL", "LOCATION", "place:after-transfer"),
        ("46 year old male came into PP on 9/10 with", "PP", "LOCATION", "place:after-transfer"),
        (
            "ENC PO INTAKE. TRANSFER KILLINGWORTH.",
            "KILLINGWORTH",
            "LOCATION",
            "place:after-transfer",
        ),
        (
            "stable. transfer to palisade. increase activity",
            "palisade",
            "LOCATION",
            "place:after-transfer",
        ),
        (
            "pt to be transfered to floor. to go to addis.",
            "addis",
            "LOCATION",
            "place:after-transfer",
        ),
        (
            "PT IS ON HEPARIN NOT 1400U/HR. TROJANOWSKI\n\n",
            "TROJANOWSKI",
            "NAME",
            "notes:staff-name",
        ),
        ("labs sent\nbrenda kowalczyk", "brenda kowalczyk", "NAME", "notes:staff-name"),
        ("bp 120 to 135 per K pellegrini.pacing wires", "K pellegrini", "NAME", "notes:staff-name"),
        ("epi then levo; extub 5/8, epi wened", "5/8", "DATE", "date:no-year"),
        ("family mtg ?monday 9/10.", "9/10", "DATE", "date:no-year"),
        (
            "female Admitted from Sacaton Eureka for cath",
            "Sacaton Eureka",
            "LOCATION",
            "place:after-transfer",
        ),
        (
            "pt transferred via ambulance to quenbury rehab facility",
            "quenbury",
            "LOCATION",
            "place:after-transfer",
        ),
        ("pt transferred to 209 crowder. \n", "crowder", "LOCATION", "place:after-transfer"),
    ],
)
def test_form_is_found(text: str, value: str, kind: str, rule: str) -> None:
    assert (value, kind, rule) in found(text), found(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("abg on above settings: 7.40/35/64. Norred Caster, R.N.", "Norred Caster"),
        ("BILATERAL EXPIRATORY WHEEZES. OSBOURNE PEARL RRT", "OSBOURNE PEARL"),
        ("pt was visited by significant other georgetta,updated on her condition", "georgetta"),
        ("Returned at 1400 in good condition. Accompanied by Beery and a relative", "Beery"),
        ("LIMIT PHONE CALLS TO ONE CONTACT PERSON (TROST) \n", "TROST"),
        ("SISTER IN TO VISIT, MET W/ CASEWORKER GERALD RAYO. \n", "GERALD RAYO"),
        ("Seen in clinic. PCP: Gwendolyn Oakes, MD 617-555-0199", "Gwendolyn Oakes"),
        ("Dictated By: NOVAK, ROSALIND", "NOVAK, ROSALIND"),
        ("Treated with aspirin. Dictated By: NOVAK, ROSALIND. Follow up.", "NOVAK, ROSALIND"),
        ("Pt admitted from BP Hospital at 1900.", "BP"),
        ("SEEN BY SHONDRA KEHL, PT. NEIGHBOR CALLED", "SHONDRA KEHL"),
        ("SISTER AT BEDSIDE, EDWARD RAKUSIN, PT SPOKE W/ FAMILY", "EDWARD RAKUSIN"),
        ("seen by Okonkwo (PT) today", "Okonkwo"),
        ("Pt is an elderly man, mid 90s, from home", "mid 90s"),
    ],
)
def test_value_is_covered(text: str, value: str) -> None:
    assert covered(text, value), found(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("PMICU NURSING PROGRESS NOTE 7P-7A", "LOCATION"),  # a unit's note, no facility
        ("ANXIOUS FOR D/C HOME, CONCERNED ABOUT VNA", "LOCATION"),
        ("PT AWAITING REHAB PLACEMENT. FOR FURTHER EVAL", "LOCATION"),
        ("changed over to PS 18 with VT 900-1500 rr 24.", "PHONE"),  # a measure's range
        ("on the neo her SVR is in the 900-1300, CO via fick", "PHONE"),
        ("cvp-13, co/ci/svr 4-5/2.5-2.8/855-1000 pa sat 68", "PHONE"),
        ("NSPIR PRESS INITIALLY 16 < TO 12 W ABG 89/68/73", "LOCATION"),  # W is "with"
        ("SON-IN-LAW PRESENT TILL APROX 2100 W PLAN TO COME BACK", "LOCATION"),
        ("GET 40MEQ PER NGT REPEAT K 4.0 KCL NOT GIVEN DR AWARE", "LOCATION"),
        ("PT. WITH # 8 TRACH IN PLACE AS WELL AS PACKING", "LOCATION"),
        ("RATE DECREASED TO 50 BY DR SMITH", "LOCATION"),
        ("BP 95-123/47-61 Right radial aline placed", "LOCATION"),
        ("Cpap 5, Fio2 40% with flowby 6/3. Spont vols 400's", "DATE"),  # vent settings
        ("RESP: ON VENT: .40/IPS 10/5 PEEP. RR 16-22.", "DATE"),
        ("remains vented IMV 700x10, 50% 8/5. sats >97%", "DATE"),
        ("BOLUSED WITH 2 MG ATIVAN X2 1/2 HOUR APART", "DATE"),  # a fraction of an hour
        ("NEO FROM 0.7 MCG/KG TO OFF BY 10-10:30 PM.", "DATE"),  # a time's range
        ("ENDO=BS COVERED W SS. COVERED C SSRI.", "NAME"),  # "covered" is no clinician's cue
        ("AMBULATED 50' WITH WALKER", "DATE"),  # feet, no year
        ("HT 5'10' WT 80KG", "DATE"),
        ("STARTED AT 1930 TONIGHT; UOP 1965 CC; I/O 1965/2300", "DATE"),  # times, volumes
        ("lives in a nursing home; retired from teaching", "LOCATION"),
        ("PT TO CT ER THEN BACK TO OSH ER, TO THE ER", "LOCATION"),  # units, no site
        ("ECCHYMOTIC AREAS NOTED ON ARMS (PT. ON COUMADIN).", "NAME"),  # no "(PT)"
        ("went to sleep at 2200; came to visit; go to OR; transferred to CT", "LOCATION"),
        ("returned to baseline; transfered to ICU from ED; admitted to MICU", "LOCATION"),
        ("PT ADMITTED TO OSH 4/4 WITH C/O CHEST PAIN", "LOCATION"),  # OSH is no ward
        ("admitted to ICU 1/2 NS at 100", "DATE"),  # half normal saline
        ("transferred via wheelchair to chair; per a rx from md", "LOCATION"),
        ("Signed by: the attending; reviewed by pharmacy; visited by family, friends", "NAME"),
        ("stable overnight\nCONT TO MONITOR", "NAME"),  # a last line of words
        ("No changes made overnoc. Cont PSV.\n\n", "NAME"),
        ("PT CANNOT TELL RN HER NAME. WITHIN TWO HOURS MD NOTIFIED", "NAME"),
        ("INC RIGHT HEART PRESSURES, PT BALLOONED AND TRANSFERRED", "NAME"),
        ("ECHO-> 15-20%, 3+ TR, PT TRANSFERRED TO CCU", "NAME"),
        ("A: MS changes ?etiology; concerned about her ms issues", "NAME"),  # plurals
        ("O2SAT'S IN MID 90'S OCC DROPPING TO 89", "AGE"),  # saturations, no age
        ("02sat low to mid 90s on 3l nc; o2sats mid 90s on 2ls", "AGE"),
        ("Sat's decrease. They have been mid 90's most of the night", "AGE"),
    ],
)
def test_trap_gives_no_hit_of_its_kind(text: str, kind: str) -> None:
    assert [h for h in found(text) if h[1] == kind] == []


@pytest.mark.parametrize(
    "text",
    ["call her at 555-1234 tonight", "wife's number 432-1100", "phone #: 617-4412"],
)
def test_a_local_phone_is_still_found(text: str) -> None:
    assert [k for _, k, _ in found(text)] == ["PHONE"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Unit No: 555-55-55", "555-55-55"),
        ("MRN: 12-34-567 verified", "12-34-567"),
        ("Acct # 4455-21", "4455-21"),
        ("MR# 55 12 33", "55 12 33"),
        ("Hospital #: 48213", "48213"),
    ],
)
def test_a_record_number_in_groups_after_its_cue_is_found(text: str, value: str) -> None:
    assert (value, "MRN", "record:cued") in found(text)


@pytest.mark.parametrize(
    "text", ["unit 5 bed 12", "hospital day 3", "2 units of insulin", "mr 2+ on echo"]
)
def test_a_cue_word_before_a_small_number_is_no_record(text: str) -> None:
    assert [h for h in found(text) if h[2] == "record:cued"] == []
