package main

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/internal/testenv"
)

// The controller is measured as users run it: its binary as the image ships it
// (cmd/gantry-controller), in a process of its own, with its own defaults and the chart's
// environment (GOMEMLIMIT). Its requests reach the API server through a proxy in the harness that
// counts them; its CPU and peak RSS are read from /proc, its reconciles and heap from its own
// metrics endpoint.

// build builds the binary of pkg (./cmd/gantry or ./cmd/gantry-controller) into dir as it
// ships (hack/build.sh).
func build(dir, pkg string) (string, error) {
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command(filepath.Join(testenv.Root(), "hack", "build.sh"), bin, pkg)
	cmd.Dir = testenv.Root()
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	return bin, nil
}

// countingProxy serves HTTPS with HTTP/2 on a loopback port and forwards every request to the
// API server with the admin's credentials, counting it first. The controller's kubeconfig points
// at it; watches stream through (FlushInterval -1). TLS, because that is how a controller meets
// an API server in a cluster: client-go then multiplexes every request over one HTTP/2
// connection. Over plain HTTP it spoke HTTP/1.1, and with more requests in flight than its 25
// idle connections it dialled and closed connections all through a convergence (6% of the
// controller's CPU at N=4,000 went to dialling), which no cluster costs.
type countingProxy struct {
	srv *httptest.Server
	url string
	// ca is the PEM certificate clients must trust to reach the proxy.
	ca []byte
}

// restConfig is a client configuration for the proxy: no credentials (the proxy adds them)
// and no client-side rate limit, as gantry controller's default.
func (p *countingProxy) restConfig() *rest.Config {
	return &rest.Config{Host: p.url, QPS: -1, TLSClientConfig: rest.TLSClientConfig{CAData: p.ca}}
}

func startProxy(cfg *rest.Config, cnt *counter) (*countingProxy, error) {
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:     cnt.wrap(rt),
		FlushInterval: -1,
		// A watch cancelled when the controller stops is no error of the measurement.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	srv := httptest.NewUnstartedServer(rp)
	srv.EnableHTTP2 = true
	srv.Config.ReadHeaderTimeout = 10 * time.Second
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return &countingProxy{srv: srv, url: srv.URL, ca: ca}, nil
}

func (p *countingProxy) stop() {
	// httptest's Close waits for every request, and closes only idle connections: a watch of a
	// client still running would keep it waiting. The server's own Close ends them all.
	_ = p.srv.Config.Close()
	p.srv.Close()
}

// writeKubeconfig writes a kubeconfig for the proxy: no credentials, the proxy adds them.
func writeKubeconfig(dir string, p *countingProxy) (string, error) {
	c := clientcmdapi.NewConfig()
	c.Clusters["scale"] = &clientcmdapi.Cluster{Server: p.url, CertificateAuthorityData: p.ca}
	c.AuthInfos["scale"] = &clientcmdapi.AuthInfo{}
	c.Contexts["scale"] = &clientcmdapi.Context{Cluster: "scale", AuthInfo: "scale"}
	c.CurrentContext = "scale"
	path := filepath.Join(dir, "kubeconfig")
	return path, clientcmd.WriteToFile(*c, path)
}

// controllerProcess is one run of `gantry controller`.
type controllerProcess struct {
	cmd     *exec.Cmd
	metrics string // http://127.0.0.1:port/metrics
	pprof   string // http://127.0.0.1:port/debug/pprof
	log     string
	done    chan struct{}
	// peakHeap is the largest go_memstats_heap_alloc_bytes sampled so far.
	mu       sync.Mutex
	peakHeap float64
}

// chartEnv is the environment the chart gives the controller by default: GOMEMLIMIT and GOGC
// from values.yaml's goMemLimit and goGC, so that the garbage collector works as it does in a
// default install.
func chartEnv() ([]string, error) {
	b, err := os.ReadFile(filepath.Join(testenv.Root(), "charts", "gantry", "values.yaml"))
	if err != nil {
		return nil, err
	}
	var values struct {
		GoMemLimit string `json:"goMemLimit"`
		GoGC       string `json:"goGC"`
	}
	if err := yaml.Unmarshal(b, &values); err != nil {
		return nil, fmt.Errorf("charts/gantry/values.yaml: %w", err)
	}
	var env []string
	if values.GoMemLimit != "" {
		env = append(env, "GOMEMLIMIT="+values.GoMemLimit)
	}
	if values.GoGC != "" {
		env = append(env, "GOGC="+values.GoGC)
	}
	return env, nil
}

// startControllerProcess starts the binary against kubeconfig with the harness's client limits
// (the binary's defaults unless -qps/-burst say otherwise) and waits until its metrics answer.
func startControllerProcess(bin, kubeconfig, logDir string, run int) (*controllerProcess, error) {
	port, err := testenv.FreePort()
	if err != nil {
		return nil, err
	}
	pprofPort, err := testenv.FreePort()
	if err != nil {
		return nil, err
	}
	args := []string{"controller", "--kubeconfig", kubeconfig, "--controller-namespace", controllerNS,
		"--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", port), "--health-probe-bind-address", "0",
		"--pprof-bind-address", fmt.Sprintf("127.0.0.1:%d", pprofPort),
		"--kube-api-qps", strconv.FormatFloat(clientQPS, 'f', -1, 64)}
	if clientBurst > 0 {
		args = append(args, "--kube-api-burst", strconv.Itoa(clientBurst))
	}
	if gatewayWorkers > 0 {
		args = append(args, "--gateway-concurrency", strconv.Itoa(gatewayWorkers))
	}
	p := &controllerProcess{metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", port), pprof: fmt.Sprintf("http://127.0.0.1:%d/debug/pprof", pprofPort),
		log: filepath.Join(logDir, fmt.Sprintf("controller-%d.log", run)), done: make(chan struct{})}
	logFile, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(bin, args...)
	env, err := chartEnv()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	go func() { _ = p.cmd.Wait(); logFile.Close(); close(p.done) }()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := p.scrape(); err == nil {
			break
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("gantry controller exited: %s", p.tail())
		default:
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("gantry controller's metrics did not answer within a minute: %s", p.tail())
		}
		time.Sleep(100 * time.Millisecond)
	}
	go p.sampleHeap()
	return p, nil
}

