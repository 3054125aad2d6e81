"""Checks shared by the plain manifests' and the Helm chart's tests: the
objects of one deployment parse and carry what it depends on — two containers
wired over loopback TLS, the extender and profile of the
KubeSchedulerConfiguration, the seed's webhook, the Service, least-privilege
RBAC, certificates, probes, the device config — and the pieces agree with each
other (ports, names, mounts, Secret keys); and the host's own --check-config
on the host config they carry."""
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import yaml

CLUSTER_SCOPED = {"ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration"}
# docs/kubernetes.md §2 (follow mode): what the host may do, and nothing else.
HOST_CLUSTER_RULES = {
    ("", "pods", v) for v in ("get", "list", "watch", "patch")} | {
    ("", "pods/binding", "create")} | {
    ("", "nodes", v) for v in ("get", "list", "watch", "patch")} | {
    ("", r, v) for r in ("resourcequotas", "namespaces") for v in ("list", "watch")} | {
    (g, "events", v) for g in ("", "events.k8s.io") for v in ("create", "patch")}
DEVICE_SECTIONS = ("nvidia", "amd")  # the device plugins the configs load


class Checker:
    def __init__(self, label):
        self.label = label
        self.failures = []

    def expect(self, condition, message):
        if not condition:
            self.failures.append(f"{self.label}: {message}")
        return condition


def flat_rules(rules):
    out = set()
    for r in rules:
        if r.get("resourceNames"):
            continue
        for g in r.get("apiGroups", []):
            for res in r.get("resources", []):
                for v in r.get("verbs", []):
                    out.add((g, res, v))
    return out


# The object names the checks look up: the seed's (plain manifests), or the
# chart's, all prefixed by the release's fullname.
SEED_NAMES = {"deployment": "hami-scheduler", "service": "hami-admission-service",
              "webhook": "vgpu-admission-controller", "clusterrole": "hami-scheduler"}


def chart_names(fullname):
    return {"deployment": fullname, "service": f"{fullname}-admission",
            "webhook": f"{fullname}-admission", "clusterrole": fullname}


