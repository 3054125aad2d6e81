package realcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
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

// The Binding refused before anything is stored (403: RBAC, an admission
// policy): the bind wrote nothing that stays, so the node lock and the
// charge go at once; once the policy is gone, kube-scheduler's retry binds
// the pod without waiting for a lock to expire. The refusal comes from a
// ValidatingAdmissionPolicy (reason Forbidden): the chart's ServiceAccount
// also holds Kubernetes' role for kube-scheduler, which allows Bindings.
func TestBindingRefusedWith403ReleasesTheNodeLockAtOnce(t *testing.T) {
	createNodes(t, "demo-cluster.yaml", []string{"gpu-t4-0"}, nil)
	createNamespace(t, "forbidden", nil)
	startNodeAgent(t)
	d := deploy(t, deployOptions{allocateAt: "bind", expectForbidden: true})
	ctx := context.Background()
	removePolicy := denyBindings(t, "forbidden")
	defer removePolicy()

	refusedFrom := time.Now()
	createPod(t, pinTo(gpuPod("forbidden", "p", 1, 1000, 10), "gpu-t4-0"))
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
	// The policy gone: the retry binds (kube-scheduler backs off at most
	// 10 s; a kept lock would block it for minutes).
	removePolicy()
	got := waitBound(t, "forbidden", "p")
	if got.Spec.NodeName != "gpu-t4-0" {
		t.Errorf("bound to %s, want gpu-t4-0", got.Spec.NodeName)
	}
	checkAllocationsMatchStoredPods(t, d.replicas[0])
}

// denyBindings makes the API server refuse every Binding in the namespace
// with 403 (a ValidatingAdmissionPolicy with reason Forbidden), and returns
// what lifts it. It waits until a Binding is refused.
func denyBindings(t *testing.T, ns string) func() {
	t.Helper()
	ctx := context.Background()
	name := "realcluster-deny-bindings-" + ns
	forbidden := metav1.StatusReasonForbidden
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
						Resources: []string{"pods/binding"}}}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "false",
				Message: "bindings are paused by policy", Reason: &forbidden}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}},
		},
	}
	api := cluster.client.AdmissionregistrationV1()
	if _, err := api.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lifted := false
	lift := func() {
		if lifted {
			return
		}
		lifted = true
		_ = api.ValidatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = api.ValidatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{})
		// Until the API server drops the policy, a Binding of a probe pod
		// is refused.
		waitPolicy(t, ns, false)
	}
	waitPolicy(t, ns, true)
	return lift
}

// waitPolicy binds probe pods (of a scheduler nobody runs, to a node that
// does not exist) until a Binding is refused (denied true) or accepted.
func waitPolicy(t *testing.T, ns string, denied bool) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		probe := podWithLimits(ns, fmt.Sprintf("policy-probe-%d-%v", i, denied), corev1.ResourceList{})
		probe.Spec.SchedulerName = "nobody"
		if _, err := cluster.client.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		err := cluster.client.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Name: probe.Name, Namespace: ns},
			Target:     corev1.ObjectReference{Kind: "Node", Name: "no-such-node"}}, metav1.CreateOptions{})
		_ = cluster.client.CoreV1().Pods(ns).Delete(ctx, probe.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		if (err != nil && apierrors.IsForbidden(err)) == denied {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the binding policy in %s did not take effect (denied: %v) within 30 s", ns, denied)
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
