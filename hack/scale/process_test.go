package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSyscallsCountsThisProcess: the harness reads the controller's system calls from /proc;
// read here for this process, around reads and writes it makes itself.
func TestSyscallsCountsThisProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	r0, w0, err := syscallsOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	r1, w1, err := syscallsOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Reading /proc itself is a read too, so only a lower bound holds.
	if r1-r0 < 10 || w1-w0 < 10 {
		t.Errorf("after 10 reads and 10 writes: %d more reads, %d more writes; want at least 10 each", r1-r0, w1-w0)
	}
}
