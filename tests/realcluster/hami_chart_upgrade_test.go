package realcluster

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hamiChartDir is the chart the test installs for the guide's
// hami-charts/hami.
//
// By default, testdata/hami-layout-chart: a small stand-in written for this
// suite, not HAMi's chart. It mirrors the value layout of HAMi v2.10's chart
// as far as the guide's commands reach (the release hami in kube-system; the
// Deployment hami-scheduler with its kube-scheduler and
// vgpu-scheduler-extender containers, the extender's image from
// scheduler.extender.image.{registry,repository,tag} with the
// global.imageRegistry and global.imageTag fall-backs; the ConfigMaps
// hami-scheduler, hami-scheduler-device and hami-device-plugin, the
// MutatingWebhookConfiguration hami-webhook, the DaemonSet
// hami-device-plugin and the Service hami-scheduler). This is what CI runs:
// it proves what Helm does with the guide's commands on that layout, not
// what HAMi's own templates render.
//
// With HAMI_CHART_DIR set to an absolute path of a checkout of HAMi's
// charts/hami (tag v2.10.0, the version the guide names), the test installs
// that chart instead, so the same checks run against HAMi's own templates.
func hamiChartDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HAMI_CHART_DIR")
	if dir == "" {
		return filepath.Join(cluster.repo, "tests", "realcluster", "testdata", "hami-layout-chart")
	}
	if !filepath.IsAbs(dir) {
		t.Fatalf("HAMI_CHART_DIR=%s: want an absolute path to HAMi's charts/hami", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err != nil {
		t.Fatalf("HAMI_CHART_DIR=%s is not a chart (HAMi's charts/hami): %v", dir, err)
	}
	return dir
}

const (
	hamiRelease       = "hami"
	hamiExtender      = "vgpu-scheduler-extender"
	hamiImage         = "docker.io/projecthami/hami:v2.10.0"
	hamiSwappedImage  = "registry.example.com/hami-scheduler:0.1.0"
	migrationGuide    = "docs/migrating-from-hami.md"
	hamiChartInGuides = "hami-charts/hami"
)

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// guideCommand is the command of the migration guide's sh blocks that
// starts with prefix and contains every string of contains, as words
// (backslash continuations joined).
func guideCommand(t *testing.T, prefix string, contains ...string) []string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(cluster.repo, migrationGuide))
	if err != nil {
		t.Fatal(err)
	}
	var found [][]string
	for _, block := range shBlock.FindAllStringSubmatch(string(text), -1) {
		joined := strings.ReplaceAll(block[1], "\\\n", " ")
		for _, line := range strings.Split(joined, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || !strings.HasPrefix(line, prefix) {
				continue
			}
			ok := true
			for _, c := range contains {
				ok = ok && strings.Contains(line, c)
			}
			if ok {
				found = append(found, strings.Fields(line))
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: want exactly one command starting with %q and containing %q, found %d: %q",
			migrationGuide, prefix, contains, len(found), found)
	}
	return found[0]
}

