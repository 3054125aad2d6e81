package realcluster

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// The throughput benchmark (bench/realcluster/run.sh): the real
// kube-scheduler placing a workload through our extender, beside the same
// kube-scheduler placing plain pods without it. Skipped unless
// HAMI_BENCH_THROUGHPUT is set; sized by HAMI_BENCH_NODES and
// HAMI_BENCH_PODS, modes from HAMI_BENCH_MODES (ceiling,filter,bind).
// Figures go to the test log and, as JSON lines, to HAMI_BENCH_OUT.

func benchInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchNode is a node of the bench cluster: 8 NVIDIA A100s as HAMi's
// device plugin registers them, or, for every tenth node, 8 AMD MI300X.
func benchNode(i int) *corev1.Node {
	name := fmt.Sprintf("bench-%05d", i)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels:      map[string]string{"kubernetes.io/hostname": name, "gpu": "on"},
		Annotations: map[string]string{}}}
	type device struct {
		ID      string `json:"id"`
		Index   int    `json:"index,omitempty"`
		Count   int    `json:"count"`
		Devmem  int    `json:"devmem"`
		Devcore int    `json:"devcore"`
		Type    string `json:"type"`
		Numa    int    `json:"numa,omitempty"`
		Mode    string `json:"mode"`
		Health  bool   `json:"health"`
	}
	var devices []device
	amd := i%10 == 9
	for k := 0; k < 8; k++ {
		if amd {
			devices = append(devices, device{ID: fmt.Sprintf("AMD-MI300X-%08x-%04x", i, k), Index: k, Count: 4,
				Devmem: 196608, Devcore: 304, Type: "AMD Instinct MI300X VF", Mode: "hami-core", Health: true})
		} else {
			devices = append(devices, device{ID: fmt.Sprintf("GPU-%08x-0000-4000-8000-%012x", i, k), Index: k, Count: 10,
				Devmem: 40960, Devcore: 100, Type: "NVIDIA A100-SXM4-40GB", Numa: k / 4, Mode: "hami-core", Health: true})
		}
	}
	data, _ := json.Marshal(devices)
	resources := corev1.ResourceList{}
	if amd {
		node.Annotations["hami.io/node-amd-register"] = string(data)
		resources["amd.com/gpu"] = resource.MustParse("32")
	} else {
		node.Annotations["hami.io/node-nvidia-register"] = string(data)
		resources["nvidia.com/gpu"] = resource.MustParse("80")
	}
	node.Status.Capacity = resources.DeepCopy()
	node.Status.Allocatable = resources.DeepCopy()
	completeNode(node)
	return node
}

// benchPod is pod i of the workload: mixed shapes, a tenth AMD; plain
// (the ceiling) keeps only the CPU and memory requests.
func benchPod(ns string, i int, plain bool) *corev1.Pod {
	limits := corev1.ResourceList{}
	switch {
	case plain:
	case i%10 == 9:
		limits["amd.com/gpu"] = resource.MustParse("1")
		limits["amd.com/gpumem"] = resource.MustParse("32768")
	case i%4 == 0:
		limits["nvidia.com/gpu"] = resource.MustParse("2")
		limits["nvidia.com/gpumem"] = resource.MustParse("8000")
	case i%4 == 1:
		limits["nvidia.com/gpu"] = resource.MustParse("1")
	default:
		limits["nvidia.com/gpu"] = resource.MustParse("1")
		limits["nvidia.com/gpumem"] = resource.MustParse("4000")
		limits["nvidia.com/gpucores"] = resource.MustParse("25")
	}
	pod := podWithLimits(ns, fmt.Sprintf("w-%05d", i), limits)
	pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}
	return pod
}

func createConcurrently(t *testing.T, n, workers int, create func(i int) error) {
	t.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := create(i); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}
}

// benchResult is one mode's figures.
type benchResult struct {
	Mode             string  `json:"mode"`
	Nodes            int     `json:"nodes"`
	Pods             int     `json:"pods"`
	Bound            int     `json:"bound"`
	Seconds          float64 `json:"seconds"`
	PodsPerSecond    float64 `json:"podsPerSecond"`
	SliP50           float64 `json:"sliP50Seconds"`
	SliP99           float64 `json:"sliP99Seconds"`
	ExtenderCalls    int     `json:"extenderCalls,omitempty"`
	ExtenderP99      float64 `json:"extenderP99Seconds,omitempty"`
	LockRefusals     int     `json:"bindLockRefusals"`
	HostCPUPer1000   float64 `json:"hostCpuSecondsPer1000Pods,omitempty"`
	HostPeakRSSMiB   float64 `json:"hostPeakRssMiB,omitempty"`
	EventsPerPod     float64 `json:"eventsPerPod,omitempty"`
	APIRequestsPerPd float64 `json:"hostApiRequestsPerPod,omitempty"`
}

