"""Schemathesis against the live server (issue 18, "done when"): gunicorn with production
settings, every check but positive_data_acceptance (business rules a JSON Schema cannot state,
such as GPUs a multiple of GPUs per server, rightly answer 400), the examples, coverage, fuzzing
(positive and negative) and stateful phases, EXAMPLES examples per operation (`make test` runs 12
in process, tests/test_openapi.py). Goal: zero server errors, zero schema violations.

Prints the counts of distinct failures by kind; the full report (JSON) and the CLI's output stay
in a temporary directory whose path is printed with them."""

import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.load import ROOT, _free_port, _headers, production_env, start_gunicorn, stop

EXAMPLES = int(os.environ.get("BENCH_SCHEMATHESIS_EXAMPLES", "100"))
MAX_TIME_S = int(os.environ.get("BENCH_SCHEMATHESIS_SECONDS", "600"))
# Schemathesis's failure types (the JSON report's "failures", each with a count of distinct ones).
SERVER_ERRORS = {"ServerError"}
SCHEMA_VIOLATIONS = {
    "JsonSchemaError", "UndefinedStatusCode", "UndefinedContentType", "MissingHeaders",
    "MalformedMediaType", "MissingContentType",
}  # fmt: skip
PREPARE = (
    "from core.services import user_create, api_token_create; from core.roles import "
    "SALES_ENGINEER; from core.models import TokenScope; "
    "u = user_create(username='fuzz', password='fuzz-pw-1', role=SALES_ENGINEER, "
    "team_name='Fuzz'); print(api_token_create(user=u, name='fuzz', "
    "scope=TokenScope.READ_WRITE)[1])"
)


def _prepare(env: dict[str, str]) -> str:
    manage = [sys.executable, "manage.py"]
    for args in (["migrate", "-v0"], ["setup_roles"], ["load_catalog"]):
        subprocess.run(manage + args, cwd=ROOT, env=env, check=True, capture_output=True)
    out = subprocess.run(
        [*manage, "shell", "-c", PREPARE],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return out.stdout.strip().splitlines()[-1]


def failures_by_type(report: dict) -> tuple[Counter[str], list[str]]:
    """Distinct failures in Schemathesis's JSON run report, counted per type, and one line for
    each (code, title, count, operations) to print."""
    counts: Counter[str] = Counter()
    lines = []
    for failure in report.get("failures") or []:
        counts[failure["type"]] += int(failure.get("count", 1))
        operations = ", ".join(failure.get("operations") or [])
        lines.append(
            f"{failure['code']} {failure['title']} x{failure.get('count', 1)}: {operations}"
        )
    return counts, lines


def run() -> list[tuple]:
    workdir = tempfile.mkdtemp(prefix="ezmax-bench-schemathesis-")
    env = production_env(workdir)
    token = _prepare(env)
    port = _free_port()
    server = start_gunicorn(env, port)
    report_path = Path(workdir) / "schemathesis.json"
    schema_path = Path(workdir) / "openapi.json"
    try:
        # Generating the schema takes longer than Schemathesis waits for it (10 s) on a busy
        # machine: fetched once here, then read from the file.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.request("GET", "/api/v1/schema/?format=json", headers=_headers(token))
        schema_path.write_bytes(conn.getresponse().read())
        conn.close()
        started = time.monotonic()
        cli = subprocess.run(
            [
                str(Path(sys.executable).with_name("schemathesis")), "run",
                str(schema_path), "--url", f"http://127.0.0.1:{port}",
                "--checks", "all", "--exclude-checks", "positive_data_acceptance",
                "--phases", "examples,coverage,fuzzing,stateful", "--mode", "all",
                "--max-examples", str(EXAMPLES), "--max-time", str(MAX_TIME_S),
                "--continue-on-failure", "--no-shrink", "--seed", "18",
                "-H", f"Authorization: Bearer {token}", "-H", "X-Forwarded-Proto: https",
                "--report", "json", "--report-json-path", str(report_path),
            ],
            cwd=workdir, capture_output=True, text=True, env=env,  # its cache stays there
        )  # fmt: skip
        took = time.monotonic() - started
    finally:
        stop(server)
    (Path(workdir) / "schemathesis.out").write_text(cli.stdout + cli.stderr, encoding="utf-8")
    if not report_path.exists():
        raise RuntimeError(f"no report; see {workdir}/schemathesis.out")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    if report.get("errors") or not report.get("complete"):
        raise RuntimeError(f"Schemathesis did not complete: {report.get('errors')}; see {workdir}")
    counts, lines = failures_by_type(report)
    for line in lines:
        print(f"  {line}")
    print(f"  (stopped: {report.get('stop_reason')}; report and CLI output in {workdir})")
    return [
        (f"Schemathesis, {EXAMPLES} examples/operation: run time", took, "s"),
        ("server errors (goal 0)", sum(counts[c] for c in SERVER_ERRORS), "failures"),
        ("schema violations (goal 0)", sum(counts[c] for c in SCHEMA_VIOLATIONS), "failures"),
        (
            "other check failures",
            sum(counts.values()) - sum(counts[c] for c in SERVER_ERRORS | SCHEMA_VIOLATIONS),
            "failures",
        ),
    ]


if __name__ == "__main__":
    for figure in run():
        print(figure)
