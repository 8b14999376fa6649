"""Legal letters and documents: formal register, honorifics, parties, addresses.

Titles ("Mr.", "Ms.", "Dr.") are written outside the PERSON slot, as the convention
requires (in a PERSON trial run the title convention alone moved exact F1 between 0.1 and
0.7).
"Will" the document, "Grace" the period and "May" the month and modal appear as hard
negatives. Append new templates at the end; never reorder or edit in place.
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "legal"
CASE = None
LABELS = frozenset(
    {"PERSON", "ADDRESS", "ORG", "DATE_OF_BIRTH", "GOV_ID", "PAYMENT", "EMAIL", "PHONE"}
)

TEMPLATES = (
    """
    {o2.name}
    {a2.full}

    {date_long}

    {p.title} {p.full}
    {a.full}

    Dear {p.title} {p.last},

    Re: Outstanding balance on account {invoice}

    We act on behalf of {o.name} in connection with the above account. Despite previous reminders, the sum of {amount} remains unpaid. Unless payment is received within 14 days of the date of this letter, our client may issue proceedings without further notice.

    Yours sincerely,

    {p2.full}
    Solicitor
    """,
    """
    LAST WILL AND TESTAMENT

    I, {p.fullmid|upper}, of {a.line}, born {p.dob_long}, declare this to be my last Will and revoke all earlier wills. I appoint {p2.full} as executor of this Will. I leave my estate to my children, {p3.first} and {p4.first}, in equal shares.
    """,
    """
    NON-DISCLOSURE AGREEMENT

    This Agreement is made on {date_long} between {o.name}, whose registered office is at {a.line} ("the Discloser"), and {o2.name}, whose registered office is at {a2.line} ("the Recipient").
    """,
    """
    Dear {p.title} {p.last},

    Subject Access Request, our reference {hexid}

    We write further to your request dated {date} under Article 15 of the UK GDPR. Enclosed is a copy of the personal data we hold about you, including records linked to the e-mail address {p.email} and the telephone number {p.phone}.

    Yours sincerely,
    Data Protection Officer
    {o.name}
    """,
    """
    IN THE COUNTY COURT AT {world_city|upper}
    Claim No. {hexid|upper}

    BETWEEN:
    {p.full|upper}
    Claimant
    -and-
    {o.name|upper}
    Defendant

    WITNESS STATEMENT OF {p2.full|upper}
    """,
    """
    I, {p.full}, make this statement believing it to be true. On {date} I was at the premises of {o.name} when I saw {p2.title} {p2.last} leave the building with {p3.full}. I did not speak to either of them.
    """,
    """
    TENANCY AGREEMENT

    Landlord: {p.full}
    Tenant: {p2.full}, born {p2.dob}
    Property: {a.full}
    Rent: {amount} per month, payable by standing order to {iban}
    Term: 12 months from {date_long}
    """,
    """
    Dear Sirs,

    We confirm that we act for {p.title} {p.full} in the purchase of {a.line}. Please address all further correspondence to the undersigned.

    Yours faithfully,
    {o.name}
    """,
    """
    POWER OF ATTORNEY

    Know all persons by these presents that I, {p.full}, residing at {a.line}, do hereby appoint {p2.full} of {a2.line} as my true and lawful attorney.
    """,
    """
    The grace period for filing the appeal ends on {date_long}. The Court may extend it on application. No personal circumstances have been disclosed in this matter so far.
    """,
    """
    Dear {p.title} {p.last},

    Re: {p2.title} {p2.full} deceased

    We are instructed by the executors of the late {p2.title} {p2.last}'s estate. Our records show that {p2.he} held an account with you under number {iban}. Please confirm the balance as at the date of death, {date_long}.

    Yours sincerely,
    {p3.i_last}
    """,
    """
    SETTLEMENT AGREEMENT

    The parties, {o.name} ("the Employer") and {p.full} ("the Employee"), agree that the Employee's employment will end on {date_long}. The Employer will pay {amount} to the Employee's bank account {iban} within 28 days.
    """,
    """
    Dear Ms {p.last},

    Thank you for your letter of {date}. We note your new address, {a.line}, and have updated our file. The hearing listed for {date2} remains in place.

    Yours sincerely,
    {p2.title} {p2.full}
    Partner
    """,
    """
    CERTIFIED COPY OF AN ENTRY OF BIRTH

    Name: {p.full|upper}
    Date of birth: {p.dob_long}
    Place of birth: {city}
    Father: {p2.full|upper}
    Mother: {p3.full|upper}
    """,
    """
    Terms and Conditions

    These terms apply to all orders placed with {o.name}. May we remind customers that the 14-day cancellation period starts on delivery. Nothing in these terms affects your statutory rights.
    """,
    """
    Our ref: {hexid|upper}
    Your ref: {invoice}

    Dear Dr {p.last},

    We enclose the medical report requested in respect of our client, {p2.title} {p2.full}, date of birth {p2.dob}. Please treat its contents as strictly confidential.
    """,
    """
    NOTICE OF INTENDED PROSECUTION

    To: {p.full|upper}
    {a.full|upper}

    The vehicle registered to you was detected travelling at {num} mph on the A{num2} on {date} at {time}.
    """,
    """
    Dear {p.title} {p.last_first},

    We have been instructed by {o.name} regarding the alleged breach of copyright on the website registered to you. Our client requires that the material is removed within 7 days.
    """,
    """
    DECLARATION

    I, {p.full}, national identity number {p.gov}, declare that the information given in this application is true and complete.

    Signed: ______________
    Date: {date}
    """,
    """
    The Board of {o.name} approved the minutes of the previous meeting. {p.title} {p.last} (Chair) noted apologies from {p2.title} {p2.last}. The Company Secretary, {p3.full}, confirmed that a quorum was present.
    """,
    """
    Dear {p.title} {p.last},

    Re: Your claim against {o.name}

    Your claim has been allocated to the small claims track. The hearing will take place on {date_long} at the county court in {world_city}. Please bring all documents on which you intend to rely.
    """,
    """
    DEED OF GIFT

    Donor: {p.full}, of {a.full}
    Donee: {p2.full}
    The Donor gives to the Donee the sum of {amount} absolutely.
    """,
    """
    Privacy notice: {o.name} processes your personal data as a controller. You may contact our Data Protection Officer at {role_email} or by post at {a.line}.
    """,
    """
    Dear {p.title} {p.last},

    We refer to the enclosed invoice for professional services. Payment may be made by card ({card} was declined on {date}) or by transfer to our client account.

    Accounts Department
    """,
    """
    AFFIDAVIT OF {p.full|upper}

    I, {p.full}, of {a.line}, {job}, MAKE OATH and say as follows: I am the {~mother|father|guardian} of {p2.full}, born on {p2.dob_long}.
    """,
    """
    This Lease is made between {o.name} and the tenant named in the Schedule. The term commences in May and the rent is reviewed every five years. Clause 4 (Repairs) applies to the whole building.
    """,
    """
    Dear {p.title} {p.last},

    I am writing to inform you that {p2.title} {p2.last} has been appointed as your case officer. {p2.he|cap} can be contacted on {p2.phone} or at {p2.email}.

    Yours sincerely,
    {p3.full}
    """,
    """
    CONSENT ORDER

    Upon the Applicant {p.full} and the Respondent {p2.full} having agreed the terms set out below, IT IS ORDERED THAT the former matrimonial home at {a.line} be sold.
    """,
    """
    Re: {p.title} {p.i_last} v {o.name}

    Dear Sirs,

    We note the defendant's position. Our client, whose date of birth is {p.dob}, was {p.age} at the time of the incident.
    """,
    """
    Statement of Truth. I believe that the facts stated in this witness statement are true. Signed {p.full}, dated {date}.
    """,
    """
    NOTICE TO QUIT

    To {p.full} of {a.full}
    I, {p2.full}, your landlord, give you notice to quit the premises on or before {date_long}.
    """,
    """
    The Court of Appeal held that the clause was unenforceable. Lord Justice {p.last} and Lady Justice {p2.last} agreed. The case is reported at [{year}] EWCA Civ {big}.
    """,
    """
    Dear {p.title} {p.last},

    Further to our telephone call on {date}, we confirm that {o.name} will not pursue the claim. Please destroy any copies of the letter sent to {a.line}.

    Yours sincerely,
    {p2.full}
    {job}
    """,
    """
    STATUTORY DECLARATION

    I, {p.full}, born {p.dob_long}, holder of national identity number {p.gov}, residing at {a.line}, do solemnly and sincerely declare that I am the sole owner of the goods listed in the schedule.
    """,
    """
    Dear {p.title} {p.last},

    We write regarding the tax assessment for {year}. Our records show your taxpayer reference as {p.gov}. Please forward the enclosed form to {o.name} within 30 days.

    Yours faithfully,
    {p2.i_last}
    """,
)