func TestThroughputBenchmark(t *testing.T) {
	if os.Getenv("HAMI_BENCH_THROUGHPUT") == "" {
		t.Skip("the throughput benchmark runs from bench/realcluster/run.sh")
	}
	nodes := benchInt("HAMI_BENCH_NODES", 1000)
	pods := benchInt("HAMI_BENCH_PODS", 5000)
	modes := strings.Split(mustEnv("HAMI_BENCH_MODES", "ceiling,filter,bind"), ",")
	ctx := context.Background()
	start := time.Now()
	createConcurrently(t, nodes, 16, func(i int) error {
		n := benchNode(i)
		stored, err := cluster.client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		untaintNotReady(t, stored)
		return nil
	})
	t.Cleanup(func() {
		_ = cluster.client.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	})
	t.Logf("%d nodes created in %v", nodes, time.Since(start).Round(time.Millisecond))
	var results []benchResult
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			r := benchMode(t, mode, nodes, pods)
			results = append(results, r)
			line, _ := json.Marshal(r)
			t.Logf("%s", line)
			if out := os.Getenv("HAMI_BENCH_OUT"); out != "" {
				f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err == nil {
					fmt.Fprintf(f, "%s\n", line)
					f.Close()
				}
			}
		})
	}
}

func benchMode(t *testing.T, mode string, nodes, pods int) benchResult {
	ns := "bench-" + mode
	createNamespace(t, ns, nil)
	res := benchResult{Mode: mode, Nodes: nodes, Pods: pods}
	plain := mode == "ceiling"
	var d *deployment
	var sched *process
	metricsPort := freePort(t)
	if plain {
		// The same kube-scheduler with its default profile and no
		// extender, as the kubeconfig of the cluster's admin.
		cfg := filepath.Join(t.TempDir(), "kube-scheduler.yaml")
		text := fmt.Sprintf("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"+
			"leaderElection: {leaderElect: false}\nclientConnection: {kubeconfig: %q, qps: 50, burst: 100}\n",
			filepath.Join(cluster.kubeDir, "admin.kubeconfig"))
		if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		sched = startProcess(t, "kube-scheduler-ceiling", nil, "", filepath.Join(cluster.kubeBin, "kube-scheduler"),
			"--config="+cfg, "--v=1", fmt.Sprintf("--secure-port=%d", metricsPort), "--bind-address=127.0.0.1",
			"--authorization-always-allow-paths=/metrics")
	} else {
		startNodeAgent(t)
		var hostArgs []string
		if extra := os.Getenv("HAMI_BENCH_HOST_ARGS"); extra != "" {
			hostArgs = strings.Fields(extra)
		}
		d = deploy(t, deployOptions{allocateAt: mode, noScheduler: true, hostArgs: hostArgs})
		r := d.replicas[0]
		sched = startProcess(t, "kube-scheduler-"+mode, nil, r.name, filepath.Join(cluster.kubeBin, "kube-scheduler"),
			"--config="+r.schedConfig, "--v=1", fmt.Sprintf("--secure-port=%d", metricsPort),
			"--bind-address=127.0.0.1", "--authorization-always-allow-paths=/metrics")
		r.scheduler = sched
		d.leader(t, 60*time.Second)
	}
	_ = sched

	// Count bound (and, for GPU pods, confirmed) pods from an informer.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory := informers.NewSharedInformerFactoryWithOptions(cluster.client, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	var bound atomic.Int64
	var lastBound atomic.Int64
	seen := sync.Map{}
	onPod := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok || p.Spec.NodeName == "" || (!plain && p.Annotations["hami.io/bind-phase"] != "success") {
			return
		}
		if _, dup := seen.LoadOrStore(p.UID, true); !dup {
			bound.Add(1)
			lastBound.Store(time.Now().UnixNano())
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onPod, UpdateFunc: func(_, o any) { onPod(o) }})
	factory.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)

	var cpuBefore float64
	if d != nil {
		cpuBefore = processCPUSeconds(d.replicas[0].host.cmd.Process.Pid)
	}
	first := time.Now()
	createConcurrently(t, pods, 16, func(i int) error {
		pod := benchPod(ns, i, plain)
		pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
		_, err := cluster.client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
		return err
	})
	created := time.Since(first)
	deadline := time.Now().Add(time.Duration(pods/5+120) * time.Second)
	for bound.Load() < int64(pods) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	res.Bound = int(bound.Load())
	res.Seconds = time.Duration(lastBound.Load() - first.UnixNano()).Seconds()
	if res.Bound > 0 && res.Seconds > 0 {
		res.PodsPerSecond = float64(res.Bound) / res.Seconds
	}
	t.Logf("%s: %d pods created in %v, %d bound in %.1f s", mode, pods, created.Round(time.Millisecond), res.Bound, res.Seconds)
	if metrics, err := scrape(fmt.Sprintf("https://127.0.0.1:%d/metrics", metricsPort)); err == nil {
		res.SliP50 = histogramQuantile(metrics, "scheduler_pod_scheduling_sli_duration_seconds", "", 0.5)
		res.SliP99 = histogramQuantile(metrics, "scheduler_pod_scheduling_sli_duration_seconds", "", 0.99)
	} else {
		t.Logf("kube-scheduler metrics: %v", err)
	}
	if d != nil {
		r := d.replicas[0]
		res.HostCPUPer1000 = (processCPUSeconds(r.host.cmd.Process.Pid) - cpuBefore) * 1000 / float64(pods)
		res.HostPeakRSSMiB = processPeakRSSMiB(r.host.cmd.Process.Pid)
		if metrics, err := scrape("http://" + loopback(r.metricsPort) + "/metrics"); err == nil {
			for _, route := range []string{"/filter", "/prioritize", "/bind"} {
				res.ExtenderCalls += int(histogramCount(metrics, "hami_scheduler_http_request_duration_seconds", `route="`+route+`"`))
			}
			res.ExtenderP99 = histogramQuantile(metrics, "hami_scheduler_http_request_duration_seconds", `route="/`, 0.99)
			res.LockRefusals = int(counterValue(metrics, "hami_scheduler_bind_total", `outcome="lock_contention"`))
		}
		events, requests := 0, 0
		for _, e := range hostRequests(t, first, time.Time{}) {
			requests++
			if e.ObjectRef != nil && e.ObjectRef.Resource == "events" && e.Verb == "create" {
				events++
			}
		}
		res.EventsPerPod = float64(events) / float64(pods)
		res.APIRequestsPerPd = float64(requests) / float64(pods)
		checkNoDeviceOverCapacity(t, r)
		checkAllocationsMatchStoredPods(t, r)
	}
	if res.Bound != pods {
		t.Errorf("%s: %d of %d pods bound", mode, res.Bound, pods)
	}
	return res
}

