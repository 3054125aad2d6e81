#!/usr/bin/env python3
"""The plain Kubernetes manifests (packaging/kubernetes/manifests): every file
parses as YAML and the objects pass k8s_checks (wiring, RBAC, certificates,
the device config = config/device-config.yaml, the seed's object names and
webhook selectors). With --binary, the host config they carry is also run
through the host's --check-config, whose strict loader refuses unknown keys
and wrong values. The Helm chart is checked by check_helm_chart.py."""
import argparse
import pathlib
import sys

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import k8s_checks  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifests", required=True)
    ap.add_argument("--device-config", required=True)
    ap.add_argument("--binary")
    ap.add_argument("--plugin-dir")
    ap.add_argument("--build-image", required=True,
                    help="scripts/build-image.sh: its --print is the image the container build makes")
    args = ap.parse_args()

    c = k8s_checks.Checker("manifests")
    texts = [p.read_text() for p in sorted(pathlib.Path(args.manifests).glob("*.yaml"))]
    docs = [d for t in texts for d in yaml.safe_load_all(t) if d]
    device_text = pathlib.Path(args.device_config).read_text()
    host_cfg = k8s_checks.check(docs, texts, c, yaml.safe_load(device_text), "kube-system",
                                k8s_checks.SEED_NAMES)
    mwc = [d for d in docs if d["kind"] == "MutatingWebhookConfiguration"]
    hook = mwc[0]["webhooks"][0] if mwc else {}
    c.expect(hook.get("namespaceSelector") == {"matchExpressions": [
        {"key": "vgpu.admission", "operator": "NotIn", "values": ["disabled"]}]},
        f"namespaceSelector {hook.get('namespaceSelector')}")
    built = k8s_checks.built_image(args.build_image)
    hosts = [ct for d in docs if d["kind"] == "Deployment"
             for ct in d["spec"]["template"]["spec"]["containers"] if ct["name"] == "hami-scheduler"]
    c.expect([ct.get("image") for ct in hosts] == [built],
             f"the hami-scheduler container's image {[ct.get('image') for ct in hosts]} is not "
             f"{built!r}, the image scripts/build-image.sh builds")
    if args.binary and args.plugin_dir:
        k8s_checks.check_config_with_binary(host_cfg, device_text, args.binary, args.plugin_dir, c)
    print(f"manifests: {len(docs)} objects checked")
    for f in c.failures:
        print("FAIL:", f)
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
