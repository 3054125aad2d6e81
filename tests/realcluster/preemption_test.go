package realcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// docs/preemption.md: POST /preemption, kube-scheduler's preemptVerb, seen
// from a real kube-scheduler. The node is demo-cluster.yaml's gpu-t4-0 (two
// T4s of 15360 MiB), renamed; both GPUs are full of lower-priority pods that
// HAMi placed and the device plugin served:
//
//	GPU 0: low-a (priority 100, 8000 MiB), low-b (priority 300, 7360 MiB)
//	GPU 1: low-c (priority 200, 8000 MiB), low-d (priority 200, 7360 MiB)
//
// each asking for 500m of CPU, so on a node of 2 CPUs the CPU is full too.

const (
	preemptNode = "preempt-t4-0"
	preemptNs   = "preempt"
	podCPU      = "500m"
)

type heldGPU struct {
	name     string
	priority string // a PriorityClass of preemptionClasses
	gpu      int    // index into the node's GPUs
	memMiB   int
}

var (
	preemptionClasses = map[string]int32{"gpu-low-100": 100, "gpu-low-200": 200, "gpu-low-300": 300, "gpu-high": 1000}
	gpuHolders        = []heldGPU{
		{"low-a", "gpu-low-100", 0, 8000},
		{"low-b", "gpu-low-300", 0, 7360},
		{"low-c", "gpu-low-200", 1, 8000},
		{"low-d", "gpu-low-200", 1, 7360},
	}
)

// preemptionCluster is the set-up above, deployed: the node, its GPU ids,
// the placed pods as stored, and the replica.
type preemptionCluster struct {
	gpus   []string
	placed map[string]*corev1.Pod // by name
	d      *deployment
	r      *replica
}

// setUpPreemption makes the PriorityClasses, the node with nodeCPU CPUs,
// the namespace and the placed pods (before deploy: the webhook refuses a
// GPU pod with a nodeName), then the node agent and the chart's deployment.
func setUpPreemption(t *testing.T, nodeCPU string) *preemptionCluster {
	t.Helper()
	ctx := context.Background()
	for name, value := range preemptionClasses {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
		if _, err := cluster.client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating PriorityClass %s: %v", name, err)
		}
		t.Cleanup(func() {
			err := cluster.client.SchedulingV1().PriorityClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Logf("deleting PriorityClass %s: %v", name, err)
			}
		})
	}
	createNodes(t, "demo-cluster.yaml", []string{"gpu-t4-0"}, func(string) string { return preemptNode })
	node, err := cluster.client.CoreV1().Nodes().Get(ctx, preemptNode, getOpts)
	if err != nil {
		t.Fatal(err)
	}
	node.Status.Capacity[corev1.ResourceCPU] = resource.MustParse(nodeCPU)
	node.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse(nodeCPU)
	if _, err := cluster.client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting the cpu of %s: %v", preemptNode, err)
	}
	createNamespace(t, preemptNs, nil)

	c := &preemptionCluster{gpus: snapshotGPUs(t, "gpu-t4-0"), placed: map[string]*corev1.Pod{}}
	started := time.Now().Add(-time.Hour)
	for i, h := range gpuHolders {
		pod := hamiPlacedPod(preemptNs, h.name, preemptNode, c.gpus[h.gpu], h.memMiB, "success")
		pod.Spec.PriorityClassName = h.priority
		pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(podCPU)
		created := createPod(t, pod)
		// Running since a known time, one minute apart, as a kubelet reports.
		created.Status = corev1.PodStatus{Phase: corev1.PodRunning,
			StartTime: ptr.To(metav1.NewTime(started.Add(time.Duration(i) * time.Minute)))}
		stored, err := cluster.client.CoreV1().Pods(preemptNs).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("status of %s: %v", h.name, err)
		}
		c.placed[h.name] = stored
	}
	startNodeAgent(t)
	c.d = deploy(t, deployOptions{})
	c.r = c.d.leader(t, 60*time.Second)
	checkAllocationsMatchStoredPods(t, c.r)
	return c
}

// highPod asks for one GPU of memMiB and 500m of CPU at priority 1000.
func highPod(name string, memMiB int) *corev1.Pod {
	pod := pinTo(gpuPod(preemptNs, name, 1, memMiB, 0), preemptNode)
	pod.Spec.PriorityClassName = "gpu-high"
	pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(podCPU)
	return pod
}

