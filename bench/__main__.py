import importlib
import os
import platform
import sys
import time

SUITES = ["bench.engine", "bench.web", "bench.documents", "bench.api", "bench.handover"]
SUITES += ["bench.meaning"]
SUITES += ["bench.asbuilt"]
SUITES += ["bench.load", "bench.schemathesis_run"]


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    only = sys.argv[1:]
    print(f"# make bench  {time.strftime('%Y-%m-%d %H:%M')}  python {platform.python_version()}")
    print(f"# {platform.machine()}, {os.cpu_count()} cores; medians of several runs")
    failed = False
    for name in SUITES:
        if only and not any(name.endswith(o) for o in only):
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # that suite is not written yet
            raise
        print(f"\n## {name}")
        try:
            for figure in module.run():
                # (label, seconds) or (label, value, unit) for other units (MB, req/s).
                label, value = figure[0], figure[1]
                unit = figure[2] if len(figure) > 2 else "ms"
                shown = value * 1000 if unit == "ms" else value
                print(f"  {label:<58} {shown:>10.2f} {unit}")
        except Exception as exc:  # report and continue with the other suites
            failed = True
            print(f"  FAILED: {type(exc).__name__}: {exc}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
