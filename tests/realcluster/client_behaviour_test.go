package realcluster

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// hostRequests are the audit events of the host's own requests (its user
// agent; kube-scheduler shares the ServiceAccount).
func hostRequests(t *testing.T, from, to time.Time) []auditEvent {
	t.Helper()
	var out []auditEvent
	for _, e := range auditEvents(t, serviceAccountUser, from, to) {
		if strings.HasPrefix(e.UserAgent, "hami-scheduler/") {
			out = append(out, e)
		}
	}
	return out
}

// Lists and watches as client-go's reflector makes them: the first list
// from the watch cache (resourceVersion=0), watches with bookmarks.
func TestListsAndWatchesAsClientGo(t *testing.T) {
	createNodes(t, "demo-cluster.yaml", []string{"gpu-t4-0"}, nil)
	d := deploy(t, deployOptions{noScheduler: true})
	lists, watches := 0, 0
	for _, e := range hostRequests(t, d.started, time.Time{}) {
		if e.Verb == "watch" && e.Stage != "ResponseStarted" {
			continue
		}
		u, err := url.Parse(e.RequestURI)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		switch e.Verb {
		case "list":
			lists++
			if q.Get("resourceVersion") != "0" {
				t.Errorf("a first list not from the watch cache: %s", e.RequestURI)
			}
		case "watch":
			watches++
			if q.Get("allowWatchBookmarks") != "true" || q.Get("resourceVersion") == "" {
				t.Errorf("a watch without bookmarks or without a version: %s", e.RequestURI)
			}
		}
	}
	// pods, nodes, resourcequotas, namespaces and the lease.
	if lists < 5 || watches < 5 {
		t.Errorf("%d lists and %d watches, want at least 5 of each", lists, watches)
	}
}

// Unschedulable GPU pods that kube-scheduler keeps retrying: the host's
// FilteringFailed events become one Event per pod (a series), not one per
// filter call. The rate of Event writes is logged for the record.
func TestEventsOfUnschedulablePodsAreAggregated(t *testing.T) {
	createNodes(t, "demo-cluster.yaml", []string{"gpu-a100-0", "gpu-t4-0"}, nil)
	createNamespace(t, "events", nil)
	d := deploy(t, deployOptions{allocateAt: "bind"})
	const pods = 20
	for i := 0; i < pods; i++ {
		pod := gpuPod("events", fmt.Sprintf("unfit-%02d", i), 1, 90000, 0)
		pod.Spec.SchedulerName = "hami-scheduler"
		createPod(t, pod)
	}
	// kube-scheduler retries them when a node changes: the device plugin
	// re-registering its GPUs (HAMi's does every 30 s; here every second).
	const window = 20 * time.Second
	ctx := context.Background()
	for end := time.Now().Add(window); time.Now().Before(end); {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"realcluster/registered":"%d"}}}`, time.Now().UnixNano())
		if _, err := cluster.client.CoreV1().Nodes().Patch(ctx, "gpu-a100-0", types.MergePatchType, []byte(patch),
			metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
	}
	list, err := cluster.client.EventsV1().Events("events").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	perPod := map[string]int{}
	occurrences := 0
	for _, e := range list.Items {
		if e.Reason != "FilteringFailed" {
			continue
		}
		perPod[e.Regarding.Name]++
		occurrences++
		if e.Series != nil {
			occurrences += int(e.Series.Count) - 1
		}
	}
	if len(perPod) != pods {
		t.Errorf("FilteringFailed events for %d pods, want %d", len(perPod), pods)
	}
	for pod, n := range perPod {
		if n != 1 {
			t.Errorf("pod %s has %d FilteringFailed Event objects, want 1 (a series)", pod, n)
		}
	}
	writes := 0
	for _, e := range hostRequests(t, d.started, time.Time{}) {
		if e.ObjectRef != nil && e.ObjectRef.Resource == "events" && (e.Verb == "create" || e.Verb == "patch") {
			writes++
		}
	}
	filters, _ := d.replicas[0].requestCount(t, "/filter")
	t.Logf("%d unschedulable pods over %v: %d filter calls, %d FilteringFailed occurrences in %d Event objects, "+
		"%d Event writes (%.2f/s)", pods, window, filters, occurrences, len(list.Items), writes,
		float64(writes)/window.Seconds())
}