// preemptionCalls is how many POST /preemption the replica answered.
func (c *preemptionCluster) preemptionCalls(t *testing.T) int {
	t.Helper()
	n, err := c.r.requestCount(t, "/preemption")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// judgedLines are the host's "preemption judged" log lines for a pod UID.
func (c *preemptionCluster) judgedLines(t *testing.T, uid types.UID) []string {
	t.Helper()
	data, err := os.ReadFile(c.r.host.log)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "preemption judged") && strings.Contains(line, string(uid)) {
			lines = append(lines, line)
		}
	}
	return lines
}

type metaVictims map[string]struct {
	Pods             []struct{ UID string }
	NumPDBViolations int64
}

// callPreemption posts ExtenderPreemptionArgs in the form kube-scheduler
// sends with nodeCacheCapable (the chart's): the pod, and per node the UIDs
// of the victims kube-scheduler proposes.
func (c *preemptionCluster) callPreemption(t *testing.T, pod *corev1.Pod, proposed map[string][]types.UID) metaVictims {
	t.Helper()
	meta := map[string]any{}
	for node, uids := range proposed {
		var pods []map[string]string
		for _, u := range uids {
			pods = append(pods, map[string]string{"UID": string(u)})
		}
		meta[node] = map[string]any{"Pods": pods, "NumPDBViolations": 0}
	}
	body, err := json.Marshal(map[string]any{"Pod": pod, "NodeNameToVictims": nil, "NodeNameToMetaVictims": meta})
	if err != nil {
		t.Fatal(err)
	}
	// The host judges only once it sees its kube-scheduler's lease.
	var code int
	var reply string
	waitUntil(30*time.Second, func() bool {
		code, reply, err = c.r.request("POST", "/preemption", c.r.extenderPort, string(body))
		return err != nil || !strings.Contains(reply, "not the leader")
	})
	if err != nil || code != 200 {
		t.Fatalf("POST /preemption: %d %v %s", code, err, reply)
	}
	var result struct{ NodeNameToMetaVictims metaVictims }
	if err := json.Unmarshal([]byte(reply), &result); err != nil {
		t.Fatalf("POST /preemption: %v: %s", err, reply)
	}
	return result.NodeNameToMetaVictims
}

// asStored is the pod as the webhook and the Priority admission plugin
// store it, with a UID of its own: what kube-scheduler sends the verb.
func asStored(pod *corev1.Pod, uid types.UID) *corev1.Pod {
	p := pod.DeepCopy()
	p.UID = uid
	p.Spec.SchedulerName = "hami-scheduler"
	p.Spec.Priority = ptr.To(preemptionClasses[p.Spec.PriorityClassName])
	p.Status.Phase = corev1.PodPending
	return p
}

// namesOf maps UIDs of the placed pods to their names, sorted.
func (c *preemptionCluster) namesOf(t *testing.T, uids []types.UID) []string {
	t.Helper()
	var names []string
	for _, u := range uids {
		found := false
		for name, p := range c.placed {
			if p.UID == u {
				names = append(names, name)
				found = true
			}
		}
		if !found {
			t.Errorf("victim UID %s is none of the placed pods", u)
		}
	}
	sort.Strings(names)
	return names
}

// podsNow: the placed pods that are still stored and not being deleted
// (checked unchanged: same UID, node and annotations), and those gone or
// terminating, by name.
func (c *preemptionCluster) podsNow(t *testing.T) (kept, gone []string) {
	t.Helper()
	for name, placed := range c.placed {
		p, err := cluster.client.CoreV1().Pods(preemptNs).Get(context.Background(), name, getOpts)
		switch {
		case apierrors.IsNotFound(err):
			gone = append(gone, name)
		case err != nil:
			t.Fatal(err)
		case p.UID != placed.UID || p.DeletionTimestamp != nil:
			gone = append(gone, name)
		default:
			if p.Spec.NodeName != placed.Spec.NodeName || fmt.Sprint(p.Annotations) != fmt.Sprint(placed.Annotations) {
				t.Errorf("%s was changed: node %q, annotations %v (placed: %q, %v)", name, p.Spec.NodeName,
					p.Annotations, placed.Spec.NodeName, placed.Annotations)
			}
			kept = append(kept, name)
		}
	}
	sort.Strings(kept)
	sort.Strings(gone)
	return kept, gone
}

// events of a reason in the namespace, as "<object>: <note>".
func eventsOf(t *testing.T, reason string) []string {
	t.Helper()
	list, err := cluster.client.CoreV1().Events(preemptNs).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("reason", reason).String()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.InvolvedObject.Name+": "+e.Message)
	}
	sort.Strings(out)
	return out
}

