package realcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// deployOptions choose the chart values of a deployment and how much of it
// runs.
type deployOptions struct {
	allocateAt    string   // scheduler.allocateAt; empty: the chart's default
	failurePolicy string   // webhook.failurePolicy; empty: the chart's default
	replicas      int      // replicas (each a host and a kube-scheduler); 0: 1
	extraVendors  []string // device plugins besides the chart's nvidia and amd
	noScheduler   bool     // start no kube-scheduler
	hostArgs      []string // more hami-scheduler flags
	sets          []string // more chart values (helm --set)
	// The test makes the API server refuse the host on purpose (RBAC):
	// do not check that everything the host did was allowed.
	expectForbidden bool
}

// The device plugins the chart does not load yet, and the resource names
// kube-scheduler must hand to the extender for them.
var vendorResources = map[string][]string{
	"hygon": {"hygon.com/dcunum", "hygon.com/dcumem", "hygon.com/dcucores"},
}

// replica is one "pod" of the Deployment: a host and its kube-scheduler,
// in the pod's host name, on loopback ports of their own.
type replica struct {
	name           string // the pod name (POD_NAME, the host name)
	dir            string
	webhookPort    int
	extenderPort   int
	metricsPort    int
	hostConfig     string
	schedConfig    string
	host           *process
	scheduler      *process
	hostArgs       []string
	kubeconfigPath string
}

// deployment is the chart's objects applied to the real API server, with
// the processes the Deployment would run.
type deployment struct {
	t        testing.TB
	objects  []*unstructured.Unstructured
	dir      string
	replicas []*replica
	opts     deployOptions
	started  time.Time
}

func (d *deployment) values() []string {
	sets := []string{"certificates.mode=selfManaged"}
	if d.opts.allocateAt != "" {
		sets = append(sets, "scheduler.allocateAt="+d.opts.allocateAt)
	}
	if d.opts.failurePolicy != "" {
		sets = append(sets, "webhook.failurePolicy="+d.opts.failurePolicy)
	}
	if d.opts.replicas > 1 {
		sets = append(sets, fmt.Sprintf("replicas=%d", d.opts.replicas))
	}
	sets = append(sets, d.opts.sets...)
	i := 0
	for _, v := range d.opts.extraVendors {
		for _, r := range vendorResources[v] {
			sets = append(sets, fmt.Sprintf("extraManagedResources[%d]=%s", i, r))
			i++
		}
	}
	return sets
}

