"""Starts the demo host as a document's `serve` block would, on a loopback port
of its own, and stops it. Every wait is bounded."""
import os
import re
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request

_LISTENING = re.compile(r"msg=listening .*\baddress=127\.0\.0\.1:(\d+)")
START_SECONDS = 30
STOP_SECONDS = 10


class HostError(Exception):
    pass


class DemoHost:
    """One hami-scheduler started from a shell command line in `cwd`, with
    `--listen 127.0.0.1:0` appended: the port is read from its `listening` line."""

    def __init__(self, command, cwd, log_path):
        self.command = command
        self.port = None
        self._log_path = log_path
        self._log = open(log_path, "w")
        self._proc = subprocess.Popen(
            ["bash", "-c", f"exec {command} --listen 127.0.0.1:0"], cwd=cwd,
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)
        try:
            self._wait_ready()
        except HostError:
            self.stop()
            raise

    def log_text(self):
        try:
            with open(self._log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def _wait_ready(self):
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise HostError(f"`{self.command}` exited with status {self._proc.returncode}:\n"
                                + self.log_text())
            if self.port is None:
                m = _LISTENING.search(self.log_text())
                if m:
                    self.port = int(m.group(1))
            if self.port is not None and self._ready():
                return
            time.sleep(0.1)
        raise HostError(f"`{self.command}` was not ready within {START_SECONDS} s:\n"
                        + self.log_text())

    def _ready(self):
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        try:
            with urllib.request.urlopen(f"https://127.0.0.1:{self.port}/readyz",
                                        context=context, timeout=2) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def stop(self):
        """SIGTERM, then SIGKILL after STOP_SECONDS; the whole process group."""
        if self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGTERM)
            try:
                self._proc.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait(timeout=STOP_SECONDS)
        self._log.close()
