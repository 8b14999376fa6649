"""Code and configuration: secrets in vendor formats, beside values that are not secrets.

The SECRET span is the value only: not the key name, the quotes, ``Bearer`` or the URL
around a password. Commit hashes, UUIDs, checksums, public keys and placeholders
(``${{DB_PASSWORD}}``, ``<your-token>``) are written unlabelled beside them.
Append new templates at the end; never reorder or edit in place (ids are positions).
"""

# Template lines are document lines: wrapping them would change the documents.
# ruff: noqa: E501

KIND = "code"
CASE = None
LABELS = frozenset({"SECRET", "EMAIL", "PERSON", "IP_ADDRESS", "USERNAME", "PHONE"})

TEMPLATES = (
    """
    # .env
    DATABASE_URL=postgres://app:{password}@{ip_priv}:5432/app
    REDIS_URL=redis://cache-a:6379/0
    STRIPE_SECRET_KEY={stripe_key}
    SENTRY_DSN=
    DEBUG=false
    """,
    """
    import os
    import requests

    API_KEY = "{openai_key}"  # TODO: move to env before merging

    def ask(prompt: str) -> str:
        resp = requests.post(URL, headers={{"Authorization": f"Bearer {{API_KEY}}"}}, json={{"prompt": prompt}})
        return resp.json()["text"]
    """,
    """
    aws_access_key_id = {aws_key_id}
    aws_secret_access_key = {aws_secret}
    region = eu-west-1
    """,
    """
    const config = {{
      host: "{ip}",
      user: "{p.user}",
      password: "{password}",
      database: "orders",
    }};
    """,
    """
    commit {sha}
    Author: {p.full} <{p.email}>
    Date:   {ts}

        Remove hard-coded token from deploy script

    -GITHUB_TOKEN={gh_token}
    +GITHUB_TOKEN=${{GITHUB_TOKEN}}
    """,
    """
    apiVersion: v1
    kind: Secret
    metadata:
      name: app-secrets
    stringData:
      SLACK_BOT_TOKEN: {slack_token}
      SMTP_PASSWORD: "{password}"
      SMTP_USER: {role_email}
    """,
    """
    curl -X POST https://api.sendgrid.com/v3/mail/send \\
      -H "Authorization: Bearer {sendgrid_key}" \\
      -H "Content-Type: application/json" \\
      -d '{{"personalizations":[{{"to":[{{"email":"{p.email}"}}]}}]}}'
    """,
    """
    {pem_key}
    """,
    """
    # ~/.npmrc
    //registry.npmjs.org/:_authToken={npm_token}
    """,
    """
    # Copyright (c) {year} {p.full} <{p.email}>
    # SPDX-License-Identifier: MIT
    \"\"\"Utilities for parsing invoices.\"\"\"

    def total(lines):
        return sum(line.amount for line in lines)
    """,
    """
    $ git config --global user.name "{p.full}"
    $ git config --global user.email "{p.email}"
    $ git remote add origin https://{p.user}:{gh_token}@github.com/acme/billing.git
    """,
    """
    terraform {{
      backend "s3" {{
        bucket = "tf-state-prod"
        key    = "network/terraform.tfstate"
        region = "eu-west-1"
      }}
    }}

    provider "google" {{
      credentials = "{google_key}"
    }}
    """,
    """
    - name: Publish
      run: twine upload {~dist/*|--repository {~pypi|testpypi} dist/*}
      env:
        TWINE_USERNAME: __token__
        TWINE_PASSWORD: ${{{{ secrets.PYPI_TOKEN }}}}
    """,
    """
    spring.datasource.url=jdbc:mysql://{ip_priv}:3306/shop
    spring.datasource.username={p.user}
    spring.datasource.password={password}
    logging.level.root=INFO
    """,
    """
    HF_TOKEN = "{hf_token}"
    model = AutoModel.from_pretrained("bert-base-uncased", token=HF_TOKEN)
    """,
    """
    Authorization: Basic {basic_auth}
    Accept: application/json
    User-Agent: {ua}
    """,
    """
    # settings.py
    SECRET_KEY = "{hex_secret}"
    ALLOWED_HOSTS = ["{ip}", "localhost"]
    ADMINS = [("{p.full}", "{p.email}")]
    """,
    """
    ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{hexid}{hexid2}{sha_short} {p.user}@laptop
    """,
    """
    FROM python:3.11-slim
    ENV PIP_NO_CACHE_DIR=1
    ARG GITLAB_TOKEN={gl_token}
    RUN pip install --index-url https://__token__:${{GITLAB_TOKEN}}@gitlab.example.com/api/v4/projects/{big}/packages/pypi/simple internal-lib
    """,
    """
    SLACK_WEBHOOK_URL = "{slack_hook}"

    def notify(text):
        requests.post(SLACK_WEBHOOK_URL, json={{"text": text}})
    """,
    """
    -- seed data
    INSERT INTO users (id, name, email, last_login_ip) VALUES
      ({big}, '{p.full}', '{p.email}', '{ip}'),
      ({big2}, '{p2.full}', '{p2.email}', '{ip2}');
    """,
    """
    # config.yaml
    database:
      host: {host}
      user: ${{DB_USER}}
      password: ${{DB_PASSWORD}}
    cache:
      ttl: 300
    """,
    """
    ANTHROPIC_API_KEY={anthropic_key}
    OPENAI_API_KEY=<your-key-here>
    """,
    """
    requests.get(
        "https://api.{o.domain}/v1/customers",
        headers={{"Authorization": "Bearer {jwt}"}},
        timeout=10,
    )
    """,
    """
    # Twilio
    TWILIO_AUTH_TOKEN={twilio_token}
    TWILIO_FROM={phone}
    """,
    """
    sha256sum release.tar.gz
    {sha256}  release.tar.gz
    """,
    """
    def test_login(client):
        resp = client.post("/login", data={{"username": "{p.user}", "password": "{password}"}})
        assert resp.status_code == 200
    """,
    """
    mysql -h {ip} -u {p.user} -p'{password}' -e "SHOW DATABASES;"
    """,
    """
    {{
      "type": "service_account",
      "project_id": "billing-prod",
      "private_key_id": "{sha}",
      "client_id": "{big}{big2}"
    }}
    """,
    """
    # CODEOWNERS
    /billing/   {p.handle} {p2.handle}
    /docs/      {p3.handle}
    """,
    """
    // TODO({p.user}): remove before release
    const ADMIN_PASSWORD = "{password}";
    const BUILD_ID = "{uuid}";
    """,
    """
    <connectionStrings>
      <add name="Main" connectionString="Server={ip};Database=Crm;User Id={p.user};Password={password};" />
    </connectionStrings>
    """,
    """
    export GH_TOKEN={gh_fine}
    gh release create v{version} --notes "Fixes from {p.handle}"
    """,
    """
    pipeline:
      image: node:20
      script:
        - npm ci
        - npm test
      variables:
        NODE_ENV: test
        CI_COMMIT_SHA: {sha}
    """,
    """
    >>> import hashlib
    >>> hashlib.sha1(b"{p.email}").hexdigest()
    '{sha}'
    """,
    """
    $ heroku config:set SENDGRID_API_KEY={sendgrid_key} --app shop-prod
    Setting SENDGRID_API_KEY and restarting shop-prod... done, v{num}
    """,
)
