package realcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// hamiPlacedPod is a pod as HAMi v2.10's scheduler leaves it (reference
// §4.1, §4.4): filtered onto node with one device of memMiB (annotations
// and the hami.io/vgpu-node label), and, when phase is not empty, bound
// there with that bind-phase; "success" also has its to-allocate string
// erased, as the device plugin does.
func hamiPlacedPod(ns, name, node, gpu string, memMiB int, phase string) *corev1.Pod {
	pod := gpuPod(ns, name, 1, memMiB, 0)
	pod.Spec.SchedulerName = "hami-scheduler"
	now := strconv.FormatInt(time.Now().Unix(), 10)
	alloc := fmt.Sprintf("%s,NVIDIA,%d,0:;", gpu, memMiB)
	pod.Labels = map[string]string{"hami.io/vgpu-node": node}
	pod.Annotations = map[string]string{
		"hami.io/vgpu-node":                node,
		"hami.io/vgpu-time":                now,
		"hami.io/vgpu-devices-allocated":   alloc,
		"hami.io/vgpu-devices-to-allocate": alloc,
	}
	if phase != "" {
		pod.Spec.NodeName = node
		pod.Annotations["hami.io/bind-phase"] = phase
		pod.Annotations["hami.io/bind-time"] = now
	}
	if phase == "success" {
		pod.Annotations["hami.io/vgpu-devices-to-allocate"] = ";"
	}
	return pod
}

// docs/cutover.md: the cluster as HAMi's scheduler leaves it at the switch
// — pods it placed and the device plugin served, a pod bound and still
// "allocating" with HAMi's node lock on its node, a pod it filtered but
// never bound — then this host schedules a stream of pods. HAMi's pods
// keep their devices and are charged; HAMi's lock is honoured until the
// device plugin releases it (not 5 minutes); the filtered pod is placed
// again, once; no device is over capacity and /allocations equals the
// stored pods.
func TestPodsHAMiPlacedAreChargedAfterTheSwitch(t *testing.T) {
	const ns = "cutover"
	createNodes(t, "demo-cluster.yaml", streamNodes, nil)
	createNamespace(t, ns, nil)
	ctx := context.Background()
	a100zero, a100one := snapshotGPUs(t, "gpu-a100-0"), snapshotGPUs(t, "gpu-a100-1")

	// gpu-a100-0: every GPU holds 30000 of 40960 MiB, so no 20000 MiB pod
	// fits there any more.
	var served []*corev1.Pod
	for i, gpu := range a100zero {
		served = append(served, createPod(t, hamiPlacedPod(ns, fmt.Sprintf("hami-served-%d", i), "gpu-a100-0", gpu, 30000, "success")))
	}
	// gpu-a100-1: one pod allocating on GPU 0 under HAMi's lock, one
	// filtered onto GPU 1 and never bound.
	allocating := createPod(t, hamiPlacedPod(ns, "hami-allocating", "gpu-a100-1", a100one[0], 20000, "allocating"))
	createPod(t, hamiPlacedPod(ns, "hami-filtered", "gpu-a100-1", a100one[1], 20000, ""))
	lock := time.Now().UTC().Format(time.RFC3339) + "," + ns + ",hami-allocating"
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		"hami.io/mutex.lock": lock}}})
	if _, err := cluster.client.CoreV1().Nodes().Patch(ctx, "gpu-a100-1", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}

	d := deploy(t, deployOptions{})
	r := d.replicas[0]
	const streamed = 12
	for i := 0; i < streamed; i++ {
		pod := gpuPod(ns, fmt.Sprintf("ours-%02d", i), 1, 20000, 0)
		createPod(t, pod)
	}
	// While HAMi's lock stands nothing is bound to gpu-a100-1, and nothing
	// fits gpu-a100-0.
	time.Sleep(5 * time.Second)
	list, err := cluster.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		if p.Spec.NodeName != "" && p.Annotations["hami.io/bind-phase"] == "allocating" && p.UID != allocating.UID {
			t.Errorf("pod %s bound to %s while HAMi's lock %q stood", p.Name, p.Spec.NodeName, lock)
		}
	}

	// The device plugin serves HAMi's allocating pod and releases its lock.
	startNodeAgent(t)
	// gpu-a100-1 takes seven pods of 20000 MiB beside HAMi's allocating
	// one: the filtered pod and six of ours.
	wantBound := len(a100zero) + 1 + 7
	deadline := time.Now().Add(180 * time.Second)
	var bound int
	for time.Now().Before(deadline) {
		if bound = confirmedPods(t, ns); bound >= wantBound {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	if bound = confirmedPods(t, ns); bound != wantBound {
		t.Errorf("%d pods bound and confirmed, want %d (HAMi's %d and what is left on gpu-a100-1)", bound, wantBound, len(a100zero)+1)
	}
	waitBound(t, ns, "hami-filtered")
	for _, p := range served {
		now, err := cluster.client.CoreV1().Pods(ns).Get(ctx, p.Name, getOpts)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"hami.io/vgpu-node", "hami.io/vgpu-devices-allocated", "hami.io/bind-phase"} {
			if now.Annotations[k] != p.Annotations[k] {
				t.Errorf("HAMi's pod %s: %s is now %q, was %q", p.Name, k, now.Annotations[k], p.Annotations[k])
			}
		}
	}
	checkNoDeviceOverCapacity(t, r)
	checkAllocationsMatchStoredPods(t, r)
}

