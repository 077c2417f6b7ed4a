package confquote

import (
	"strings"
	"testing"
)

// The fuzz targets check the pure properties (refused exactly when the language cannot carry
// the string; otherwise one word that the reader models turn back into the input, with no byte
// that ends a line). Their seed corpus, hostileInputs, runs as part of go test; the oracle tests
// check the same functions against the real nginx and haproxy.

func FuzzNginx(f *testing.F) {
	for _, in := range hostileInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkNginx(t, in)
		checkErrorShape(t, "nginx", in, Nginx)
	})
}

func FuzzHAProxy(f *testing.F) {
	for _, in := range hostileInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkHAProxy(t, in, HAProxy, in)
		checkErrorShape(t, "haproxy", in, HAProxy)
	})
}

func FuzzHAProxyLogFormat(f *testing.F) {
	for _, in := range hostileInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkHAProxy(t, in, HAProxyLogFormat, strings.ReplaceAll(in, "%", "%%"))
		if got, err := HAProxyLogFormat(in); err == nil && strings.Count(got, "%")%2 != 0 {
			t.Errorf("HAProxyLogFormat(%q) = %q has an odd number of %%", in, got)
		}
		checkErrorShape(t, "haproxy", in, HAProxyLogFormat)
	})
}

// checkErrorShape checks that a refusal is an *Error whose offset points at the offending byte.
func checkErrorShape(t *testing.T, lang, in string, quote func(string) (string, error)) {
	t.Helper()
	got, err := quote(in)
	if err == nil {
		return
	}
	qe, ok := err.(*Error)
	if !ok || got != "" || qe.Language != lang || !strings.HasPrefix(err.Error(), lang+": cannot quote ") {
		t.Fatalf("quote(%q) = %q, %#v", in, got, err)
	}
	if qe.Offset >= 0 && (qe.Offset >= len(in) || strings.IndexByte("\x00$", in[qe.Offset]) < 0) {
		t.Errorf("quote(%q): offset %d does not point at a NUL or $", in, qe.Offset)
	}
	if qe.Offset >= 0 && strings.IndexAny(in[:qe.Offset], "\x00$") >= 0 && lang == "nginx" {
		t.Errorf("quote(%q): offset %d is not the first offending byte", in, qe.Offset)
	}
}
