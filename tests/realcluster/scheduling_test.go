package realcluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// The demo cluster (config/demo-cluster.yaml: NVIDIA, a MIG node, AMD, a
// CPU node, with the pods HAMi already placed) and the Hygon node of
// config/vendors-cluster.yaml with its placed pod.
func gpuCluster(t testing.TB) snapshot {
	t.Helper()
	s := readSnapshot(t, "demo-cluster.yaml")
	vendors := readSnapshot(t, "vendors-cluster.yaml")
	for _, n := range vendors.nodes {
		if n.Name == "dcu-z100-0" {
			s.nodes = append(s.nodes, n)
		}
	}
	for _, p := range vendors.pods {
		if p.Spec.NodeName == "dcu-z100-0" || p.Name == "demo-dcu" {
			s.pods = append(s.pods, p)
		}
	}
	return s
}

func (s snapshot) loadGpuCluster(t *testing.T) {
	t.Helper()
	// Nodes of both files: createNodes looks each up in its own file.
	demoOnly := s
	demoOnly.nodes = nil
	var dcu []string
	for _, n := range s.nodes {
		if n.Name == "dcu-z100-0" {
			dcu = append(dcu, n.Name)
		} else {
			demoOnly.nodes = append(demoOnly.nodes, n)
		}
	}
	createNodes(t, "vendors-cluster.yaml", dcu, nil)
	demoOnly.load(t, "demo-cluster.yaml")
}

// pinTo keeps the pod to one node by a required node affinity on the
// node's name (the way a DaemonSet pins its pods).
func pinTo(pod *corev1.Pod, node string) *corev1.Pod {
	pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name",
				Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
	return pod
}

// waitFor polls the pod until done says so, for up to timeout.
func waitFor(t *testing.T, ns, name string, timeout time.Duration, what string, done func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last *corev1.Pod
	for time.Now().Before(deadline) {
		p, err := cluster.client.CoreV1().Pods(ns).Get(context.Background(), name, getOpts)
		if err == nil {
			last = p
			if done(p) {
				return p
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last != nil {
		t.Fatalf("pod %s/%s: not %s after %v (nodeName %q, annotations %v, conditions %v)", ns, name, what, timeout,
			last.Spec.NodeName, last.Annotations, last.Status.Conditions)
	}
	t.Fatalf("pod %s/%s: not %s after %v", ns, name, what, timeout)
	return nil
}

func waitBound(t *testing.T, ns, name string) *corev1.Pod {
	t.Helper()
	return waitFor(t, ns, name, 60*time.Second, "bound and confirmed by the node agent", func(p *corev1.Pod) bool {
		return p.Spec.NodeName != "" && p.Annotations["hami.io/bind-phase"] == "success"
	})
}

// schedulingEvents are the FailedScheduling notes kube-scheduler recorded
// for the pod.
func schedulingEvents(t *testing.T, ns, name string) []string {
	t.Helper()
	list, err := cluster.client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.name", name),
			fields.OneTermEqualSelector("reason", "FailedScheduling")).String()})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, e := range list.Items {
		notes = append(notes, e.Message)
	}
	return notes
}

func TestSchedulingByTheRealKubeScheduler(t *testing.T) {
	for _, mode := range []string{"bind", "filter"} {
		t.Run("allocateAt="+mode, func(t *testing.T) { testScheduling(t, mode) })
	}
}

