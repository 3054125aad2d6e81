package realcluster

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The stream: pods of one GPU and 20000 MiB each, onto the empty A100
// nodes of the demo cluster (8 GPUs of 40960 MiB: 16 such pods fit, two at
// most per GPU), and more pods than fit.
const (
	streamPods   = 20
	streamFit    = 16
	streamMemory = 20000
)

var streamNodes = []string{"gpu-a100-0", "gpu-a100-1"}

// createStream creates the stream's pods one every interval, calling
// midway once half of them exist. They name hami-scheduler themselves, as
// the webhook would, so that pods created while a webhook host is down are
// scheduled too.
func createStream(t *testing.T, ns string, interval time.Duration, midway func()) {
	t.Helper()
	for i := 0; i < streamPods; i++ {
		if i == streamPods/2 && midway != nil {
			midway()
		}
		pod := gpuPod(ns, fmt.Sprintf("stream-%02d", i), 1, streamMemory, 0)
		pod.Spec.SchedulerName = "hami-scheduler"
		createPod(t, pod)
		time.Sleep(interval)
	}
}

// waitStreamSettled waits until streamFit pods are bound and confirmed,
// then checks that nothing is double-allocated or lost: every bound pod
// holds an allocation on its node, no device is over capacity, /allocations
// equals the stored pods, and the pods that do not fit stay unbound.
func waitStreamSettled(t *testing.T, ns string, r *replica, since time.Time) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(180 * time.Second)
	var bound []corev1.Pod
	for {
		list, err := cluster.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bound = bound[:0]
		for _, p := range list.Items {
			if p.Spec.NodeName != "" && p.Annotations["hami.io/bind-phase"] == "success" {
				bound = append(bound, p)
			}
		}
		if len(bound) >= streamFit || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if len(bound) != streamFit {
		t.Errorf("%d of %d pods bound and confirmed after 180 s, want %d (the capacity)", len(bound), streamPods, streamFit)
	}
	for _, p := range bound {
		alloc := p.Annotations["hami.io/vgpu-devices-allocated"]
		if p.Annotations["hami.io/vgpu-node"] != p.Spec.NodeName || !strings.HasPrefix(alloc, "GPU-") ||
			!strings.HasSuffix(alloc, fmt.Sprintf(",NVIDIA,%d,0:;", streamMemory)) {
			t.Errorf("pod %s bound to %s without its allocation: vgpu-node %q, allocated %q", p.Name,
				p.Spec.NodeName, p.Annotations["hami.io/vgpu-node"], alloc)
		}
	}
	// The pods that do not fit stay unbound however long we wait for the
	// stores to settle.
	time.Sleep(2 * time.Second)
	list, _ := cluster.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	for _, p := range list.Items {
		if p.Spec.NodeName != "" && p.Annotations["hami.io/bind-phase"] != "success" {
			t.Errorf("pod %s bound to %s but never confirmed (bind-phase %q)", p.Name, p.Spec.NodeName,
				p.Annotations["hami.io/bind-phase"])
		}
	}
	checkNoDeviceOverCapacity(t, r)
	checkAllocationsMatchStoredPods(t, r)
	logRefusedPodWrites(t, since)
}

// logRefusedPodWrites logs how many of the host's pod patches the API
// server refused (409, 422: a precondition) since the time given: writes
// that kube-scheduler's own writes to the same pods made fail.
func logRefusedPodWrites(t *testing.T, since time.Time) {
	t.Helper()
	patches, refused := 0, 0
	for _, e := range hostRequests(t, since, time.Time{}) {
		if e.ObjectRef == nil || e.ObjectRef.Resource != "pods" || e.ObjectRef.Subresource != "" || e.Verb != "patch" {
			continue
		}
		patches++
		if e.ResponseStatus != nil && (e.ResponseStatus.Code == 409 || e.ResponseStatus.Code == 422) {
			refused++
		}
	}
	t.Logf("pod patches by the host: %d, refused on a precondition: %d", patches, refused)
}

func TestHostKilledMidStreamRebuildsItsStateFromTheAPIServer(t *testing.T) {
	for _, mode := range []string{"bind", "filter"} {
		t.Run("allocateAt="+mode, func(t *testing.T) {
			createNodes(t, "demo-cluster.yaml", streamNodes, nil)
			createNamespace(t, "stream", nil)
			startNodeAgent(t)
			d := deploy(t, deployOptions{allocateAt: mode})
			r := d.replicas[0]
			createStream(t, "stream", 100*time.Millisecond, func() {
				d.restartHost(r, syscall.SIGKILL)
			})
			waitStreamSettled(t, "stream", r, d.started)
			// A second restart on the settled state charges the same.
			d.restartHost(r, syscall.SIGKILL)
			checkAllocationsMatchStoredPods(t, r)
		})
	}
}

// leader is the replica whose kube-scheduler holds the lease.
func (d *deployment) leader(t *testing.T, timeout time.Duration) *replica {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		lease, err := cluster.client.CoordinationV1().Leases(namespace).Get(context.Background(), "hami-scheduler", getOpts)
		if err == nil && lease.Spec.HolderIdentity != nil {
			for _, r := range d.replicas {
				if strings.HasPrefix(*lease.Spec.HolderIdentity, r.name+"_") && r.scheduler.running() {
					return r
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no running replica's kube-scheduler holds the lease after %v", timeout)
	return nil
}

func TestLeaderKilledUnderLoadTheOtherReplicaTakesOver(t *testing.T) {
	createNodes(t, "demo-cluster.yaml", streamNodes, nil)
	createNamespace(t, "failover", nil)
	startNodeAgent(t)
	d := deploy(t, deployOptions{replicas: 2})
	first := d.leader(t, 60*time.Second)
	var once sync.Once
	createStream(t, "failover", 150*time.Millisecond, func() {
		once.Do(func() {
			// The leader's pod dies: both of its containers at once.
			first.scheduler.kill()
			first.host.kill()
		})
	})
	second := d.leader(t, 60*time.Second)
	if second == first {
		t.Fatalf("the killed replica %s still leads", first.name)
	}
	waitStreamSettled(t, "failover", second, d.started)
}
