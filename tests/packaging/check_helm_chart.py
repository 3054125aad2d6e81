#!/usr/bin/env python3
"""The Helm chart, rendered by the real Helm (scripts/install-helm.sh): for
every values file of helm-values/, `helm lint --strict` and `helm template`
pass, the objects pass k8s_checks (wiring, RBAC, certificates, the device
config), and each file's own assertions hold on the rendered objects; every
file of helm-values/invalid/ is refused by both with its error message. With
--binary, each host config is also run through the host's --check-config with
the rendered device config."""
import argparse
import copy
import pathlib
import subprocess
import sys

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import k8s_checks  # noqa: E402

# What a HAMi v2.10 release "hami" in kube-system creates (charts/hami of
# Project-HAMi/HAMi, default values): a release beside it must not reuse
# these names.
HAMI_OBJECTS = {
    ("ClusterRole", n) for n in ("hami-admission", "hami-device-plugin-monitor", "hami-scheduler")} | {
    ("ClusterRoleBinding", n) for n in ("hami-admission", "hami-device-plugin", "hami-scheduler",
                                        "hami-scheduler-kube", "hami-scheduler-volume")} | {
    ("ConfigMap", n) for n in ("hami-device-plugin", "hami-scheduler", "hami-scheduler-device")} | {
    ("DaemonSet", "hami-device-plugin"), ("Deployment", "hami-scheduler"),
    ("Job", "hami-admission-create"), ("Job", "hami-admission-patch"),
    ("MutatingWebhookConfiguration", "hami-webhook"), ("Secret", "hami-scheduler-tls")} | {
    ("Role", n) for n in ("hami-admission", "hami-scheduler")} | {
    ("RoleBinding", n) for n in ("hami-admission", "hami-scheduler")} | {
    ("Service", n) for n in ("hami-device-plugin-monitor", "hami-scheduler")} | {
    ("ServiceAccount", n) for n in ("hami-admission", "hami-device-plugin", "hami-scheduler")}


class Rendered:
    def __init__(self, docs, text):
        self.docs, self.text = docs, text

    def all(self, kind):
        return [d for d in self.docs if d["kind"] == kind]

    def one(self, kind):
        found = self.all(kind)
        if len(found) != 1:
            raise AssertionError(f"expected one {kind}, found {len(found)}")
        return found[0]

    def pod(self):
        return self.one("Deployment")["spec"]["template"]

    def container(self, name):
        return {c["name"]: c for c in self.pod()["spec"]["containers"]}[name]

    def config(self, suffix):
        cm = [d for d in self.all("ConfigMap") if d["metadata"]["name"].endswith(suffix)]
        return yaml.safe_load(cm[0]["data"]["config.yaml"])

    def device_text(self):
        cm = [d for d in self.all("ConfigMap") if d["metadata"]["name"].endswith("-device")]
        return cm[0]["data"]["device-config.yaml"]

    def hook(self):
        return self.one("MutatingWebhookConfiguration")["webhooks"][0]

    def managed(self):
        ext = self.config("-kube-scheduler")["extenders"][0]
        return sorted(m["name"] for m in ext["managedResources"])


def names(r):
    return {(d["kind"], d["metadata"]["name"]) for d in r.docs}


SELF_EXCLUSION = {"key": "hami.io/webhook", "operator": "NotIn", "values": ["ignore"]}
NAMESPACE_OPT_OUT = {"key": "vgpu.admission", "operator": "NotIn", "values": ["disabled"]}
DEFAULT_MANAGED = sorted(["nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpumem-percentage",
                          "nvidia.com/gpucores", "nvidia.com/priority",
                          "amd.com/gpu", "amd.com/gpumem", "amd.com/gpucores"])


