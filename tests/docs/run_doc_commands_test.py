#!/usr/bin/env python3
"""run_doc_commands.py on small source trees of its own (no host needed):
shown output is compared exactly, variables and files carry from block to
block, the only build folder is the one scripts/run-dev.sh runs, and blocks
that cannot run must be marked."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

RUNNER = pathlib.Path(__file__).resolve().parent / "run_doc_commands.py"
RUN_DEV = """#!/usr/bin/env bash
set -euo pipefail
cmake --preset run
cmake --build --preset run -j2
exec build/run/bin/hami-scheduler --config config/dev.yaml "$@"
"""


class Runner(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.tmp.name)
        self.source, self.build = root / "src", root / "build-under-test"
        (self.source / "scripts").mkdir(parents=True)
        (self.source / "scripts/run-dev.sh").write_text(RUN_DEV)
        (self.build / "bin").mkdir(parents=True)
        tool = self.build / "bin/tool"
        tool.write_text("#!/bin/sh\necho tool \"$@\"\n")
        tool.chmod(0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def run_doc(self, text):
        (self.source / "doc.md").write_text(text)
        return subprocess.run(
            [sys.executable, "-B", str(RUNNER), "--source", str(self.source), "--build",
             str(self.build), "--work", str(pathlib.Path(self.tmp.name) / "work"), "doc.md"],
            capture_output=True, text=True, timeout=60)

    def test_matching_output_and_state_across_blocks_pass(self):
        r = self.run_doc("```sh\nX=hello\necho $X > f.txt\n```\n\n```sh\ncat f.txt; echo $X\n"
                         "# hello\n# hello\nbuild/run/bin/tool a\n# tool a\n```\n")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_different_output_fails_with_a_diff(self):
        r = self.run_doc("```sh\necho 2\n# 1\n```\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("FAIL doc.md:2: the output differs", r.stdout)
        self.assertIn("-1\n+2", r.stdout)

    def test_a_failing_command_fails_even_without_shown_output(self):
        r = self.run_doc("```sh\nfalse\necho after\n```\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("exit status 1", r.stdout)

    def test_another_build_folder_than_run_dev_builds_fails(self):
        r = self.run_doc("```sh\nbuild/dev/bin/tool\n```\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("exit status 127", r.stdout)

    def test_an_unmarked_block_that_cannot_run_fails_and_a_marked_one_is_skipped(self):
        r = self.run_doc("```sh\nsudo apt-get install -y curl\n```\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot run in a test (installs packages)", r.stdout)
        r = self.run_doc("<!-- doc-test: skip (installs packages) -->\n```sh\nsudo apt-get install -y curl\n"
                         "```\n```sh\ntrue\n```\n")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("SKIP doc.md:2: installs packages", r.stdout)

    def test_the_demo_address_without_a_serve_block_fails(self):
        r = self.run_doc("```sh\ncurl -sk https://127.0.0.1:8443/healthz\n```\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("before any serve block", r.stdout)

    def test_a_document_running_nothing_fails(self):
        r = self.run_doc("```text\nls\n```\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no command of this document ran", r.stdout)


if __name__ == "__main__":
    unittest.main()
