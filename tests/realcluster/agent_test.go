package realcluster

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// nodeAgent plays HAMi's node-side device plugin for every node: once the
// kubelet would have admitted a bound pod (spec.nodeName set, bind-phase
// "allocating"), it does what the device plugin's Allocate does after the
// last container: every *-devices-to-allocate annotation erased to its
// empty segments, bind-phase "success", the node lock naming the pod
// released. It also answers a vendor's handshake request
// (hami.io/node-handshake-<vendor>: Requesting_…) with Reported_<now>, as
// those vendors' device plugins do; NVIDIA's v2.10 plugin writes no
// handshake, so hami.io/node-handshake is left to the scheduler.
type nodeAgent struct {
	mu        sync.Mutex
	confirmed map[types.UID]bool
	errors    []string
	stop      context.CancelFunc
	wg        sync.WaitGroup
}

func startNodeAgent(t *testing.T) *nodeAgent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a := &nodeAgent{confirmed: map[types.UID]bool{}, stop: cancel}
	factory := informers.NewSharedInformerFactory(cluster.client, 0)
	pods := factory.Core().V1().Pods().Informer()
	nodes := factory.Core().V1().Nodes().Informer()
	work := make(chan func(), 4096)
	onPod := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" &&
			p.Annotations["hami.io/bind-phase"] == "allocating" && p.DeletionTimestamp == nil {
			pod := p.DeepCopy()
			work <- func() { a.allocate(ctx, pod) }
		}
	}
	onNode := func(obj any) {
		if n, ok := obj.(*corev1.Node); ok {
			for k, v := range n.Annotations {
				if strings.HasPrefix(k, "hami.io/node-handshake-") && strings.HasPrefix(v, "Requesting_") {
					name, key := n.Name, k
					work <- func() { a.report(ctx, name, key) }
				}
			}
		}
	}
	_, _ = pods.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onPod,
		UpdateFunc: func(_, obj any) { onPod(obj) }})
	_, _ = nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onNode,
		UpdateFunc: func(_, obj any) { onNode(obj) }})
	factory.Start(ctx.Done())
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case f := <-work:
				f()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
		a.wg.Wait()
		for _, e := range a.errorList() {
			t.Errorf("node agent: %s", e)
		}
	})
	return a
}

func (a *nodeAgent) fail(format string) {
	a.mu.Lock()
	a.errors = append(a.errors, format)
	a.mu.Unlock()
}

func (a *nodeAgent) errorList() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.errors...)
}

func (a *nodeAgent) allocate(ctx context.Context, pod *corev1.Pod) {
	a.mu.Lock()
	done := a.confirmed[pod.UID]
	a.confirmed[pod.UID] = true
	a.mu.Unlock()
	if done {
		return
	}
	annotations := map[string]any{"hami.io/bind-phase": "success"}
	for k, v := range pod.Annotations {
		if strings.HasSuffix(k, "-devices-to-allocate") {
			annotations[k] = strings.Repeat(";", strings.Count(v, ";"))
		}
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid": pod.UID, "annotations": annotations}})
	_, err := cluster.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && ctx.Err() == nil && !strings.Contains(err.Error(), "not found") {
		a.fail("confirming " + pod.Namespace + "/" + pod.Name + ": " + err.Error())
		return
	}
	a.releaseLock(ctx, pod)
}

// releaseLock removes hami.io/mutex.lock from the pod's node when it names
// the pod ("<time>,<namespace>,<name>"), guarded by a test of its value.
func (a *nodeAgent) releaseLock(ctx context.Context, pod *corev1.Pod) {
	for attempt := 0; attempt < 5 && ctx.Err() == nil; attempt++ {
		node, err := cluster.client.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, getOpts)
		if err != nil {
			return
		}
		lock, ok := node.Annotations["hami.io/mutex.lock"]
		if !ok || !strings.HasSuffix(lock, ","+pod.Namespace+","+pod.Name) {
			return
		}
		patch, _ := json.Marshal([]map[string]any{
			{"op": "test", "path": "/metadata/annotations/hami.io~1mutex.lock", "value": lock},
			{"op": "remove", "path": "/metadata/annotations/hami.io~1mutex.lock"}})
		_, err = cluster.client.CoreV1().Nodes().Patch(ctx, node.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
		if err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (a *nodeAgent) report(ctx context.Context, node, key string) {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		key: "Reported_" + time.Now().Format(handshakeTimeLayout)}}})
	_, err := cluster.client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && ctx.Err() == nil && !strings.Contains(err.Error(), "not found") {
		a.fail("reporting the handshake of " + node + ": " + err.Error())
	}
}