def defaults(r, c, ctx):
    spec = r.pod()["spec"]
    ks, host = r.container("kube-scheduler"), r.container("hami-scheduler")
    c.expect(ks["image"] == "registry.k8s.io/kube-scheduler:v1.33.2",
             f"kube-scheduler image {ks['image']} is not the cluster's version v1.33.2")
    c.expect(host["image"] == ctx["built_image"],
             f"image {host['image']} is not {ctx['built_image']}, the image scripts/build-image.sh builds")
    c.expect(r.one("Deployment")["spec"]["replicas"] == 1, "replicas")
    c.expect(names(r) == {
        ("ServiceAccount", "hami-scheduler"), ("ClusterRole", "hami-scheduler"),
        ("ClusterRoleBinding", "hami-scheduler"), ("ClusterRoleBinding", "hami-scheduler-kube-scheduler"),
        ("ClusterRoleBinding", "hami-scheduler-volume-scheduler"), ("Role", "hami-scheduler-leases"),
        ("RoleBinding", "hami-scheduler-leases"), ("RoleBinding", "hami-scheduler-authentication-reader"),
        ("ConfigMap", "hami-scheduler-config"), ("ConfigMap", "hami-scheduler-kube-scheduler"),
        ("ConfigMap", "hami-scheduler-device"), ("Service", "hami-scheduler-admission"),
        ("Deployment", "hami-scheduler"), ("MutatingWebhookConfiguration", "hami-scheduler-admission"),
        ("Issuer", "hami-scheduler-selfsigned"), ("Issuer", "hami-scheduler-ca"),
        ("Certificate", "hami-scheduler-ca"), ("Certificate", "hami-scheduler-serving")},
        f"objects {sorted(names(r))}")
    c.expect(spec.get("priorityClassName") == "system-cluster-critical", "priorityClassName")
    c.expect(spec["securityContext"] == {"runAsNonRoot": True, "runAsUser": 10001, "runAsGroup": 10001,
                                         "fsGroup": 10001, "seccompProfile": {"type": "RuntimeDefault"}},
             f"pod securityContext {spec['securityContext']}")
    for x in (ks, host):
        c.expect(x["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                          "capabilities": {"drop": ["ALL"]}},
                 f"{x['name']} securityContext {x['securityContext']}")
    for key in ("nodeSelector", "tolerations", "affinity", "imagePullSecrets"):
        c.expect(key not in spec, f"{key} rendered by default")
    c.expect(host["args"] == ["--config", "/etc/hami-scheduler/config.yaml"], f"args {host['args']}")
    c.expect([e["name"] for e in host["env"]] == ["POD_NAME", "POD_NAMESPACE"], "env")
    c.expect(ks["command"] == ["kube-scheduler", "--config=/etc/kubernetes/hami-scheduler/config.yaml",
                               "--v=2"], f"kube-scheduler command {ks['command']}")
    c.expect(host["resources"] == {"requests": {"cpu": "100m", "memory": "128Mi"}}, "resources")
    # The shipped file as is, comments included.
    c.expect(r.device_text().strip() == ctx["chart_device_text"].strip(),
             "the device ConfigMap is not files/device-config.yaml verbatim")
    c.expect(r.managed() == DEFAULT_MANAGED, f"managedResources {r.managed()}")
    h = r.hook()
    c.expect(h["namespaceSelector"] == {"matchExpressions": [NAMESPACE_OPT_OUT]},
        f"namespaceSelector {h['namespaceSelector']}")
    c.expect(h["objectSelector"] == {"matchExpressions": [SELF_EXCLUSION]}, f"objectSelector {h['objectSelector']}")
    c.expect((h["failurePolicy"], h["timeoutSeconds"]) == ("Ignore", 10), "failurePolicy/timeoutSeconds")
    c.expect(not r.all("PodDisruptionBudget") and not r.all("ServiceMonitor"),
             "a PodDisruptionBudget or ServiceMonitor by default")
    annotations = r.pod()["metadata"].get("annotations", {})
    c.expect(sorted(annotations) == ["checksum/config", "checksum/device-config"], f"annotations {annotations}")


def placement(r, c, ctx):
    spec = r.pod()["spec"]
    ks, host = r.container("kube-scheduler"), r.container("hami-scheduler")
    c.expect(r.one("Deployment")["metadata"]["name"] == "gpu-sched", "fullnameOverride")
    c.expect(all(n == "gpu-sched" or n.startswith("gpu-sched-") for _, n in names(r)),
             f"names not prefixed by gpu-sched: {sorted(names(r))}")
    c.expect(ks["image"] == "mirror.example.com/kube-scheduler:v1.30.4", f"kube-scheduler image {ks['image']}")
    c.expect(host["image"] == "registry.example.com/hami/hami-scheduler:0.2.0-rc1", f"image {host['image']}")
    c.expect(host["imagePullPolicy"] == "Always", "pullPolicy")
    c.expect(spec["imagePullSecrets"] == [{"name": "regcred"}, {"name": "mirror-cred"}],
             f"imagePullSecrets {spec.get('imagePullSecrets')}")
    c.expect(spec["nodeSelector"] == {"node-role.kubernetes.io/control-plane": ""}, "nodeSelector")
    c.expect(spec["tolerations"] == [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists",
                                      "effect": "NoSchedule"}], "tolerations")
    c.expect(list(spec["affinity"]) == ["nodeAffinity"], f"affinity {spec.get('affinity')}")
    c.expect(spec["priorityClassName"] == "gpu-control", "priorityClassName")
    c.expect(spec["securityContext"]["runAsUser"] == 20000 and spec["securityContext"]["fsGroup"] == 20000,
             "podSecurityContext")
    for x in (ks, host):
        c.expect(x["securityContext"].get("privileged") is False, f"{x['name']} securityContext")
    c.expect(host["resources"] == {"requests": {"cpu": "250m", "memory": "256Mi"},
                                   "limits": {"memory": "512Mi"}}, "resources")
    # Helm merges maps of values: the default requests stay.
    c.expect(ks["resources"] == {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
             f"kubeScheduler.resources {ks['resources']}")
    c.expect(ks["command"][-2:] == ["--v=4", "--kube-api-qps=100"], f"kube-scheduler command {ks['command']}")
    c.expect(host["args"] == ["--config", "/etc/hami-scheduler/config.yaml", "--umask", "0077"],
             f"args {host['args']}")
    c.expect(host["env"][-1] == {"name": "TZ", "value": "UTC"}, "extraEnv")
    c.expect(spec["volumes"][-1] == {"name": "vendor-plugins", "emptyDir": {}}, "extraVolumes")
    c.expect(host["volumeMounts"][-1] == {"name": "vendor-plugins", "mountPath": "/opt/vendor-plugins",
                                          "readOnly": True}, "extraVolumeMounts")
    meta = r.pod()["metadata"]
    c.expect(meta["annotations"].get("example.com/team") == "gpu", "podAnnotations")
    c.expect(meta["labels"].get("example.com/tier") == "control", "podLabels")
    c.expect(r.one("Service")["metadata"]["name"] == "gpu-sched-admission", "Service name")
    cert = [d for d in r.all("Certificate") if d["metadata"]["name"] == "gpu-sched-serving"]
    c.expect(cert and "gpu-sched-admission.gpu-system.svc.cluster.local" in cert[0]["spec"]["dnsNames"],
             "serving certificate dnsNames")


def ha(r, c, ctx):
    spec = r.pod()["spec"]
    c.expect(r.one("Deployment")["spec"]["replicas"] == 3, "replicas")
    pdb = r.one("PodDisruptionBudget")
    c.expect(pdb["spec"] == {"minAvailable": 1, "selector": {"matchLabels": {
        "app.kubernetes.io/name": "hami-scheduler", "app.kubernetes.io/instance": "hami-scheduler"}}},
        f"PodDisruptionBudget {pdb['spec']}")
    c.expect(pdb["spec"]["selector"]["matchLabels"].items() <= r.pod()["metadata"]["labels"].items(),
             "the PodDisruptionBudget does not select the pods")
    term = spec.get("affinity", {}).get("podAntiAffinity", {}).get(
        "preferredDuringSchedulingIgnoredDuringExecution", [{}])[0].get("podAffinityTerm", {})
    c.expect(term.get("topologyKey") == "kubernetes.io/hostname"
             and term.get("labelSelector", {}).get("matchLabels") == pdb["spec"]["selector"]["matchLabels"],
             f"default anti-affinity {spec.get('affinity')}")
    c.expect("priorityClassName" not in spec, "priorityClassName rendered though empty")
    c.expect(r.container("kube-scheduler")["image"] == "registry.k8s.io/kube-scheduler:v1.31.1",
             f"kube-scheduler image {r.container('kube-scheduler')['image']} (cluster v1.31.1+k3s1)")
    sm = r.one("ServiceMonitor")
    c.expect(sm["apiVersion"] == "monitoring.coreos.com/v1", "ServiceMonitor apiVersion")
    c.expect(sm["metadata"]["labels"].get("release") == "prometheus", "serviceMonitor.labels")
    svc = r.one("Service")
    c.expect(sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items(),
             "the ServiceMonitor does not select the Service")
    c.expect(sm["spec"]["namespaceSelector"] == {"matchNames": ["kube-system"]}, "namespaceSelector")
    c.expect(sm["spec"]["endpoints"] == [{
        "port": "metrics", "path": "/metrics", "scheme": "http", "interval": "15s", "scrapeTimeout": "10s",
        "relabelings": [{"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node"}]}],
        f"endpoints {sm['spec']['endpoints']}")
    c.expect("metrics" in [p["name"] for p in svc["spec"]["ports"]], "the Service has no metrics port")
    c.expect(svc["spec"]["selector"] == {
        "app.kubernetes.io/name": "hami-scheduler", "app.kubernetes.io/instance": "hami-scheduler",
        "hami.io/scheduler-role": "leader"}, f"Service selector {svc['spec']['selector']}")


def ha_max_unavailable(r, c, ctx):
    pdb = r.one("PodDisruptionBudget")
    c.expect(pdb["spec"].get("maxUnavailable") == 1 and "minAvailable" not in pdb["spec"],
             f"PodDisruptionBudget {pdb['spec']}")
    aff = r.pod()["spec"]["affinity"]
    c.expect(list(aff) == ["podAntiAffinity"]
             and "requiredDuringSchedulingIgnoredDuringExecution" in aff["podAntiAffinity"]
             and "preferredDuringSchedulingIgnoredDuringExecution" not in aff["podAntiAffinity"],
             f"affinity {aff}")


def single_no_election(r, c, ctx):
    c.expect(r.config("-config")["cluster"]["leaderElection"] == {
        "mode": "none", "roleLabel": "hami.io/scheduler-role",
        "roleSelector": "app.kubernetes.io/name=hami-scheduler,app.kubernetes.io/instance=hami-scheduler"},
             f"leaderElection {r.config('-config')['cluster']['leaderElection']}")
    c.expect("hami.io/scheduler-role" not in r.one("Service")["spec"]["selector"],
             "one replica's Service selects the role label")
    c.expect(not r.all("PodDisruptionBudget"), "a PodDisruptionBudget for one replica")
    c.expect("affinity" not in r.pod()["spec"], "affinity for one replica")


def two_replicas_leader_service(r, c, ctx):
    # Two replicas in another namespace under another release name: the
    # Service selects the leader, and the leader labels exactly this
    # release's pods there (the Service's other labels).
    svc = r.one("Service")
    selector = svc["spec"]["selector"]
    c.expect(selector == {"app.kubernetes.io/name": "hami-scheduler", "app.kubernetes.io/instance": "gpu",
                          "hami.io/scheduler-role": "leader"}, f"Service selector {selector}")
    le = r.config("-config")["cluster"]["leaderElection"]
    c.expect(le.get("roleLabel") == "hami.io/scheduler-role", f"roleLabel {le.get('roleLabel')}")
    c.expect(le.get("roleSelector") == "app.kubernetes.io/name=hami-scheduler,app.kubernetes.io/instance=gpu",
             f"roleSelector {le.get('roleSelector')}")
    env = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
           for e in r.container("hami-scheduler")["env"]}
    c.expect(env.get("POD_NAME") == "metadata.name" and env.get("POD_NAMESPACE") == "metadata.namespace",
             f"the host lacks POD_NAME/POD_NAMESPACE for the role labels: {env}")


