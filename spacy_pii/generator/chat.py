"""Chat: messenger and team-chat lines, mostly lower case, little punctuation, @handles.

60% of chat documents are lower-cased whole after rendering (a trial run's CPU model missed
lower-case names), the rest keep the mixed case people actually type.
Append new templates at the end; never reorder or edit in place (ids are positions).
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "chat"
CASE = ("lower", 0.6)
LABELS = frozenset(
    {
        "PERSON",
        "USERNAME",
        "EMAIL",
        "PHONE",
        "ADDRESS",
        "ORG",
        "SECRET",
        "DATE_OF_BIRTH",
        "PAYMENT",
        "GOV_ID",
    }
)

TEMPLATES = (
    """
    {p.handle} can u send me the deck before {time}
    sure, {p2.first|lower} has the latest version tho
    ok ill ping {p2.him}
    """,
    """
    [{time}] {p.user}: anyone know why the build is red
    [{time2}] {p2.user}: {p.first|lower} its the flaky test again, just rerun
    [{time3}] {p.user}: ty
    """,
    """
    hey {p.first|lower} whats ur number again, my phone died and i lost everything
    its {p.phone}
    thx
    """,
    """
    lol did u see what {p.first} posted
    yeah {p2.first|lower} is gonna be so mad
    """,
    """
    {p.handle} {p2.handle} standup moved to {time} today
    👍
    """,
    """
    can you send it to my personal email {p.email} not the work one
    done
    """,
    """
    new address is {a.line} if ur sending the invite by post
    noted!!
    """,
    """
    may i join the call late, stuck {~in traffic|on the train|at the school gate}
    {~np|sure|ok}
    will start without u{~| at {time}}
    """,
    """
    {p.first|lower}: my wifi password is {password} if u need it when u come over
    {p2.first|lower}: perfect see u at 7
    """,
    """
    who is on call this weekend
    {p.handle} i think
    nope its {p2.handle}
    """,
    """
    happy bday {p.first|lower}!!! 🎉
    thank uuu
    """,
    """
    just met {p.full} from {o.name} at the meetup, really nice, might hire
    oh nice, whats {p.his} email
    {p.email}
    """,
    """
    is the apple {~pie|crumble|cake} at the {~canteen|cafe downstairs} any good
    its ok, the may special was {~better|way better|cheaper}
    """,
    """
    {p.user} joined the channel
    {p.user}: hi all im {p.first|lower}, new on the {dept|lower} team
    {p2.user}: welcome {p.first|lower}!
    """,
    """
    gonna be in {world_city} next week, staying with {p.first|lower} near {a.street}
    oh cool, send pics
    """,
    """
    pls dont share this but the staging admin login is {sysuser} / {password}
    deleted the msg, use the vault next time
    """,
    """
    {p.handle} did {o.name} ever reply about the invoice
    not yet, chasing {p2.first|lower} tomorrow
    """,
    """
    whats the name of that guy from accounts
    {p.last|lower}? {p.full|lower}
    yes him
    """,
    """
    ok so {p.first|lower} said the meeting is at {~3|4|10}, {p2.first|lower} is bringing the slides and will {~drive|present}
    mark the date lol
    """,
    """
    my dob is {p.dob} if the form asks, i cant log in to check
    ok filled it in
    """,
    """
    {time} {p.user} left the chat
    {time2} {p2.user}: was it something i said
    """,
    """
    yo {p.handle} the api key you pasted in #general is live, rotate it pls: {secret}
    oops doing it now
    """,
    """
    call me {phone}
    """,
    """
    sorry running late, tell {p.first} to start
    """,
    """
    {p.full|lower} just got promoted to {job|lower}!!
    about time
    """,
    """
    anyone free for lunch {weekday|lower}
    me
    me too, {p.first|lower} cant make it
    """,
    """
    can u add {p.email} to the shared drive
    whats the folder
    q3 budget
    """,
    """
    text {p.first|lower} on {p.phone} shes at the front desk
    """,
    """
    rent is due, send to {iban} ref flat 2
    sent!
    """,
    """
    did anyone see my {product|lower} charger
    check the meeting room on floor 3
    """,
    """
    {p.handle} ur parcel arrived, left it with {p2.first|lower} at reception
    """,
    """
    deploy is done, v{version} is live, no incidents
    nice
    """,
    """
    add me on insta {p.handle}
    followed
    """,
    """
    meet at {a.line}?
    sure see u there at {time}
    """,
    """
    fyi {p.first|lower} from {o.name|lower} called, wants a callback on {phone}
    """,
    """
    lol the weather in may is wild, snow in {world_city|lower}
    """,
    """
    [{ts}] <{p.user}> brb
    [{ts2}] <{p2.user}> k
    """,
    """
    {p2.handle} pls review my pr when u get a sec, its small
    on it
    """,
    """
    does anyone have {p.first|lower}s email
    {p.email}
    thx
    """,
    """
    {p.full} is so funny in the new episode
    the one with the dog? yes
    """,
    """
    whats ur ssn again for the tax form
    {ssn}
    thx, deleting this msg now
    """,
)
