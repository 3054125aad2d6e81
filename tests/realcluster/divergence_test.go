package realcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Behaviours of the real API server that the fake one of tests/support did
// not have, each shown here on the real one.

// A node name longer than 63 characters cannot be a label value: the real
// API server refuses a patch that writes it as the hami.io/vgpu-node label
// (422), so the label is written only when the name is a valid label value.
func TestBindToANodeWithANameLongerThan63Characters(t *testing.T) {
	long := "gpu-t4-" + strings.Repeat("long-node-name-", 5) + "0"
	if len(long) <= 63 {
		t.Fatalf("the node name must be longer than 63 characters, is %d", len(long))
	}
	for _, mode := range []string{"bind", "filter"} {
		t.Run("allocateAt="+mode, func(t *testing.T) {
			createNodes(t, "demo-cluster.yaml", []string{"gpu-t4-0"}, func(string) string { return long })
			createNamespace(t, "longname", nil)
			startNodeAgent(t)
			deploy(t, deployOptions{allocateAt: mode})
			createPod(t, pinTo(gpuPod("longname", "p", 1, 1000, 10), long))
			got := waitBound(t, "longname", "p")
			if got.Spec.NodeName != long || got.Annotations["hami.io/vgpu-node"] != long {
				t.Errorf("bound to %q with annotation hami.io/vgpu-node %q, want %q", got.Spec.NodeName,
					got.Annotations["hami.io/vgpu-node"], long)
			}
			if v, ok := got.Labels["hami.io/vgpu-node"]; ok {
				t.Errorf("label hami.io/vgpu-node = %q: not a valid label value, it must not be written", v)
			}
		})
	}
}

// The Binding refused by RBAC (403, answered before anything is stored):
// the bind wrote nothing that stays, so the node lock and the charge go at
// once; once the permission is back, kube-scheduler's retry binds the pod
// without waiting for a lock to expire.
func TestBindingRefusedWith403ReleasesTheNodeLockAtOnce(t *testing.T) {
	createNodes(t, "demo-cluster.yaml", []string{"gpu-t4-0"}, nil)
	createNamespace(t, "forbidden", nil)
	startNodeAgent(t)
	d := deploy(t, deployOptions{allocateAt: "bind", expectForbidden: true})
	ctx := context.Background()

	role := findObject(t, d.objects, "ClusterRole", release)
	var full rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(role.Object, &full); err != nil {
		t.Fatal(err)
	}
	withoutBinding := role.DeepCopy()
	var rules []any
	for _, r := range full.Rules {
		keep := true
		for _, res := range r.Resources {
			if res == "pods/binding" {
				keep = false
			}
		}
		if keep {
			m, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&r)
			rules = append(rules, m)
		}
	}
	if err := unstructured.SetNestedSlice(withoutBinding.Object, rules, "rules"); err != nil {
		t.Fatal(err)
	}
	mapper := newMapper(t)
	if err := apply(ctx, mapper, withoutBinding, false); err != nil {
		t.Fatal(err)
	}
	refusedFrom := time.Now()
	createPod(t, pinTo(gpuPod("forbidden", "p", 1, 1000, 10), "gpu-t4-0"))

	// The first refused Binding.
	var refused time.Time
	deadline := time.Now().Add(60 * time.Second)
	for refused.IsZero() && time.Now().Before(deadline) {
		for _, e := range auditEvents(t, serviceAccountUser, refusedFrom, time.Time{}) {
			if e.ObjectRef != nil && e.ObjectRef.Subresource == "binding" && e.ResponseStatus != nil &&
				e.ResponseStatus.Code == 403 {
				refused = e.Received
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if refused.IsZero() {
		t.Fatal("no Binding was refused with 403 within 60 s")
	}
	// Right after: no lock on the node, no charge for the pod.
	deadline = time.Now().Add(5 * time.Second)
	for {
		node, err := cluster.client.CoreV1().Nodes().Get(ctx, "gpu-t4-0", getOpts)
		if err != nil {
			t.Fatal(err)
		}
		lock, locked := node.Annotations["hami.io/mutex.lock"]
		charged := len(d.replicas[0].allocations(t)) > 0
		if !locked && !charged {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after the Binding was refused with 403: node lock %q (held: %v), charged: %v",
				lock, locked, charged)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The permission back: the retry binds (kube-scheduler backs off at
	// most 10 s; a kept lock would block it for minutes).
	if err := apply(ctx, mapper, role, false); err != nil {
		t.Fatal(err)
	}
	got := waitBound(t, "forbidden", "p")
	if got.Spec.NodeName != "gpu-t4-0" {
		t.Errorf("bound to %s, want gpu-t4-0", got.Spec.NodeName)
	}
	checkAllocationsMatchStoredPods(t, d.replicas[0])
}

// What the real API server answers to a JSON patch whose `test` fails: the
// fake of tests/support answers the same (tests/fake_apiserver).
func TestAFailedJsonPatchTestIsA422WithoutCauses(t *testing.T) {
	createNamespace(t, "patchtest", nil)
	ctx := context.Background()
	pod := createPod(t, podWithLimits("patchtest", "p", corev1.ResourceList{}))
	patch := `[{"op":"test","path":"/metadata/resourceVersion","value":"1"},` +
		`{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]`
	body, err := cluster.client.CoreV1().RESTClient().Patch(types.JSONPatchType).Namespace("patchtest").
		Resource("pods").Name(pod.Name).Body([]byte(patch)).Do(ctx).Raw()
	if err == nil {
		t.Fatal("the patch was accepted")
	}
	var status metav1.Status
	if jerr := json.Unmarshal(body, &status); jerr != nil {
		t.Fatalf("reply %q: %v", body, jerr)
	}
	want := fmt.Sprintf(`the server rejected our request due to an error in our request`)
	if status.Code != 422 || status.Reason != metav1.StatusReasonInvalid || status.Details != nil && len(status.Details.Causes) > 0 {
		t.Errorf("reply %s, want code 422, reason Invalid, no causes (message like %q)", body, want)
	}
	t.Logf("the real API server's reply to a failed test: %s", body)
}
