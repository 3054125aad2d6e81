#!/usr/bin/env python3
"""packaging/container/Dockerfile cannot be built here (no Docker engine), so
its structure is checked: Debian 12 stages, the build stage installing the
CI's package list (scripts/deps.sh), a runtime stage with real Debian 12
package names, a non-root USER, the config and plugin folders as VOLUMEs,
EXPOSE, a HEALTHCHECK on /healthz, files COPYed from the context that exist,
the `scheduler` name HAMi's Helm chart starts;
and the config the image ships passes the built host's --check-config."""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile


def instructions(text):
    """[(INSTRUCTION, arguments)] with continuation lines joined."""
    out, pending = [], ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.lstrip().startswith("#"):
            continue  # comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        pending += line
        word, _, rest = pending.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
        pending = ""
    return out


def stages(instrs):
    """[{'from': image, 'name': alias, 'body': [(INSTR, args)...]}]"""
    result = []
    for word, rest in instrs:
        if word == "FROM":
            parts = rest.split()
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else None
            result.append({"from": parts[0], "name": name, "body": []})
        elif result:
            result[-1]["body"].append((word, rest))
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dockerfile", required=True)
    ap.add_argument("--deps", required=True)
    ap.add_argument("--binary")
    ap.add_argument("--plugin-dir")
    args = ap.parse_args()

    dockerfile = pathlib.Path(args.dockerfile)
    root = dockerfile.resolve().parents[2]  # packaging/container/Dockerfile
    failures = []
    st = stages(instructions(dockerfile.read_text()))

    if len(st) < 2:
        failures.append(f"expected a multi-stage build, found {len(st)} stage(s)")
    for s in st:
        if s["from"] not in ("debian:12", "debian:bookworm") and not s["from"].startswith(
                ("debian:12-", "debian:bookworm-")):
            failures.append(f"stage {s['name']} is FROM {s['from']}, not Debian 12")
    if not st:
        print("FAIL: no FROM")
        return 1
    build, runtime = st[0], st[-1]

    def has(stage, word, pattern):
        return any(w == word and re.search(pattern, a) for w, a in stage["body"])

    # Build stage: the CI package list, a Release build with warnings as errors.
    if not has(build, "COPY", r"scripts/deps\.sh") or not has(build, "RUN", r"deps\.sh"):
        failures.append("the build stage does not install scripts/deps.sh's package list")
    if not has(build, "RUN", r"-DHAMI_WERROR=ON"):
        failures.append("the build stage does not build with -DHAMI_WERROR=ON")

    # Runtime stage.
    if not has(runtime, "COPY", r"--from=" + re.escape(build["name"] or "0")):
        failures.append("the runtime stage copies nothing from the build stage")
    users = [a for w, a in runtime["body"] if w == "USER"]
    if not users:
        failures.append("the runtime stage sets no USER (it would run as root)")
    elif users[-1].split(":")[0] in ("root", "0"):
        failures.append(f"USER {users[-1]} is root")
    volumes = []
    for w, a in runtime["body"]:
        if w == "VOLUME":
            volumes += json.loads(a) if a.startswith("[") else a.split()
    for v in ("/etc/hami-scheduler", "/usr/lib/hami-scheduler/plugins"):
        if v not in volumes:
            failures.append(f"{v} is not a VOLUME ({volumes})")
    exposed = " ".join(a for w, a in runtime["body"] if w == "EXPOSE").split()
    if "8443" not in exposed:
        failures.append(f"EXPOSE lacks 8443 ({exposed})")
    if "8444" in exposed:
        failures.append(f"EXPOSE publishes the loopback-only extender port 8444 ({exposed})")
    if not has(runtime, "HEALTHCHECK", r"/healthz"):
        failures.append("no HEALTHCHECK probing /healthz")
    entry = [a for w, a in runtime["body"] if w == "ENTRYPOINT"]
    if not entry or json.loads(entry[-1])[0] != "/usr/bin/hami-scheduler":
        failures.append(f"ENTRYPOINT is not exec-form /usr/bin/hami-scheduler ({entry})")
    # HAMi's chart runs the image as `scheduler <HAMi flags>`.
    if not has(runtime, "RUN", r"ln -s hami-scheduler /usr/bin/scheduler\b"):
        failures.append("the runtime stage does not provide /usr/bin/scheduler, the command "
                        "HAMi's Helm chart starts")
    if has(runtime, "RUN", r"\b(g\+\+|cmake|-dev)\b"):
        failures.append("the runtime stage installs build tools or -dev packages")

    # Sources COPYed from the context exist.
    for s in st:
        for w, a in s["body"]:
            if w != "COPY" or "--from=" in a:
                continue
            for src in a.split()[:-1]:
                if src != "." and not (root / src).exists():
                    failures.append(f"COPY source {src} does not exist in the repository")

    # Runtime package names are real Debian 12 names (this machine is one).
    deps = pathlib.Path(args.deps).read_text()
    apt = " ".join(a for w, a in runtime["body"] if w == "RUN")
    m = re.search(r"apt-get install ([^&]*)", apt)
    packages = [p for p in (m.group(1).split() if m else []) if not p.startswith("-")]
    if not packages:
        failures.append("the runtime stage installs no packages")
    if shutil.which("dpkg-query"):
        for p in packages:
            run = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True,
                                 text=True)
            if "install ok installed" not in run.stdout and p not in ("curl", "ca-certificates"):
                failures.append(f"runtime package {p} is not a package of this Debian 12 machine")
    for dev in ("libpoco-dev", "libyaml-cpp-dev", "libboost-filesystem-dev", "libssl-dev"):
        if dev not in deps:
            failures.append(f"scripts/deps.sh lacks {dev}, which the runtime libraries match")

    # The config the image ships is valid for the plugins the build makes.
    if args.binary and args.plugin_dir:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            shutil.copy(root / "packaging/container/config.yaml", tmp / "config.yaml")
            shutil.copy(root / "config/device-config.yaml", tmp / "device-config.yaml")
            run = subprocess.run([args.binary, "--config", str(tmp / "config.yaml"),
                                  "--plugin-dir", args.plugin_dir, "--check-config"],
                                 capture_output=True, text=True, timeout=30)
            if run.returncode != 0:
                failures.append("the image's config.yaml fails --check-config:\n" + run.stdout
                                + run.stderr)
            elif "listen: 0.0.0.0:8443 (webhook listener" not in run.stdout:
                failures.append("the image's webhook listener is not 0.0.0.0:8443:\n" + run.stdout)
            elif "extender.listen: 127.0.0.1:8444 (extender listener" not in run.stdout:
                # The extender verbs stay on the pod's loopback, never published.
                failures.append("the image's extender listener is not 127.0.0.1:8444:\n"
                                + run.stdout)

    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"{dockerfile}: {len(st)} stages, runtime packages {' '.join(packages)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
