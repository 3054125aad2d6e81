package realcluster

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// process is a child the suite started (hami-scheduler, kube-scheduler),
// its output in a log file of the run's scratch folder.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

var (
	processesMu sync.Mutex
	processes   = map[*process]struct{}{}
)

// startProcess starts argv with env added to the suite's environment. When
// hostname is not empty the process runs in a UTS namespace of its own with
// that host name, as in a pod of that name (kube-scheduler's lease identity
// is "<hostname>_<uuid>").
func startProcess(t testing.TB, name string, env []string, hostname string, argv ...string) *process {
	t.Helper()
	logPath := filepath.Join(cluster.work, fmt.Sprintf("%s-%d.log", name, time.Now().UnixNano()))
	out, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	if hostname != "" {
		script := `hostname "$0" && exec "$@"`
		cmd = exec.Command("unshare", append([]string{"--uts", "sh", "-c", script, hostname}, argv...)...)
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		out.Close()
		close(p.done)
	}()
	processesMu.Lock()
	processes[p] = struct{}{}
	processesMu.Unlock()
	t.Cleanup(func() {
		p.stop(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("%s log: %s", name, p.log)
		}
	})
	return p
}

func (p *process) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop sends sig and waits up to 15 s for the exit, then kills.
func (p *process) stop(sig syscall.Signal) {
	if p.running() {
		_ = p.cmd.Process.Signal(sig)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
	processesMu.Lock()
	delete(processes, p)
	processesMu.Unlock()
}

func (p *process) kill() { p.stop(syscall.SIGKILL) }

func stopAllProcesses() {
	processesMu.Lock()
	all := make([]*process, 0, len(processes))
	for p := range processes {
		all = append(all, p)
	}
	processesMu.Unlock()
	for _, p := range all {
		p.stop(syscall.SIGTERM)
	}
}

func (p *process) tail() string {
	data, _ := os.ReadFile(p.log)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

// freePort asks the kernel for a loopback port that is free now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
