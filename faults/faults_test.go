// Package faults puts the shipped controller binary through faults on a real kube-apiserver and
// etcd, and asserts the state of the world afterwards: every rendered object present once, with
// the right content and owner; no object of another owner touched; status true; and how long
// recovery took. `make test` runs the quick cases; `make faults` (GANTRY_FAULTS=all) the rest.
// docs/reliability.md lists each fault, what holds, and the figures.
package faults_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
)

const controllerNS = "gantry-system"

var (
	env        *envtest.Environment
	k8s        client.Client
	bin        string // the controller's binary, built as the image ships it (hack/build.sh)
	kubeconfig string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "gantry-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "gantry")
	build := exec.Command(filepath.Join(testenv.Root(), "hack", "build.sh"), bin, "./cmd/gantry-controller") // as the image ships it
	build.Dir, build.Stderr = testenv.Root(), os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build gantry:", err)
		return 1
	}
	e, cfg, err := testenv.StartRestartable(filepath.Join(dir, "apiserver"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env = e
	defer env.Stop()
	user, err := env.AddUser(envtest.User{Name: "gantry", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	kc, err := user.KubeConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if k8s, err = client.New(cfg, client.Options{Scheme: controllers.NewScheme()}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNS}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// all reports whether the slow cases run too (make faults).
func all() bool { return os.Getenv("GANTRY_FAULTS") == "all" }

// process is one `gantry controller` run of the binary.
type process struct {
	t    *testing.T
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	// exited is when the process ended (after done is closed).
	exited time.Time
}

// startGantry runs `gantry controller` against the test's API server with the chart's
// defaults but for what a test on one machine needs (no fixed ports), plus args.
func startGantry(t *testing.T, name string, args ...string) *process {
	t.Helper()
	return startGantryIn(t, name, "", nil, args...)
}

// startGantryIn is startGantry with more environment variables and, when cgroup is a
// directory of the memory controller, inside that cgroup from its first instruction (a shell
// moves itself there, then execs the binary).
func startGantryIn(t *testing.T, name, cgroup string, env []string, args ...string) *process {
	t.Helper()
	p := &process{t: t, log: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"controller", "--kubeconfig", kubeconfig, "--controller-namespace", controllerNS,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0"}, args...)
	p.cmd = exec.Command(bin, args...)
	if cgroup != "" {
		p.cmd = exec.Command("sh", append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cgroup, bin}, args...)...)
	}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); p.exited = time.Now(); f.Close(); close(p.done) }()
	t.Cleanup(func() {
		p.signal(syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("%s's log:\n%s", name, p.tail(40))
		}
	})
	return p
}

func (p *process) signal(s syscall.Signal) {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Signal(s)
	}
}

// wait waits up to d for the process to end and reports whether it did.
func (p *process) wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	default:
	}
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// tail is the last n lines of the process's log.
func (p *process) tail(n int) string {
	f, err := os.Open(p.log)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		lines = append(lines, s.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// stacks sends SIGQUIT to a process that should have stopped, waits for the Go runtime's
// goroutine dump and returns it folded: each distinct stack of Gantry and controller-runtime
// frames once, with how many goroutines share it, so that a hang names where it waits.
func (p *process) stacks() string {
	p.signal(syscall.SIGQUIT)
	p.wait(10 * time.Second)
	b, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	text := string(b)
	i := strings.Index(text, "\ngoroutine ")
	if i < 0 {
		return "(no goroutine dump)"
	}
	count := map[string]int{}
	var order []string
	for _, g := range strings.Split(text[i+1:], "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		// "goroutine 12 [chan receive, 3 minutes]:" -> "[chan receive]"
		head := lines[0][strings.Index(lines[0], "["):]
		if c := strings.Index(head, ","); c > 0 {
			head = head[:c] + "]"
		}
		key := head
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "\t") && (strings.Contains(l, "gantry.dev/") || strings.Contains(l, "controller-runtime")) {
				key += "\n  " + l
			}
		}
		if key == head {
			continue
		}
		if count[key] == 0 {
			order = append(order, key)
		}
		count[key]++
	}
	var out strings.Builder
	for _, k := range order {
		fmt.Fprintf(&out, "%d× %s\n", count[k], k)
	}
	return out.String()
}

func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	testenv.Eventually(t, what, check)
}