// deploy renders the chart, applies its RBAC objects and webhook
// configuration (clientConfig adapted to the first replica's loopback
// port) and starts the replicas. Everything is undone at the test's end.
func deploy(t *testing.T, opts deployOptions) *deployment {
	t.Helper()
	if opts.replicas == 0 {
		opts.replicas = 1
	}
	d := &deployment{t: t, opts: opts, dir: t.TempDir(), started: time.Now()}
	d.objects = renderChart(t, nil, d.values()...)
	for i := 0; i < opts.replicas; i++ {
		name := fmt.Sprintf("%s-%c", release, 'a'+i)
		r := &replica{name: name, dir: filepath.Join(d.dir, name), webhookPort: freePort(t),
			extenderPort: freePort(t), metricsPort: freePort(t), hostArgs: opts.hostArgs}
		if err := os.MkdirAll(filepath.Join(r.dir, "tls"), 0o700); err != nil {
			t.Fatal(err)
		}
		d.replicas = append(d.replicas, r)
	}
	ctx := context.Background()
	mapper := newMapper(t)
	t.Cleanup(func() { d.remove() })
	for _, o := range d.objects {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			if err := apply(ctx, mapper, o, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	applyWebhookFrom(t, d.objects, d.replicas[0])
	kubeconfig := d.serviceAccountKubeconfig(ctx)
	for _, r := range d.replicas {
		r.kubeconfigPath = kubeconfig
		d.createPodObject(ctx, r)
		d.writeHostConfig(r)
		d.writeSchedulerConfig(r)
		d.startHost(r)
	}
	for _, r := range d.replicas {
		d.waitReady(r)
		if !opts.noScheduler {
			d.startScheduler(r)
		}
	}
	return d
}

// The chart's webhook configuration, its clientConfig calling
// https://127.0.0.1:<port>/mutate-pod instead of the Service (the API
// server of this suite reaches nothing but loopback).
func applyWebhookFrom(t testing.TB, objects []*unstructured.Unstructured, r *replica) {
	t.Helper()
	o := findObject(t, objects, "MutatingWebhookConfiguration", release+"-admission").DeepCopy()
	hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
	for _, h := range hooks {
		hook := h.(map[string]any)
		cc := hook["clientConfig"].(map[string]any)
		path, _, _ := unstructured.NestedString(cc, "service", "path")
		delete(cc, "service")
		cc["url"] = "https://" + loopback(r.webhookPort) + path
	}
	if err := unstructured.SetNestedSlice(o.Object, hooks, "webhooks"); err != nil {
		t.Fatal(err)
	}
	if err := apply(context.Background(), newMapper(t), o, false); err != nil {
		t.Fatal(err)
	}
}

// A token of the chart's ServiceAccount from the TokenRequest API, in a
// kubeconfig for the host and kube-scheduler.
func (d *deployment) serviceAccountKubeconfig(ctx context.Context) string {
	t := d.t
	tr, err := cluster.client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, release,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", namespace, release, err)
	}
	return writeKubeconfig(t, d.dir, "serviceaccount", tr.Status.Token)
}

func writeKubeconfig(t testing.TB, dir, name, token string) string {
	t.Helper()
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
  - name: realcluster
    cluster: {server: %q, certificate-authority: %q}
users:
  - name: %s
    user: {token: %q}
contexts:
  - name: %s
    context: {cluster: realcluster, user: %s}
current-context: %s
`, cluster.apiServer, cluster.caFile, name, token, name, name, name)
	path := filepath.Join(dir, name+".kubeconfig")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The Deployment's pod for a replica, as the API server would hold it once
// the ReplicaSet made it (the host labels its own pod with its role). It is
// bound to a node that does not exist, so nothing schedules it.
func (d *deployment) createPodObject(ctx context.Context, r *replica) {
	t := d.t
	dep := findObject(t, d.objects, "Deployment", release)
	labels, _, _ := unstructured.NestedStringMap(dep.Object, "spec", "template", "metadata", "labels")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: namespace, Labels: labels},
		Spec: corev1.PodSpec{
			NodeName:                     "control-plane",
			ServiceAccountName:           release,
			AutomountServiceAccountToken: ptr.To(false),
			Containers:                   []corev1.Container{{Name: "hami-scheduler", Image: "hami-scheduler:test"}},
		},
	}
	if _, err := cluster.client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the replica's pod object: %v", err)
	}
}

// The chart's host config with what a pod provides made local: loopback
// ports, the build's plugins, the rendered device config, the token's
// kubeconfig and a folder for the self-managed certificate.
func (d *deployment) writeHostConfig(r *replica) {
	t := d.t
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(configMapData(t, d.objects, release+"-config", "config.yaml")), &cfg); err != nil {
		t.Fatal(err)
	}
	deviceConfig := configMapData(t, d.objects, release+"-device", "device-config.yaml")
	if err := os.WriteFile(filepath.Join(r.dir, "device-config.yaml"), []byte(deviceConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg["listen"] = loopback(r.webhookPort)
	set(t, cfg, loopback(r.extenderPort), "extender", "listen")
	set(t, cfg, filepath.Join(r.dir, "tls"), "tls", "selfManaged", "directory")
	set(t, cfg, filepath.Join(cluster.build, "plugins"), "plugins", "directory")
	set(t, cfg, r.kubeconfigPath, "cluster", "kubernetes", "kubeconfig")
	set(t, cfg, loopback(r.metricsPort), "metrics", "listen")
	if len(d.opts.extraVendors) > 0 {
		devices := get(t, cfg, "plugins", "devices").([]any)
		for _, v := range d.opts.extraVendors {
			devices = append(devices, map[string]any{"name": v, "library": v + ".so"})
		}
		set(t, cfg, devices, "plugins", "devices")
	}
	r.hostConfig = filepath.Join(r.dir, "config.yaml")
	writeYAML(t, r.hostConfig, cfg)
}

// The chart's KubeSchedulerConfiguration with the extender on this
// replica's loopback port, the CA file of its certificate folder and the
// token's kubeconfig (in a pod: the in-cluster config).
func (d *deployment) writeSchedulerConfig(r *replica) {
	t := d.t
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(configMapData(t, d.objects, release+"-kube-scheduler", "config.yaml")), &cfg); err != nil {
		t.Fatal(err)
	}
	extenders := get(t, cfg, "extenders").([]any)
	for _, e := range extenders {
		ext := e.(map[string]any)
		ext["urlPrefix"] = "https://" + loopback(r.extenderPort)
		set(t, ext, filepath.Join(r.dir, "tls", "ca.crt"), "tlsConfig", "caFile")
	}
	cfg["clientConnection"] = map[string]any{"kubeconfig": r.kubeconfigPath}
	r.schedConfig = filepath.Join(r.dir, "kube-scheduler.yaml")
	writeYAML(t, r.schedConfig, cfg)
}

func (d *deployment) startHost(r *replica) {
	args := append([]string{filepath.Join(cluster.build, "bin", "hami-scheduler"), "--config", r.hostConfig}, r.hostArgs...)
	r.host = startProcess(d.t, "hami-scheduler-"+r.name,
		[]string{"POD_NAME=" + r.name, "POD_NAMESPACE=" + namespace}, "", args...)
}

func (d *deployment) startScheduler(r *replica) {
	r.scheduler = startProcess(d.t, "kube-scheduler-"+r.name, nil, r.name,
		filepath.Join(cluster.kubeBin, "kube-scheduler"), "--config="+r.schedConfig, "--v=2",
		"--secure-port=0")
}

// restartHost stops the replica's host with sig (SIGKILL: a crash) and
// starts it again with the same config.
func (d *deployment) restartHost(r *replica, sig syscall.Signal) {
	r.host.stop(sig)
	d.startHost(r)
	d.waitReady(r)
}

// waitReady waits for /readyz of the host to answer 200 (plugins loaded,
// cluster state synced).
func (d *deployment) waitReady(r *replica) {
	t := d.t
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		if !r.host.running() {
			t.Fatalf("hami-scheduler %s exited during start:\n%s", r.name, r.host.tail())
		}
		code, body, err := r.get("/readyz", r.webhookPort)
		if err == nil && code == 200 {
			return
		}
		last = fmt.Sprint(code, " ", body, err)
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("hami-scheduler %s not ready after 60 s (%s):\n%s", r.name, last, r.host.tail())
}

// get does a GET on one of the replica's HTTPS listeners, verified against
// the CA of its self-managed certificate.
func (r *replica) get(path string, port int) (int, string, error) {
	return r.request(http.MethodGet, path, port, "")
}

func (r *replica) request(method, path string, port int, body string) (int, string, error) {
	pool := x509.NewCertPool()
	ca, err := os.ReadFile(filepath.Join(r.dir, "tls", "ca.crt"))
	if err != nil {
		return 0, "", err
	}
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	req, err := http.NewRequest(method, "https://"+loopback(port)+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), err
}

// remove stops the processes and deletes what deploy created, so the next
// test starts from an empty release.
func (d *deployment) remove() {
	for _, r := range d.replicas {
		if r.scheduler != nil {
			r.scheduler.stop(syscall.SIGTERM)
		}
		if r.host != nil {
			r.host.stop(syscall.SIGTERM)
		}
	}
	d.checkEverythingWasAllowed()
	ctx := context.Background()
	del := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	_ = cluster.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, release+"-admission", del)
	_ = cluster.client.CoordinationV1().Leases(namespace).Delete(ctx, "hami-scheduler", del)
	for _, r := range d.replicas {
		err := cluster.client.CoreV1().Pods(namespace).Delete(ctx, r.name, del)
		if err != nil && !apierrors.IsNotFound(err) {
			d.t.Logf("deleting pod %s: %v", r.name, err)
		}
	}
}

// checkEverythingWasAllowed: the chart's roles allowed every request the
// host and kube-scheduler made with the ServiceAccount's token.
func (d *deployment) checkEverythingWasAllowed() {
	if d.opts.expectForbidden {
		return
	}
	for _, e := range auditEvents(d.t, serviceAccountUser, d.started, time.Time{}) {
		if e.ResponseStatus != nil && e.ResponseStatus.Code == http.StatusForbidden {
			d.t.Errorf("the chart's RBAC refused the %s: %s (%s)", e.UserAgent, e, e.ResponseStatus.Message)
		}
	}
}

func get(t testing.TB, m map[string]any, path ...string) any {
	t.Helper()
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("config: %s is not a map", strings.Join(path, "."))
		}
		cur = mm[p]
	}
	return cur
}

func set(t testing.TB, m map[string]any, value any, path ...string) {
	t.Helper()
	cur := m
	for _, p := range path[:len(path)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = value
}

func writeYAML(t testing.TB, path string, v any) {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
