"""E-mails: headers, greetings, bodies, quoted replies and signature blocks.

Append new templates at the end; never reorder or edit in place (ids are positions).
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "email"
CASE = None
LABELS = frozenset(
    {"PERSON", "EMAIL", "PHONE", "ADDRESS", "ORG", "USERNAME", "PAYMENT", "DATE_OF_BIRTH", "GOV_ID"}
)

TEMPLATES = (
    """
    From: {p.full} <{p.email}>
    To: {p2.full} <{p2.email}>
    Subject: Re: Q{~1|2|3|4} planning

    Hi {p2.first},

    Thanks for the notes. I'm fine with moving the review to {weekday}. Can you send the deck to the whole {dept} team beforehand?

    Best,
    {p.first}

    --
    {p.full}
    {job}, {o.name}
    Mobile: {p.phone}
    """,
    """
    Dear {p.title} {p.last},

    Please find attached the signed contract for the {world_city} project. Let me know if you need anything else.

    Kind regards,
    {p2.full}
    {o.name}
    {a.full}
    Tel. {phone}
    """,
    """
    Hi all,

    Quick reminder that the office will be closed on {date} for the bank holiday. May I also remind everyone to submit timesheets by {weekday}.

    Thanks,
    {p.first}
    """,
    """
    On {date}, {p.full} <{p.email}> wrote:
    > Could you resend the invoice? I think it went to my old address.

    Sure, resent to {p.email}. The invoice number is {invoice}.

    {p2.first}{~| from {o.name}}
    """,
    """
    Subject: Welcome to the team!

    Everyone, please welcome {p.full}, who joins {o.name} as {job} on {date}. {p.first} will sit with the {dept} team in the {world_city} office. Say hi at {p.email}!

    {p2.first}
    """,
    """
    Hello {p.first},

    Your order {order} has shipped and will be delivered to:
    {p.full}
    {a.full}

    Track it with {tracking}. Questions? Reply to this e-mail or call {phone}.
    """,
    """
    {p.first},

    Will you be able to cover the {time} call tomorrow? I'm stuck at the dentist. Dial-in details are in the calendar invite.

    Cheers
    {p2.i_last}
    """,
    """
    Dear Hiring Manager,

    I am applying for the {job} position advertised on your website. I have {num} years of experience and attach my CV. I can be reached at {p.phone} or {p.email}.

    Yours faithfully,
    {p.full}
    {a.full}
    """,
    """
    From: {role_email}
    To: {p.email}
    Subject: Your password was changed

    Hi {p.first}, the password for your account ({p.user}) was changed on {date} at {time}. If this wasn't you, contact us immediately.
    """,
    """
    Hi {p.first} and {p2.first},

    Summary of today's call: {o.name} agreed to the revised timeline. Next checkpoint on {date}. {p3.full} will prepare the budget.

    Thanks,
    {p4.first}
    """,
    """
    Good morning {p.title} {p.last},

    Following our conversation, I confirm the transfer of {amount} to the account below:
    Beneficiary: {p2.full}
    IBAN: {iban}
    Reference: {invoice}

    Best regards,
    {p.full|upper}
    """,
    """
    Please do not reply to this message. This mailbox is not monitored. For help, visit our Help Centre or write to {role_email}. (c) {year} {o.name}. All rights reserved.
    """,
    """
    Hi {p.first|lower},

    happy birthday for tomorrow!! can't believe you'll be {p.age}. drinks on {weekday}? {p2.first|lower} and {p3.first|lower} are in.

    x
    """,
    """
    Subject: Out of office

    I am out of the office until {date} with limited access to e-mail. For urgent matters please contact {p2.full} at {p2.email} or {p2.phone}.

    {p.full}
    """,
    """
    Hello,

    We have received your application for a credit card. To continue, please confirm your details:
    Name: {p.full}
    Date of birth: {p.dob}
    Address: {a.line}

    {o.name} Customer Services
    """,
    """
    Thanks {p.first}! Forwarding to {p2.first} who handles the {product} accounts.

    ---------- Forwarded message ---------
    From: {p.full} <{p.email}>
    Date: {date}
    Subject: Licence renewal

    Hi, our licence for the {product} integration expires in {month}. Can we renew for {num} seats?
    """,
    """
    Dear colleagues,

    The {training} course is mandatory for all staff and must be completed by {date}. Bookings via the intranet. Questions to {role_email}.

    Facilities
    """,
    """
    Hi {p.first},

    Lovely to meet you at the conference in {world_city}. As promised, here's the contact for {p2.full} at {o.name}: {p2.email}. Tell {p2.him} I sent you!

    {p3.first}
    """,
    """
    Dear {p.first}{~| and family},

    Thank you for your booking. Your stay at our {world_city} hotel from {date} to {date2} is confirmed. Booking reference {hexid}. The card ending in {num} will be charged on arrival.
    """,
    """
    {p.first}, can you approve the expense claim from {p2.full}? {amount} for travel to {world_city}. It's in your queue since {weekday}.

    Sent from my iPhone
    """,
    """
    Hello {p.full},

    You've been invited to join the {o.name} workspace. Your username will be {p.user}. Click the link below to accept.
    """,
    """
    Hi team,

    {p.first} is leaving us on {date} after {num} years. Card and collection on {weekday}; see {p2.first} in {dept}. Please keep it a surprise!

    {p3.first}
    """,
    """
    Dear Sir or Madam,

    I wish to complain about the service I received at your branch on {date}. My account number is {iban}. Please contact me at {p.email}.

    Yours faithfully,
    {p.title} {p.full}
    """,
    """
    From: {p.email}
    Sent: {weekday}, {date_long} {time}
    To: {p2.email}; {p3.email}
    Cc: {email}
    Subject: Minutes

    See attached. Actions on {p2.first} and {p3.first}.
    """,
    """
    Hey,

    Just a heads-up that the {~April|March|June} release moved to {~May|July|August}. Summer holidays mean fewer reviewers, so let's freeze the branch {~early|on {weekday}}. No action needed from you {~yet|for now|until {date}}.

    Thanks!
    """,
    """
    Dear {p.last_first},

    Your appointment with {p2.title} {p2.last} is confirmed for {date} at {time}. Please arrive 10 minutes early and bring photo ID.

    {o.name}
    {a.line}
    """,
    """
    {p.first} -

    Saw your post about the {product}. I have one I'm not using. Happy to sell it for {amount}. Text me on {p2.phone}.

    {p2.first}
    """,
    """
    Subject: Change of address

    Hi, I've moved. Please update my records:
    Old: {a.line}
    New: {a2.line}
    Phone unchanged ({p.phone}).

    Many thanks,
    {p.full}
    """,
    """
    Hi {p.first},

    Your one-time code is {big}. It expires in 10 minutes. If you didn't request it, someone may be trying to access {p.email}.

    The {o.name} Security Team
    """,
    """
    Dear {p.title} {p.last},

    We regret to inform you that your application was unsuccessful on this occasion. We will keep your details on file for {num} months.

    Yours sincerely,
    {p2.i_last}
    Head of {dept}
    """,
    """
    Hi,

    Attached is the report for {month}. Revenue in the {world_city} region grew {pct}; iPhone and Galaxy devices now make up most mobile traffic. Nothing personal in it, happy to share widely.

    Regards
    """,
    """
    Thanks for your payment of {amount}.

    Paid by: {p.full}
    Card: {card}
    Date: {date}

    Keep this e-mail as your receipt.
    """,
    """
    Dear Dr {p.last},

    I am writing to refer {p2.title} {p2.full} (DOB {p2.dob}) for assessment. {p2.he|cap} has been my patient since {year}. Please contact the practice on {phone}.

    Yours sincerely,
    Dr {p3.full}
    """,
    """
    Hi {p.first},

    I'll be in {world_city} next {weekday}, staying near {a.street}. Fancy a coffee? My UK number is {phone}.

    {p2.first}
    """,
    """
    Dear members,

    The annual general meeting will take place on {date} at {time}. The agenda and last year's minutes are attached. Apologies to the secretary, {p.full} ({p.email}).
    """,
    """
    Hello {p.first},

    As discussed, here are my bank details for the deposit:
    {p2.full}
    {iban}

    Please use "{invoice}" as the reference. Thanks!
    {p2.first}
    """,
    """
    Subject: Re: Re: dinner

    haha yes! {weekday} works. will bring {p2.first}. {p.first|lower}

    > On {date}, {p3.full} wrote:
    > Are we still on for dinner?
    """,
    """
    Dear {o.name} Team,

    Please remove {p.email} from all mailing lists. I never signed up for these. Thank you.
    """,
    """
    Dear {p.title} {p.last},

    To complete your registration we need your national identification number. You entered {p.gov}; please confirm it is correct by replying to this e-mail.

    {o.name} Onboarding
    """,
    """
    Hi {p.first},

    Your payslip for {month} is attached. Your National Insurance number on file is {nino}. If this is wrong, tell Payroll before the next run on {date}.

    {p2.first}, Payroll
    """,
    """
    Receipt {invoice}

    Thank you for shopping with {o.name}. We charged {amount} to the card {card} on {date}. Items will ship to {a.line}.
    """,
)
