"""Web forms and structured submissions: ``key: value`` lines, CSV rows, query strings.

Field names are the cue; the value alone is the span. Append new templates at the end;
never reorder or edit in place (ids are positions).
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "forms"
CASE = None
LABELS = frozenset(
    {"PERSON", "ADDRESS", "EMAIL", "PHONE", "DATE_OF_BIRTH", "PAYMENT", "GOV_ID", "USERNAME",
     "ORG", "IP_ADDRESS", "SECRET"}
)  # fmt: skip

TEMPLATES = (
    """
    First name: {p.first}
    Last name: {p.last}
    Email: {p.email}
    Phone: {p.phone}
    Date of birth: {p.dob}
    Address: {a.line}
    """,
    """
    --- Contact form submission ---
    name: {p.full}
    email: {p.email}
    company: {o.name}
    message: Hi, I'd like a quote for {num} licences of the {product} add-on. Please call me on {p.phone}.
    submitted: {ts}
    ip: {ip}
    """,
    """
    Full name: {p.full|upper}
    D.O.B.: {p.dob}
    Passport / ID no.: {p.gov}
    Nationality: {country}
    Address: {a.full}
    """,
    """
    Cardholder name: {p.full|upper}
    Card number: {card}
    Expiry: {~01|03|06|08|11}/{~27|28|29}
    Billing address: {a.line}
    """,
    """
    username={p.user}&email={p.email}&password={password}&newsletter=on
    """,
    """
    Applicant
      Surname: {p.last|upper}
      Given names: {p.first}
      Date of birth (DD/MM/YYYY): {p.dob_eu}
      Place of birth: {city}
      Current address: {a.full}
      Telephone: {p.phone}
    """,
    """
    Order notes: Please leave the parcel with the neighbour at No. {num} if nobody is home. Gift wrap: yes. Gift message: "Happy birthday Mum, love {p.first}"
    """,
    """
    id,first_name,last_name,email,phone,created_at
    {big},{p.first},{p.last},{p.email},{p.phone},{date_iso}
    {big2},{p2.first},{p2.last},{p2.email},{p2.phone},{date_iso2}
    """,
    """
    Patient registration
    Title: {p.title}
    Name: {p.full}
    Date of birth: {p.dob}
    NHS number (if known): {nhs}
    Next of kin: {p2.full} ({p2.phone})
    """,
    """
    Survey response #{big}
    Q1 How satisfied are you with the {product}? Very satisfied
    Q2 Would you recommend us? Yes
    Q3 Comments: Delivery to {world_city} was fast. Will buy again in May.
    """,
    """
    Sign up
    Choose a username: {p.user}
    E-mail address: {p.email}
    Confirm e-mail: {p.email}
    Mobile (optional): {p.phone}
    """,
    """
    Direct debit mandate
    Account holder: {p.full}
    IBAN: {iban}
    Creditor: {o.name}
    Date: {date}
    """,
    """
    W-9 style request
    Name (as shown on your income tax return): {p.full}
    Business name: {o.name}
    Address: {a.line}
    Taxpayer identification number (SSN): {ssn}
    """,
    """
    Event registration
    Attendee: {p.full}
    Organisation: {o.name}
    Dietary requirements: vegetarian
    Badge name: {p.first|upper}
    Twitter/X: {p.handle}
    """,
    """
    Change of address
    Customer number: {big}
    Old address: {a.line}
    New address: {a2.line}
    Moving date: {date}
    """,
    """
    Feedback form
    Rating: {~4|5}/5
    What could we improve? The checkout page timed out twice and the {feature} is hard to find. Otherwise fine.
    May we contact you? No
    """,
    """
    "name","dob","city","email"
    "{p.full}","{p.dob_iso}","{city}","{p.email}"
    """,
    """
    Driver details
    Main driver: {p.title} {p.full}
    Date of birth: {p.dob}
    Additional driver: {p2.full} (born {p2.dob})
    Address: {a.line}
    """,
    """
    Job application
    Name: {p.full}
    Email: {p.email}
    Phone: {p.phone}
    Current employer: {o.name}
    Salary expectation: {amount}
    """,
    """
    Booking
    Lead guest: {p.last_first}
    Guests: {num}
    Check-in: {date}
    Check-out: {date2}
    Special requests: late arrival around {time}, quiet room please
    """,
    """
    Account recovery
    Username or e-mail: {p.email}
    Last password you remember: {password}
    Phone number on the account: {p.phone}
    """,
    """
    Warranty registration
    Product: {product}
    Serial number: {hexid|upper}
    Purchase date: {date}
    Purchased from: {o.name}
    Owner: {p.full}, {p.email}
    """,
    """
    Volunteer sign-up
    Name: {p.first}{~| (prefers "{p2.first}")}
    Age group: {~18-24|25-34|35-44|45-54|55+}
    Availability: weekends in {month}
    Emergency contact: {p3.full}, {p3.phone}
    """,
    """
    GET /api/v1/lookup?email={p.email}&phone={p.phone}&ref={hexid} HTTP/1.1
    Host: api.{o.domain}
    X-Forwarded-For: {ip}
    """,
    """
    School admission
    Child's name: {p.full}
    Child's date of birth: {p.dob}
    Parent/guardian: {p2.title} {p2.full}
    Home address: {a.full}
    Contact number: {p2.phone}
    """,
    """
    Insurance claim
    Policy number: {hexid|upper}
    Policyholder: {p.full}
    Date of incident: {date}
    Location of incident: car park, {world_city}
    Description: reversing vehicle struck rear bumper. No injuries.
    """,
    """
    Library card application
    Name: {p.full}
    Address: {a.line}
    Date of birth: {p.dob}
    Email (for reminders): {p.email}
    """,
    """
    Delivery preferences
    Safe place: porch
    Delivery instructions: ring twice, dog is friendly
    Contact if needed: {p.phone}
    """,
    """
    Registration
    Login: {p.user}
    Password: {password}
    Security question: Mother's maiden name
    Answer: {p2.last}
    """,
    """
    Tax return summary
    Taxpayer: {p.full}
    Tax reference: {p.gov}
    Employer: {o.name}
    Gross income: {amount}
    Refund to: {iban}
    """,
    """
    Complaint form
    Your name: {p.full}
    Reference: {ticket}
    What happened? I was charged {amount} for a {product} I returned on {date}.
    What outcome do you want? Full refund.
    """,
    """
    Pet registration
    Pet name: Bella
    Species: dog
    Owner: {p.full}
    Microchip: {big}{big2}
    Vet: {o.name}
    """,
    """
    Wi-Fi guest access
    Name: {p.full}
    Host: {p2.full}
    Device MAC: {hexid}
    Assigned IP: {ip_priv}
    Expires: {date} {time}
    """,
    """
    Newsletter preferences for {p.email}: product updates - yes; events in {world_city} - no; partner offers - no.
    """,
    """
    Student enrolment
    Student: {p.last_first}
    Student e-mail: {p.email}
    Course: {job} apprenticeship
    Start: {date}
    """,
    """
    Benefit claim
    Claimant: {p.full}
    Date of birth: {p.dob}
    National Insurance number: {nino}
    Address: {a.line}
    Bank details: {iban}
    """,
    """
    KYC verification
    Full legal name: {p.full}
    ID number: {p.gov}
    Date of birth: {p.dob}
    Residential address: {a.full}
    Source of funds: salary
    """,
    """
    Payment details
    Name on card: {p.full}
    Card: {card}
    Security code: ***
    Save card for next time: yes
    """,
)
