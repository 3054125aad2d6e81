#!/usr/bin/env python3
"""The hami-scheduler systemd unit: systemd-analyze verify accepts it without
a single complaint, it carries the directives the service depends on, and its
hardening scores as systemd-analyze security's "OK" exposure.

The unit names /usr/bin/hami-scheduler, which exists only once the package is
installed: the check verifies a copy whose ExecStart names the built binary.
Exit 77 (ctest SKIP) only when systemd-analyze is not installed."""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

UNIT_NAME = "hami-scheduler.service"
INSTALLED_BINARY = "/usr/bin/hami-scheduler"


def parse_unit(text):
    """{section: {key: [values...]}} of a unit file."""
    sections, current = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def verify(analyze, unit_path):
    """(returncode, complaints about our unit) from systemd-analyze verify."""
    run = subprocess.run([analyze, "verify", str(unit_path)], capture_output=True, text=True,
                         timeout=30, cwd=unit_path.parent)
    complaints = [l for l in (run.stdout + run.stderr).splitlines()
                  if UNIT_NAME in l or str(unit_path) in l]
    return run.returncode, complaints


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unit", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        print("SKIP: systemd-analyze is not installed (package systemd); the unit was not verified")
        return 77

    failures = []
    text = pathlib.Path(args.unit).read_text()
    unit = parse_unit(text)
    service = unit.get("Service", {})

    def expect(key, value):
        got = service.get(key, [])
        if value not in got:
            failures.append(f"[Service] {key}={value} expected, found {got or 'nothing'}")

    expect("Type", "notify")
    expect("Restart", "on-failure")
    expect("User", "hami-scheduler")
    expect("Group", "hami-scheduler")
    expect("ProtectSystem", "strict")
    expect("NoNewPrivileges", "yes")
    expect("PrivateTmp", "yes")
    expect("ExecStart", f"{INSTALLED_BINARY} --config /etc/hami-scheduler/config.yaml")
    read_only = " ".join(service.get("ReadOnlyPaths", [])).split()
    for path in ("/etc/hami-scheduler", "/usr/lib/hami-scheduler/plugins"):
        if path not in read_only:
            failures.append(f"{path} is not in ReadOnlyPaths ({read_only})")
    if "multi-user.target" not in unit.get("Install", {}).get("WantedBy", []):
        failures.append("[Install] WantedBy=multi-user.target expected")

    work = pathlib.Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    copy = work / UNIT_NAME
    copy.write_text(text.replace(INSTALLED_BINARY, str(pathlib.Path(args.binary).resolve())))
    rc, complaints = verify(analyze, copy)
    if rc != 0 or complaints:
        failures.append(f"systemd-analyze verify: exit {rc}: " + "; ".join(complaints))

    # The same check must notice a broken unit, or it proves nothing.
    broken_dir = work / "broken"
    broken_dir.mkdir()
    broken = broken_dir / UNIT_NAME
    broken.write_text(copy.read_text().replace("Type=notify", "Type=notifyy"))
    rc, complaints = verify(analyze, broken)
    if rc == 0 and not complaints:
        failures.append("systemd-analyze verify did not notice Type=notifyy: the check is blind")

    run = subprocess.run([analyze, "security", "--offline=yes", str(copy)], capture_output=True,
                         text=True, timeout=30, cwd=work)
    match = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\w+)", run.stdout + run.stderr)
    if match is None:
        failures.append("systemd-analyze security printed no exposure level:\n" + run.stdout
                        + run.stderr)
    elif float(match.group(1)) > 2.0:
        failures.append(f"exposure level {match.group(1)} {match.group(2)}, expected at most 2.0")
    else:
        print(f"exposure level {match.group(1)} {match.group(2)}")

    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"{args.unit}: verified")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