def webhook_device(r, c, ctx):
    host_cfg = r.config("-config")
    clash = names(r) & HAMI_OBJECTS
    c.expect(not clash, f"objects named like HAMi's release hami: {sorted(clash)}")
    c.expect(r.one("Deployment")["metadata"]["name"] == "hami-next-hami-scheduler", "fullname")
    c.expect(host_cfg["scheduler"] == {"name": "vgpu-scheduler", "nodePolicy": "spread", "gpuPolicy": "binpack",
                                       "allocateAt": "bind"}, f"scheduler {host_cfg['scheduler']}")
    c.expect(host_cfg["cluster"]["leaderElection"] == {
        "mode": "follow", "leaseNamespace": "kube-system", "leaseName": "vgpu-scheduler",
        "roleLabel": "hami.io/scheduler-role",
        "roleSelector": "app.kubernetes.io/name=hami-scheduler,app.kubernetes.io/instance=hami-next"},
        f"leaderElection {host_cfg['cluster']['leaderElection']}")
    c.expect(host_cfg["listen"] == "0.0.0.0:9443", "webhook.port")
    c.expect(host_cfg["extender"]["listen"] == "127.0.0.1:9444", "extender.port")
    c.expect(host_cfg["metrics"]["listen"] == ":9500", "metrics.port")
    c.expect(host_cfg["log"]["level"] == "debug", "log.level")
    role = [d for d in r.all("Role") if d["metadata"]["name"].endswith("-leases")][0]
    c.expect(any(x.get("resourceNames") == ["vgpu-scheduler"] for x in role["rules"]), "lease Role name")
    h = r.hook()
    c.expect((h["failurePolicy"], h["timeoutSeconds"]) == ("Fail", 5), "failurePolicy/timeoutSeconds")
    c.expect(h["namespaceSelector"] == {"matchLabels": {"gpu.example.com/enabled": "true"}, "matchExpressions": [
        NAMESPACE_OPT_OUT, {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]}]},
             f"namespaceSelector {h['namespaceSelector']}")
    c.expect(h["objectSelector"] == {"matchLabels": {"gpu.example.com/workload": "true"}, "matchExpressions": [
        SELF_EXCLUSION, {"key": "gpu.example.com/skip", "operator": "DoesNotExist"}]},
        f"objectSelector {h['objectSelector']}")
    dev = yaml.safe_load(r.device_text())
    expected = copy.deepcopy(ctx["chart_device"])
    expected["nvidia"].update(deviceMemoryScaling=2, defaultMemory=1024,
                              resourceMemoryName="example.com/vgpu-memory",
                              migProfileAllowlist=[{"models": ["A30"], "profiles": ["1g.6gb"]}])
    expected["amd"]["resourceCoreName"] = "amd.com/cu-percent"
    c.expect(dev == expected, "the device config is not the defaults with deviceConfig merged over them")
    want = sorted((set(DEFAULT_MANAGED) - {"nvidia.com/gpumem", "amd.com/gpucores"})
                  | {"example.com/vgpu-memory", "amd.com/cu-percent", "example.com/vgpu"})
    c.expect(r.managed() == want, f"managedResources {r.managed()}, expected {want}")
    c.expect(host_cfg["plugins"].get("compareDeviceConfigMap") == "kube-system/hami-scheduler-device",
             f"plugins.compareDeviceConfigMap {host_cfg['plugins'].get('compareDeviceConfigMap')!r}")
    reader = [d for d in r.all("Role") if d["metadata"]["name"] == "hami-next-hami-scheduler-hami-device-config"]
    c.expect(len(reader) == 1 and reader[0]["metadata"]["namespace"] == "kube-system" and reader[0]["rules"] == [
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["hami-scheduler-device"],
         "verbs": ["get"]}], f"the Role reading HAMi's device config: {reader}")
    binding = [d for d in r.all("RoleBinding") if d["metadata"]["name"] == "hami-next-hami-scheduler-hami-device-config"]
    c.expect(len(binding) == 1 and binding[0]["subjects"] == [
        {"kind": "ServiceAccount", "name": "hami-next-hami-scheduler", "namespace": "kube-system"}],
        f"its RoleBinding: {binding}")


