"""Secrets in a source's URL and headers never reach stdout, stderr, logs or the catalog.

A source whose URL carries a secret in its user-info, in two query parameters (``pass=`` and
``jwt=``, names the old mask did not know), in its fragment, plus one in a header and one in a
bearer token from ``token_env``, is refreshed against a loopback server that refuses it (HTTP
403), and another against one that redirects to another host (the refused-redirect message
quotes both URLs). ``suanli refresh`` runs in text (Chinese) and ``--json`` (English) with the
worker's logging on; every secret is looked for in stdout, stderr (logs included) and every
text column of every table of the SQLite catalog. A declared public parameter stays readable.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from comparator.errors import InputError
from comparator.refresh.sources import load_sources
from providers.urls import mask_text, mask_url
from tests.support.httpserver import Reply, fault_server
from tests.support.refresh_helpers import profile_toml, write_sources

REPO = Path(__file__).resolve().parents[2]
SECRETS = {
    "user-info password": "Pw0rdInUserInfo7",
    "pass= value": "PassValueQ8x2",
    "jwt= value": "eyJhbGciJwtSecret9",
    "fragment": "FragSecretZ4k",
    "header": "HeaderSecretM3n",
    "token_env": "BearerTokenV5w",
    "redirect target": "RedirectCodeR6t",
    "fragment of a sheet URL": "SheetFragmentJ2p",
}
PUBLIC_VALUE = "sg-public-region"
REFRESH_WITH_LOGS = """
import logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stderr,
    format="%(asctime)s %(levelname)s %(name)s: %(message)s")
for noisy in ("apscheduler", "httpx", "alembic"):
    logging.getLogger(noisy).setLevel(logging.WARNING)