func testScheduling(t *testing.T, mode string) {
	s := gpuCluster(t)
	s.loadGpuCluster(t)
	startNodeAgent(t)
	d := deploy(t, deployOptions{allocateAt: mode, extraVendors: []string{"hygon"}})
	r := d.replicas[0]

	// The walkthrough's pods (docs/demo-walkthrough.md steps 4-7) and the
	// Hygon pod of docs/vendors.md, each pinned by a nodeSelector to the node
	// the walkthrough binds it to: the bytes must be the walkthrough's.
	type placement struct {
		ns, name, node string
		want           map[string]string
	}
	placements := []placement{
		{"ml", "demo-infer", "gpu-a100-1", map[string]string{
			"hami.io/vgpu-node":                "gpu-a100-1",
			"hami.io/vgpu-devices-allocated":   "GPU-1a2b3c4d-0001-4000-8000-a10000000001,NVIDIA,8000,30:;",
			"hami.io/vgpu-devices-to-allocate": ";"}},
		{"rocm", "demo-rocm", "gpu-mi300x-0", map[string]string{
			"hami.io/vgpu-node":             "gpu-mi300x-0",
			"hami.io/amd-devices-allocated": "AMD-MI300X-9f2c1b7e-2200,AMD Instinct MI300X VF,32768,304:;"}},
		{"ml", "demo-mig", "gpu-a100-mig-0", map[string]string{
			"hami.io/vgpu-node": "gpu-a100-mig-0",
			"hami.io/vgpu-devices-allocated": "GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001,NVIDIA,9856,28:" +
				"GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001,NVIDIA,9856,28:;",
			"hami.io/vgpu-mig-allocations": `[{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001","profile":"2g.10gb","placement":{"start":0,"size":2}},` +
				`{"containerIndex":0,"deviceIndex":1,"gpuUUID":"GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001","profile":"2g.10gb","placement":{"start":2,"size":2}}]`}},
		{"ml", "demo-dcu", "dcu-z100-0", map[string]string{
			"hami.io/vgpu-node":             "dcu-z100-0",
			"hami.io/dcu-devices-allocated": "DCU-Z100L-0003,DCU,8192,30:;"}},
	}
	for _, p := range placements {
		pod := createPod(t, pinTo(s.pending(t, p.ns, p.name), p.node))
		if pod.Spec.SchedulerName != "hami-scheduler" {
			t.Fatalf("%s/%s: the webhook did not send it to hami-scheduler (schedulerName %q)", p.ns, p.name, pod.Spec.SchedulerName)
		}
		// One at a time, as the walkthrough: a later pod must not take a
		// node lock an earlier one still holds.
		got := waitBound(t, p.ns, p.name)
		if got.Spec.NodeName != p.node {
			t.Errorf("%s/%s bound to %s, want %s", p.ns, p.name, got.Spec.NodeName, p.node)
		}
		for k, v := range p.want {
			if got.Annotations[k] != v {
				t.Errorf("%s/%s: annotation %s = %q, want %q", p.ns, p.name, k, got.Annotations[k], v)
			}
		}
		if got.Labels["hami.io/vgpu-node"] != p.node {
			t.Errorf("%s/%s: label hami.io/vgpu-node = %q, want %q", p.ns, p.name, got.Labels["hami.io/vgpu-node"], p.node)
		}
	}
	checkAllocationsMatchStoredPods(t, r)
	checkNoDeviceOverCapacity(t, r)

	t.Run("PodThatFitsNowhereStaysPendingWithOurReasons", func(t *testing.T) {
		createPod(t, gpuPod("rocm", "too-big", 1, 50000, 0))
		var notes []string
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if notes = schedulingEvents(t, "rocm", "too-big"); len(notes) > 0 {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if len(notes) == 0 {
			t.Fatal("no FailedScheduling event for rocm/too-big after 60 s")
		}
		// The per-node reasons of our filter, counted by kube-scheduler.
		for _, want := range []string{"CardInsufficientMemory", "node unregistered", "NodeInsufficientDevice"} {
			if !strings.Contains(notes[0], want) {
				t.Errorf("FailedScheduling note %q lacks our reason %q", notes[0], want)
			}
		}
		p, _ := cluster.client.CoreV1().Pods("rocm").Get(context.Background(), "too-big", getOpts)
		if p.Spec.NodeName != "" {
			t.Errorf("rocm/too-big was bound to %s", p.Spec.NodeName)
		}
	})

	t.Run("KubeSchedulersOwnFiltersStillApply", func(t *testing.T) {
		// A taint on the node our policy would pick (binpack: the busiest
		// A100 node) keeps the pod off it; a required node affinity picks
		// the other.
		ctx := context.Background()
		node, err := cluster.client.CoreV1().Nodes().Get(ctx, "gpu-a100-1", getOpts)
		if err != nil {
			t.Fatal(err)
		}
		node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "training", Effect: corev1.TaintEffectNoSchedule})
		if _, err := cluster.client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		tainted := createPod(t, gpuPod("ml", "avoids-taint", 1, 1000, 10))
		got := waitBound(t, "ml", tainted.Name)
		if got.Spec.NodeName == "gpu-a100-1" {
			t.Errorf("ml/avoids-taint was bound to the tainted node gpu-a100-1")
		}
		pod := gpuPod("ml", "affinity", 1, 1000, 10)
		pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname",
					Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu-t4-0"}}}}}}}}
		createPod(t, pod)
		got = waitBound(t, "ml", "affinity")
		if got.Spec.NodeName != "gpu-t4-0" {
			t.Errorf("ml/affinity bound to %s, want gpu-t4-0 (its required node affinity)", got.Spec.NodeName)
		}
		if !strings.HasPrefix(got.Annotations["hami.io/vgpu-devices-allocated"], "GPU-") {
			t.Errorf("ml/affinity has no allocation: %v", got.Annotations)
		}
		checkAllocationsMatchStoredPods(t, r)
		checkNoDeviceOverCapacity(t, r)
	})
	_ = fmt.Sprint
}
