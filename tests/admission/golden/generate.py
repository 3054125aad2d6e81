#!/usr/bin/env python3
"""Writes the admission golden cases: <case>.request.json (what the API server
sends) and <case>.reply.json (the exact reply body we must answer), plus
cases.json (per-case settings read by the test).

The expected replies are derived here by hand from DESIGN §3 and HAMi §2 for
the default plugin configuration (config/device-config.yaml, vgpu defaults,
scheduler name hami-scheduler) -- never from the implementation's output.
Run it after changing a case; review the diff of the generated files.
"""
import base64
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
UID = "3f1c2a9e-7b4d-4e8a-9c61-0d2b5e7f8a10"


def base_pod():
    """A pod as the API server presents it at admission (defaults applied,
    no uid/resourceVersion, creationTimestamp null, status {})."""
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "name": "cuda-job",
            "namespace": "ml",
            "creationTimestamp": None,
            "labels": {"app": "cuda-job"},
            "managedFields": [{"manager": "kubectl-create", "operation": "Update",
                               "apiVersion": "v1", "time": "2025-06-02T10:00:00Z",
                               "fieldsType": "FieldsV1",
                               "fieldsV1": {"f:spec": {"f:containers": {}}}}],
        },
        "spec": {
            "volumes": [{"name": "kube-api-access-7xk2p", "projected": {"sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt",
                               "items": [{"key": "ca.crt", "path": "ca.crt"}]}}],
                "defaultMode": 420}}],
            "containers": [container("cuda", {"nvidia.com/gpu": "1"})],
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default",
            "serviceAccount": "default",
            "securityContext": {},
            "schedulerName": "default-scheduler",
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                 "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                 "effect": "NoExecute", "tolerationSeconds": 300}],
            "priority": 0,
            "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority",
        },
        "status": {},
    }


