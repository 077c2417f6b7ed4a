package faults_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// memoryCgroup makes a cgroup (v1 memory controller) limited to limit bytes, or skips the test
// where this machine does not let the test make one.
func memoryCgroup(t *testing.T, limit int64) string {
	t.Helper()
	dir := filepath.Join("/sys/fs/cgroup/memory", fmt.Sprintf("gantry-faults-%d", time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("no memory cgroup can be made here (%v): the case needs cgroup v1's memory controller, writable", err)
	}
	t.Cleanup(func() { _ = os.Remove(dir) })
	for file, v := range map[string]int64{"memory.limit_in_bytes": limit, "memory.swappiness": 0} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(v, 10)), 0o644); err != nil && file == "memory.limit_in_bytes" {
			t.Skipf("cannot limit the cgroup's memory: %v", err)
		}
	}
	return dir
}

func cgroupValue(t *testing.T, dir, file string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAtMemoryLimit: the controller converges Gateways inside a hard memory limit (a cgroup, as
// a container's) below what it used unconstrained, with GOMEMLIMIT at 90% of it as the chart
// sets it. It slows; it is not killed, and nothing is lost. First a controller converges 150
// Gateways in a cgroup with no real limit, measuring its peak; it stops, 150 more Gateways
// come, and a new controller converges all 300 inside 70% of that peak. make faults only.
func TestAtMemoryLimit(t *testing.T) {
	if !all() {
		t.Skip("slow: make faults runs it")
	}
	free := memoryCgroup(t, 4<<30)
	w := newWorld(t)
	w.add(t, 150)
	start := time.Now()
	p := startGantryIn(t, "unconstrained", free, nil)
	w.converged(t)
	natural := cgroupValue(t, free, "memory.max_usage_in_bytes")
	t.Logf("unconstrained: 150 Gateways converged in %v, peak usage %d MiB", time.Since(start).Round(10*time.Millisecond), natural>>20)
	p.signal(syscall.SIGTERM)
	if !p.wait(30 * time.Second) {
		t.Fatal("the unconstrained controller did not stop")
	}

	limit := natural * 7 / 10
	cg := memoryCgroup(t, limit)
	w.add(t, 150)
	start = time.Now()
	p = startGantryIn(t, "limited", cg, []string{fmt.Sprintf("GOMEMLIMIT=%d", limit*9/10)})
	w.converged(t)
	if p.wait(0) {
		t.Fatalf("the controller exited (killed at its memory limit?):\n%s", p.tail(20))
	}
	t.Logf("limited to %d MiB (GOMEMLIMIT %d MiB): 300 Gateways, 150 of them new, converged in %v; peak usage %d MiB, the limit hit %d times",
		limit>>20, limit*9/10>>20, time.Since(start).Round(10*time.Millisecond), cgroupValue(t, cg, "memory.max_usage_in_bytes")>>20, cgroupValue(t, cg, "memory.failcnt"))
}