// profile writes a CPU profile of the next seconds to file.
func (p *controllerProcess) profile(file string, seconds int) error {
	return p.fetchProfile(file, fmt.Sprintf("profile?seconds=%d", seconds))
}

// heapProfile writes a profile of the live heap, after a garbage collection, to file.
func (p *controllerProcess) heapProfile(file string) error {
	return p.fetchProfile(file, "heap?gc=1")
}

func (p *controllerProcess) fetchProfile(file, which string) error {
	resp, err := http.Get(fmt.Sprintf("%s/%s", p.pprof, which))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// stop sends SIGTERM, as a Deployment's rollout does, and waits for the process to end.
func (p *controllerProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *controllerProcess) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// scrape reads the controller's metrics: every sample's value by name and labels.
func (p *controllerProcess) scrape() (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.metrics, nil)
	if err != nil {
		return nil, err
	}
	// Uncompressed: the harness scrapes once a second, and compressing each answer was half of
	// a scrape's cost to the controller it measures (1.25 s of its 59 s of CPU in the first
	// 270 s of an N=10,000 convergence, docs/performance.md, fifteenth session). Prometheus
	// scrapes far less often.
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: %s", resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			key := name
			for _, l := range m.GetLabel() {
				key += fmt.Sprintf(",%s=%s", l.GetName(), l.GetValue())
			}
			switch {
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[key+",count"] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out, nil
}

// metric reads one sample, 0 when absent.
func (p *controllerProcess) metric(key string) float64 {
	m, err := p.scrape()
	if err != nil {
		return 0
	}
	return m[key]
}

// idle reports whether the Gateway controller has nothing queued and no reconcile under way.
func (p *controllerProcess) idle() bool {
	m, err := p.scrape()
	if err != nil {
		return false
	}
	workers, ok := m["controller_runtime_active_workers,controller=gateway"]
	if !ok {
		return false
	}
	queued := 0.0
	for k, v := range m {
		if strings.HasPrefix(k, "workqueue_depth,") && strings.Contains(k, ",controller=gateway") {
			queued += v
		}
	}
	return workers == 0 && queued == 0
}

// reconciles is how many Gateway reconciles this process finished.
func (p *controllerProcess) reconciles() int {
	return int(p.metric("gantry_reconcile_duration_seconds,controller=gateway,count"))
}

// checkRenders is the structure check's renders and remembered outputs in this process.
func (p *controllerProcess) checkRenders() (rendered, remembered int64) {
	m, err := p.scrape()
	if err != nil {
		return 0, 0
	}
	return int64(m["gantry_structure_check_renders_total,source=rendered"]), int64(m["gantry_structure_check_renders_total,source=remembered"])
}

// renders counts the controller's template renders: run, and answered from its memory.
type renders struct {
	Rendered   int64 `json:"rendered"`
	Remembered int64 `json:"remembered"`
}

func (r renders) since(before renders) renders {
	return renders{Rendered: r.Rendered - before.Rendered, Remembered: r.Remembered - before.Remembered}
}

func (r renders) String() string { return fmt.Sprintf("%d/%d", r.Rendered, r.Remembered) }

// templateRenders is this process's template renders so far.
func (p *controllerProcess) templateRenders() renders {
	m, err := p.scrape()
	if err != nil {
		return renders{}
	}
	return renders{Rendered: int64(m["gantry_template_renders_total,source=rendered"]), Remembered: int64(m["gantry_template_renders_total,source=remembered"])}
}

func (p *controllerProcess) sampleHeap() {
	for {
		select {
		case <-p.done:
			return
		case <-time.After(time.Second): // a scrape costs the controller CPU: not too often
		}
		if v := p.metric("go_memstats_heap_alloc_bytes"); v > 0 {
			p.mu.Lock()
			p.peakHeap = max(p.peakHeap, v)
			p.mu.Unlock()
		}
	}
}

func (p *controllerProcess) peakHeapMiB() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peakHeap / (1 << 20)
}

// cpuSeconds is the CPU time the process used so far (user and system), from /proc.
func (p *controllerProcess) cpuSeconds() (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: the fields after it follow the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	const ticks = 100 // USER_HZ, 100 on Linux
	return (utime + stime) / ticks, nil
}

// syscalls is how many read and write system calls the process made so far.
func (p *controllerProcess) syscalls() (reads, writes int64, err error) {
	return syscallsOf(p.cmd.Process.Pid)
}

// syscallsOf is a process's read and write system calls so far (syscr and syscw, its threads'
// together), from /proc.
func syscallsOf(pid int) (reads, writes int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, 0, err
	}
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ": ")
		if !ok || name != "syscr" && name != "syscw" {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc io %s: %w", name, err)
		}
		if name == "syscr" {
			reads = v
		} else {
			writes = v
		}
		found++
	}
	if found != 2 {
		return 0, 0, errors.New("no syscr and syscw in /proc io")
	}
	return reads, writes, nil
}

// peakRSSMiB is the process's peak resident set so far (VmHWM), from /proc.
func (p *controllerProcess) peakRSSMiB() (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}