func scrape(url string) (string, error) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // loopback metrics of a process of this run
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return string(body), err
}

// histogramBuckets sums the cumulative buckets of a Prometheus histogram
// over the series whose labels contain filter.
func histogramBuckets(text, name, filter string) map[float64]float64 {
	out := map[float64]float64{}
	s := bufio.NewScanner(strings.NewReader(text))
	s.Buffer(make([]byte, 1<<20), 1<<24)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, name+"_bucket{") || !strings.Contains(line, filter) {
			continue
		}
		i := strings.Index(line, `le="`)
		if i < 0 {
			continue
		}
		leText := line[i+4:]
		leText = leText[:strings.IndexByte(leText, '"')]
		le := math.Inf(1)
		if leText != "+Inf" {
			le, _ = strconv.ParseFloat(leText, 64)
		}
		fields := strings.Fields(line)
		v, _ := strconv.ParseFloat(fields[len(fields)-1], 64)
		out[le] += v
	}
	return out
}

// counterValue sums a Prometheus counter over the series whose labels
// contain filter.
func counterValue(text, name, filter string) float64 {
	sum := 0.0
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, name+"{") || !strings.Contains(line, filter) {
			continue
		}
		fields := strings.Fields(line)
		v, _ := strconv.ParseFloat(fields[len(fields)-1], 64)
		sum += v
	}
	return sum
}

func histogramCount(text, name, filter string) float64 {
	return histogramBuckets(text, name, filter)[math.Inf(1)]
}

// histogramQuantile interpolates linearly within the bucket, as
// Prometheus' histogram_quantile does.
func histogramQuantile(text, name, filter string, q float64) float64 {
	buckets := histogramBuckets(text, name, filter)
	les := make([]float64, 0, len(buckets))
	for le := range buckets {
		les = append(les, le)
	}
	sort.Float64s(les)
	if len(les) == 0 {
		return 0
	}
	total := buckets[math.Inf(1)]
	if total == 0 {
		return 0
	}
	rank := q * total
	prevLe, prevCount := 0.0, 0.0
	for _, le := range les {
		c := buckets[le]
		if c >= rank {
			if math.IsInf(le, 1) {
				return prevLe
			}
			if c == prevCount {
				return le
			}
			return prevLe + (le-prevLe)*(rank-prevCount)/(c-prevCount)
		}
		prevLe, prevCount = le, c
	}
	return prevLe
}

// processCPUSeconds is the user and system time of a process (its
// /proc/PID/stat, in clock ticks of 1/100 s).
func processCPUSeconds(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	text := string(data)
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+2:])
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100
}

func processPeakRSSMiB(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}
