// Package realcluster drives hami-scheduler with a real kube-apiserver,
// etcd and kube-scheduler on loopback (scripts/kube-control-plane.sh), set
// up the way the Helm chart deploys it. README.md beside this file says how
// to run it.
package realcluster

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// env is what TestMain set up: the control plane and the builds under test.
type env struct {
	repo      string // the repository's root
	build     string // the CMake build folder with bin/hami-scheduler and plugins/
	helm      string // the pinned Helm binary
	kubeBin   string // etcd, kube-apiserver, kube-scheduler
	kubeDir   string // the control plane's state, certificates and logs
	apiServer string // https://127.0.0.1:PORT
	caFile    string // the API server's CA
	admin     *rest.Config
	client    kubernetes.Interface
	dynamic   dynamic.Interface
	work      string // scratch folder of this run
}

var cluster env

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if err := setUp(); err != nil {
		fmt.Fprintln(os.Stderr, "realcluster: set-up failed:", err)
		tearDown()
		return 1
	}
	code := m.Run()
	tearDown()
	return code
}

func mustEnv(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func setUp() error {
	repo, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	cluster.repo = repo
	cluster.build = mustEnv("HAMI_BUILD_DIR", filepath.Join(repo, "build", "release"))
	cluster.helm = mustEnv("HAMI_HELM", filepath.Join(cluster.build, "tools", "helm"))
	for _, f := range []string{filepath.Join(cluster.build, "bin", "hami-scheduler"), cluster.helm} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%s is missing (tests/realcluster/run.sh builds it): %w", f, err)
		}
	}
	cluster.work, err = os.MkdirTemp("", "hami-realcluster-")
	if err != nil {
		return err
	}
	cluster.kubeDir = filepath.Join(cluster.work, "control-plane")
	script := filepath.Join(repo, "scripts", "kube-control-plane.sh")
	start := exec.Command("bash", script, "start", cluster.kubeDir)
	start.Stdout, start.Stderr = os.Stderr, os.Stderr
	if err := start.Run(); err != nil {
		return fmt.Errorf("starting the control plane: %w", err)
	}
	vars, err := readEnvFile(filepath.Join(cluster.kubeDir, "env"))
	if err != nil {
		return err
	}
	cluster.kubeBin, cluster.apiServer, cluster.caFile = vars["KUBE_BIN"], vars["KUBE_APISERVER"], vars["KUBE_CA"]
	cluster.admin, err = clientcmd.BuildConfigFromFlags("", vars["KUBECONFIG"])
	if err != nil {
		return err
	}
	cluster.admin.QPS, cluster.admin.Burst = 200, 400
	cluster.admin.UserAgent = "realcluster-tests"
	if cluster.client, err = kubernetes.NewForConfig(cluster.admin); err != nil {
		return err
	}
	if cluster.dynamic, err = dynamic.NewForConfig(cluster.admin); err != nil {
		return err
	}
	return waitForDefaultObjects()
}

// The API server's bootstrap makes the system namespaces and the built-in
// RBAC roles shortly after /readyz: wait for what the tests bind to.
func waitForDefaultObjects() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		_, errNs := cluster.client.CoreV1().Namespaces().Get(ctx, "kube-system", getOpts)
		_, errRole := cluster.client.RbacV1().ClusterRoles().Get(ctx, "system:kube-scheduler", getOpts)
		_, errPc := cluster.client.SchedulingV1().PriorityClasses().Get(ctx, "system-cluster-critical", getOpts)
		if errNs == nil && errRole == nil && errPc == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the API server did not make its default objects: %v %v %v", errNs, errRole, errPc)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func tearDown() {
	stopAllProcesses()
	if cluster.kubeDir != "" {
		stop := exec.Command("bash", filepath.Join(cluster.repo, "scripts", "kube-control-plane.sh"), "stop", cluster.kubeDir)
		stop.Stdout, stop.Stderr = os.Stderr, os.Stderr
		_ = stop.Run()
	}
	if cluster.work == "" {
		return
	}
	if keep := os.Getenv("HAMI_REALCLUSTER_KEEP"); keep != "" {
		fmt.Fprintln(os.Stderr, "realcluster: logs and state kept in", cluster.work)
		return
	}
	_ = os.RemoveAll(cluster.work)
}

func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	vars := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), "="); ok {
			vars[k] = v
		}
	}
	return vars, s.Err()
}
