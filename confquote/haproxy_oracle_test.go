package confquote

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// haproxyServer is one haproxy configuration under test, in its own folder.
type haproxyServer struct {
	bin, dir string
	global   string // extra lines for the global section
	rules    string // lines of the frontend, after its bind line
}

// conf returns the whole configuration, listening on port. zero-warning makes haproxy -c fail
// on warnings too, so that a word read in an unexpected way shows up even when it is legal.
func (h *haproxyServer) conf(port int) string {
	return fmt.Sprintf(`global
  zero-warning
  tune.bufsize 524288
%s
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend fe
  bind 127.0.0.1:%d
%s%s`, h.global, port, returnRule(readyPath, "string", must(HAProxy(h.dir)), ""), h.rules)
}

// haproxyHeaderLines is how many lines conf writes before the rules, with a one-line global.
const haproxyHeaderLines = 12

// path returns the configuration file's path.
func (h *haproxyServer) path() string { return filepath.Join(h.dir, "haproxy.cfg") }

// check writes the configuration and runs haproxy -c on it.
func (h *haproxyServer) check(t *testing.T) (string, bool) {
	t.Helper()
	writeFile(t, h.path(), h.conf(1))
	return runCheck(t, h.bin, "-c", "-f", h.path())
}

// start serves the configuration in the foreground and returns its port.
func (h *haproxyServer) start(t *testing.T) int {
	t.Helper()
	write := func(port int) { writeFile(t, h.path(), h.conf(port)) }
	return serve(t, h.bin, write, h.dir, "-db", "-f", h.path())
}

// newHAProxy returns an empty configuration for the real haproxy, or fails or skips the test
// when haproxy is not installed.
func newHAProxy(t *testing.T) *haproxyServer {
	bin := findBinary(t, "haproxy")
	out, _ := exec.Command(bin, "-v").CombinedOutput()
	t.Logf("%s: %s", bin, firstLine(string(out)))
	return &haproxyServer{bin: bin, dir: t.TempDir()}
}

// haproxyCorpus returns the oracle's inputs: the hostile ones, generated ones, random bytes and
// long strings, all of which HAProxy must accept.
func haproxyCorpus(r *rand.Rand) []string {
	var in []string
	add := func(s string) {
		if s = without(s, "\x00"); s != "" {
			in = append(in, s)
		}
	}
	for _, s := range hostileInputs {
		add(s)
	}
	for range 1500 {
		add(randomInput(r, 30))
	}
	for range 200 {
		add(randomBytes(r, 1+r.IntN(100)))
	}
	for _, n := range []int{5000, 100000} {
		add(randomBytes(r, n))
		add(strings.Repeat("x'%$\n", n/5))
	}
	return in
}

// returnRule returns an http-request return rule that answers path with body, a word from
// HAProxy (kind "string") or HAProxyLogFormat (kind "lf-string"), and an X-T header whose value
// is the word hdr unless it is empty.
func returnRule(path, kind, body, hdr string) string {
	if hdr != "" {
		hdr = " hdr X-T " + hdr
	}
	return fmt.Sprintf("  http-request return status 200 content-type application/octet-stream %s %s%s if { path %s }\n", kind, body, hdr, path)
}

func TestHAProxyOracle(t *testing.T) {
	t.Parallel()
	h := newHAProxy(t)
	inputs := haproxyCorpus(oracleRand(t))
	var rules strings.Builder
	headers := 0
	for i, in := range inputs {
		plain, err1 := HAProxy(in)
		lf, err2 := HAProxyLogFormat(in)
		if err1 != nil || err2 != nil {
			t.Fatalf("quoting %q: %v, %v", in, err1, err2)
		}
		hdr := ""
		if headerSafe(in) {
			hdr, headers = lf, headers+1
		}
		rules.WriteString(returnRule(fmt.Sprintf("/c/%d", i), "string", plain, ""))
		rules.WriteString(returnRule(fmt.Sprintf("/l/%d", i), "lf-string", lf, hdr))
	}
	h.rules = rules.String()
	if out, ok := h.check(t); !ok {
		i := (configLine(out, "haproxy.cfg") - haproxyHeaderLines - 1) / 2
		if i >= 0 && i < len(inputs) {
			t.Fatalf("haproxy -c rejected the words for %q:\n%s", inputs[i], out)
		}
		t.Fatalf("haproxy -c rejected the configuration:\n%s", out)
	}
	port := h.start(t)
	c := httpClient(t)
	for i, in := range inputs {
		if code, body, _ := get(t, c, port, fmt.Sprintf("/c/%d", i)); code != 200 || body != in {
			t.Errorf("string %s: haproxy served %d %.200q for %.200q", must(HAProxy(in)), code, body, in)
		}
		code, body, hd := get(t, c, port, fmt.Sprintf("/l/%d", i))
		if code != 200 || body != in {
			t.Errorf("lf-string: haproxy served %d %.200q for %.200q", code, body, in)
		}
		if headerSafe(in) && hd.Get("X-T") != in {
			t.Errorf("hdr: haproxy sent %q for %q", hd.Get("X-T"), in)
		}
	}
	t.Logf("haproxy read back %d strings byte for byte as return string bodies and as lf-string bodies, %d of them also as hdr values", len(inputs), headers)
}