def check(docs, raw_texts, c, expected_dev, ns, names):
    """Checks the objects of one deployment (docs: parsed objects; raw_texts:
    their source, for comments) in namespace ns; expected_dev is the device
    configuration the device ConfigMap must hold. Returns the host config."""
    by_kind = {}
    for d in docs:
        c.expect(isinstance(d, dict) and "apiVersion" in d and "kind" in d
                 and d.get("metadata", {}).get("name"), f"object without apiVersion/kind/name: {d}")
        by_kind.setdefault(d["kind"], []).append(d)
        if d["kind"] not in CLUSTER_SCOPED:
            c.expect(d["metadata"].get("namespace") == ns,
                     f"{d['kind']}/{d['metadata']['name']} is not in namespace {ns}")

    def one(kind, name):
        found = [d for d in by_kind.get(kind, []) if d["metadata"]["name"] == name]
        c.expect(len(found) == 1, f"expected one {kind} {name}, found {len(found)}")
        return found[0] if found else {}

    raw = "\n".join(raw_texts)

    # --- Deployment and its two containers ---
    dep = one("Deployment", names["deployment"])
    pod = dep.get("spec", {}).get("template", {})
    spec = pod.get("spec", {})
    containers = {x["name"]: x for x in spec.get("containers", [])}
    c.expect(sorted(containers) == ["hami-scheduler", "kube-scheduler"],
             f"containers {sorted(containers)}")
    host, ks = containers.get("hami-scheduler", {}), containers.get("kube-scheduler", {})
    c.expect(spec.get("securityContext", {}).get("runAsNonRoot") is True, "pod is not runAsNonRoot")
    sa = spec.get("serviceAccountName")
    one("ServiceAccount", sa)
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    c.expect(dep["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items(),
             "the selector does not match the pod labels")

    def mounted_file(container, path):
        """(kind, object name, key) behind a file path in a container."""
        for m in container.get("volumeMounts", []):
            prefix = m["mountPath"].rstrip("/") + "/"
            if not path.startswith(prefix):
                continue
            rel, vol = path[len(prefix):], volumes.get(m["name"], {})
            sources = vol.get("projected", {}).get("sources", [])
            if "configMap" in vol:
                sources = [{"configMap": vol["configMap"]}]
            if "secret" in vol:
                sources = [{"secret": vol["secret"]}]
            for s in sources:
                kind = "ConfigMap" if "configMap" in s else "Secret"
                ref = s.get("configMap") or s.get("secret")
                items = ref.get("items")
                if items:
                    for it in items:
                        if it["path"] == rel:
                            return kind, ref.get("name") or ref.get("secretName"), it["key"]
                    continue
                name = ref.get("name") or ref.get("secretName")
                if kind == "Secret":
                    return kind, name, rel
                held = [d for d in by_kind.get("ConfigMap", []) if d["metadata"]["name"] == name]
                if held and rel in held[0].get("data", {}):
                    return kind, name, rel
        return None

    def mounted_volume(container, path):
        """(volume, mount) holding a file path in a container; ({}, {}) when none."""
        for m in container.get("volumeMounts", []):
            if path.startswith(m["mountPath"].rstrip("/") + "/"):
                return volumes.get(m["name"], {}), m
        return {}, {}

    def config_data(container, path):
        where = mounted_file(container, path)
        if not c.expect(where and where[0] == "ConfigMap", f"{path} is not a mounted ConfigMap key"):
            return None
        cm = one("ConfigMap", where[1])
        text = cm.get("data", {}).get(where[2])
        c.expect(text is not None, f"ConfigMap {where[1]} has no key {where[2]}")
        return yaml.safe_load(text) if text else None

    host_args = host.get("args", []) + host.get("command", [])
    c.expect("--config" in host_args, "hami-scheduler has no --config")
    host_config_path = host_args[host_args.index("--config") + 1] if "--config" in host_args else ""
    host_cfg = config_data(host, host_config_path) or {}
    ks_flags = [a for a in ks.get("command", []) + ks.get("args", []) if a.startswith("--config=")]
    c.expect(len(ks_flags) == 1, "kube-scheduler has no --config=")
    sched = config_data(ks, ks_flags[0].split("=", 1)[1]) if ks_flags else {}
    sched = sched or {}

    c.expect(host_cfg.get("cluster", {}).get("source") == "kubernetes", "cluster.source is not kubernetes")
    # The webhook listener (listen) is the container port https; the extender
    # listener (extender.listen, default 127.0.0.1:8444) stays on the pod's
    # loopback, for kube-scheduler only.
    listen_port = int(str(host_cfg.get("listen", ":0")).rsplit(":", 1)[1])
    ext_listen = str(host_cfg.get("extender", {}).get("listen", "127.0.0.1:8444"))
    ext_host, ext_port = ext_listen.rsplit(":", 1)
    ext_port = int(ext_port)
    c.expect(ext_host == "127.0.0.1", f"extender.listen {ext_listen} is not loopback")
    c.expect(ext_port != listen_port, f"extender.listen {ext_listen} shares the webhook port")
    ports = {p["name"]: p["containerPort"] for p in host.get("ports", [])}
    c.expect(ports.get("https") == listen_port, f"container port https {ports.get('https')} != listen {listen_port}")
    c.expect(ext_port not in ports.values(), f"the extender port {ext_port} is a container port")
    config_dir = host_config_path.rsplit("/", 1)[0]
    tls = host_cfg.get("tls", {})
    # tls.selfManaged: the host makes the certificate, keeps it in the Secret
    # and writes it to a folder of its own (an emptyDir kube-scheduler reads
    # ca.crt from); otherwise the Secret's files are mounted.
    self_managed = tls.get("selfManaged")
    if self_managed is not None:
        tls_secret = self_managed.get("secret")
        runtime_dir = str(self_managed.get("directory", ""))
        vol, mount = mounted_volume(host, runtime_dir + "/tls.crt")
        c.expect("emptyDir" in vol and not mount.get("readOnly"),
                 f"tls.selfManaged.directory {runtime_dir} is not a writable emptyDir of the host")
        c.expect(vol.get("emptyDir", {}).get("medium") == "Memory",
                 "the self-managed key would reach the node's disk (emptyDir medium is not Memory)")
        c.expect((self_managed.get("namespace"), self_managed.get("service"),
                  self_managed.get("webhookConfiguration")) == (ns, names["service"], names["webhook"]),
                 f"tls.selfManaged does not name this namespace, Service and webhook: {self_managed}")
        c.expect("127.0.0.1" in self_managed.get("ipAddresses", []),
                 "tls.selfManaged lacks 127.0.0.1 (loopback extender)")
        c.expect(not any(k in tls for k in ("certFile", "keyFile", "selfSigned")),
                 "tls.selfManaged next to certFile/keyFile/selfSigned")
    else:
        for key, secret_key in (("certFile", "tls.crt"), ("keyFile", "tls.key")):
            where = mounted_file(host, f"{config_dir}/{tls.get(key, '')}")
            c.expect(where and where[0] == "Secret" and where[2] == secret_key,
                     f"tls.{key} {tls.get(key)} is not the Secret's {secret_key}")
        tls_secret = (mounted_file(host, f"{config_dir}/{tls.get('certFile', '')}") or (None, None))[1]
    dev_cfg = config_data(host, f"{config_dir}/{host_cfg.get('plugins', {}).get('deviceConfigFile', '')}")
    c.expect(dev_cfg == expected_dev, "the device ConfigMap differs from the expected device config")
    env = {e["name"] for e in host.get("env", [])}
    le = host_cfg.get("cluster", {}).get("leaderElection", {})
    if le.get("mode") == "follow":
        c.expect("POD_NAME" in env, "follow mode needs POD_NAME (the leader identity)")

    # Probes.
    def probe(container, kind):
        get = container.get(kind, {}).get("httpGet", {})
        port = get.get("port")
        port = ports.get(port, port) if isinstance(port, str) else port
        return get.get("path"), port, get.get("scheme")
    c.expect(probe(host, "livenessProbe") == ("/healthz", listen_port, "HTTPS"),
             f"liveness probe {probe(host, 'livenessProbe')}")
    c.expect(probe(host, "readinessProbe") == ("/readyz", listen_port, "HTTPS"),
             f"readiness probe {probe(host, 'readinessProbe')}")

    # --- KubeSchedulerConfiguration ---
    c.expect(sched.get("apiVersion") == "kubescheduler.config.k8s.io/v1"
             and sched.get("kind") == "KubeSchedulerConfiguration", "not a v1 KubeSchedulerConfiguration")
    name = host_cfg.get("scheduler", {}).get("name")
    profiles = [p.get("schedulerName") for p in sched.get("profiles", [])]
    c.expect(profiles == [name], f"profiles {profiles}, expected [{name}] (the host's scheduler.name)")
    ext = sched.get("extenders", [])
    c.expect(len(ext) == 1, f"{len(ext)} extenders")
    e = ext[0] if ext else {}
    c.expect(e.get("urlPrefix") == f"https://127.0.0.1:{ext_port}",
             f"urlPrefix {e.get('urlPrefix')} is not the loopback extender listener "
             f"https://127.0.0.1:{ext_port}")
    c.expect(e.get("filterVerb") == "filter" and e.get("bindVerb") == "bind", "filter/bind verbs")
    c.expect(e.get("preemptVerb") == "preemption",
             f"preemptVerb {e.get('preemptVerb')!r} is not the extender's POST /preemption")
    if e.get("prioritizeVerb"):
        c.expect(e["prioritizeVerb"] == "prioritize" and e.get("weight", 0) > 0, "prioritize needs weight > 0")
    c.expect(e.get("nodeCacheCapable") is True and e.get("enableHTTPS") is True,
             "nodeCacheCapable and enableHTTPS must be true")
    tcfg = e.get("tlsConfig", {})
    if not tcfg.get("insecure") and self_managed is not None:
        ca_file = tcfg.get("caFile", "")
        host_vol = mounted_volume(host, runtime_dir + "/ca.crt")[0]
        c.expect(ca_file == runtime_dir + "/ca.crt" and host_vol
                 and mounted_volume(ks, ca_file)[0] is host_vol,
                 f"tlsConfig.caFile {ca_file} is not the ca.crt the host writes to {runtime_dir}")
    elif not tcfg.get("insecure"):
        where = mounted_file(ks, tcfg.get("caFile", ""))
        c.expect(where and where[0] == "Secret" and where[1] == tls_secret and where[2] == "ca.crt",
                 f"tlsConfig.caFile {tcfg.get('caFile')} is not the serving Secret's ca.crt")
    managed = [m["name"] for m in e.get("managedResources", [])]
    c.expect(len(managed) == len(set(managed)), "duplicate managedResources")
    c.expect(all(m.get("ignoredByScheduler") is True for m in e.get("managedResources", [])),
             "every managed resource must be ignoredByScheduler")
    for section in DEVICE_SECTIONS:
        for k, v in expected_dev.get(section, {}).items():
            if k.startswith("resource") and k.endswith("Name"):
                c.expect(v in managed, f"{section}.{k} {v} is not a managed resource")
    lesched = sched.get("leaderElection", {})
    if le.get("mode") == "follow":
        c.expect((lesched.get("resourceNamespace"), lesched.get("resourceName"))
                 == (le.get("leaseNamespace"), le.get("leaseName")),
                 "the host does not follow kube-scheduler's lease")

    # --- Service ---
    svc = one("Service", names["service"])
    # The role label is written at run time by the leading host on the pods
    # its roleSelector matches: the Service may select it, nothing else may be
    # missing from the pod template.
    role_key = le.get("roleLabel", "hami.io/scheduler-role")
    svc_selector = dict(svc.get("spec", {}).get("selector", {}))
    role_value = svc_selector.pop(role_key, None)
    c.expect(svc_selector.items() <= pod["metadata"]["labels"].items(),
             "the Service does not select the pod")
    if role_value is not None:
        c.expect(role_value == "leader", f"the Service selects {role_key}={role_value}, not leader")
        c.expect(role_key != "", "the Service selects a role label the host does not write")
        role_selector = dict(kv.split("=", 1) for kv in le.get("roleSelector", "").split(",") if kv)
        c.expect(role_selector and role_selector.items() <= pod["metadata"]["labels"].items(),
                 f"roleSelector {le.get('roleSelector')!r} does not match the pods the Service selects")
    svc_ports = {p["port"]: p.get("targetPort") for p in svc.get("spec", {}).get("ports", [])}
    targets = {port: ports.get(t, t) if isinstance(t, str) else t for port, t in svc_ports.items()}
    c.expect(targets.get(443) == listen_port,
             f"Service 443 -> {svc_ports.get(443)} ({targets.get(443)}), not the webhook port {listen_port}")
    c.expect(ext_port not in targets.values(), f"the Service publishes the extender port {ext_port}")

    # --- Webhook ---
    mwc = one("MutatingWebhookConfiguration", names["webhook"])
    hooks = mwc.get("webhooks", [])
    c.expect([h["name"] for h in hooks] == ["pod.vgpu.admission.local"], "webhook name")
    h = hooks[0] if hooks else {}
    c.expect(h.get("clientConfig", {}).get("service") == {
        "name": names["service"], "namespace": ns, "path": "/mutate-pod", "port": 443},
        f"clientConfig {h.get('clientConfig')}")
    c.expect(h.get("rules") and all(r["operations"] == ["CREATE"] and r["resources"] == ["pods"]
                                    and r["apiGroups"] == [""] for r in h["rules"]), "rules")
    c.expect(h.get("failurePolicy") in ("Ignore", "Fail"), "failurePolicy must be stated")
    c.expect(isinstance(h.get("timeoutSeconds"), int) and 1 <= h["timeoutSeconds"] <= 30, "timeoutSeconds")
    c.expect(h.get("sideEffects") == "None" and "v1" in h.get("admissionReviewVersions", []),
             "sideEffects/admissionReviewVersions")
    for key in ("failurePolicy", "timeoutSeconds"):
        c.expect(re.search(r"#[^\n]*\n\s*(#[^\n]*\n\s*)*" + key + ":", raw) is not None,
                 f"{key} has no explaining comment")
    own = pod["metadata"]["labels"]
    excluded = any(x["operator"] == "NotIn" and own.get(x["key"]) in x["values"]
                   for x in h.get("objectSelector", {}).get("matchExpressions", []))
    c.expect(excluded, "the webhook does not exclude the scheduler's own pods")

    # --- Certificates ---
    # No caBundle is rendered: the injector or the host sets it, and Helm's
    # three-way merge leaves a field the chart never rendered alone.
    c.expect(not any("caBundle" in x.get("clientConfig", {}) for x in hooks),
             "the chart renders a caBundle (helm would fight the one set in the cluster)")
    if self_managed is not None:
        c.expect("cert-manager.io/inject-ca-from" not in mwc["metadata"].get("annotations", {})
                 and not by_kind.get("Certificate") and not by_kind.get("Issuer"),
                 "cert-manager objects or annotation with a self-managed certificate")
    else:
        inject = mwc["metadata"].get("annotations", {}).get("cert-manager.io/inject-ca-from", "/")
        cert_ns, cert_name = inject.split("/", 1)
        cert = one("Certificate", cert_name)
        cs = cert.get("spec", {})
        c.expect(cert_ns == ns and cs.get("secretName") == tls_secret,
                 "the webhook's CA and the mounted Secret are not the serving Certificate's")
        c.expect(f"{names['service']}.{ns}.svc" in cs.get("dnsNames", []), "dnsNames lack <svc>.<ns>.svc")
        c.expect("127.0.0.1" in cs.get("ipAddresses", []), "the certificate lacks 127.0.0.1 (loopback extender)")
        issuer = one("Issuer", cs.get("issuerRef", {}).get("name"))
        c.expect("ca" in issuer.get("spec", {}), "the serving certificate is not issued by a CA Issuer (no ca.crt)")

    # --- RBAC ---
    cr = one("ClusterRole", names["clusterrole"])
    c.expect(flat_rules(cr.get("rules", [])) == HOST_CLUSTER_RULES,
             f"ClusterRole differs from docs/kubernetes.md: extra "
             f"{sorted(flat_rules(cr.get('rules', [])) - HOST_CLUSTER_RULES)}, missing "
             f"{sorted(HOST_CLUSTER_RULES - flat_rules(cr.get('rules', [])))}")
    bound = {(b["roleRef"]["name"], s["name"], s.get("namespace"))
             for b in by_kind.get("ClusterRoleBinding", []) + by_kind.get("RoleBinding", [])
             for s in b.get("subjects", [])}
    for role in (names["clusterrole"], "system:kube-scheduler", "system:volume-scheduler"):
        c.expect((role, sa, ns) in bound, f"{role} is not bound to {ns}/{sa}")
    lease_rules = set()
    for role in by_kind.get("Role", []):
        if any(b[0] == role["metadata"]["name"] and b[1] == sa for b in bound):
            lease_rules |= flat_rules(role.get("rules", []))
    for v in ("get", "list", "watch"):
        c.expect(("coordination.k8s.io", "leases", v) in lease_rules, f"leases {v} missing")
    # A self-managed certificate: its Secret by name (create cannot be
    # limited to a name) and the caBundle of the chart's own webhook
    # configuration; without it, no Secret or webhook configuration access.
    def named_rules(kinds):
        out = set()
        for d in by_kind.get(kinds[0], []):
            if any(b[0] == d["metadata"]["name"] and b[1] == sa for b in bound
                   if d["kind"] != "Role" or d["metadata"].get("namespace") == ns):
                for r in d.get("rules", []):
                    for g in r.get("apiGroups", []):
                        for res in r.get("resources", []):
                            for v in r.get("verbs", []):
                                out.add((g, res, v, tuple(r.get("resourceNames", []))))
        return out
    secret_rules = {x for x in named_rules(["Role"]) if x[1] == "secrets"}
    webhook_rules = {x for x in named_rules(["ClusterRole"]) if x[1] == "mutatingwebhookconfigurations"}
    if self_managed is not None:
        want_secret = {("", "secrets", v, (tls_secret,)) for v in ("get", "update")} | {
            ("", "secrets", "create", ())}
        c.expect(secret_rules == want_secret, f"Secret rules {sorted(secret_rules)}, want {sorted(want_secret)}")
        want_webhook = {("admissionregistration.k8s.io", "mutatingwebhookconfigurations", v, (names["webhook"],))
                        for v in ("get", "patch")}
        c.expect(webhook_rules == want_webhook,
                 f"webhook configuration rules {sorted(webhook_rules)}, want {sorted(want_webhook)}")
    else:
        c.expect(not secret_rules and not webhook_rules,
                 f"Secret or webhook configuration access without a self-managed certificate: "
                 f"{sorted(secret_rules | webhook_rules)}")
    everything = [r for d in by_kind.get("ClusterRole", []) + by_kind.get("Role", []) for r in d["rules"]]
    c.expect(not any("*" in r.get("verbs", []) + r.get("resources", []) for r in everything),
             "wildcard RBAC rule")
    return host_cfg


KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
  - name: nowhere
    cluster:
      server: https://127.0.0.1:1
      insecure-skip-tls-verify: true
users:
  - name: test
    user:
      token: test
contexts:
  - name: test
    context:
      cluster: nowhere
      user: test
current-context: test
"""


def built_image(script):
    """The image name scripts/build-image.sh builds with no registry (its --print)."""
    out = subprocess.run(["bash", script, "--print"], capture_output=True, text=True, timeout=30,
                         check=True)
    return out.stdout.strip()


def check_config_with_binary(host_cfg, device_config_text, binary, plugin_dir, c):
    """The host's own strict loader on the config as deployed (unknown keys,
    wrong values, the kubernetes and leaderElection sections): --check-config
    with TLS files made for the test, the device config next to it, and a
    kubeconfig naming an API server that is not there (the check only probes
    it, and reports it unreachable)."""
    if not shutil.which("openssl"):
        c.expect(False, "openssl is needed to make the test's TLS files")
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "tls").mkdir()
        # A self-managed certificate is made at start, from the Secret: the
        # check needs no files.
        if "selfManaged" not in host_cfg["tls"]:
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj", "/CN=test",
                            "-keyout", str(tmp / host_cfg["tls"]["keyFile"]),
                            "-out", str(tmp / host_cfg["tls"]["certFile"])],
                           check=True, capture_output=True, timeout=30)
        (tmp / host_cfg["plugins"]["deviceConfigFile"]).write_text(device_config_text)
        (tmp / "config.yaml").write_text(yaml.safe_dump(host_cfg))
        (tmp / "kubeconfig").write_text(KUBECONFIG)
        env = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_")}
        env.update(KUBECONFIG=str(tmp / "kubeconfig"), POD_NAME="hami-scheduler-0")
        run = subprocess.run([binary, "--config", str(tmp / "config.yaml"), "--plugin-dir",
                              plugin_dir, "--check-config"],
                             capture_output=True, text=True, timeout=30, env=env)
        if c.expect(run.returncode == 0, "--check-config failed:\n" + run.stdout + run.stderr):
            c.expect("cluster: kubernetes https://127.0.0.1:1" in run.stdout,
                     "--check-config did not use the kubernetes cluster:\n" + run.stdout)
