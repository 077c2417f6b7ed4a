package testenv

import (
	"testing"
	"time"
)

// Eventually polls check until it returns nil, failing the test with its last error. The
// deadline is generous for a loaded machine; a passing check returns at once.
func Eventually(t testing.TB, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}
