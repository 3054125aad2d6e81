#!/usr/bin/env python3
"""The .deb packages: cpack -G DEB builds hami-scheduler and
hami-scheduler-sdk-dev from the build tree; their control fields, maintainer
scripts and file lists are what packaging/ promises; the runtime package,
unpacked into a staged root (dpkg-deb -x), passes its own binary's
--check-config with the installed config and plugins, and the SDK package
holds what find_package(HamiSDK) needs."""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

RUNTIME_FILES = [
    "./usr/bin/hami-scheduler",
    "./usr/bin/hami-plugin-check",
    "./usr/lib/hami-scheduler/plugins/nvidia.so",
    "./usr/lib/hami-scheduler/plugins/amd.so",
    "./usr/lib/hami-scheduler/plugins/vgpu.so",
    "./usr/lib/hami-scheduler/plugins/hami-policies.so",
    "./etc/hami-scheduler/config.yaml",
    "./etc/hami-scheduler/device-config.yaml",
    "./lib/systemd/system/hami-scheduler.service",
    "./usr/share/doc/hami-scheduler/README.md",
    "./usr/share/doc/hami-scheduler/example.yaml",
]
SDK_FILES = [
    "./usr/include/hami/plugin.h",
    "./usr/include/hami/device.h",
    "./usr/include/hami/device.hpp",
    "./usr/include/hami/scheduling.hpp",
    "./usr/lib/cmake/HamiSDK/HamiSDKConfig.cmake",
    "./usr/lib/cmake/HamiSDK/HamiSDKConfigVersion.cmake",
    "./usr/lib/cmake/HamiSDK/HamiSDKTargets.cmake",
    "./usr/lib/cmake/HamiSDK/HamiPlugin.cmake",
    "./usr/lib/cmake/HamiSDK/hami_plugin.map",
]


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 90), **kw)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(map(str, cmd))} exited {result.returncode}:\n"
                         f"{result.stdout}\n{result.stderr}")
    return result.stdout


