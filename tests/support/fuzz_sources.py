"""Seeded mutations of a valid sources file (``suanli refresh --config``): values of every key
swapped for hostile TOML values (:data:`tests.support.fuzz_inputs.TOML_VALUES`: signed zeros,
huge numbers, NUL, deep arrays, wrong types), keys dropped, unknown keys and tables, a source
given twice, damaged bytes. Used by ``scripts/faults`` (:mod:`tests.support.faults`).
"""

from __future__ import annotations

import random

from tests.support.fuzz_inputs import PROVIDER, TOML_VALUES, _bytes_damage

SOURCES = """[worker]
cron = "mon 03:00"
timezone = "Asia/Shanghai"
stop_grace_s = 30
max_in_flight = 8

[[source]]
provider = "{provider}"
adapter = "sheet"
url = "https://prices.example.com/gpu.csv?region=sg&api_key=s3cret#top"
profile = "fuzz-co.toml"
timeout_s = 60
connect_timeout_s = 10
read_timeout_s = 30
retries = 3
backoff_s = 1
max_body_mb = 64
parse_timeout_s = 60
redirect_hosts = ["cdn.example.com"]
public_params = ["region"]
headers = {{ Accept = "text/csv" }}

[[source]]
provider = "api-co"
adapter = "http_json"
url = "https://api.example.com/v1/prices"
records = "data.items"
[source.fields]
gpu = "spec.gpu"
price = "price.amount"
region = "zone"
[source.defaults]
currency = "CNY"
billing = "hourly"
"""
SOURCE_VALUES = [
    '"skypilot"',
    '"http_json"',
    '"nope"',
    '"file:///etc/passwd"',
    '"ftp://example.com/x.csv"',
    '"http://169.254.169.254/latest"',
    '"daily 03:00"',
    '"0 3 * * mon"',
    '"61 25 * * *"',
    '"mon 24:00"',
    '"Mars/Olympus"',
    '"Asia/Shanghai"',
    '["*"]',
    "[]",
    '{ Authorization = "Bearer x" }',
    "{ X = 1 }",
    "0.00390625",
    "4097",
    "1e-9",
]
EXTRA_LINES = [
    "[[source]]",
    "[worker]",
    "[report]",
    "unknown = 1",
    f'provider = "{PROVIDER}"',
    "path = 'prices.csv'",
    "[source.values.billing]",
    'POSTPAID = "hourly"',
]


def sources_case(rng: random.Random) -> bytes:
    provider = rng.choice([PROVIDER, PROVIDER, "api-co", "x" * 65, "", "a b"])
    lines = SOURCES.format(provider=provider).splitlines()
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        i = rng.randrange(len(lines))
        if "=" in lines[i] and rng.random() < 0.8:
            key = lines[i].split("=", 1)[0].strip()
            lines[i] = f"{key} = {rng.choice(TOML_VALUES + SOURCE_VALUES)}"
        elif rng.random() < 0.5:
            lines.insert(i, rng.choice(EXTRA_LINES))
        else:
            del lines[i]
    data = ("\n".join(lines) + "\n").encode()
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    return _bytes_damage(rng, data) if rng.random() < 0.2 else data