// hamiHelm runs a helm command line as the guide writes it, with the suite's
// Helm, hamiChartDir for hami-charts/hami and the admin kubeconfig, and
// returns its standard output.
// Meanwhile it plays the Job controller for the chart's hook Jobs, which
// Helm waits for: the stand-in has none, HAMi's chart (HAMI_CHART_DIR) runs
// kube-webhook-certgen in them, and no kubelet runs them here.
func hamiHelm(t *testing.T, home string, argv ...string) string {
	t.Helper()
	if argv[0] != "helm" {
		t.Fatalf("not a helm command: %q", argv)
	}
	args := append([]string(nil), argv[1:]...)
	for i, a := range args {
		if a == hamiChartInGuides {
			args[i] = hamiChartDir(t)
		}
	}
	vars, err := readEnvFile(filepath.Join(cluster.kubeDir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	args = append(args, "--kubeconfig", vars["KUBECONFIG"])
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hooksDone := make(chan struct{})
	go func() {
		defer close(hooksDone)
		completeHookJobs(ctx)
	}()
	cmd := exec.CommandContext(ctx, cluster.helm, args...)
	cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	cancel()
	<-hooksDone
	if err != nil {
		t.Fatalf("helm %q: %v\n%s%s", args, err, stdout.String(), stderr.String())
	}
	if args[0] != "template" {
		t.Logf("helm %s: %s%s", args[0], stdout.String(), strings.TrimSpace(stderr.String()))
	}
	return stdout.String()
}

// completeHookJobs marks every unfinished Job of the namespace complete, as
// the Job controller would once its pod succeeded, until ctx ends.
func completeHookJobs(ctx context.Context) {
	for {
		jobs, err := cluster.client.BatchV1().Jobs(namespace).List(ctx, metav1.ListOptions{})
		if err == nil {
			for i := range jobs.Items {
				job := &jobs.Items[i]
				if jobFinished(job) {
					continue
				}
				now := metav1.Now()
				job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &now, &now, 1
				job.Status.Conditions = []batchv1.JobCondition{
					{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
					{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
				}
				_, _ = cluster.client.BatchV1().Jobs(namespace).UpdateStatus(ctx, job, metav1.UpdateOptions{})
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func jobFinished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// hamiObjects is what the release stored: the extender container's image
// apart, and everything else the guide says an image swap leaves alone.
type hamiObjects struct {
	extenderImage string
	rest          map[string]string // object → its JSON
}

func readHAMiObjects(t *testing.T) hamiObjects {
	t.Helper()
	ctx := context.Background()
	c := cluster.client
	got := hamiObjects{rest: map[string]string{}}
	put := func(name string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got.rest[name] = string(data)
	}
	dep, err := c.AppsV1().Deployments(namespace).Get(ctx, "hami-scheduler", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := dep.Spec.Template.DeepCopy()
	for i := range tmpl.Spec.Containers {
		if tmpl.Spec.Containers[i].Name == hamiExtender {
			got.extenderImage = tmpl.Spec.Containers[i].Image
			tmpl.Spec.Containers[i].Image = ""
		}
	}
	if got.extenderImage == "" {
		t.Fatalf("Deployment hami-scheduler has no container %s", hamiExtender)
	}
	put("Deployment hami-scheduler (pod template but the extender's image)", tmpl)
	put("Deployment hami-scheduler replicas", dep.Spec.Replicas)
	for _, name := range []string{"hami-scheduler", "hami-scheduler-device", "hami-device-plugin"} {
		cm, err := c.CoreV1().ConfigMaps(namespace).Get(ctx, name, getOpts)
		if err != nil {
			t.Fatal(err)
		}
		put("ConfigMap "+name, cm.Data)
	}
	mwc, err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "hami-webhook", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	put("MutatingWebhookConfiguration hami-webhook", mwc.Webhooks)
	ds, err := c.AppsV1().DaemonSets(namespace).Get(ctx, "hami-device-plugin", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	put("DaemonSet hami-device-plugin", ds.Spec.Template)
	svc, err := c.CoreV1().Services(namespace).Get(ctx, "hami-scheduler", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	put("Service hami-scheduler", svc.Spec.Ports)
	return got
}

func expectHAMiObjects(t *testing.T, step string, got, base hamiObjects, image string) {
	t.Helper()
	if got.extenderImage != image {
		t.Errorf("%s: the %s container's image is %q, want %q", step, hamiExtender, got.extenderImage, image)
	}
	for name, v := range base.rest {
		if got.rest[name] != v {
			t.Errorf("%s: %s changed:\nbefore %s\nnow    %s", step, name, v, got.rest[name])
		}
	}
}

// docs/migrating-from-hami.md, §1 step 4 and "Rolling back", run as written
// with the real Helm against a chart with HAMi v2.10's value layout (the
// stand-in of hamiChartDir; HAMi's own chart with HAMI_CHART_DIR): the
// upgrade swaps the extender's image and nothing else, the rollback brings
// HAMi's image back and nothing else changes, and an upgrade without the
// image values (what the guide once called rolling back) keeps this host's
// image.
//
//	HAMI_CHART_DIR=/abs/path/to/HAMi/charts/hami bash tests/realcluster/run.sh \
//	  -run TestHAMiChartUpgradeAndRollbackAsDocumented
func TestHAMiChartUpgradeAndRollbackAsDocumented(t *testing.T) {
	upgrade := guideCommand(t, "helm upgrade "+hamiRelease+" "+hamiChartInGuides,
		"--reuse-values", "scheduler.extender.image.tag=")
	rollback := guideCommand(t, "helm rollback "+hamiRelease)
	home := t.TempDir()

	// The suite's deployments of this repository's chart (release
	// hami-scheduler) leave RBAC objects named as HAMi's release hami names
	// its own (packaging/README.md, "Beside a HAMi install"); Helm refuses to
	// adopt them. Later deployments apply theirs again. The stand-in has no
	// RBAC objects; any object of the suite named as one of its own goes
	// the same way.
	rendered := hamiHelm(t, home, "helm", "template", hamiRelease, hamiChartInGuides, "-n", namespace)
	objects, err := decodeObjects([]byte(rendered))
	if err != nil {
		t.Fatal(err)
	}
	deleteObjects(t, newMapper(t), objects)

	t.Logf("the chart for %s: %s", hamiChartInGuides, hamiChartDir(t))
	hamiHelm(t, home, "helm", "install", hamiRelease, hamiChartInGuides, "-n", namespace)
	t.Cleanup(func() {
		hamiHelm(t, home, "helm", "uninstall", hamiRelease, "-n", namespace, "--no-hooks")
	})
	installed := readHAMiObjects(t)
	if installed.extenderImage != hamiImage {
		t.Fatalf("the chart installed the extender image %q, want %q (the guide's; HAMI_CHART_DIR: HAMi's charts/hami at v2.10.0)",
			installed.extenderImage, hamiImage)
	}

	hamiHelm(t, home, upgrade...)
	expectHAMiObjects(t, "after the documented upgrade", readHAMiObjects(t), installed, hamiSwappedImage)

	hamiHelm(t, home, rollback...)
	expectHAMiObjects(t, "after the documented rollback", readHAMiObjects(t), installed, hamiImage)

	// The same upgrade without the image values, after the swap: not a
	// rollback, --reuse-values keeps them.
	hamiHelm(t, home, upgrade...)
	var noImage []string
	for _, a := range upgrade {
		if strings.HasPrefix(a, "scheduler.extender.image.") {
			noImage = noImage[:len(noImage)-1] // its --set
			continue
		}
		noImage = append(noImage, a)
	}
	hamiHelm(t, home, noImage...)
	expectHAMiObjects(t, "after the upgrade without the image values", readHAMiObjects(t), installed, hamiSwappedImage)
}
