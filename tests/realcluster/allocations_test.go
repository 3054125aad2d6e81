package realcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deviceUse is what a GPU is charged: slots, memory (MiB), cores (%).
type deviceUse struct {
	Slots, Memory, Cores int64
}

// storedUsage sums, over every pod the API server stores, the devices
// their *-devices-allocated annotations charge, with HAMi's collapse of
// init containers (reference §5.2): per device, memory and cores are the
// larger of the init containers' peak and the app containers' sum, slots
// the larger of one (any use) and the app containers' count; once every
// init container succeeded, the app containers' alone.
func storedUsage(t testing.TB) map[string]deviceUse {
	t.Helper()
	pods, err := cluster.client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	total := map[string]deviceUse{}
	for i := range pods.Items {
		for id, u := range podUsage(t, &pods.Items[i]) {
			sum := total[id]
			sum.Slots += u.Slots
			sum.Memory += u.Memory
			sum.Cores += u.Cores
			total[id] = sum
		}
	}
	return total
}

func initContainersSucceeded(pod *corev1.Pod) bool {
	if len(pod.Spec.InitContainers) == 0 || len(pod.Status.InitContainerStatuses) < len(pod.Spec.InitContainers) {
		return false
	}
	for _, s := range pod.Status.InitContainerStatuses {
		if s.State.Terminated == nil || s.State.Terminated.ExitCode != 0 {
			return false
		}
	}
	return true
}

func podUsage(t testing.TB, pod *corev1.Pod) map[string]deviceUse {
	t.Helper()
	if pod.Spec.NodeName == "" && pod.Annotations["hami.io/vgpu-node"] == "" {
		return nil
	}
	inits := len(pod.Spec.InitContainers)
	shrunk := initContainersSucceeded(pod)
	out := map[string]deviceUse{}
	for key, value := range pod.Annotations {
		if !strings.HasPrefix(key, "hami.io/") || !strings.HasSuffix(key, "-devices-allocated") {
			continue
		}
		initPeak, app := map[string]deviceUse{}, map[string]deviceUse{}
		for c, segment := range strings.Split(value, ";") {
			for _, dev := range strings.Split(segment, ":") {
				if dev == "" {
					continue
				}
				f := strings.Split(dev, ",")
				if len(f) < 4 {
					t.Fatalf("pod %s/%s: %s: device %q has fewer than 4 fields", pod.Namespace, pod.Name, key, dev)
				}
				mem, err1 := strconv.ParseInt(f[2], 10, 64)
				cores, err2 := strconv.ParseInt(f[3], 10, 64)
				if err1 != nil || err2 != nil {
					t.Fatalf("pod %s/%s: %s: device %q: memory or cores not a number", pod.Namespace, pod.Name, key, dev)
				}
				if c < inits {
					if shrunk {
						continue
					}
					u := initPeak[f[0]]
					u.Slots = 1
					u.Memory = max(u.Memory, mem)
					u.Cores = max(u.Cores, cores)
					initPeak[f[0]] = u
				} else {
					u := app[f[0]]
					u.Slots++
					u.Memory += mem
					u.Cores += cores
					app[f[0]] = u
				}
			}
		}
		for id, u := range initPeak {
			a := app[id]
			app[id] = deviceUse{Slots: max(a.Slots, u.Slots), Memory: max(a.Memory, u.Memory), Cores: max(a.Cores, u.Cores)}
		}
		for id, u := range app {
			out[id] = u
		}
	}
	return out
}

// allocationsReport is GET /allocations on the extender listener: every
// device of every node with what it is charged.
func (r *replica) allocations(t testing.TB) map[string]deviceUse {
	t.Helper()
	used, _ := r.allocationsAndCapacity(t)
	return used
}

// allocationsAndCapacity: what each device is charged (devices charged
// nothing left out), and what each device has.
func (r *replica) allocationsAndCapacity(t testing.TB) (map[string]deviceUse, map[string]deviceUse) {
	t.Helper()
	code, body, err := r.get("/allocations", r.extenderPort)
	if err != nil || code != 200 {
		t.Fatalf("GET /allocations: %d %v %s", code, err, body)
	}
	var report struct {
		Nodes []struct {
			Name    string `json:"name"`
			Devices []struct {
				ID        string `json:"id"`
				SlotsCap  int64  `json:"slots"`
				MemoryCap int64  `json:"memoryMiB"`
				CoresCap  int64  `json:"cores"`
				Slots     int64  `json:"usedSlots"`
				Memory    int64  `json:"usedMemoryMiB"`
				Cores     int64  `json:"usedCores"`
			} `json:"devices"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(body), &report); err != nil {
		t.Fatalf("GET /allocations: %v", err)
	}
	used, capacity := map[string]deviceUse{}, map[string]deviceUse{}
	for _, n := range report.Nodes {
		for _, d := range n.Devices {
			capacity[d.ID] = deviceUse{d.SlotsCap, d.MemoryCap, d.CoresCap}
			if d.Slots != 0 || d.Memory != 0 || d.Cores != 0 {
				used[d.ID] = deviceUse{d.Slots, d.Memory, d.Cores}
			}
		}
	}
	return used, capacity
}

// checkNoDeviceOverCapacity: the stored pods charge no device more slots,
// memory or cores than it has.
func checkNoDeviceOverCapacity(t *testing.T, r *replica) {
	t.Helper()
	_, capacity := r.allocationsAndCapacity(t)
	for id, u := range storedUsage(t) {
		c, ok := capacity[id]
		if !ok {
			t.Errorf("stored pods charge device %s, which no node registers", id)
			continue
		}
		if u.Slots > c.Slots || u.Memory > c.Memory || u.Cores > c.Cores {
			t.Errorf("device %s over capacity: charged slots=%d mem=%d cores=%d, has slots=%d mem=%d cores=%d",
				id, u.Slots, u.Memory, u.Cores, c.Slots, c.Memory, c.Cores)
		}
	}
}

func describeUsage(u map[string]deviceUse) string {
	ids := make([]string, 0, len(u))
	for id := range u {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "  %s slots=%d mem=%d cores=%d\n", id, u[id].Slots, u[id].Memory, u[id].Cores)
	}
	return b.String()
}

// checkAllocationsMatchStoredPods: /allocations charges each device exactly
// what the pods stored in the API server say.
func checkAllocationsMatchStoredPods(t *testing.T, r *replica) {
	t.Helper()
	want, got := storedUsage(t), r.allocations(t)
	if describeUsage(want) != describeUsage(got) {
		t.Errorf("/allocations differs from the sum over the stored pods\n/allocations:\n%sstored pods:\n%s",
			describeUsage(got), describeUsage(want))
	}
}