def self_managed(r, c, ctx):
    tls = r.config("-config")["tls"]
    c.expect(tls == {"selfManaged": {
        "secret": "hami-scheduler-tls", "namespace": "gpu-system", "service": "hami-scheduler-admission",
        "webhookConfiguration": "hami-scheduler-admission", "ipAddresses": ["127.0.0.1"], "caDays": 1825,
        "leafDays": 90, "renewBeforeDays": 20, "checkIntervalSeconds": 600,
        "directory": "/run/hami-scheduler/tls"}}, f"tls {tls}")
    kinds = {k for k, _ in names(r)}
    c.expect(not kinds & {"Certificate", "Issuer"}, f"cert-manager objects: {sorted(kinds)}")
    c.expect(("Role", "hami-scheduler-tls") in names(r)
             and ("ClusterRole", "hami-scheduler-webhook-ca") in names(r), f"objects {sorted(names(r))}")
    hook = r.one("MutatingWebhookConfiguration")
    c.expect("annotations" not in hook["metadata"], f"webhook annotations {hook['metadata'].get('annotations')}")
    projected = [v for v in r.pod()["spec"]["volumes"] if v["name"] == "host-config"][0]["projected"]
    c.expect(all("secret" not in s for s in projected["sources"]),
             "the Secret is projected though the host creates it (the pod would wait for it)")
    ext = r.config("-kube-scheduler")["extenders"][0]
    c.expect(ext["tlsConfig"] == {"insecure": False, "caFile": "/run/hami-scheduler/tls/ca.crt"},
             f"tlsConfig {ext['tlsConfig']}")
    c.expect(r.one("Deployment")["spec"]["replicas"] == 2, "replicas")


