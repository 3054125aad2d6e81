#!/usr/bin/env python3
"""The built hami-scheduler speaks sd_notify as Type=notify needs: started
with NOTIFY_SOCKET naming a datagram socket this test bound, it sends
READY=1 once it listens, and STOPPING=1 when SIGTERM starts the drain, then
exits 0. Every wait is bounded."""
import argparse
import os
import re
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def receive_until(sock, wanted, deadline, proc):
    """Datagrams until one contains the line `wanted` (or the deadline, or
    the process is gone and nothing is left); (all received, found)."""
    got = []
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, min(0.5, deadline - time.monotonic())))
        try:
            data = sock.recv(4096).decode("utf-8", "replace")
        except socket.timeout:
            if proc.poll() is not None:
                break
            continue
        got.append(data)
        if wanted in data.split("\n"):
            return got, True
    return got, False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--device-config", required=True)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        shutil.copy(args.device_config, tmp / "device-config.yaml")
        (tmp / "config.yaml").write_text(f"""listen: 127.0.0.1:0
tls:
  selfSigned: true
extender:
  listen: 127.0.0.1:0
plugins:
  directory: {pathlib.Path(args.plugin_dir).resolve()}
  allowWritable: true
  deviceConfigFile: device-config.yaml
  devices:
    - name: nvidia
      library: nvidia.so
  scheduling:
    - name: hami-policies
      library: hami-policies.so
cluster:
  source: file
  file: ""
""")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        address = f"\0hami-notify-test-{os.getpid()}"
        sock.bind(address)
        env = dict(os.environ, NOTIFY_SOCKET="@" + address[1:])
        log = open(tmp / "stderr.log", "w+")
        proc = subprocess.Popen([args.binary, "--config", str(tmp / "config.yaml")], env=env,
                                stdout=subprocess.DEVNULL, stderr=log)
        failures = []
        try:
            got, ready = receive_until(sock, "READY=1", time.monotonic() + 20, proc)
            if not ready:
                failures.append(f"no READY=1 within 20 s or before exit {proc.poll()} "
                                f"(received {got})")
            elif proc.poll() is not None:
                failures.append(f"the process exited ({proc.poll()}) after READY=1")
            elif not any(re.search(r"^STATUS=serving on 127\.0\.0\.1:\d+ \(webhook\), "
                                   r"127\.0\.0\.1:\d+ \(extender\)$", line, re.M)
                         for line in got):
                failures.append(f"STATUS= does not name both listeners (received {got})")
            else:
                proc.send_signal(signal.SIGTERM)
                got, stopping = receive_until(sock, "STOPPING=1", time.monotonic() + 20, proc)
                if not stopping:
                    failures.append(f"no STOPPING=1 within 20 s of SIGTERM (received {got})")
                rc = proc.wait(timeout=30)
                if rc != 0:
                    failures.append(f"exit status {rc} after SIGTERM")
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            sock.close()
        log.seek(0)
        err = log.read()
        log.close()
        for f in failures:
            print("FAIL:", f)
        if failures:
            print(err[-3000:])
            return 1
        print("READY=1 after listening, STOPPING=1 on SIGTERM, exit 0")
        return 0


if __name__ == "__main__":
    sys.exit(main())