from comparator.cli import main
sys.exit(main(sys.argv[1:]))
"""


QUERY = f"?region={PUBLIC_VALUE}&pass={SECRETS['pass= value']}&jwt={SECRETS['jwt= value']}"
TOKEN_ENV = "SUANLI_TEST_SECRET_TOKEN"


def _secret_url(port: int, path: str, user_info: bool) -> str:
    """The URL with secrets in the query and fragment, and in the user-info if asked (httpx
    sends user-info as Basic auth, which takes the place of a token_env bearer token)."""
    user = f"alice:{SECRETS['user-info password']}@" if user_info else ""
    return f"http://{user}127.0.0.1:{port}{path}{QUERY}#{SECRETS['fragment']}"


def _entry(provider: str, url: str, token_env: bool) -> str:
    return (
        f'[[source]]\nprovider = "{provider}"\nadapter = "sheet"\nurl = "{url}"\n'
        f'profile = "{provider}.toml"\nretries = 0\ntimeout_s = 10\n'
        f'public_params = ["region"]\nheaders = {{ X-Api-Key = "{SECRETS["header"]}" }}\n'
        + (f'token_env = "{TOKEN_ENV}"\n' if token_env else "")
    )


def _catalog_texts(db_file: Path) -> list[tuple[str, str, str]]:
    """(table, column, text) for every text or blob value of every table."""
    found = []
    with sqlite3.connect(db_file) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            cursor = conn.execute(f'SELECT * FROM "{table}"')
            columns = [d[0] for d in cursor.description]
            for row in cursor:
                for column, value in zip(columns, row, strict=True):
                    if isinstance(value, bytes):
                        value = value.decode("utf-8", "replace")
                    if isinstance(value, str):
                        found.append((table, column, value))
    return found


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", REFRESH_WITH_LOGS, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_no_secret_in_output_logs_or_catalog(tmp_path: Path) -> None:
    db_file = tmp_path / "catalog.db"
    db = f"sqlite:///{db_file}"
    env = {**os.environ, TOKEN_ENV: SECRETS["token_env"]}
    for provider in ("refused", "moved", "badsheet"):
        (tmp_path / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
    with fault_server() as server:
        server.set(f"/prices.csv{QUERY}", Reply(403, b"forbidden"))
        elsewhere = f"http://other.example:81/next.csv?code={SECRETS['redirect target']}#x"
        server.set(f"/moved.csv{QUERY}", Reply(302, headers={"Location": elsewhere}))
        server.set("/bad.csv", Reply(body=b"provider,region\nbadsheet,sg-1\n"))
        sheet_url = f"{server.url('/bad.csv')}#{SECRETS['fragment of a sheet URL']}"
        entries = [
            _entry("badsheet", sheet_url, token_env=False),
            _entry("refused", _secret_url(server.port, "/prices.csv", True), token_env=False),
            _entry("moved", _secret_url(server.port, "/moved.csv", False), token_env=True),
        ]
        config = write_sources(tmp_path, entries)
        init = subprocess.run(
            [sys.executable, "-m", "comparator", "--db", db, "init", "--no-demo"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert init.returncode == 0, init.stderr
        text = _run(["--db", db, "refresh", "--config", str(config)], env)
        json_run = _run(
            ["--db", db, "--lang", "en", "refresh", "--config", str(config), "--json"], env
        )
        # the requests did go out with their credentials: the secrets were used, not dropped
        refused = server.request_headers[f"/prices.csv{QUERY}"]
        moved = server.request_headers[f"/moved.csv{QUERY}"]
        assert refused["x-api-key"] == moved["x-api-key"] == SECRETS["header"]
        assert refused["authorization"].startswith("Basic ")
        assert moved["authorization"] == f"Bearer {SECRETS['token_env']}"
    outputs = {
        "text stdout": text.stdout,
        "text stderr (logs)": text.stderr,
        "json stdout": json_run.stdout,
        "json stderr (logs)": json_run.stderr,
    }
    assert text.returncode == 1 and json_run.returncode == 1, outputs
    for expected in ("#***: HTTP 403", "bad.csv: 3 bad row(s)", "redirect to"):
        assert expected in json_run.stdout, outputs
    assert "failed in" in json_run.stderr, outputs  # the log lines were captured
    assert PUBLIC_VALUE in json_run.stdout, outputs  # a declared public parameter stays
    texts = _catalog_texts(db_file)
    assert any(PUBLIC_VALUE in value for _, _, value in texts), "no refresh record stored"
    for what, secret in SECRETS.items():
        for name, output in outputs.items():
            assert secret not in output, f"{what} printed in {name}: {output}"
        leaks = [(table, column) for table, column, value in texts if secret in value]
        assert not leaks, f"{what} stored in {leaks}"


def test_mask_url_masks_every_value_but_public_ones() -> None:
    url = "https://u:pw@h.example/p.csv?page=2&pass=x&jwt=y&Page=3#frag"
    assert mask_url(url) == "https://***@h.example/p.csv?page=***&pass=***&jwt=***&Page=***#***"
    assert mask_url(url, ("page",)) == (
        "https://***@h.example/p.csv?page=2&pass=***&jwt=***&Page=***#***"
    )
    assert mask_url("https://h.example/p.csv") == "https://h.example/p.csv"
    said = "redirect to http://x.example/a?code=s3cr3t#f refused; http://u:p@h/x?k=v: HTTP 500"
    assert mask_text(said) == (
        "redirect to http://x.example/a?code=***#*** refused; http://***@h/x?k=***: HTTP 500"
    )


@pytest.mark.parametrize("value", ['"page"', '[""]', "[1]", '["a=b"]', '["a&b"]'])
def test_public_params_must_be_a_list_of_names(tmp_path: Path, value: str) -> None:
    entry = (
        '[[source]]\nprovider = "p"\nadapter = "sheet"\nurl = "https://h.example/p.csv"\n'
        f"public_params = {value}\n"
    )
    with pytest.raises(InputError, match="public_params: expected a list of query parameter"):
        load_sources(write_sources(tmp_path, [entry]))