# values file -> (release, namespace, cluster version, assertions)
CASES = {
    "defaults.yaml": ("hami-scheduler", "kube-system", "v1.33.2", defaults),
    "placement.yaml": ("hami-scheduler", "gpu-system", "v1.33.2", placement),
    "ha.yaml": ("hami-scheduler", "kube-system", "v1.31.1+k3s1", ha),
    "ha-max-unavailable.yaml": ("hami-scheduler", "kube-system", "v1.32.0", ha_max_unavailable),
    "single-no-election.yaml": ("hami-scheduler", "kube-system", "v1.33.2", single_no_election),
    "webhook-device.yaml": ("hami-next", "kube-system", "v1.30.8-eks-2d5f260", webhook_device),
    "self-managed.yaml": ("hami-scheduler", "gpu-system", "v1.33.2", self_managed),
    "two-replicas-leader-service.yaml": ("gpu", "gpu-system", "v1.33.2", two_replicas_leader_service),
}
# invalid values file -> the error helm must stop with (values.schema.json)
INVALID = {
    "replicas-without-election.yaml": "at '/leaderElection/mode': value must be 'follow'",
    "election-mode.yaml": "at '/leaderElection/mode': value must be one of 'follow', 'none'",
    "failure-policy.yaml": "at '/webhook/failurePolicy': value must be one of 'Ignore', 'Fail'",
    "timeout.yaml": "at '/webhook/timeoutSeconds': maximum: got 31, want 30",
    "unknown-key.yaml": "additional properties 'replica' not allowed",
    "port.yaml": "at '/extender/port': maximum: got 70,000, want 65,535",
    "certificates-mode.yaml": "at '/certificates/mode': value must be one of 'certManager', 'selfManaged'",
    "hami-device-config-map.yaml": "at '/hamiDeviceConfigMap': 'hami-scheduler-device' does not match pattern",
}


