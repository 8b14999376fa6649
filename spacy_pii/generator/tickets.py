"""Support tickets: customer messages, agent replies and internal notes.

Append new templates at the end; never reorder or edit in place, because a template's id
(``tickets/NN``) is its position and the corpus split is keyed on the id.
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "tickets"
CASE = None
LABELS = frozenset(
    {"PERSON", "EMAIL", "PHONE", "ADDRESS", "ORG", "USERNAME", "PAYMENT", "IP_ADDRESS",
     "DATE_OF_BIRTH", "GOV_ID"}
)  # fmt: skip

TEMPLATES = (
    """
    Ticket {ticket} | Priority: {~High|Normal|Low}
    Requester: {p.full} <{p.email}>
    Subject: Can't log in after password reset

    Hi, I reset my password on {weekday} and now the app says my account is locked. My username is {p.user}. Can you unlock it? {~Thanks|Cheers|Thank you}, {p.first}
    """,
    """
    Subject: Order {order} never arrived
    From: {p.email}

    Hello, I ordered the {product} on {date} and the tracking number {tracking} has not moved for {num} days. Delivery address was {a.line}. Please refund or resend.
    {p.full}
    """,
    """
    Internal note ({p2.first}): Called customer back on {phone}, no answer. Left voicemail. Will try again {weekday}. Customer prefers e-mail: {p.email}.
    """,
    """
    Hi {p.first},

    Thanks for contacting {o.name} support. I've updated the billing address on your account to:
    {a.full}

    If anything else looks wrong, just reply to this message.

    Best,
    {p2.first}
    {o.name} Customer Care
    """,
    """
    Customer: {p.full}
    Account: {p.user}
    Phone: {p.phone}
    Issue: Charged twice for the {~Premium|Pro|Family} plan in {month}. Card on file ends in {num}. Asked for refund of {amount}.
    Status: {~Open|Pending|Escalated}
    """,
    """
    Please update my card. The new number is {card}, expiry {~01|04|07|09|12}/{~27|28|29|30}. The old one was cancelled by my bank. - {p.full}
    """,
    """
    Subject: Request to delete my data (GDPR)

    Dear {o.name} team,
    I would like all personal data you hold about me deleted. Name: {p.full}. E-mail used for the account: {p.email}. Registered address: {a.line}. Date of birth for verification: {p.dob}.
    Regards
    """,
    """
    {~Will|Can} someone please look at {ticket}? The {feature} has been broken since {date} and nobody replied. This is the third time I'm asking. {p.i_last}
    """,
    """
    Agent {p2.first} joined the chat.
    {p2.first}: Hi there, could you confirm the e-mail on the account?
    Customer: it's {p.email}
    {p2.first}: Thanks {p.first}. And the phone number?
    Customer: {p.phone}
    {p2.first}: Perfect, I've sent a verification code.
    """,
    """
    Escalation to Tier 2: user {p.user} reports sign-ins from {ip} which they do not recognise. Last good login from {ip2} on {date}. Forced logout of all sessions and reset MFA.
    """,
    """
    Refund approved for {order}. Amount {amount} will go back to IBAN {iban} within {num} working days. Account holder: {p.full}.
    """,
    """
    Hello,

    My {product} stopped charging. I bought it in {world_city} in {month} and it is still under warranty. Receipt attached. Please send the replacement to {a.full}

    Thank you,
    {p.title} {p.last}
    """,
    """
    Subject: Wrong name on invoice {invoice}

    The invoice says "{p2.full}" but the account belongs to me, {p.full}. Please reissue it to {o.name}, attention {p.last_first}.
    """,
    """
    Hi team, quick one: Mark this ticket as resolved, the {product} works again after the update to {version}. No further action needed. Happy {weekday}!
    """,
    """
    Caller verified with DOB {p.dob} and postcode. Name on account: {p.full}. Requested change of phone number from {phone} to {phone2}. Done.
    """,
    """
    Ticket {ticket}
    Category: Account access
    Reported by: {p.user} ({p.email})
    Description: The SSO page keeps redirecting me to the {world_city} region login. I'm based in the {~London|Paris|Madrid|Boston} office. Browser: {ua}.
    """,
    """
    Customer {p.first} says the courier left the parcel at {a.street} instead of their flat. Neighbour {p2.first} signed for it. Asked courier to retrieve.
    """,
    """
    Dear {p.title} {p.last},

    We are sorry to hear about the problem with order {order}. A replacement {product} has been dispatched today and should arrive by {weekday}. Your tracking number is {tracking}.

    Kind regards,
    {p2.full}
    Customer Support, {o.name}
    """,
    """
    hi, i cant access my account anymore, username {p.user}, email {p.email}. i changed phones and lost the authenticator app. please help!!
    """,
    """
    Note from {p2.i_last}: verified identity via last four of SSN and DOB ({p.dob_us}). Customer {p.full} is moving to {a.line} on {date}. Updated shipping profile.
    """,
    """
    Subject: Invoice question

    Hello, we were billed {amount} for {num} seats but we only have {num2} users. Company: {o.name}. Contact: {p.full}, {p.phone}. Thanks.
    """,
    """
    The {product} app crashes on launch since {version}. Steps: open app, tap "Sign in", crash. No personal data involved, happens on every device we tried. Logs attached, ref {hexid}.
    """,
    """
    May I ask why my subscription was cancelled? I paid with the card ending {num} and got a confirmation. Order {order}, placed {date}. Please advise. {p.first}
    """,
    """
    Complaint received by phone from {p.title} {p.full} ({p.phone}). The engineer did not turn up for the appointment on {date} between {time} and {time2}. Customer took a day off work. Offered {amount} credit.
    """,
    """
    Merged duplicate accounts: {p.user} and {p.user|upper}. Primary e-mail kept: {p.email}. Secondary e-mail {email} removed at the customer's request.
    """,
    """
    Hi,
    my son {p2.first} used my card {card} to buy games without permission. I'd like to dispute these charges. I'm the account holder, {p.full}, and my number is {p.phone}.
    """,
    """
    Ticket {ticket} reopened. Customer reports the Apple Pay option is still missing at checkout for orders shipped to {country}. Tested on {product}, reproducible. Assigned to payments team.
    """,
    """
    For verification I gave my National Insurance / tax id {p.gov} but the form says it is invalid. My name is {p.full}, born {p.dob_long}. Can you check?
    """,
    """
    {p.first} from {o.name} called about the bulk order {order}. Delivery to the warehouse at {a.line}. They want the invoice sent to {role_email}.
    """,
    """
    Status update: outage in the {world_city} data centre resolved at {time}. Root cause was a failed switch. No customer data affected. Affected customers will get {pct} off next month's bill.
    """,
    """
    From: {p.full} <{p.email}>
    To: {role_email}
    Subject: Re: {ticket}

    Still not fixed. I tried again from home ({ip}) and from the office. Please call me on {p.phone} between {time} and {time2}.
    """,
    """
    Account holder {p.last_first} requested a copy of all invoices since {year}. Sent to {p.email}. Also asked us to stop marketing calls to {p.phone}.
    """,
    """
    Can you change the delivery name from {p.first} to {p2.full}? It's a gift. Same address, {a.street}. Thanks a lot, really appreciate it.
    """,
    """
    Chargeback notice: transaction {hexid} of {amount} on card {card} disputed by cardholder {p.full}. Reason code {num}. Evidence due {date}.
    """,
    """
    Bug report: when a user named "{p.first}" (or any name with an accent) signs up, the welcome e-mail shows "{p.first|upper}" in the subject. Reported by {p2.user}.
    """,
    """
    Hello! Just a note that I'll be away from {date} to {date2}. If the technician needs access, my neighbour {p2.full} ({p2.phone}) has a key. Address is {a.full}
    """,
    """
    Summary: customer could not reset password because the reset mail went to an old address ({email}). Updated to {p.email} after ID check (passport). Closed.
    """,
    """
    Priority ticket for {o.name}: {num} users in the {dept} department cannot open shared files since the migration on {date}. Contact on site: {p.i_last}, ext. {big}.
    """,
    """
    Dear Support, I am writing on behalf of my mother, {p.title} {p.full}, who is not comfortable online. Her account e-mail is {p.email} and her date of birth is {p.dob}. I have power of attorney. {p2.full}
    """,
    """
    Release {version} fixed the sync issue reported in {ticket} and {ticket2}. Thanks to everyone in Customer Success for the detailed reports. Closing both.
    """,
    """
    Identity check failed for {p.full}: the SSN entered ({ssn}) does not match the one on file. Customer asked to upload a photo of the card. Do not read the number back over the phone.
    """,
    """
    Hi, the tax form in my account shows the wrong ID number. It should be {p.gov}, not the one ending in {num}. Name: {p.full}, account {p.user}. Thanks!
    """,
)