def control(deb):
    """The control fields of a .deb as a dict (continuation lines joined)."""
    fields, key = {}, None
    for line in run(["dpkg-deb", "-f", str(deb)]).splitlines():
        if line.startswith(" ") and key:
            fields[key] += "\n" + line
        else:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def contents(deb):
    """{path: (mode string, size)} of a .deb's data."""
    out = {}
    for line in run(["dpkg-deb", "-c", str(deb)]).splitlines():
        parts = line.split(None, 5)
        path = parts[5].split(" -> ")[0]
        out[path.rstrip("/") if path != "./" else path] = (parts[0], int(parts[2]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--cpack", default="cpack")
    ap.add_argument("--version", required=True)
    args = ap.parse_args()
    for tool in ("dpkg-deb", args.cpack):
        if shutil.which(tool) is None:
            print(f"FAIL: {tool} is not installed")
            return 1

    work = pathlib.Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    run([args.cpack, "-G", "DEB", "-B", str(work), "--config",
         str(pathlib.Path(args.build) / "CPackConfig.cmake")], timeout=110)
    debs = sorted(p.name for p in work.glob("*.deb"))
    arch = run(["dpkg", "--print-architecture"]).strip()
    runtime = work / f"hami-scheduler_{args.version}_{arch}.deb"
    sdk = work / f"hami-scheduler-sdk-dev_{args.version}_all.deb"
    if debs != sorted([runtime.name, sdk.name]):
        print(f"FAIL: cpack made {debs}, expected {runtime.name} and {sdk.name}")
        return 1

    failures = []

    def expect(ok, message):
        if not ok:
            failures.append(message)

    # Control fields.
    rc = control(runtime)
    expect(rc.get("Package") == "hami-scheduler", f"runtime Package {rc.get('Package')}")
    expect(rc.get("Version") == args.version, f"runtime Version {rc.get('Version')}")
    expect(rc.get("Architecture") == arch, f"runtime Architecture {rc.get('Architecture')}")
    expect(bool(rc.get("Maintainer")), "runtime has no Maintainer")
    depends = rc.get("Depends", "")
    for dep in ("adduser", "libpoconetssl80", "libyaml-cpp0.7", "libboost-filesystem1.74.0", "libssl3"):
        expect(re.search(r"(^|, )" + re.escape(dep) + r"\b", depends),
               f"runtime Depends lacks {dep}: {depends}")
    expect(rc.get("Description", "").startswith("GPU-sharing scheduler"), "runtime Description")
    sc = control(sdk)
    expect(sc.get("Package") == "hami-scheduler-sdk-dev", f"sdk Package {sc.get('Package')}")
    expect(sc.get("Architecture") == "all", f"sdk Architecture {sc.get('Architecture')}")
    expect("Depends" not in sc or "libpoco" not in sc["Depends"], "the SDK depends on the host's libraries")

    # Maintainer scripts and conffiles.
    meta = work / "control"
    run(["dpkg-deb", "-e", str(runtime), str(meta)])
    for script in ("postinst", "prerm", "postrm"):
        path = meta / script
        expect(path.exists() and path.stat().st_mode & 0o111, f"{script} missing or not executable")
        if path.exists():
            run(["sh", "-n", str(path)])
    postinst = (meta / "postinst").read_text() if (meta / "postinst").exists() else ""
    expect(re.search(r"adduser --system[^\n]*\\?\n?[^\n]*hami-scheduler", postinst),
           "postinst does not create the hami-scheduler system user")
    expect("systemctl enable hami-scheduler.service" in postinst, "postinst does not enable the unit")
    conffiles = (meta / "conffiles").read_text().split() if (meta / "conffiles").exists() else []
    expect(conffiles == ["/etc/hami-scheduler/config.yaml", "/etc/hami-scheduler/device-config.yaml"],
           f"conffiles {conffiles}")

    # File lists.
    rfiles, sfiles = contents(runtime), contents(sdk)
    for f in RUNTIME_FILES:
        expect(f in rfiles, f"runtime package lacks {f}")
    for f in SDK_FILES:
        expect(f in sfiles, f"sdk package lacks {f}")
    expect(any(p.startswith("./usr/share/doc/") and p.endswith("ABI.md") for p in sfiles),
           "sdk package lacks the ABI docs")
    for path, (mode, _) in rfiles.items():
        expect(not path.startswith(("./usr/local", "./usr/include", "./home", "./root")),
               f"runtime package has {path}")
        if path.endswith(".so"):
            expect(mode == "-rw-r--r--", f"{path} has mode {mode}, expected -rw-r--r--")
    shared = {p for p, (mode, _) in rfiles.items() if not mode.startswith("d")} & set(sfiles)
    expect(not shared, f"both packages ship {sorted(shared)}")
    plugins = sorted(p.rsplit("/", 1)[1] for p in rfiles
                     if p.startswith("./usr/lib/hami-scheduler/plugins/") and p.endswith(".so"))

    # Installed into a staged root, the binary checks its installed config.
    root = work / "root"
    run(["dpkg-deb", "-x", str(runtime), str(root)])
    binary = root / "usr/bin/hami-scheduler"
    config = root / "etc/hami-scheduler/config.yaml"
    out = run([str(binary), "--config", str(config), "--plugin-dir",
               str(root / "usr/lib/hami-scheduler/plugins"), "--check-config"], timeout=30)
    expect(f"config {config}: OK" in out, "--check-config did not report OK:\n" + out)
    expect(f"plugins: 4 loaded from {root}/usr/lib/hami-scheduler/plugins" in out,
           "--check-config did not load the 4 configured plugins:\n" + out)
    expect("cluster: file (0 nodes, 0 pods)" in out, "the default cluster is not an empty file cluster:\n" + out)
    # Both listeners on loopback, the extender on a port of its own.
    expect("listen: 127.0.0.1:8443 (webhook listener" in out
           and "extender.listen: 127.0.0.1:8444 (extender listener" in out,
           "the installed config does not serve the webhook on 127.0.0.1:8443 and the extender "
           "on 127.0.0.1:8444:\n" + out)
    unit = root / "lib/systemd/system/hami-scheduler.service"
    source_unit = pathlib.Path(__file__).resolve().parents[2] / "packaging/systemd/hami-scheduler.service"
    expect(unit.exists() and unit.read_text() == source_unit.read_text(), "the packaged unit differs")
    version = run([str(binary), "--version"], timeout=10)
    expect(version.startswith(f"hami-scheduler {args.version} "), f"--version said {version!r}")

    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"{runtime.name}: {len(rfiles)} entries, plugins {' '.join(plugins)}; "
              f"{sdk.name}: {len(sfiles)} entries; staged --check-config OK")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
