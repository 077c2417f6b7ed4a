package confquote

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The oracle tests run the real nginx and haproxy: they write a configuration with many quoted
// strings, check it with nginx -t / haproxy -c, serve it on a free loopback port and compare
// what comes back over HTTP with the original strings, byte for byte.

// skipEnv, set to 1, turns a missing nginx or haproxy binary into a skip instead of a failure.
const skipEnv = "GANTRY_SKIP_CONFIG_SERVERS"

// seedEnv overrides the seed of the generated oracle corpus (two unsigned integers: "1,2").
const seedEnv = "CONFQUOTE_ORACLE_SEED"

// findBinary returns the path of name, looked up on PATH and in the sbin folders, or fails
// (skips, with GANTRY_SKIP_CONFIG_SERVERS=1) the test.
func findBinary(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if os.Getenv(skipEnv) == "1" {
		t.Skipf("%s is not installed and %s=1: skipping the test against the real %s", name, skipEnv, name)
	}
	t.Fatalf("%s is not installed (not on PATH nor in /usr/sbin): run hack/config-servers.sh to install it, or set %s=1 to skip this test", name, skipEnv)
	return ""
}

// oracleRand returns the generator of the oracle corpus: a fixed seed, or the one in
// CONFQUOTE_ORACLE_SEED, logged so that a failure can be replayed.
func oracleRand(t *testing.T) *rand.Rand {
	t.Helper()
	s1, s2 := uint64(20240611), uint64(7)
	if v := os.Getenv(seedEnv); v != "" {
		a, b, _ := strings.Cut(v, ",")
		var err1, err2 error
		s1, err1 = strconv.ParseUint(a, 10, 64)
		s2, err2 = strconv.ParseUint(b, 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("%s=%q: want two unsigned integers, \"1,2\": %v", seedEnv, v, err)
		}
	}
	t.Logf("generated corpus seed: %s=%d,%d", seedEnv, s1, s2)
	return rand.New(rand.NewPCG(s1, s2))
}

// runCheck runs a configuration check (nginx -t, haproxy -c) and returns its combined output
// and whether it accepted the configuration.
func runCheck(t *testing.T, bin string, args ...string) (string, bool) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %s: %v", bin, err)
	}
	return string(out), err == nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// readyPath is the path at which every server under test answers with its own nonce, so that
// serve knows it reaches that server and not another process that took the port first.
const readyPath = "/__ready"

// serve starts a server whose configuration write(port) writes and whose command line is
// args, on a free loopback port, and returns the port once it answers readyPath with nonce. The
// process is killed when the test ends. A port taken between freePort and the server's bind is
// retried.
func serve(t *testing.T, bin string, write func(port int), nonce string, args ...string) int {
	t.Helper()
	var logs []string
	for range 5 {
		port := freePort(t)
		write(port)
		out, ok := startAndWait(t, bin, port, nonce, args)
		if ok {
			return port
		}
		logs = append(logs, out)
		if !strings.Contains(out, "in use") {
			break
		}
	}
	t.Fatalf("%s did not start:\n%s", bin, strings.Join(logs, "\n---\n"))
	return 0
}

// startAndWait starts bin with args, and waits until it answers readyPath on port with nonce,
// or exits. It returns the process's output (when it failed) and whether it is serving.
func startAndWait(t *testing.T, bin string, port int, nonce string, args []string) (string, bool) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "output.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	probe := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, readyPath)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		select {
		case <-done:
			out, _ := os.ReadFile(logPath)
			return string(out), false
		default:
		}
		if resp, err := probe.Get(url); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) == nonce {
				return "", true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, _ := os.ReadFile(logPath)
	return "timed out waiting for the server to listen\n" + string(out), false
}

// httpClient returns a client for one test's server, closed when the test ends.
func httpClient(t *testing.T) *http.Client {
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// get fetches http://127.0.0.1:port/path and returns the status, body and response headers.
func get(t *testing.T, c *http.Client, port int, path string) (int, string, http.Header) {
	t.Helper()
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", path, err)
	}
	return resp.StatusCode, string(body), resp.Header
}

// writeFile writes a configuration file, failing the test on error.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// configLine returns the 1-based line of the configuration that a check's output names
// ("...conf:12" for nginx, "[...cfg:12]" for haproxy), or 0.
func configLine(out, file string) int {
	_, rest, ok := strings.Cut(out, file+":")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end])
	return n
}