def helm(args, cmd):
    return subprocess.run([args.helm] + cmd, capture_output=True, text=True, timeout=60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--helm", required=True)
    ap.add_argument("--chart", required=True)
    ap.add_argument("--values-dir", required=True)
    ap.add_argument("--device-config", required=True)
    ap.add_argument("--binary")
    ap.add_argument("--plugin-dir")
    ap.add_argument("--build-image", required=True,
                    help="scripts/build-image.sh: its --print is the image the container build makes")
    ap.add_argument("--version", required=True, help="the CMake project's version")
    args = ap.parse_args()
    failures = []
    values_dir = pathlib.Path(args.values_dir)

    version = helm(args, ["version", "--short"])
    print(f"helm {version.stdout.strip()}")
    chart_dev_file = pathlib.Path(args.chart) / "files" / "device-config.yaml"
    ctx = {"chart_device_text": chart_dev_file.read_text(),
           "built_image": k8s_checks.built_image(args.build_image)}
    chart_meta = yaml.safe_load((pathlib.Path(args.chart) / "Chart.yaml").read_text())
    if str(chart_meta.get("appVersion")) != args.version:
        failures.append(f"Chart.yaml appVersion {chart_meta.get('appVersion')!r} is not the project's "
                        f"version {args.version!r} (the tag scripts/build-image.sh gives the image)")
    if ctx["built_image"] != f"hami-scheduler:{args.version}":
        failures.append(f"scripts/build-image.sh --print is {ctx['built_image']!r}, "
                        f"not hami-scheduler:{args.version}")
    ctx["chart_device"] = yaml.safe_load(ctx["chart_device_text"])
    if ctx["chart_device"] != yaml.safe_load(pathlib.Path(args.device_config).read_text()):
        failures.append(f"{chart_dev_file} differs from config/device-config.yaml")

    on_disk = {p.name for p in values_dir.glob("*.yaml")}
    if on_disk != set(CASES):
        failures.append(f"values files without a case or cases without a file: {sorted(on_disk ^ set(CASES))}")
    on_disk = {p.name for p in (values_dir / "invalid").glob("*.yaml")}
    if on_disk != set(INVALID):
        failures.append(f"invalid values without an error or errors without a file: {sorted(on_disk ^ set(INVALID))}")

    for file, (release, ns, kube_version, assertions) in CASES.items():
        c = k8s_checks.Checker(f"chart {file}")
        values = str(values_dir / file)
        lint = helm(args, ["lint", "--strict", args.chart, "-f", values, "-n", ns, "--kube-version", kube_version])
        c.expect(lint.returncode == 0, f"helm lint --strict failed:\n{lint.stdout}{lint.stderr}")
        out = helm(args, ["template", release, args.chart, "-f", values, "-n", ns, "--kube-version", kube_version])
        if not c.expect(out.returncode == 0, f"helm template failed:\n{out.stderr}"):
            failures += c.failures
            continue
        docs = [d for d in yaml.safe_load_all(out.stdout) if d]
        r = Rendered(docs, out.stdout)
        fullname = r.one("Deployment")["metadata"]["name"]
        device_text = r.device_text()
        host_cfg = k8s_checks.check(docs, [out.stdout], c, yaml.safe_load(device_text), ns,
                                    k8s_checks.chart_names(fullname))
        try:
            assertions(r, c, ctx)
        except (AssertionError, KeyError, IndexError, TypeError) as e:
            c.expect(False, f"assertions stopped: {type(e).__name__} {e}")
        if args.binary and args.plugin_dir:
            k8s_checks.check_config_with_binary(host_cfg, device_text, args.binary, args.plugin_dir, c)
        failures += c.failures
        print(f"{file}: release {release}, namespace {ns}, cluster {kube_version}: {len(docs)} objects checked")

    for file, message in INVALID.items():
        values = str(values_dir / "invalid" / file)
        for cmd in (["lint", "--strict", args.chart], ["template", "hami-scheduler", args.chart]):
            out = helm(args, cmd + ["-f", values, "--kube-version", "v1.33.2"])
            if out.returncode == 0 or message not in out.stdout + out.stderr:
                failures.append(f"invalid/{file}: helm {cmd[0]} exited {out.returncode} without "
                                f"{message!r}:\n{out.stdout}{out.stderr}")
        print(f"invalid/{file}: refused")

    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
