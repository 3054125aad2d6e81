package realcluster

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// gpuPod is a pod of one container asking for NVIDIA GPUs (HAMi's
// resource names: count, memory in MiB, cores in percent).
func gpuPod(ns, name string, gpus, memMiB, cores int) *corev1.Pod {
	limits := corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(int64(gpus), resource.DecimalSI)}
	if memMiB > 0 {
		limits["nvidia.com/gpumem"] = *resource.NewQuantity(int64(memMiB), resource.DecimalSI)
	}
	if cores > 0 {
		limits["nvidia.com/gpucores"] = *resource.NewQuantity(int64(cores), resource.DecimalSI)
	}
	return podWithLimits(ns, name, limits)
}

func podWithLimits(ns, name string, limits corev1.ResourceList) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{
				Name: "main", Image: "registry.example/cuda:12",
				Resources: corev1.ResourceRequirements{
					Limits:   limits,
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
				},
			}},
		},
	}
}

func createPod(t *testing.T, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	got, err := cluster.client.CoreV1().Pods(pod.Namespace).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}
	return got
}

// requestCount is how many requests of the route the replica has answered
// (its request metric, summed over methods and status classes).
func (r *replica) requestCount(t *testing.T, route string) (int, error) {
	t.Helper()
	resp, err := http.Get("http://" + loopback(r.metricsPort) + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	total := 0
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "hami_scheduler_http_requests_total{") && strings.Contains(line, `route="`+route+`"`) {
			fields := strings.Fields(line)
			n, err := strconv.ParseFloat(fields[len(fields)-1], 64)
			if err != nil {
				return 0, fmt.Errorf("metric line %q: %w", line, err)
			}
			total += int(n)
		}
	}
	return total, nil
}

func (r *replica) mutateCalls(t *testing.T) int {
	t.Helper()
	n, err := r.requestCount(t, "/mutate-pod")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWebhookThroughTheRealAPIServer(t *testing.T) {
	d := deploy(t, deployOptions{noScheduler: true})
	r := d.replicas[0]
	ctx := context.Background()

	t.Run("SelfManagedCertificateInTheSecretAndTheCaBundle", func(t *testing.T) {
		secret, err := cluster.client.CoreV1().Secrets(namespace).Get(ctx, release+"-tls", getOpts)
		if err != nil {
			t.Fatalf("the host made no Secret: %v", err)
		}
		if secret.Type != corev1.SecretTypeTLS {
			t.Errorf("Secret type %q, want kubernetes.io/tls", secret.Type)
		}
		hook, err := cluster.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, release+"-admission", getOpts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(hook.Webhooks[0].ClientConfig.CABundle), string(secret.Data["ca.crt"]); got != want || got == "" {
			t.Errorf("caBundle is %q, want the Secret's ca.crt %q", base64.StdEncoding.EncodeToString([]byte(got)), want)
		}
	})

	createNamespace(t, "webhook", nil)
	t.Run("GpuPodIsSentToHamiScheduler", func(t *testing.T) {
		pod := createPod(t, gpuPod("webhook", "gpu", 1, 1000, 30))
		if pod.Spec.SchedulerName != "hami-scheduler" {
			t.Errorf("stored schedulerName %q, want hami-scheduler", pod.Spec.SchedulerName)
		}
	})
	t.Run("PlainPodIsUnchanged", func(t *testing.T) {
		pod := createPod(t, podWithLimits("webhook", "plain", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}))
		if pod.Spec.SchedulerName != corev1.DefaultSchedulerName {
			t.Errorf("stored schedulerName %q, want %s", pod.Spec.SchedulerName, corev1.DefaultSchedulerName)
		}
	})
	t.Run("PrivilegedGpuPodIsStoredUnchanged", func(t *testing.T) {
		pod := gpuPod("webhook", "privileged", 1, 1000, 0)
		pod.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		stored := createPod(t, pod)
		if stored.Spec.SchedulerName != corev1.DefaultSchedulerName {
			t.Errorf("stored schedulerName %q, want %s", stored.Spec.SchedulerName, corev1.DefaultSchedulerName)
		}
	})
	t.Run("GpuPodWithNodeNameIsRefusedWithTheSeedsMessage", func(t *testing.T) {
		pod := gpuPod("webhook", "pinned", 1, 1000, 0)
		pod.Spec.NodeName = "gpu-a100-0"
		_, err := cluster.client.CoreV1().Pods("webhook").Create(ctx, pod, metav1.CreateOptions{})
		want := `admission webhook "pod.vgpu.admission.local" denied the request: pod has node assigned`
		if err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	})
	t.Run("NamespaceLabelledDisabledIsNeverSentToUs", func(t *testing.T) {
		createNamespace(t, "webhook-off", map[string]string{"vgpu.admission": "disabled"})
		before := r.mutateCalls(t)
		pod := createPod(t, gpuPod("webhook-off", "gpu", 1, 1000, 0))
		if pod.Spec.SchedulerName != corev1.DefaultSchedulerName {
			t.Errorf("stored schedulerName %q, want %s", pod.Spec.SchedulerName, corev1.DefaultSchedulerName)
		}
		// A pod in a namespace that is sent to us, as a marker: the calls
		// counted after it include any call made for the pod before.
		createPod(t, gpuPod("webhook", "marker", 1, 1000, 0))
		if after := r.mutateCalls(t); after != before+1 {
			t.Errorf("/mutate-pod was called %d times for one pod of a sent namespace and one of an opted-out one, want 1", after-before)
		}
	})
	t.Run("HostDownWithFailurePolicyIgnoreCreatesPodsUnchanged", func(t *testing.T) {
		r.host.stop(15)
		defer func() { d.startHost(r); d.waitReady(r) }()
		pod := createPod(t, gpuPod("webhook", "host-down", 1, 1000, 0))
		if pod.Spec.SchedulerName != corev1.DefaultSchedulerName {
			t.Errorf("stored schedulerName %q, want %s (failurePolicy Ignore)", pod.Spec.SchedulerName, corev1.DefaultSchedulerName)
		}
	})
	t.Run("HostDownWithFailurePolicyFailRefusesPods", func(t *testing.T) {
		failing := renderChart(t, nil, append(d.values(), "webhook.failurePolicy=Fail")...)
		applyWebhookFrom(t, failing, r)
		defer applyWebhookFrom(t, d.objects, r)
		r.host.stop(15)
		defer func() { d.startHost(r); d.waitReady(r) }()
		_, err := cluster.client.CoreV1().Pods("webhook").Create(ctx, gpuPod("webhook", "refused", 1, 1000, 0), metav1.CreateOptions{})
		wantPrefix := `Internal error occurred: failed calling webhook "pod.vgpu.admission.local": failed to call webhook: Post "https://` +
			loopback(r.webhookPort) + `/mutate-pod?timeout=10s": `
		if err == nil || !strings.HasPrefix(err.Error(), wantPrefix) {
			t.Errorf("got %v, want an error starting %q", err, wantPrefix)
		}
	})
	t.Run("HostBackAfterRestartMutatesAgain", func(t *testing.T) {
		deadline := time.Now().Add(30 * time.Second)
		for i := 0; ; i++ {
			pod := createPod(t, gpuPod("webhook", fmt.Sprintf("again-%d", i), 1, 1000, 0))
			if pod.Spec.SchedulerName == "hami-scheduler" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("pods are still created unchanged 30 s after the host restarted")
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}
