"""HR records: employee files, payroll, leave, reviews, offers, references, exits.

Append new templates at the end; never reorder or edit in place (ids are positions).
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "hr"
CASE = None
LABELS = frozenset(
    {"PERSON", "ADDRESS", "ORG", "DATE_OF_BIRTH", "GOV_ID", "PAYMENT", "EMAIL", "PHONE", "USERNAME"}
)

TEMPLATES = (
    """
    EMPLOYEE RECORD
    Name: {p.full}
    Employee ID: E{big}
    Date of birth: {p.dob}
    National ID: {p.gov}
    Home address: {a.full}
    Department: {dept}
    Line manager: {p2.full}
    Start date: {date}
    """,
    """
    Payroll change form
    Employee: {p.last_first}
    New bank account (IBAN): {iban}
    Effective from: {date}
    Approved by: {p2.i_last}, Payroll
    """,
    """
    Leave request: {p.full} requests annual leave from {date} to {date2} ({num} days). Cover arranged with {p2.first}. Approved by {p3.full}.
    """,
    """
    Performance review {year}, {p.full} ({job})
    Reviewer: {p2.full}
    Summary: {p.first} exceeded targets in the {dept} team and mentored two new starters. Will take on the {world_city} accounts next year.
    Rating: {~Exceeds expectations|Meets expectations|Outstanding}
    """,
    """
    Dear {p.first},

    We are delighted to offer you the position of {job} at {o.name}, starting on {date_long}, at an annual salary of {amount}. Please confirm your acceptance by replying to {p2.email}.

    {p2.full}
    Talent Acquisition
    """,
    """
    Sickness absence record
    Employee: {p.full}
    First day of absence: {date}
    Reason: {~back pain|flu|stress|surgery}
    Fit note received: yes
    Return-to-work meeting with {p2.i_last} on {date2}.
    """,
    """
    Reference request: {p.full} has applied for a role with us and named you as a referee. Could you confirm {p.his} dates of employment at {o.name} and job title? Reply to {role_email}.
    """,
    """
    New starter checklist - {p.full}
    [x] Laptop issued (asset {hexid|upper})
    [x] Network account created: {p.user}
    [x] E-mail: {p.email}
    [ ] {training} training
    [ ] Payroll details received
    """,
    """
    Exit interview notes. Employee ({dept}, {num} years) is leaving for a role in {world_city}. Main reasons: career progression and commute. Would recommend the company. No personal details recorded here.
    """,
    """
    Emergency contact for {p.full}: {p2.full} ({p2.spouse}), {p2.phone}. Secondary: {p3.full}, {p3.phone}.
    """,
    """
    Disciplinary hearing minutes
    Present: {p.full} (employee), {p2.full} (HR), {p3.full} (manager), {p4.full} (companion)
    Date: {date}
    Allegation: repeated unauthorised absence in {month}.
    """,
    """
    Right to work check completed for {p.full}. Document: passport. Date of birth {p.dob} matches records. Checked by {p2.i_last} on {date}.
    """,
    """
    Promotion announcement: Please congratulate {p.full}, who becomes Head of {dept} from {date}. {p.he|cap} replaces {p2.full}, who is retiring after {num} years with {o.name}.
    """,
    """
    P45 details
    Employee: {p.last_first}
    NI number: {nino}
    Leaving date: {date}
    Address: {a.line}
    """,
    """
    Salary review {year}: all staff in {dept} receive a {pct} increase from April. May payroll will include back pay. Questions to your line manager.
    """,
    """
    Hi {p.first}, your timesheet for the week of {date} is missing {num} hours. Please update it in the portal (username {p.user}) by {weekday}. Thanks, {p2.first}
    """,
    """
    Parental leave application
    Employee: {p.full}
    Expected due date: {date}
    Leave start: {date2}
    Partner: {p2.full}
    Contact during leave: {p.phone}
    """,
    """
    Grievance log #{big}: {p.full} raised a complaint about {p2.full} on {date}. Investigating officer: {p3.full}. Outcome due {date2}.
    """,
    """
    Training record: {p.last_first} completed {training} ({date}), {training2} ({date2}). Next renewal due {date3}.
    """,
    """
    Candidate: {p.full}
    Phone: {p.phone}
    E-mail: {p.email}
    Current employer: {o.name}
    Notice period: {num} weeks
    Interviewers: {p2.i_last}, {p3.i_last}
    """,
    """
    Organisation chart ({dept}):
    - {p.full}, Director
      - {p2.full}, Manager
        - {p3.full}
        - {p4.full}
    """,
    """
    Expense claim {hexid|upper} by {p.full}: {amount} for hotel in {world_city}, {amount2} for train. Reimburse to card {card}. Approved.
    """,
    """
    Dear {p.title} {p.last},

    Further to your resignation letter dated {date}, I confirm that your last working day will be {date2}. Your final salary will be paid to your account ending {num} as usual.

    {p2.full}
    HR Business Partner
    """,
    """
    Occupational health referral: employee {p.full}, DOB {p.dob}, {job}. Concern: recurrent absence with {~back pain|migraine|anxiety}. Manager: {p2.full}, {p2.email}.
    """,
    """
    Staff directory update: {p.full} has moved to the {dept} team. New extension {big}, mobile {p.phone}, desk {num}{~A|B|C}.
    """,
    """
    Mark your calendars: the all-hands is on {date} at {time}. Will everyone please note that Hall B (2nd floor) is booked. Lunch will be provided.
    """,
    """
    Background check for {p.full} (born {p.dob_long}) returned no records. Previous addresses checked: {a.line}; {a2.line}.
    """,
    """
    Pension enrolment: {p.full}, employee number {big}, tax id {p.gov}, contribution {pct}. Provider: {o.name}.
    """,
    """
    Interview feedback for candidate #{big}: strong technical skills, good communication. Concern about availability in May. Recommend second interview. (Candidate name withheld for blind review.)
    """,
    """
    Hi {p.first},

    Welcome aboard! Your manager {p2.full} will meet you at reception at {time} on your first day. Your Slack handle is {p.handle} and your login is {p.user}.

    People Team
    """,
    """
    Contract variation: {p.full}'s hours change from {num} to {num2} per week from {date}. All other terms unchanged. Signed for {o.name} by {p2.full}.
    """,
    """
    Headcount report {month} {year}: {big} employees, {num} starters, {num2} leavers. Attrition {pct}. No individual data in this report.
    """,
    """
    Visa sponsorship file: {p.full}, nationality on file, passport and date of birth {p.dob} verified. UK address: {a.full}
    """,
    """
    Please update my details: new surname {p.last} (previously {p2.last}), new address {a.line}, new phone {p.phone}. Thank you, {p.first}
    """,
    """
    Payroll onboarding - {p.full}
    Tax / social security number: {p.gov}
    Bank account: {iban}
    Tax code: {~1257L|BR|0T}
    Start date: {date}
    """,
    """
    Hi {p.first}, HR here. We still need your NI number for payroll. Reply with it or add it in the portal. (We have {nino} on an old form - is that still right?)
    """,
)