def container(name, limits=None, requests=None, **extra):
    """A defaulted container: requests copied from limits where absent."""
    resources = {}
    if limits:
        resources["limits"] = dict(limits)
        resources["requests"] = dict(limits if requests is None else requests)
    elif requests:
        resources["requests"] = dict(requests)
    c = {
        "name": name,
        "image": "nvidia/cuda:12.4.1-base-ubuntu22.04",
        "command": ["sleep", "3600"],
        "resources": resources,
        "volumeMounts": [{"name": "kube-api-access-7xk2p", "readOnly": True,
                          "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent",
    }
    c.update(extra)
    return c


def review(obj, operation="CREATE", version="v1", old=None, dry_run=False):
    request = {
        "uid": UID,
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
        "requestResource": {"group": "", "version": "v1", "resource": "pods"},
        "name": (obj or old)["metadata"].get("name", ""),
        "namespace": "ml",
        "operation": operation,
        "userInfo": {"username": "kubernetes-admin", "groups": ["kubeadm:cluster-admins",
                                                               "system:authenticated"]},
        "object": obj,
        "oldObject": old,
        "dryRun": dry_run,
        "options": {"kind": {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions",
                             "DELETE": "DeleteOptions"}[operation],
                    "apiVersion": "meta.k8s.io/v1", "fieldManager": "kubectl-client-side-apply"}
        if operation != "DELETE" else {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"},
    }
    return {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/" + version,
            "request": request}


def reply(version="v1", allowed=True, code=200, message=None, reason=None, patch=None,
          warnings=None):
    """The exact reply text (field order and compact form as controller-runtime)."""
    status = '{"metadata":{}'
    if message is not None:
        status += ',"message":' + json.dumps(message, ensure_ascii=False)
    if reason is not None:
        status += ',"reason":' + json.dumps(reason)
    status += ',"code":%d}' % code
    text = ('{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/%s","response":'
            '{"uid":"%s","allowed":%s,"status":%s' % (version, UID, "true" if allowed else "false",
                                                       status))
    if patch:
        raw = json.dumps(patch, separators=(",", ":"), ensure_ascii=False).encode()
        text += ',"patch":"%s","patchType":"JSONPatch"' % base64.b64encode(raw).decode()
    if warnings:
        text += ',"warnings":' + json.dumps(warnings, separators=(",", ":"), ensure_ascii=False)
    return text + "}}"


SCHED = {"op": "replace", "path": "/spec/schedulerName", "value": "hami-scheduler"}


def cores(path):
    return {"op": "add", "path": path + "/resources/limits/nvidia.com~1gpucores", "value": "100"}


CASES = []


def case(name, request, expected, **settings):
    CASES.append((name, request, expected, settings))


# 1. nvidia.com/gpu alone, no metadata.annotations: exclusive default + our scheduler.
case("gpu-no-annotations", review(base_pod()),
     reply(patch=[cores("/spec/containers/0"), SCHED]))

# 2. gpumem + gpucores: shareable, nothing to default.
p = base_pod()
p["spec"]["containers"][0] = container("cuda", {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "8000",
                                                "nvidia.com/gpucores": "30"})
case("gpumem-gpucores", review(p), reply(patch=[SCHED]))

# 3. AMD: routed, nothing injected (HAMi §2.4).
p = base_pod()
p["spec"]["containers"][0] = container("rocm", {"amd.com/gpu": "1", "amd.com/gpumem": "4096"},
                                       image="rocm/pytorch:latest")
case("amd-gpu", review(p), reply(patch=[SCHED]))

# 4-5. Privileged GPU container: skipped (default) or denied (privileged: deny).
p = base_pod()
p["spec"]["containers"][0]["securityContext"] = {"privileged": True}
case("privileged-skip", review(p),
     reply(message="container cuda is privileged; pod admitted unchanged"))
case("privileged-deny", review(p),
     reply(allowed=False, code=403, reason="Forbidden", message="container cuda is privileged"),
     vgpu={"privileged": "deny"})

# 6. nodeName already set on a GPU pod.
p = base_pod()
p["spec"]["nodeName"] = "gpu-node-1"
case("node-name-set", review(p),
     reply(allowed=False, code=403, reason="Forbidden", message="pod has node assigned"))

# 7. A GPU init container gets its own defaults, at its own index.
p = base_pod()
p["spec"]["initContainers"] = [container("fetch-model", {"nvidia.com/gpu": "1"})]
p["spec"]["containers"][0] = container("serve", {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "4000"})
case("init-containers", review(p), reply(patch=[cores("/spec/initContainers/0"), SCHED]))

# 8. Sidecar (restartable init container) without GPU, a GPU init container
#    with a percentage, two app containers: indexes per array.
p = base_pod()
p["spec"]["initContainers"] = [
    container("log-shipper", restartPolicy="Always", image="fluent/fluent-bit:3.0"),
    container("warmup", {"nvidia.com/gpu": "1", "nvidia.com/gpumem-percentage": "50"})]
p["spec"]["containers"] = [container("metrics", image="prom/node-exporter:v1.8.1"),
                           container("trainer", {"nvidia.com/gpu": "2"})]
case("sidecar-init-container", review(p), reply(patch=[cores("/spec/containers/1"), SCHED]))

# 9. Count in requests only: limits must be created before the default.
p = base_pod()
p["spec"]["containers"][0] = container("cuda", requests={"nvidia.com/gpu": "1"})
case("requests-only", review(p), reply(patch=[
    {"op": "add", "path": "/spec/containers/0/resources/limits", "value": {}},
    cores("/spec/containers/0"), SCHED]))

# 10. No GPU at all.
p = base_pod()
p["spec"]["containers"][0] = container("web", {"cpu": "500m", "memory": "256Mi"}, image="nginx:1.27")
case("no-gpu", review(p), reply())

# 11. Another scheduler is named.
p = base_pod()
p["spec"]["schedulerName"] = "volcano"
case("other-scheduler", review(p), reply(message="pod already has different scheduler assigned"))

# 12. default-scheduler without the override.
case("default-scheduler-no-override", review(base_pod()),
     reply(message="pod already has different scheduler assigned"),
     vgpu={"forceOverwriteDefaultScheduler": False})

# 13. No schedulerName member at all: "add", not "replace".
p = base_pod()
del p["spec"]["schedulerName"]
p["spec"]["containers"][0] = container("cuda", {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "2000"})
case("scheduler-name-absent", review(p),
     reply(patch=[{"op": "add", "path": "/spec/schedulerName", "value": "hami-scheduler"}]))

# 14. v1beta1 review: same decision, reply in v1beta1.
case("v1beta1", review(base_pod(), version="v1beta1"),
     reply(version="v1beta1", patch=[cores("/spec/containers/0"), SCHED]))

# 15-16. UPDATE and DELETE: allowed unchanged.
case("update", review(base_pod(), operation="UPDATE", old=base_pod()), reply())
case("delete", review(None, operation="DELETE", old=base_pod()), reply())

# 17. dryRun: handled the same way.
case("dry-run", review(base_pod(), dry_run=True),
     reply(patch=[cores("/spec/containers/0"), SCHED]))

# 18. An invalid device value: denied with the device plugin's message.
p = base_pod()
p["spec"]["containers"][0] = container("cuda", {"nvidia.com/gpu": "1",
                                                "nvidia.com/gpumem-percentage": "150"})
case("invalid-percentage", review(p), reply(allowed=False, code=400, message=(
    "invalid nvidia.com/gpumem-percentage value 150 in container cuda: "
    "must be an integer between 0 and 100")))

# 18b. A memory quantity in a form filter cannot use ("8Gi": HAMi reads it as
# 8589934592 MiB, drops the request and schedules the pod anywhere, 7.7#8):
# denied, naming the resource, the value and the accepted form.
p = base_pod()
p["spec"]["containers"][0] = container("cuda", {"nvidia.com/gpu": "1",
                                                "nvidia.com/gpumem": "8Gi"})
case("gpumem-quantity", review(p), reply(allowed=False, code=400, message=(
    "invalid nvidia.com/gpumem value 8Gi in container cuda: "
    "must be an integer number of MiB between 0 and 2147483647")))

# 18c. The same for every vendor: the host asks each device plugin for the
# container's request after the defaults and denies with its message.
p = base_pod()
p["spec"]["containers"][0] = container("rocm", {"amd.com/gpu": "1", "amd.com/gpumem": "16Gi"},
                                       image="rocm/pytorch:latest")
case("amd-gpumem-quantity", review(p), reply(allowed=False, code=400, message=(
    "invalid amd.com/gpumem value 16Gi in container rocm: "
    "must be an integer number of MiB between 0 and 2147483647")))

# 18d. A name under a vendor's domain that no device plugin reads (a typo of
# nvidia.com/gpumem): allowed as it is, with a warning kubectl shows naming
# the resource and the vendor's known ones.
NVIDIA_KNOWN = ("nvidia.com/gpu, nvidia.com/gpumem, nvidia.com/gpumem-percentage, "
                "nvidia.com/gpucores, nvidia.com/priority")
p = base_pod()
p["spec"]["containers"][0] = container("cuda", {"nvidia.com/gpu": "1",
                                                "nvidia.com/gpumemory": "8000"})
case("unknown-vendor-resource", review(p), reply(patch=[cores("/spec/containers/0"), SCHED],
     warnings=["container cuda: nvidia.com/gpumemory is not a resource of this scheduler's "
               "device plugins; the nvidia.com resources they read: " + NVIDIA_KNOWN]))
# Without any known resource the pod is not routed, and still warned.
p = base_pod()
p["spec"]["containers"][0] = container("cuda", {"nvidia.com/gpus": "1"})
case("unknown-vendor-resource-only", review(p), reply(
     warnings=["container cuda: nvidia.com/gpus is not a resource of this scheduler's "
               "device plugins; the nvidia.com resources they read: " + NVIDIA_KNOWN]))

# 19-20. Namespace quota (ml: limits.nvidia.com/gpumem 8000, 6000 used).
QUOTA = {"hard": {"nvidia.com/gpumem": 8000}, "used": {"nvidia.com/gpumem": 6000}}
p = base_pod()
p["spec"]["containers"][0] = container("cuda", {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "4000"})
case("quota-exceeded", review(p), reply(allowed=False, code=403, reason="Forbidden", message=(
    "exceeding resource quota in namespace ml: nvidia.com/gpumem used 6000 + requested 4000 "
    "> limit 8000")), quota=QUOTA)
p = base_pod()
p["spec"]["containers"][0] = container("cuda", {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "2000"})
case("quota-fits", review(p), reply(patch=[SCHED]), quota=QUOTA)


def main():
    manifest = []
    for name, request, expected, settings in CASES:
        with open(os.path.join(HERE, name + ".request.json"), "w") as f:
            json.dump(request, f, indent=1)
            f.write("\n")
        with open(os.path.join(HERE, name + ".reply.json"), "w") as f:
            f.write(expected + "\n")
        manifest.append(dict(name=name, **settings))
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
