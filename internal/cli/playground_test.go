package cli_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gantry.dev/gantry/internal/cli"
	"gantry.dev/gantry/internal/testenv"
)

// TestMain lets a test run this test binary as `gantry`: with GANTRY_AS_CLI set, it is the
// command, not the tests. A signal then reaches only the command, as it would a user's.
func TestMain(m *testing.M) {
	if os.Getenv("GANTRY_AS_CLI") != "" {
		os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestPlaygroundStopsCleanly is `make demo` and then Ctrl-C, as a newcomer meets it: the stop
// prints one line and nothing on stderr (it printed controller-runtime's stack dump for want
// of a logger), and the kubeconfig is gone.
func TestPlaygroundStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver and etcd")
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cmd := exec.Command(os.Args[0], "playground", "--kubeconfig", kubeconfig, filepath.Join(testenv.Root(), "samples", "defaults-vs-overrides"))
	cmd.Env = append(os.Environ(), "GANTRY_AS_CLI=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		out = append(out, sc.Text())
		if strings.HasPrefix(sc.Text(), "Press Ctrl-C") {
			break
		}
	}
	// controller-runtime prints its dump at the first log call 30 s after the process started
	// without a logger: run at least that long.
	time.Sleep(time.Until(started.Add(32 * time.Second)))
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("playground: %v\nstdout:\n%s\nstderr:\n%s", err, strings.Join(out, "\n"), stderr.String())
	}
	if last := out[len(out)-1]; !strings.HasPrefix(last, "Stopped:") {
		t.Errorf("last line %q, want the one line that says it stopped", last)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr after a clean stop:\n%s", stderr.String())
	}
	if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
		t.Errorf("kubeconfig left behind (stat: %v)", err)
	}
}