// confirmedPods counts the namespace's pods bound with bind-phase success.
func confirmedPods(t *testing.T, ns string) int {
	t.Helper()
	list, err := cluster.client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range list.Items {
		if p.Spec.NodeName != "" && p.Annotations["hami.io/bind-phase"] == "success" {
			n++
		}
	}
	return n
}

// snapshotGPUs: the ids of a demo-cluster node's registered NVIDIA GPUs.
func snapshotGPUs(t *testing.T, node string) []string {
	t.Helper()
	var devices []struct{ ID string }
	reg := snapshotNodes(t, "demo-cluster.yaml")[node].Annotations["hami.io/node-nvidia-register"]
	if err := json.Unmarshal([]byte(reg), &devices); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range devices {
		ids = append(ids, d.ID)
	}
	return ids
}

// docs/cutover.md §6: this chart beside HAMi's device plugins, told where
// their ConfigMap is (hamiDeviceConfigMap), warns naming the key in which
// HAMi's device config differs from its own; the chart's Role lets it read
// that ConfigMap (every deployment checks that nothing was refused).
func TestHostWarnsWhenHAMisDeviceConfigDiffers(t *testing.T) {
	ctx := context.Background()
	ours, err := os.ReadFile(filepath.Join(chartDir(), "files", "device-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	theirs := strings.Replace(string(ours), "deviceSplitCount: 10", "deviceSplitCount: 4", 1)
	if theirs == string(ours) {
		t.Fatal("the chart's device config has no deviceSplitCount: 10 to change")
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hami-scheduler-device", Namespace: namespace},
		Data: map[string]string{"device-config.yaml": theirs}}
	if _, err := cluster.client.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cluster.client.CoreV1().ConfigMaps(namespace).Delete(context.Background(), cm.Name, metav1.DeleteOptions{})
	})
	d := deploy(t, deployOptions{noScheduler: true,
		sets: []string{"hamiDeviceConfigMap=" + namespace + "/hami-scheduler-device"}})
	log := d.replicas[0].host.log
	// The chart's host logs JSON lines.
	want := `"level":"warn","msg":"device config differs from the ConfigMap HAMi's device plugins read",` +
		`"configMap":"kube-system/hami-scheduler-device","keys":"nvidia.deviceSplitCount"`
	deadline := time.Now().Add(30 * time.Second)
	for {
		text, _ := os.ReadFile(log)
		if strings.Contains(string(text), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the host logged no %q within 30 s:\n%s", want, text)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