// must returns s, ignoring err (for messages).
func must(s string, _ error) string { return s }

// TestHAProxyOracleRefusals shows that what HAProxy refuses is unsafe: an empty word silently
// ends an ACL's pattern list, and a NUL cuts a string.
func TestHAProxyOracleRefusals(t *testing.T) {
	t.Parallel()
	h := newHAProxy(t)
	h.rules = "  acl blocked path /x '' /admin\n" +
		"  http-request deny if blocked\n" +
		"  http-request return status 200 content-type text/plain string 'a'\\x00'b' if { path /nul }\n" +
		returnRule("/", "string", "ok", "")
	out, ok := h.check(t)
	if !ok {
		t.Logf("haproxy -c rejects the configuration (HAProxy 3.2 and later refuse empty words):\n%s", out)
		return
	}
	port := h.start(t)
	c := httpClient(t)
	if code, _, _ := get(t, c, port, "/admin"); code == 403 {
		t.Errorf("the ACL matched /admin after an empty pattern: an empty word would be safe")
	}
	if _, body, _ := get(t, c, port, "/nul"); body == "a\x00b" {
		t.Errorf("haproxy served a NUL: NUL would be representable")
	}
}

// TestHAProxyOracleSecondLevel checks what HAProxy's doc comment says does not hold: log-format
// arguments still read "%" (which HAProxyLogFormat covers), a quoted "}" still ends an
// anonymous ACL, and CR LF in a header value split it.
func TestHAProxyOracleSecondLevel(t *testing.T) {
	t.Parallel()
	h := newHAProxy(t)
	secret := "%[env(CONFQUOTE_SECRET)]"
	h.global = "  setenv CONFQUOTE_SECRET s3cret"
	h.rules = returnRule("/lf-plain", "lf-string", must(HAProxy(secret)), "") +
		returnRule("/lf", "lf-string", must(HAProxyLogFormat(secret)), "") +
		returnRule("/split", "string", "x", must(HAProxyLogFormat("a\r\nX-Evil: 1")))
	if out, ok := h.check(t); !ok {
		t.Fatalf("haproxy -c:\n%s", out)
	}
	port := h.start(t)
	c := httpClient(t)
	if _, body, _ := get(t, c, port, "/lf-plain"); body != "s3cret" {
		t.Errorf("lf-string %s served %q; the doc says HAProxy's word still expands %% sample expressions", must(HAProxy(secret)), body)
	}
	if _, body, _ := get(t, c, port, "/lf"); body != secret {
		t.Errorf("lf-string %s served %q, want %q", must(HAProxyLogFormat(secret)), body, secret)
	}
	if _, _, hd := get(t, c, port, "/split"); hd.Get("X-Evil") != "1" {
		t.Errorf("hdr with CR LF: no X-Evil header (%q); the doc says haproxy sends CR LF as they are", hd)
	}

	acl := &haproxyServer{bin: h.bin, dir: t.TempDir()}
	acl.rules = "  http-request deny if { path " + must(HAProxy("}")) + " }\n"
	if out, ok := acl.check(t); ok || !strings.Contains(out, "no such ACL") {
		t.Errorf("a quoted } in an anonymous ACL: haproxy -c accepted %v; the doc says it ends the ACL:\n%s", ok, out)
	}
}
