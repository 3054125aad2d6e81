package realcluster

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func runHost(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(cluster.build, "bin", "hami-scheduler"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("hami-scheduler %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}

// explain and snapshot on the real cluster answer as on the file backend
// (explain on the live cluster equals explain on the snapshot of it), and
// send the API server nothing but reads.
func TestOperatorCommandsOnTheRealClusterOnlyRead(t *testing.T) {
	s := gpuCluster(t)
	s.loadGpuCluster(t)
	d := deploy(t, deployOptions{noScheduler: true, extraVendors: []string{"hygon"}})
	r := d.replicas[0]
	createPod(t, s.pending(t, "ml", "demo-infer"))
	createPod(t, s.pending(t, "ml", "demo-mig"))
	// Only the commands use the ServiceAccount from here on.
	r.host.stop(15)

	from := time.Now()
	snap := runHost(t, "snapshot", "--config", r.hostConfig, "--cluster", "kubernetes")
	live := runHost(t, "explain", "--config", r.hostConfig, "--cluster", "kubernetes", "--pod", "ml/demo-infer", "--output", "json")
	liveMig := runHost(t, "explain", "--config", r.hostConfig, "--cluster", "kubernetes", "--pod", "ml/demo-mig")
	to := time.Now()

	file := filepath.Join(d.dir, "snapshot.yaml")
	if err := os.WriteFile(file, []byte(snap), 0o600); err != nil {
		t.Fatal(err)
	}
	offline := runHost(t, "explain", "--config", r.hostConfig, "--cluster", "file:"+file, "--pod", "ml/demo-infer", "--output", "json")
	offlineMig := runHost(t, "explain", "--config", r.hostConfig, "--cluster", "file:"+file, "--pod", "ml/demo-mig")
	if live != offline {
		t.Errorf("explain of ml/demo-infer differs\non the cluster:\n%s\non its snapshot:\n%s", live, offline)
	}
	if liveMig != offlineMig {
		t.Errorf("explain of ml/demo-mig differs\non the cluster:\n%s\non its snapshot:\n%s", liveMig, offlineMig)
	}

	events := auditEvents(t, serviceAccountUser, from, to)
	if len(events) == 0 {
		t.Fatal("the audit log holds no request of the commands")
	}
	for _, e := range events {
		switch e.Verb {
		case "get", "list", "watch":
		default:
			t.Errorf("an operator command wrote: %s", e)
		}
	}
}
