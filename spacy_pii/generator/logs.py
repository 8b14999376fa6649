"""Server and application logs: access logs, auth logs, key=value and JSON lines, audits.

System accounts (root, www-data, postgres, ...) are written as unlabelled ``{sysuser}``:
by our conventions they are not USERNAME. Masked card numbers (``****1234``) are not
PAYMENT. Append new templates at the end; never reorder or edit in place.
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "logs"
CASE = None
LABELS = frozenset(
    {"USERNAME", "EMAIL", "IP_ADDRESS", "SECRET", "PAYMENT", "PERSON", "PHONE", "ORG", "GOV_ID"}
)

TEMPLATES = (
    """
    {ip} - {p.user} [{ts}] "{method} {path} HTTP/1.1" {status} {big} "-" "{ua}"
    {ip2} - - [{ts2}] "GET /health HTTP/1.1" 200 2 "-" "kube-probe/1.29"
    {ip} - {p.user} [{ts3}] "GET /static/app.js HTTP/1.1" 304 0 "-" "{ua}"
    """,
    """
    {ts} {host} sshd[{pid}]: Accepted publickey for {p.user} from {ip} port {big} ssh2
    {ts2} {host} sshd[{pid2}]: Failed password for invalid user {sysuser} from {ip2} port {big2} ssh2
    {ts3} {host} sshd[{pid2}]: Connection closed by {ip2} port {big2} [preauth]
    """,
    """
    level=info ts={ts} msg="login succeeded" user={p.user} email={p.email} ip={ip} mfa=true
    level=warn ts={ts2} msg="password attempt failed" user={p2.user} ip={ip2} attempts={num}
    """,
    """
    {{"ts":"{ts}","level":"INFO","event":"user.signup","email":"{p.email}","name":"{p.full}","ip":"{ip}"}}
    {{"ts":"{ts2}","level":"INFO","event":"email.sent","template":"welcome","to":"{p.email}"}}
    """,
    """
    {ts} ERROR PaymentService - charge failed for customer {uuid}: card {card} declined (do_not_honor)
    {ts2} WARN PaymentService - PAN found in log line, masking rule missing for field "card_number"
    """,
    """
    {ts} CRON[{pid}]: ({sysuser}) CMD (/usr/local/bin/backup.sh > /dev/null 2>&1)
    {ts2} systemd[1]: Started Daily apt download activities.
    {ts3} kernel: [{big}.{num}] EXT4-fs (sda1): re-mounted. Opts: errors=remount-ro
    """,
    """
    postfix/smtp[{pid}]: {hexid}: to=<{p.email}>, relay=mx.{o.domain}[{ip}]:25, delay={num}, status=sent (250 2.0.0 OK)
    postfix/qmgr[{pid2}]: {hexid}: from=<{email}>, size={big}, nrcpt=1 (queue active)
    """,
    """
    [{ts}] AUDIT user={p.email} action=role.change target={p2.email} role=admin source_ip={ip}
    [{ts2}] AUDIT user={p.email} action=export.csv rows={big} source_ip={ip}
    """,
    """
    {ts} DEBUG http.client: > POST /oauth/token
    {ts} DEBUG http.client: > Authorization: Bearer {jwt}
    {ts} DEBUG http.client: < HTTP/1.1 200 OK
    """,
    """
    An account was successfully logged on.
    Subject:
        Security ID: S-1-5-18
    New Logon:
        Account Name: {p.user}
        Account Domain: CORP
    Network Information:
        Workstation Name: WS-{big}
        Source Network Address: {ip}
        Source Port: {big2}
    """,
    """
    {ts} kube-scheduler: Successfully assigned default/api-{hexid} to k8s-node-{num}
    {ts2} kubelet: Pulling image "registry.internal/api:{version}"
    {ts3} kubelet: Started container api
    """,
    """
    {ts} vpn-gw: user '{p.user}' authenticated, assigned {ip_priv}, public address {ip4}
    {ts2} vpn-gw: user '{p.user}' disconnected after {num} minutes, {big} bytes
    """,
    """
    {ts} WARN SlowQuery duration_ms={ms} sql="SELECT * FROM customers WHERE email = '{p.email}' AND phone = '{p.phone}'"
    """,
    """
    {ts} INFO  OrderService - order {order} created by {p.user} ({p.email}), {num} items, total {amount}
    {ts2} INFO  OrderService - order {order} shipped via UPS {tracking}
    """,
    """
    {ip} - - [{ts}] "GET /reset-password?email={p.email} HTTP/1.1" 302 0 "-" "{ua}"
    """,
    """
    fail2ban.actions [{pid}]: NOTICE [sshd] Ban {ip}
    fail2ban.actions [{pid}]: NOTICE [sshd] Ban {ip2}
    fail2ban.actions [{pid}]: NOTICE [sshd] Unban {ip3}
    """,
    """
    {ts} app[web.1]: Starting process with command `bundle exec puma -C config/puma.rb`
    {ts} app[web.1]: * Listening on tcp://0.0.0.0:{port}
    {ts2} heroku[router]: at=info method={method} path="{path}" host=app.{o.domain} fwd="{ip}" status={status} bytes={big}
    """,
    """
    {ts} WARN config: environment variable DATABASE_URL=postgres://app:{password}@db.internal:5432/prod printed at startup
    """,
    """
    {ts} ERROR Traceback (most recent call last):
      File "/srv/app/handlers.py", line {big}, in post
        send_sms(user.phone)
    ValueError: invalid recipient '{p.phone}' for user {p.user}
    """,
    """
    {ts} INFO auth: password reset requested for {p.email} from {ip}
    {ts2} INFO auth: password reset token issued ({hexid}), expires in 3600s
    {ts3} INFO auth: password changed for {p.email}
    """,
    """
    {ts} {host} sudo: {p.user} : TTY=pts/{num} ; PWD=/home/{p.user} ; USER={sysuser} ; COMMAND=/usr/bin/systemctl restart nginx
    """,
    """
    {ts} INFO sms-gateway: delivered OTP to {phone} (provider=twilio, id={hexid})
    {ts2} INFO sms-gateway: delivered OTP to {phone2} (provider=twilio, id={hexid2})
    """,
    """
    {ts} INFO deploy: version {version} rolled out to {num} pods in {ms} ms, commit {sha}
    {ts2} INFO deploy: health checks passing
    """,
    """
    {ts} firewall: DROP IN=eth0 SRC={ip} DST={ip_priv} PROTO=TCP SPT={big} DPT={port}
    {ts2} firewall: ACCEPT IN=eth0 SRC={ip2} DST={ip_priv} PROTO=TCP SPT={big2} DPT=443
    """,
    """
    {ts} INFO profile: user {p.user} updated display name from "{p.full}" to "{p.first}"
    """,
    """
    {ts} ERROR stripe webhook signature mismatch, secret used: {stripe_key}
    """,
    """
    {ts} INFO crm-sync: upserted contact {{id: {big}, name: "{p.full}", email: "{p.email}", phone: "{p.phone}", company: "{o.name}"}}
    """,
    """
    Nov {num} {time}:{num2} {host} dhcpd[{pid}]: DHCPACK on {ip_priv} to {hexid} ({host}) via eth0
    """,
    """
    {ts} INFO billing: invoice {invoice} paid by IBAN {iban}, payer "{p.full}"
    """,
    """
    {ts} WARN ratelimit: client {ip} exceeded 100 req/min on {path}, user={p.user}
    """,
    """
    {ts} INFO scheduler: job nightly-report finished in {ms} ms, {big} rows, 0 errors
    {ts2} INFO scheduler: next run at {ts3}
    """,
    """
    {ts} ERROR mailer: could not deliver to {p.email}: 550 5.1.1 user unknown
    {ts2} INFO mailer: bounced address {p.email} added to suppression list
    """,
    """
    {ts} DEBUG env: AWS_ACCESS_KEY_ID={aws_key_id} AWS_SECRET_ACCESS_KEY={aws_secret} AWS_REGION=eu-west-1
    """,
    """
    {ts} INFO gitlab-runner: job {big} for {p.user} succeeded on runner ci-runner-{num}, commit {sha_short}
    """,
    """
    {ts} INFO ldap: bind ok dn="uid={p.user},ou=people,dc=corp,dc=local" from {ip}
    {ts2} INFO ldap: search base="ou=groups,dc=corp,dc=local" filter="(member=uid={p.user})" entries={num}
    """,
    """
    {ts} WARN login: too many failed attempts for {p.email}, account locked for 15 minutes (client {ip}, {ua})
    """,
    """
    {ts} INFO api: {method} {path} {status} {ms}ms request_id={uuid}
    {ts2} INFO api: {method2} {path2} {status2} {ms2}ms request_id={uuid2}
    """,
    """
    {ts} WARN validation: rejected tax id for user {p.user}: value="{p.gov}" reason=checksum_service_timeout
    {ts2} INFO validation: retry scheduled in 30s
    """,
)
