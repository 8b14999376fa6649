"""Clinical notes: telegraphic shorthand, nine in ten written in capitals.

A trial run on this corpus measured that all-caps clinical shorthand drew thousands of false
PERSON hits from every model and that more names did not help; name-free all-caps examples did.
So most templates here carry no person at all, and the rest name one or two people among
abbreviations (HTN, SOB, F/U), drug names (brand names read like surnames: KEPPRA,
NORVASC), "DR" without a name, and words like WILL, MAY and HOPE.
Append new templates at the end; never reorder or edit in place.
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "clinical"
CASE = ("upper", 0.9)
LABELS = frozenset({"PERSON", "DATE_OF_BIRTH", "GOV_ID", "PHONE", "ADDRESS", "ORG"})

TEMPLATES = (
    # -- name-free notes -------------------------------------------------------------
    "PT SEEN IN CLINIC. C/O {sx}. HX {cond}, {cond2}. PLAN: F/U {~2/52|6/52|3/12}.",
    """
    {~S|SUBJ}: {num} DAY HX OF {sx}, WORSE ON EXERTION. NO {sx2}.
    O: BP {bp} HR {hr} SPO2 {sat}% RA T {temp}
    A: ?{~LRTI|VIRAL URTI|EXACERBATION OF COPD|ASTHMA FLARE}
    P: {drug} {dose} {freq} X {days}/7. SAFETY NET ADVICE GIVEN. RTC IF WORSE.
    """,
    "WARD ROUND. PT COMFORTABLE OVERNIGHT. EATING AND DRINKING. OBS STABLE. BLOODS: HB {num}, WCC {num2}, CRP {num3}. CONT IV {drug}. ?D/C {weekday}.",
    """
    TRIAGE {time}
    PC: {sx}
    HPC: ONSET {num} HRS AGO. NO TRAUMA. NO LOC.
    PMH: {cond}. NKDA.
    DHX: {drug} {dose} {freq}, {drug2} {dose2} {freq2}
    CAT {~2|3|4}. TO MAJORS.
    """,
    "D/W {~REG|SHO|CONSULTANT|ST3}. PLAN: {~CT HEAD|CTPA|USS ABDO|MRI SPINE}, {~NBM|DIET AS TOLERATED}, IV FLUIDS, REVIEW AFTER SCAN. PT{~ AND FAMILY|} AWARE.",
    "PT WILL RTC IN {~MAY|JUNE|MARCH} FOR REVIEW OF {cond}. MAY NEED DOSE INCREASE OF {drug}.",
    """
    POST OP DAY {num}. WOUND CLEAN AND DRY. MOBILISING WITH PHYSIO. PAIN CONTROLLED ON {drug}. BOWELS OPEN.
    PLAN: REMOVE CLIPS DAY 10 AT GP. D/C HOME TODAY.
    """,
    "MED REC DONE. {drug} {dose} {freq} STOPPED (AKI). {drug2} {dose2} {freq2} CONTINUED. PHARMACY INFORMED.",
    "NURSING NOTE {time}: PT AGITATED OVERNIGHT, REFUSED OBS X2. SETTLED WITH REASSURANCE. NEWS {num}. DR INFORMED, NO ACTION.",
    """
    ECG: SINUS RHYTHM {hr} BPM. NO ACUTE ST CHANGES. QTC NORMAL.
    TROP {num} -> {num2}. ?NSTEMI. D/W CARDIOLOGY, FOR ANGIO.
    """,
    "{~DNACPR IN PLACE|FOR FULL ESCALATION}. CEILING OF CARE {~WARD BASED|HDU|ITU}. {~FAMILY|PT} AWARE AND IN AGREEMENT. {~FOR COMFORT MEASURES IF DETERIORATES|REVIEW IN 24H}.",
    "HOPE TO STEP DOWN {drug} NEXT WEEK IF BP SETTLES. CHECK U&E IN {days}/7.",
    """
    PHYSIO: MOBILISED {num}M WITH {~ZIMMER FRAME|STICK|NO AID} + {~1|2}. {~SAFE|UNSTEADY} ON STAIRS WITH RAIL. {~NO FURTHER PHYSIO NEEDS|CONT PHYSIO DAILY}. OT TO ASSESS FOR HOME.
    """,
    "MICRO: URINE MC&S GROWING E.COLI, SENSITIVE TO {drug}. SWITCH FROM IV TO ORAL. TOTAL {days}/7.",
    "ALLERGIES: {drug} (RASH), {drug2} (ANAPHYLAXIS). WRISTBAND CHECKED.",
    """
    DIABETES CLINIC. HBA1C {num} MMOL/MOL (PREV {num2}). WT {big} KG. FEET: PULSES PRESENT, NO ULCERS.
    PLAN: INCREASE {drug} TO {dose} {freq}. DIETITIAN REFERRAL. F/U 3/12.
    """,
    "TELEPHONE CONSULT. PT REPORTS {sx} IMPROVING. ADVISED TO COMPLETE COURSE OF {drug}. NO RED FLAGS. NO F/U NEEDED.",
    "ANAESTHETIC REVIEW: ASA {~1|2|3}. MALLAMPATI {~1|2}. FASTED SINCE {time}. CONSENT OBTAINED. FOR GA.",
    """
    HANDOVER:
    BED {num}: {cond}, ON {drug}, STABLE.
    BED {num2}: ?SEPSIS, CULTURES SENT, ABX STARTED {time}.
    BED {num3}: AWAITING SOCIAL CARE PACKAGE. MEDICALLY FIT.
    """,
    "XR {~CHEST|CXR PA} {date_clin}: {~NO CONSOLIDATION|R BASAL CONSOLIDATION|L LOWER ZONE SHADOWING}. {~NO EFFUSION|SMALL L EFFUSION}. HEART SIZE {~NORMAL|ENLARGED}. IMPRESSION: {~NORMAL STUDY|?INFECTION, CLINICAL CORRELATION|?FLUID OVERLOAD}.",
    "MENTAL STATE EXAM: CALM, GOOD EYE CONTACT. MOOD LOW, AFFECT CONGRUENT. NO SI/HI. INSIGHT GOOD. PLAN: CONT {drug} {dose}, CMHT F/U.",
    "PT DECLINED FLU VACCINE. RISKS EXPLAINED. WILL RECONSIDER AT NEXT VISIT IN {month}.",
    """
    OBS CHART {date_clin}
    {time} BP {bp} HR {hr} RR {num} SPO2 {sat} T {temp}
    {time2} BP {bp2} HR {hr2} RR {num2} SPO2 {sat2} T {temp2}
    """,
    "DISCHARGE SUMMARY. ADMITTED {date_clin} WITH {sx}. DX: {cond}. TREATED WITH {drug}. D/C MEDS UNCHANGED EXCEPT {drug2} {dose} {freq}. GP TO REVIEW BLOODS IN 1/52.",
    "FALL ON WARD {time}. NO HEAD INJURY. NOT ON ANTICOAGULANTS. NEURO OBS NAD. DATIX COMPLETED.",
    "SKIN: GRADE {~1|2} PRESSURE AREA SACRUM. REPOSITION 2 HRLY. AIR MATTRESS ORDERED. TVN REFERRAL DONE.",
    "GRACE SCORE {big}. HIGH RISK. FOR INPATIENT ANGIOGRAPHY. CONT DUAL ANTIPLATELETS AND {drug}.",
    """
    ANTENATAL {num}/40. FH {big}. FMS+. BP {bp}. URINE NAD. NO CONCERNS.
    PLAN: GTT AT 28/40. NEXT APPT {date_clin}.
    """,
    "PAEDS: {num}/12 OLD WITH FEVER X{days} DAYS. ALERT, WELL PERFUSED, CRT <2S. NO RASH. ?VIRAL. SAFETY NETTED. PARENTS HAPPY.",
    # -- notes that name people --------------------------------------------------------
    """
    PT: {p.last_first|upper}   DOB: {p.dob_clin}   NHS NO: {nhs}
    SEEN IN {~ED|AMU|CLINIC}. C/O {sx}. HX {cond}.
    PLAN: BLOODS, CXR, REVIEW BY DR {p2.last|upper}.
    """,
    "SEEN WITH DR {p.last}. PT {p2.full} ({p2.age}YO) C/O {sx} X {days}/7. PMH {cond}. PLAN: {drug} {dose} {freq}.",
    "D/W {p.first} ({p.child|upper}, NOK) ON {phone}. UPDATED ON PLAN. HAPPY WITH D/C {weekday}.",
    """
    NAME: {p.full}
    DOB: {p.dob}
    ADDRESS: {a.line}
    GP: DR {p2.last}, {o.name}
    REASON FOR REFERRAL: {sx}, ?{cond}
    """,
    "REVIEWED BY {p.i_last} (REG). AGREE WITH PLAN. CONT {drug}. F/U WITH PROF {p2.last} IN CLINIC.",
    "PT {p.last_first} ADMITTED {date_clin} FROM HOME ({a.line}). LIVES ALONE. NOK {p2.child|upper} {p2.first}{~| {p2.phone}}.",
    "CONSULTANT: {p.title} {p.last}. REGISTRAR: DR {p2.last}. F1: DR {p3.i_last}. BLEEP {big}.",
    "PT STATES NAME {p.full}, DOB {p.dob}. WRISTBAND CHECKED AND CORRECT. CONSENTED FOR {~OGD|COLONOSCOPY|CT ABDO}.",
    "PHONED {p.title} {p.last} (NOK) TO INFORM OF TRANSFER TO WARD {num}. {p.he|upper} WILL BRING CLOTHES AND {drug} FROM HOME.",
    """
    CLINIC LETTER
    RE: {p.full|upper}, DOB {p.dob_clin}, NHS {nhs}
    DEAR DR {p2.last|upper},
    I REVIEWED THIS {p.age}YO IN {cond} CLINIC TODAY. {p.he|upper} REPORTS {sx}. I HAVE STARTED {drug} {dose} {freq}.
    YOURS SINCERELY, DR {p3.i_last|upper}
    """,
    "HANDOVER FROM {p.first} (NIGHT RN): BED {num} PT {p2.last} UNSETTLED, PRN {drug} GIVEN {time}. BED {num2} NAD.",
    "SAFEGUARDING: CONCERNS RAISED BY {p.full} (SCHOOL NURSE, {phone}) RE CHILD {p2.first}. SW INFORMED. DOB OF CHILD {p2.dob}.",
    "PT IDENTIFIED BY NAME, DOB AND NHS NO ({p.full}, {p.dob_clin}, {nhs}). ALLERGY STATUS CONFIRMED. FOR {~THEATRE|ENDOSCOPY|CT}.",
)
