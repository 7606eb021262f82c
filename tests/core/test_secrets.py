"""Secret detection: every rule on real-shaped (fake) credentials, no alarm on ordinary text,
and the refusal through the store (the rule named, the secret never echoed).

Core layer: ``text.secrets`` and ``MemoryStore``; the CLI's refusal (exit 2) is in
tests/cli/test_secrets.py."""

from __future__ import annotations

import pytest

from zeromem_cli import MemoryStore, SecretDetectedError
from zeromem_cli.text.secrets import RULES, find_secrets, mask_secrets

# Fake credentials with the exact shape of real ones (built by concatenation so repository
# secret scanners do not flag this file). Each is (rule, text, the secret inside the text).
_PEM_BODY = "MIIEowIBAAKCAQEA7bq3x9Yz0Qm1vQ2kV8x3FhZ9wL5k\nq8L2b3c4d5e6f7g8h9i0jAAAA=="
SAMPLES: list[tuple[str, str, str]] = [
    (
        "private_key",
        "deploy key:\n{s}\nkeep it safe",
        "-----BEGIN RSA PRIVATE KEY-----\n" + _PEM_BODY + "\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "private_key",
        "{s}",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n"
        "-----END OPENSSH PRIVATE KEY-----",
    ),
    ("private_key", "{s}", "-----BEGIN PRIVATE KEY-----\n" + _PEM_BODY),  # truncated paste
    ("private_key", "{s}", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF" + "x" * 40),
    ("aws_access_key_id", "AWS key id is {s} for prod", "AKIA" + "IOSFODNN7EXAMPLE"),
    ("aws_access_key_id", "temporary creds {s}", "ASIA" + "Y34FZKBOKMUTVV7A"),
    (
        "aws_secret_access_key",
        "aws_secret_access_key = {s}",
        "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY",
    ),
    (
        "aws_secret_access_key",
        'AWS_SECRET_ACCESS_KEY="{s}"',
        "je7MtGbClwBF/2Zp9Utk/" + "h3yCo8nvbEXAMPLEKEY",
    ),
    ("github_token", "use token {s} for the CI", "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github_token", "{s}", "gho_" + "16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github_token", "{s}", "ghs_" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"),
    (
        "github_token",
        "GH_TOKEN={s}",
        "github_pat_"
        + "11ABCDEFG0123456789abc_"
        + "x9Y8w7V6u5T4s3R2q1P0o9N8m7L6k5J4i3H2g1F0e9D8c7B6a5",
    ),
    ("gitlab_token", "gitlab: {s}", "glpat-" + "xR7pQ2mK9vL4nB8cT1wZ"),
    ("slack_token", "bot token {s}", "xoxb-" + "2048203948-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack_token", "{s}", "xoxp-" + "1234567890-1234567890-1234567890-abcdef0123456789"),
    (
        "slack_webhook",
        "alerts go to {s}",
        "https://hooks.slack.com/services/" + "T0ABCDEFG/B0HIJKLMN/aBcDeFgHiJkLmNoPqRsTuVwX",
    ),
    (
        "anthropic_key",
        "ANTHROPIC_API_KEY={s}",
        "sk-ant-" + "api03-" + "Xy9zAbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdEfGhIjKlMnOpQrSt",
    ),
    (
        "openai_key",
        "openai key {s}",
        "sk-" + "Zx8Ty6Ab4Cd2Ef0Gh9Ij7Kl5Mn3Op1QrT3BlbkFJ" + "qW2eR4tY6",
    ),
    (
        "openai_key",
        "{s}",
        "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34Yz56-_Ab12Cd34",
    ),
    ("google_api_key", "maps key {s}", "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("stripe_key", "stripe {s}", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe_key", "{s}", "rk_test_" + "51H8x2eLkjhKJHkjh8765JHGkjhg"),
    ("stripe_key", "{s}", "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    (
        "jwt",
        "Authorization cookie {s}",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0."
        + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ),
    ("url_credentials", "DATABASE_URL=postgres://app:{s}@db.internal:5432/prod", "Tr0ub4dor-3"),
    ("url_credentials", "mirror https://deploy:{s}@git.example.com/x.git", "hunter2hunter2"),
    ("bearer_token", "curl -H 'Authorization: Bearer {s}'", "a1b2C3d4E5f6G7h8I9j0K1l2M3n4"),
    ("password_assignment", "db password={s}", "hunter22"),
    ("password_assignment", "DB_PASSWORD: '{s}'", "correct horse battery staple"),
    ("password_assignment", '{{"password": "{s}"}}', "S3cure!pass"),
    ("password_assignment", "wifi passwd: {s}", "Blue-Fish-42"),
    ("password_assignment", "secret={s}", "zq8Lm2Vn"),
    ("password_assignment", "MYSQL_ROOT_PASSWORD={s}", "averylongpassphrase"),
    ("api_key_assignment", "api_key = {s}", "4f9d8e7c6b5a4e3d2c1b0a9f8e7d6c5Q"),
    ("api_key_assignment", "SENDGRID_API_KEY={s}", "SG.Ab12Cd34Ef56Gh78Ij90.Kl12Mn34Op"),
    ("api_key_assignment", 'access_token: "{s}"', "ya29A0ARrdaM9xY7wV5uT3sR1qP"),
    ("npm_token", "//registry/:_authToken {s}", "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ("huggingface_token", "HF: {s}", "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
    (
        "pypi_token",
        "twine with {s}",
        "pypi-" + "AgEIcHlwaS5vcmcCJGI4YmQ1ZTc2LWQxNjQtNDY2ZC04ZmE3" + "LTNiZGE2MjQ2ZmM1NwACKlsz",
    ),
    ("docker_token", "docker login -p {s}", "dckr_pat_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N"),
    (
        "sendgrid_key",
        "mail via {s}",
        "SG." + "aBcDeFgHiJkLmNoPqRsTuV" + "." + "wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234",
    ),
    ("twilio_key", "twilio {s}", "SK" + "0123456789abcdef0123456789abcdef"),
    (
        "azure_storage_key",
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={s};EndpointSuffix=core",
        "Zm9vYmFyYmF6cXV4" + "1234567890abcdefABCDEFghijklmnopqrstuvwxyz+/AB==",
    ),
    ("basic_auth", "curl -H 'Authorization: Basic {s}'", "dXNlcjpodW50ZXIy"),
    ("password_phrase", "my password is {s}", "hunter22"),
    ("password_phrase", "FYI the wifi password was {s} until May", "Blue-Fish-42"),
    ("password_phrase", "我的密码是 {s}", "hunter2x"),
    ("password_phrase", "邮箱密码：{s}", "Tr0ub4dor&3"),
]

ORDINARY: list[str] = [
    "Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b, see the PR",
    "short sha a94a8fe5 and the sha256 is "
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b4c8a1dd27b1b1e4e1d4f8f2a",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed twice",
    "Upgrade to v2.14.0-rc.1 (build 20260130.3) before Friday; python 3.12.1",
    "The logo is stored as iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
    "Docs: https://docs.example.com/api/v2/keys?page=2#rotation and https://github.com/org/repo",
    "ssh user@host.example.com, then mailto:alice@example.com",
    "周报发送时间改为每周五下午五点，密码策略要求十二位",
    "my password policy requires 12 characters",
    "Password: at least 12 characters, rotated yearly",
    "password: required",
    "secret: classified",
    "Reset the password via https://id.example.com/reset",
    "Set PASSWORD=$DB_PASSWORD in the env; api_key: ${API_KEY}; token=<your token>",
    "password = ******** (redacted) and secret=xxxxxxxx",
    "I use 1Password and passwordless login; the passkey works",
    "sk-learn is a typo for scikit-learn; skeleton-key-for-the-shed-door-is-under-the-mat",
    "the akia tribe and AKIA alone are fine",
    "Rotate the token every 90 days; the api key lives in the vault",
    "eyJ is how base64 JSON starts",
    "Bearer tokens expire after one hour",
    "token = refresh-token-rotation-enabled",
    "the function pass_through=True is a flag",
    "ghp_ prefixes mark GitHub tokens",
    "order #AB12-CD34-EF56 ships Monday; ticket JIRA-4821",
    # hashes, ids and code that names a key without holding one
    "md5 d41d8cd98f00b204e9800998ecf8427e and sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "trace 550e8400-e29b-41d4-a716-446655440000 / 6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    "api_key = os.environ['OPENAI_API_KEY']",
    'token = os.environ.get("HF_TOKEN")',
    "password = getpass.getpass()",
    "AccountKey=<your key>",
    "Authorization: Basic <base64>",
    "npm_config_cache is an env var; hf_hub_download fetches files",
    "SKU 12345 is out of stock; SK telecom",
    # prose about passwords and pins
    "my password is strong",
    "the password is changed every month",
    "my PIN is secret",
    "Our password was reset yesterday",
    "the pin is bent",
    "I pinned the note; the spinner is slow",
    "Basic income is a policy idea; the basics matter",
    # Chinese prose
    "我的密码是什么？忘记了",
    "密码是十二位以上的字母和数字",
    "密码：至少12位",
    "张伟的手机号换了，周五开会讨论预算",
    "我喜欢喝咖啡，不喜欢喝茶",
]


@pytest.mark.parametrize(("rule", "template", "secret"), SAMPLES)
def test_every_rule_detects_its_real_shaped_sample(rule: str, template: str, secret: str) -> None:
    text = template.format(s=secret)
    matches = find_secrets(text)
    assert [m.rule for m in matches] == [rule], matches
    start, end = matches[0].span
    assert secret.startswith(text[start:end]) or text[start:end] == secret
    masked = mask_secrets(text)
    assert secret not in masked and f"[secret: {rule}]" in masked


def test_every_rule_has_a_sample() -> None:
    assert {rule.name for rule in RULES} == {rule for rule, _, _ in SAMPLES}


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_raises_no_alarm(text: str) -> None:
    assert find_secrets(text) == []
    assert mask_secrets(text) == text


def test_mask_keeps_the_surrounding_text() -> None:
    key = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
    text = f"db password=hunter22 and token {key} end"
    assert mask_secrets(text) == (
        "db password=[secret: password_assignment] and token [secret: github_token] end"
    )
    assert mask_secrets(text, template="***") == "db password=*** and token *** end"


def test_store_refuses_a_secret_and_names_the_rule(store: MemoryStore) -> None:
    secret = "glpat-" + "xR7pQ2mK9vL4nB8cT1wZ"
    with pytest.raises(SecretDetectedError) as caught:
        store.add(f"gitlab token {secret}")
    assert caught.value.rules == ("gitlab_token",)
    assert "gitlab_token" in str(caught.value) and secret not in str(caught.value)
    assert caught.value.exit_code == 2
    assert store.count() == 0
    allowed = store.add(f"gitlab token {secret}", allow_secret=True)
    assert secret in allowed.content


def test_store_checks_meta_key_and_tags_and_update(store: MemoryStore) -> None:
    with pytest.raises(SecretDetectedError, match="in meta"):
        store.add("deploy notes", meta={"password": "hunter22"})
    with pytest.raises(SecretDetectedError, match="in key"):
        store.add("deploy notes", key="AKIA" + "IOSFODNN7EXAMPLE")
    memory = store.add("deploy notes")
    with pytest.raises(SecretDetectedError, match="in content"):
        store.update(memory.id, content="deploy with password=hunter22")
    with pytest.raises(SecretDetectedError, match="in meta"):
        store.update(memory.id, meta={"db": "postgres://u:hunter22x@db/x"})
    assert store.get(memory.id).content == "deploy notes"
    assert len(store.history(memory.id)) == 1
    store.update(memory.id, content="deploy with password=hunter22", allow_secret=True)
    assert "hunter22" in store.get(memory.id).content


@pytest.mark.parametrize(
    "text",
    ["password: Tuesday", "Boarding pass: A1234567", "secret: Santa", "pass: the salt"],
)
def test_plain_words_after_a_colon_are_prose(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize("text", ["password=hunter", "pass=Tuesday", "password: Tr0ub4dor"])
def test_assignments_with_equals_or_mixed_values_are_secrets(text: str) -> None:
    assert [m.rule for m in find_secrets(text)] == ["password_assignment"]
