#!/usr/bin/env python3
"""Runs every shell command block of the given Markdown documents as written
and compares what each prints with the output the document shows
(tests/docs/README.md: the rules, the mapping onto the build under test, the
only normalisation).

Each document runs in a scratch folder that looks like the source tree to its
commands: the source tree's top-level entries are linked there, and the build
folder the documents name (the one scripts/run-dev.sh builds and runs) is a
link to the build under test. A `serve` block starts the demo host there on a
loopback port of its own; the documents' 127.0.0.1:8443 is that port. Shell
variables set by one block are seen by the next ones of the same document.

Exit 0 when every block ran and matched; 1 with a diff per failure otherwise."""
import argparse
import difflib
import os
import pathlib
import re
import shutil
import subprocess
import sys

from demo_host import DemoHost, HostError
from markdown_blocks import DocError, read_blocks, split_groups

DOC_ADDRESS = "127.0.0.1:8443"
GROUP_SECONDS = 120
RUN_DEV = "scripts/run-dev.sh"
# Commands an unmarked block may not run: they install packages, build, run
# whole suites or need a real cluster. Such a block needs `doc-test: skip (why)`.
CANNOT_RUN = [
    (re.compile(r"\b(apt-get|apt|sudo)\b"), "installs packages"),
    (re.compile(r"\bcmake\b"), "builds"),
    (re.compile(r"scripts/(deps|run-dev|test|test-dev|test-release|fuzz|kube-control-plane)\.sh"),
     "installs, builds or runs a suite"),
    (re.compile(r"tests/realcluster/run\.sh"), "builds and runs the real-cluster suite"),
    (re.compile(r"\b(kubectl|helm)\b|--cluster[ =]kubernetes"), "needs a real cluster"),
]
# Variables bash sets itself; not carried from one block to the next.
_SHELL_OWN = {"PWD", "OLDPWD", "SHLVL", "_"}


def run_dev_command(source):
    """(documented build folder, the command scripts/run-dev.sh ends with)."""
    text = (source / RUN_DEV).read_text()
    exec_lines = [l for l in text.splitlines() if l.startswith("exec ")]
    if len(exec_lines) != 1:
        raise DocError(f"{RUN_DEV}: expected one `exec` line, found {len(exec_lines)}")
    m = re.match(r'exec (build/([A-Za-z0-9_-]+))/bin/hami-scheduler( .*)? "\$@"$', exec_lines[0])
    if not m:
        raise DocError(f"{RUN_DEV}: the exec line does not run build/<preset>/bin/hami-scheduler "
                       f'... "$@": {exec_lines[0]!r}')
    if not re.search(rf"^cmake --preset {re.escape(m.group(2))}$", text, re.M):
        raise DocError(f"{RUN_DEV}: runs {m.group(1)} but does not configure the preset "
                       f"{m.group(2)!r} that builds it")
    return m.group(1), exec_lines[0][len("exec "):-len(' "$@"')]


def make_sandbox(source, build, doc_build_dir, work):
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name not in ("build", ".git"):
            (work / entry.name).symlink_to(entry)
    target = work / doc_build_dir
    target.parent.mkdir(parents=True)
    target.symlink_to(build.resolve())


