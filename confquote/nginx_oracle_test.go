package confquote

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nginxServer is one nginx configuration under test, in its own prefix folder.
type nginxServer struct {
	bin, dir string
	http     string // directives for the http block, e.g. a map
	server   string // directives for the server block: the locations
}

// conf returns the whole configuration, listening on port. It runs as one foreground process
// with every path it writes inside dir.
func (n *nginxServer) conf(port int) string {
	d := n.dir
	return fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 64; }
http {
access_log off;
client_body_temp_path %[1]s/client_body;
proxy_temp_path %[1]s/proxy;
fastcgi_temp_path %[1]s/fastcgi;
uwsgi_temp_path %[1]s/uwsgi;
scgi_temp_path %[1]s/scgi;
default_type application/octet-stream;
keepalive_requests 100000;
%[2]s
server {
listen 127.0.0.1:%[3]d;
location = %[5]s { return 200 %[6]s; }
%[4]s
}
}
`, d, n.http, port, n.server, readyPath, must(Nginx(d)))
}

// nginxHeaderLines is how many lines conf writes before the server block's directives, with
// http directives on one line.
const nginxHeaderLines = 19

// args returns nginx's command line, with extra flags (e.g. -t) first.
func (n *nginxServer) args(extra ...string) []string {
	return append(extra, "-p", n.dir+"/", "-c", filepath.Join(n.dir, "nginx.conf"), "-e", filepath.Join(n.dir, "error.log"))
}

// check writes the configuration and runs nginx -t on it. nginx -t binds the listening port
// too, so the configuration gets a free one (and another if it was taken meanwhile).
func (n *nginxServer) check(t *testing.T) (out string, ok bool) {
	t.Helper()
	for range 3 {
		writeFile(t, filepath.Join(n.dir, "nginx.conf"), n.conf(freePort(t)))
		if out, ok = runCheck(t, n.bin, n.args("-t")...); ok || !strings.Contains(out, "in use") {
			break
		}
	}
	return out, ok
}

// start serves the configuration and returns its port.
func (n *nginxServer) start(t *testing.T) int {
	t.Helper()
	write := func(port int) { writeFile(t, filepath.Join(n.dir, "nginx.conf"), n.conf(port)) }
	return serve(t, n.bin, write, n.dir, n.args()...)
}

// newNginx returns an empty configuration for the real nginx, or fails or skips the test when
// nginx is not installed.
func newNginx(t *testing.T) *nginxServer {
	bin := findBinary(t, "nginx")
	out, _ := exec.Command(bin, "-v").CombinedOutput()
	t.Logf("%s: %s", bin, strings.TrimSpace(string(out)))
	return &nginxServer{bin: bin, dir: t.TempDir()}
}

// nginxCorpus returns the oracle's inputs: the hostile ones, generated ones, random bytes and
// long strings, all of which Nginx must accept.
func nginxCorpus(r *rand.Rand) []string {
	var in []string
	for _, s := range hostileInputs {
		in = append(in, without(s, "\x00$"))
	}
	for range 1500 {
		in = append(in, without(randomInput(r, 30), "\x00$"))
	}
	for range 200 {
		in = append(in, without(randomBytes(r, 1+r.IntN(100)), "\x00$"))
	}
	for _, n := range []int{1000, 2046, 4000} {
		s := without(randomBytes(r, n), "\x00$")
		for nginxQuotedLen(s) > nginxMaxToken {
			s = s[:len(s)-1]
		}
		in = append(in, s, strings.Repeat("x", n))
	}
	return in
}

func TestNginxOracle(t *testing.T) {
	t.Parallel()
	n := newNginx(t)
	inputs := nginxCorpus(oracleRand(t))
	var locs strings.Builder
	headers := 0
	for i, in := range inputs {
		tok, err := Nginx(in)
		if err != nil {
			t.Fatalf("Nginx(%q): %v", in, err)
		}
		hdr := ""
		if headerSafe(in) {
			hdr, headers = " add_header X-T "+tok+" always;", headers+1
		}
		fmt.Fprintf(&locs, "location = /c/%d { return 200 %s;%s }\n", i, tok, hdr)
	}
	n.server = locs.String()
	if out, ok := n.check(t); !ok {
		i := configLine(out, "nginx.conf") - nginxHeaderLines - 1
		if i >= 0 && i < len(inputs) {
			t.Fatalf("nginx -t rejected the token for %q:\n%s", inputs[i], out)
		}
		t.Fatalf("nginx -t rejected the configuration:\n%s", out)
	}
	port := n.start(t)
	c := httpClient(t)
	for i, in := range inputs {
		code, body, h := get(t, c, port, fmt.Sprintf("/c/%d", i))
		if code != 200 || body != in {
			t.Errorf("nginx served %d %q for %q", code, body, in)
		}
		if headerSafe(in) && h.Get("X-T") != in {
			t.Errorf("nginx sent header %q for %q", h.Get("X-T"), in)
		}
	}
	t.Logf("nginx read back %d strings byte for byte as return bodies, %d of them also as add_header values", len(inputs), headers)
}

// TestNginxOracleLengthLimit checks that tokens of the longest length Nginx returns are read
// wherever they fall in nginx's 4096-byte read buffer, whether ";" or a space follows them, and
// that one byte more is refused by nginx itself.
func TestNginxOracleLengthLimit(t *testing.T) {
	t.Parallel()
	n := newNginx(t)
	r := oracleRand(t)
	// Spaces, not a comment: nginx's reader counts a comment as one parameter, limit included.
	pads := []int{0, 1, 2, 3, 7, 100, 1000, 2047, 2048, 3000, 4000, 4093, 4094, 4095}
	var locs strings.Builder
	var bodies []string
	header := strings.Repeat("h", nginxMaxToken-2)
	htok, _ := Nginx(header)
	for i, pad := range pads {
		body := longestNginxInput(r)
		tok, err := Nginx(body)
		if err != nil || len(tok) != nginxMaxToken {
			t.Fatalf("Nginx(%d bytes) = %d bytes, %v", len(body), len(tok), err)
		}
		bodies = append(bodies, body)
		fmt.Fprintf(&locs, "%s\nlocation = /c/%d {\nadd_header X-L %s always;\nreturn 200 %s;\n}\n", strings.Repeat(" ", pad), i, htok, tok)
	}
	n.server = locs.String()
	if out, ok := n.check(t); !ok {
		t.Fatalf("nginx -t rejected %d-byte tokens:\n%s", nginxMaxToken, out)
	}
	port := n.start(t)
	c := httpClient(t)
	for i, want := range bodies {
		code, body, h := get(t, c, port, fmt.Sprintf("/c/%d", i))
		if code != 200 || body != want || h.Get("X-L") != header {
			t.Errorf("padding %d: nginx served %d, a body of %d bytes (want %d), a header of %d bytes", pads[i], code, len(body), len(want), len(h.Get("X-L")))
		}
	}
	tooLong := `"` + strings.Repeat("h", nginxMaxToken-1) + `"`
	rejected := 0
	for _, pad := range pads {
		bad := &nginxServer{bin: n.bin, dir: t.TempDir()}
		bad.server = fmt.Sprintf("%s\nlocation / { add_header X-L %s always; return 200; }\n", strings.Repeat(" ", pad), tooLong)
		if out, ok := bad.check(t); !ok && strings.Contains(out, "too long parameter") {
			rejected++
		}
	}
	if rejected == 0 {
		t.Errorf("nginx accepted a %d-byte token followed by a space at every padding: the limit could be higher", len(tooLong))
	}
	t.Logf("%d-byte tokens read back at %d paddings; a %d-byte one is too long at %d of them", nginxMaxToken, len(pads), len(tooLong), rejected)
}

// longestNginxInput returns random bytes (no NUL or $) whose Nginx token is exactly
// nginxMaxToken bytes.
func longestNginxInput(r *rand.Rand) string {
	s := without(randomBytes(r, nginxMaxToken), "\x00$")
	for nginxQuotedLen(s) > nginxMaxToken {
		s = s[:len(s)-1]
	}
	return s + strings.Repeat("a", nginxMaxToken-nginxQuotedLen(s))
}

// TestNginxOracleRefusals shows that what Nginx refuses has no safe spelling: no way of writing
// "$host" is read back literally by return, and a NUL cuts strings that nginx compares as C
// strings.
func TestNginxOracleRefusals(t *testing.T) {
	t.Parallel()
	n := newNginx(t)
	var valid []string
	for _, cand := range []string{`"$host"`, `'$host'`, `$host`, `"\$host"`, `'\$host'`, `\$host`, `"$$host"`, `"\\$host"`, `"${host}"`, `"$""host"`} {
		try := &nginxServer{bin: n.bin, dir: t.TempDir(), server: "location / { return 200 " + cand + "; }"}
		if out, ok := try.check(t); ok {
			valid = append(valid, cand)
		} else {
			t.Logf("return 200 %s: rejected: %s", cand, firstLine(out))
		}
	}
	var locs strings.Builder
	for i, cand := range valid {
		fmt.Fprintf(&locs, "location = /d/%d { return 200 %s; }\n", i, cand)
	}
	n.server = locs.String()
	port := n.start(t)
	c := httpClient(t)
	for i, cand := range valid {
		_, body, _ := get(t, c, port, fmt.Sprintf("/d/%d", i))
		t.Logf("return 200 %s: served %q", cand, body)
		if body == "$host" {
			t.Errorf("return 200 %s serves a literal $host: Nginx could quote $", cand)
		}
	}

	nul := &nginxServer{bin: n.bin, dir: t.TempDir()}
	nul.http = "map $arg_k $v { \"default\x00x\" nul; default real; }"
	nul.server = "location / { return 200 $v; }"
	if out, ok := nul.check(t); ok || !strings.Contains(out, "duplicate default") {
		t.Errorf("nginx took the map key \"default\\x00x\" for something other than default (accepted: %v):\n%s", ok, out)
	}
}

// TestNginxOracleSecondLevel checks what Nginx's doc comment says does not hold: nginx still
// reads location modifiers and map key prefixes in a quoted string, and sends CR LF in header
// values as they are.
func TestNginxOracleSecondLevel(t *testing.T) {
	t.Parallel()
	n := newNginx(t)
	q := func(s string) string {
		tok, err := Nginx(s)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	n.http = "map $arg_k $v { " + q(`\bs`) + " hit; default miss; }"
	n.server = "location " + q("~^/re") + " { return 200 regex; }\n" +
		"location / { return 200 prefix; }\n" +
		"location = /map { return 200 $v; }\n" +
		"location = /split { add_header X-T " + q("a\r\nX-Evil: 1") + " always; return 200 split; }\n"
	if out, ok := n.check(t); !ok {
		t.Fatalf("nginx -t:\n%s", out)
	}
	port := n.start(t)
	c := httpClient(t)
	if _, body, _ := get(t, c, port, "/re-x"); body != "regex" {
		t.Errorf("location %s: /re-x served %q; the doc says the quoted ~ still makes a regex location", q("~^/re"), body)
	}
	if _, body, _ := get(t, c, port, "/map?k=bs"); body != "hit" {
		t.Errorf("map key %s: k=bs gave %q; the doc says nginx drops its leading backslash", q(`\bs`), body)
	}
	if _, _, h := get(t, c, port, "/split"); h.Get("X-Evil") != "1" {
		t.Errorf("add_header with CR LF: no X-Evil header (%q); the doc says nginx sends CR LF as they are", h)
	}
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