// waitUntil polls cond every 200 ms for up to timeout.
func waitUntil(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// The verb end to end. The pending pod (priority 1000) needs 500m of CPU
// and 12000 MiB of one GPU. kube-scheduler's dry run, blind to GPUs, needs
// one CPU victim and reprieves the most important pods first: it proposes
// low-a alone (the lowest priority). That frees 8000 MiB of GPU 0, not
// enough; the verb keeps low-a and adds the set ranked smallest by
// kube-scheduler's own ranking: low-c and low-d (highest priority 200, all
// of GPU 1) rather than low-b (priority 300). kube-scheduler deletes
// exactly those three, the pod is bound to GPU 1, low-b is left alone.
func TestPreemptionVerbAddsGPUVictimsToKubeSchedulersChoice(t *testing.T) {
	c := setUpPreemption(t, "2")
	want := highPod("high", 12000)

	// What the verb answers for kube-scheduler's expected proposal, asked
	// directly before the pod exists (same state, same arguments).
	direct := c.callPreemption(t, asStored(want, "direct-call"),
		map[string][]types.UID{preemptNode: {c.placed["low-a"].UID}})
	if len(direct) != 1 || len(direct[preemptNode].Pods) == 0 {
		t.Fatalf("direct POST /preemption: want victims on %s only, got %+v", preemptNode, direct)
	}
	var directUIDs []types.UID
	for _, v := range direct[preemptNode].Pods {
		directUIDs = append(directUIDs, types.UID(v.UID))
	}
	chosen := c.namesOf(t, directUIDs)
	if strings.Join(chosen, ",") != "low-a,low-c,low-d" {
		t.Fatalf("direct POST /preemption chose %v, want [low-a low-c low-d] (docs/preemption.md, rules 1 and 4)", chosen)
	}
	callsBefore := c.preemptionCalls(t)

	created := createPod(t, want)
	if created.Spec.SchedulerName != "hami-scheduler" || created.Spec.Priority == nil || *created.Spec.Priority != 1000 {
		t.Fatalf("the high pod is stored with schedulerName %q, priority %v", created.Spec.SchedulerName, created.Spec.Priority)
	}
	bound := waitFor(t, preemptNs, "high", 120*time.Second, "bound after preemption", func(p *corev1.Pod) bool {
		return p.Spec.NodeName != "" && p.Annotations["hami.io/bind-phase"] == "success"
	})
	if bound.Spec.NodeName != preemptNode {
		t.Errorf("high bound to %s, want %s", bound.Spec.NodeName, preemptNode)
	}
	if alloc := bound.Annotations["hami.io/vgpu-devices-allocated"]; !strings.HasPrefix(alloc, c.gpus[1]+",NVIDIA,12000,") {
		t.Errorf("high was given %q, want 12000 MiB of GPU 1 (%s), which low-c and low-d held", alloc, c.gpus[1])
	}

	// kube-scheduler asked the verb, for this pod.
	if calls := c.preemptionCalls(t); calls <= callsBefore {
		t.Errorf("kube-scheduler never called POST /preemption (%d calls before the pod, %d after)", callsBefore, calls)
	}
	if lines := c.judgedLines(t, created.UID); len(lines) == 0 {
		t.Errorf("the host logged no \"preemption judged\" for high (uid %s)", created.UID)
	} else {
		t.Logf("host: %s", lines[0])
	}

	// Exactly the verb's victims are gone; the other pod is untouched.
	kept, gone := c.podsNow(t)
	if strings.Join(gone, ",") != strings.Join(chosen, ",") {
		t.Errorf("deleted %v, kept %v; the verb chose %v", gone, kept, chosen)
	}
	// kube-scheduler's "Preempted" event on each victim names the same pods.
	var preempted []string
	waitUntil(15*time.Second, func() bool {
		preempted = eventsOf(t, "Preempted")
		return len(preempted) >= len(chosen)
	})
	var victims []string
	for _, e := range preempted {
		victims = append(victims, strings.SplitN(e, ":", 2)[0])
		t.Logf("event Preempted on %s", e)
	}
	if strings.Join(victims, ",") != strings.Join(chosen, ",") {
		t.Errorf("kube-scheduler's Preempted events name %v, the verb chose %v", victims, chosen)
	}
	for _, e := range eventsOf(t, "FailedScheduling") {
		t.Logf("event FailedScheduling on %s", e)
	}
	checkAllocationsMatchStoredPods(t, c.r)
	checkNoDeviceOverCapacity(t, c.r)
}

// waitPendingAndQuiet waits (bounded) for kube-scheduler's FailedScheduling
// event on the pod, then watches for a few seconds that the pod stays
// unbound and not nominated and no placed pod is deleted.
func (c *preemptionCluster) waitPendingAndQuiet(t *testing.T, name string) []string {
	t.Helper()
	var notes []string
	if !waitUntil(60*time.Second, func() bool {
		notes = schedulingEvents(t, preemptNs, name)
		return len(notes) > 0
	}) {
		t.Fatalf("no FailedScheduling event for %s after 60 s", name)
	}
	for _, n := range notes {
		t.Logf("FailedScheduling: %s", n)
	}
	quietUntil := time.Now().Add(5 * time.Second)
	for time.Now().Before(quietUntil) {
		p, err := cluster.client.CoreV1().Pods(preemptNs).Get(context.Background(), name, getOpts)
		if err != nil {
			t.Fatal(err)
		}
		if p.Spec.NodeName != "" || p.Status.NominatedNodeName != "" {
			t.Fatalf("%s: bound to %q, nominated to %q; want Pending", name, p.Spec.NodeName, p.Status.NominatedNodeName)
		}
		if _, gone := c.podsNow(t); len(gone) > 0 {
			t.Fatalf("pods deleted for %s: %v", name, gone)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if preempted := eventsOf(t, "Preempted"); len(preempted) > 0 {
		t.Errorf("Preempted events: %v", preempted)
	}
	checkAllocationsMatchStoredPods(t, c.r)
	checkNoDeviceOverCapacity(t, c.r)
	return notes
}

// The documented limit (docs/preemption.md, Limits): CPU is plentiful, so
// the pod is short only of GPU room. kube-scheduler's dry run finds that
// its own filters need no victim, keeps no candidate node, and never calls
// the verb: no preemption, although evicting low-c and low-d would make
// room.
func TestPodShortOnlyOfGPURoomIsNotPreempted(t *testing.T) {
	c := setUpPreemption(t, "64")
	// The verb itself would help, had it been asked with any victim.
	direct := c.callPreemption(t, asStored(highPod("gpu-only", 12000), "direct-call"),
		map[string][]types.UID{preemptNode: {c.placed["low-a"].UID}})
	if len(direct[preemptNode].Pods) == 0 {
		t.Fatalf("direct POST /preemption kept no victims: %+v", direct)
	}
	callsBefore := c.preemptionCalls(t)

	created := createPod(t, highPod("gpu-only", 12000))
	notes := c.waitPendingAndQuiet(t, "gpu-only")
	// Our filter's reason, then kube-scheduler's dry run (v1.37.2): the node
	// needs no victim for its own filters, so it is no candidate.
	for _, want := range []string{"CardInsufficientMemory", "preemption: expected at least one victim pod on node"} {
		if !strings.Contains(notes[0], want) {
			t.Errorf("FailedScheduling note %q lacks %q", notes[0], want)
		}
	}
	if calls := c.preemptionCalls(t); calls != callsBefore {
		t.Errorf("POST /preemption was called %d times by kube-scheduler; the limit says never", calls-callsBefore)
	}
	if lines := c.judgedLines(t, created.UID); len(lines) > 0 {
		t.Errorf("the host judged a preemption for gpu-only: %v", lines)
	}
}

// Preemption cannot help: the pod asks for more memory than any GPU has.
// CPU is short, so kube-scheduler's dry run proposes low-a and calls the
// verb; the verb drops the node (even every lower-priority pod removed,
// the pod fits no GPU), kube-scheduler is left with no candidate, and
// nothing is deleted.
func TestPreemptionThatCannotHelpDeletesNothing(t *testing.T) {
	c := setUpPreemption(t, "2")
	callsBefore := c.preemptionCalls(t)
	created := createPod(t, highPod("too-big", 20000))
	if !waitUntil(60*time.Second, func() bool { return c.preemptionCalls(t) > callsBefore }) {
		t.Errorf("kube-scheduler did not call POST /preemption in 60 s")
	}
	notes := c.waitPendingAndQuiet(t, "too-big")
	// kube-scheduler's own reason, and no candidate left after the verb.
	if all := strings.Join(notes, "\n"); !strings.Contains(all, "Insufficient cpu") ||
		!strings.Contains(all, "preemption: no candidate node for preemption") {
		t.Errorf("FailedScheduling notes %q lack \"Insufficient cpu\" and \"preemption: no candidate node for preemption\"", notes)
	}
	lines := c.judgedLines(t, created.UID)
	if len(lines) == 0 {
		t.Errorf("the host logged no \"preemption judged\" for too-big (uid %s)", created.UID)
	}
	for _, line := range lines {
		t.Logf("host: %s", line)
		if !strings.Contains(line, `"kept":"0"`) {
			t.Errorf("the verb kept a node for too-big: %s", line)
		}
	}
}
