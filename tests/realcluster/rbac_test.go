package realcluster

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// grant is one verb on one resource (subresource after a slash) of one API
// group.
type grant struct{ group, resource, verb string }

func (g grant) String() string {
	if g.group == "" {
		return g.verb + " " + g.resource
	}
	return g.verb + " " + g.resource + "." + g.group
}

// hostGrants: what the chart's own roles for the host give (the roles of
// kube-scheduler are Kubernetes' own and not judged here).
func hostGrants(t *testing.T, objects []*hostRole) map[grant]bool {
	out := map[grant]bool{}
	for _, r := range objects {
		for _, rule := range r.rules {
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					for _, v := range rule.Verbs {
						out[grant{g, res, v}] = true
					}
				}
			}
		}
	}
	return out
}

type hostRole struct {
	kind, name string
	rules      []rbacv1.PolicyRule
}

func chartHostRoles(t *testing.T, d *deployment) []*hostRole {
	var out []*hostRole
	for _, want := range []struct{ kind, name string }{
		{"ClusterRole", release}, {"Role", release + "-leases"}, {"Role", release + "-tls"},
		{"ClusterRole", release + "-webhook-ca"}} {
		o := findObject(t, d.objects, want.kind, want.name)
		var role rbacv1.ClusterRole
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role); err != nil {
			t.Fatal(err)
		}
		out = append(out, &hostRole{want.kind, want.name, role.Rules})
	}
	return out
}

// Grants of the host's roles that a run of the suite does not exercise,
// and why they are needed all the same.
var grantsNotExercised = map[grant]string{
	{"coordination.k8s.io", "leases", "get"}:    "kube-scheduler reads its lease (Kubernetes' role covers only the lease named kube-scheduler)",
	{"coordination.k8s.io", "leases", "create"}: "kube-scheduler creates its lease (it shares the ServiceAccount)",
	{"coordination.k8s.io", "leases", "update"}: "kube-scheduler renews its lease",
	{"", "secrets", "update"}:                   "renewal of the serving certificate, or a Secret another replica wrote",
	{"", "events", "patch"}:                     "a repeated event is patched (client-go's series/count update)",
	{"", "events", "create"}:                    "core/v1 events, for clusters without events.k8s.io/v1",
	{"", "pods", "get"}:                         "a bind re-reads a pod whose write outcome is unknown",
	{"", "nodes", "get"}:                        "the node lock re-reads a node after a conflict",
}

// What the host's ServiceAccount must never be allowed.
var forbiddenForTheHost = []authorizationv1.ResourceAttributes{
	{Verb: "list", Resource: "secrets"},
	{Verb: "get", Resource: "secrets", Namespace: namespace, Name: "other-secret"},
	{Verb: "create", Resource: "pods", Namespace: "default"},
	{Verb: "update", Resource: "nodes"},
	{Verb: "delete", Resource: "nodes"},
	{Verb: "patch", Resource: "mutatingwebhookconfigurations", Group: "admissionregistration.k8s.io", Name: "someone-else"},
	{Verb: "create", Resource: "clusterrolebindings", Group: "rbac.authorization.k8s.io"},
	{Verb: "get", Resource: "configmaps", Namespace: "default"},
	{Verb: "create", Resource: "serviceaccounts/token", Namespace: namespace, Name: release},
}

func TestChartRBACIsEnoughAndNoMore(t *testing.T) {
	s := gpuCluster(t)
	s.loadGpuCluster(t)
	startNodeAgent(t)
	// A first start: the host creates its Secret.
	err := cluster.client.CoreV1().Secrets(namespace).Delete(context.Background(), release+"-tls", metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	d := deploy(t, deployOptions{allocateAt: "bind", extraVendors: []string{"hygon"}})
	// Work that uses every kind of write: a bind (node lock, pod patch,
	// Binding), an unschedulable pod (events), a host restart (the
	// Secret and caBundle read back).
	createPod(t, pinTo(s.pending(t, "ml", "demo-infer"), "gpu-a100-1"))
	waitBound(t, "ml", "demo-infer")
	createPod(t, gpuPod("rocm", "never-fits", 1, 90000, 0))
	deadline := time.Now().Add(60 * time.Second)
	for len(schedulingEvents(t, "rocm", "never-fits")) == 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	d.restartHost(d.replicas[0], 15)

	used := map[grant]bool{}
	for _, e := range auditEvents(t, serviceAccountUser, d.started, time.Time{}) {
		if !strings.HasPrefix(e.UserAgent, "hami-scheduler/") || e.ObjectRef == nil {
			continue
		}
		group := ""
		if strings.HasPrefix(e.RequestURI, "/apis/") {
			group = strings.Split(e.RequestURI, "/")[2]
		}
		res := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			res += "/" + e.ObjectRef.Subresource
		}
		used[grant{group, res, e.Verb}] = true
	}
	var unused, needless []string
	for g := range hostGrants(t, chartHostRoles(t, d)) {
		if used[g] {
			continue
		}
		if _, ok := grantsNotExercised[g]; ok {
			continue
		}
		unused = append(unused, g.String())
	}
	for g := range grantsNotExercised {
		if used[g] {
			needless = append(needless, g.String())
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("the chart grants the host what it never used: %s", strings.Join(unused, ", "))
	}
	if len(needless) > 0 {
		t.Logf("exercised after all (the exemption can go): %s", strings.Join(needless, ", "))
	}

	ctx := context.Background()
	for _, attrs := range forbiddenForTheHost {
		attrs := attrs
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: serviceAccountUser, ResourceAttributes: &attrs,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}}}
		got, err := cluster.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Allowed {
			t.Errorf("the host's ServiceAccount may %s %s %s/%s (%s)", attrs.Verb, attrs.Resource, attrs.Namespace,
				attrs.Name, got.Status.Reason)
		}
	}
}