class DocRun:
    """One document's blocks, in order, in one scratch folder."""

    def __init__(self, source, work, doc, run_dev_exec):
        self.source, self.work, self.doc = source, work, doc
        self.run_dev_exec = run_dev_exec
        self.state = work / ".doc-test-state.sh"
        self.env = dict(os.environ)
        self.host = None
        self.failures, self.ran, self.skipped = [], 0, 0

    def fail(self, where, message):
        self.failures.append(f"{where}: {message}")
        print(f"FAIL {where}: {message}", flush=True)

    def run(self):
        try:
            blocks = read_blocks(self.doc, (self.source / self.doc).read_text())
            for block in blocks:
                if not block.is_command:
                    continue
                if block.directive and block.directive.kind == "skip":
                    self.skipped += 1
                    print(f"SKIP {block.where()}: {block.directive.reason}", flush=True)
                elif block.directive and block.directive.kind == "serve":
                    self.serve(block)
                else:
                    self.run_block(block)
        except DocError as e:
            self.fail(self.doc, str(e))
        finally:
            if self.host:
                self.host.stop()
        if self.ran == 0 and not self.failures:
            self.fail(self.doc, "no command of this document ran")
        return self.failures

    def serve(self, block):
        command = block.text.strip()
        if "\n" in command:
            raise DocError(f"{block.where()}: a serve block holds one command")
        if command.split()[:2] == ["bash", RUN_DEV]:
            # The packages and the build are the suite's own; the host is started
            # exactly as run-dev.sh ends, with the block's extra arguments.
            command = " ".join([self.run_dev_exec] + command.split()[2:])
        if self.host:
            self.host.stop()
            self.host = None
        log = self.work / f".host-{block.line}.log"
        try:
            self.host = DemoHost(command, self.work, log)
        except HostError as e:
            raise DocError(f"{block.where()}: the demo host did not start: {e}") from e
        self.ran += 1
        print(f"PASS {block.where()}: serving `{command}` on 127.0.0.1:{self.host.port}",
              flush=True)

    def run_block(self, block):
        for pattern, why in CANNOT_RUN:
            if pattern.search(block.text):
                raise DocError(f"{block.where()}: this block cannot run in a test ({why}): "
                               "mark it <!-- doc-test: skip (reason) -->")
        for group in split_groups(block):
            self.run_group(block, group)

    def run_group(self, block, group):
        where = f"{block.path}:{group.line}"
        commands = group.commands
        if DOC_ADDRESS in commands:
            if not self.host:
                raise DocError(f"{where}: calls {DOC_ADDRESS} before any serve block started a host")
            commands = commands.replace(DOC_ADDRESS, f"127.0.0.1:{self.host.port}")
        script = self.work / f".group-{group.line}.sh"
        script.write_text(
            f"set -a\n[ ! -f {self.state} ] || . {self.state}\nset -euo pipefail\n"
            f"{commands}set +a\ndeclare -px > {self.state}.new\n")
        self.ran += 1
        try:
            proc = subprocess.run(["bash", str(script)], cwd=self.work, env=self.env,
                                  stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=GROUP_SECONDS, start_new_session=True)
        except subprocess.TimeoutExpired:
            self.fail(where, f"did not finish within {GROUP_SECONDS} s")
            return
        out = proc.stdout.decode(errors="replace")
        err = proc.stderr.decode(errors="replace")
        if self.host:
            out = out.replace(f"127.0.0.1:{self.host.port}", DOC_ADDRESS)
        if proc.returncode != 0:
            self.fail(where, f"exit status {proc.returncode}\n--- stdout\n{out}--- stderr\n{err}")
            return
        self.keep_variables()
        if group.expected is not None and out.splitlines() != group.expected:
            diff = "\n".join(difflib.unified_diff(
                group.expected, out.splitlines(),
                f"shown at {block.path}:{group.expected_line}", "printed", lineterm=""))
            self.fail(where, f"the output differs from the document\n{diff}\n--- stderr\n{err}")
            return
        print(f"PASS {where}", flush=True)

    def keep_variables(self):
        """The variables a group set, for the groups after it."""
        new = pathlib.Path(f"{self.state}.new")
        kept = []
        for line in new.read_text().splitlines():
            m = re.match(r"declare -\S+ ([A-Za-z_][A-Za-z0-9_]*)=", line)
            if m and m.group(1) not in self.env and m.group(1) not in _SHELL_OWN:
                kept.append(line)
        self.state.write_text("".join(l + "\n" for l in kept))
        new.unlink()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, help="the source tree")
    ap.add_argument("--build", required=True, help="the build under test")
    ap.add_argument("--work", required=True, help="a scratch folder, emptied first")
    ap.add_argument("docs", nargs="+", help="documents, relative to the source tree")
    args = ap.parse_args()
    source, work = pathlib.Path(args.source).resolve(), pathlib.Path(args.work)
    try:
        doc_build_dir, run_dev_exec = run_dev_command(source)
    except DocError as e:
        print(f"FAIL {e}")
        return 1
    failures = []
    for doc in args.docs:
        doc_work = work / re.sub(r"[^A-Za-z0-9_.-]", "_", doc)
        make_sandbox(source, pathlib.Path(args.build), doc_build_dir, doc_work)
        failures += DocRun(source, doc_work, doc, run_dev_exec).run()
    if failures:
        print(f"\n{len(failures)} failure(s); the documents must run as written "
              f"(scratch folders kept in {work})")
        return 1
    # The scratch folders link back to the source tree and to this build: gone
    # once they have served, so that nothing walking the build meets them.
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
