package blueprints_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gantry.dev/gantry/internal/golden"
	"gantry.dev/gantry/internal/yamltext"
	"sigs.k8s.io/yaml"
)

// TestNginxServesTheRoutes: the nginx blueprint's configuration, as `gantry render` writes it
// for testdata/routes.in.yaml, run by the real nginx, routes requests as Gateway API says the
// routes do. The oracle is nginx itself, fed each request: which backend answers, or which
// status. Only the addresses change: Services become local test backends, listeners local
// ports.
func TestNginxServesTheRoutes(t *testing.T) {
	bin := configServer(t, "nginx")
	conf := renderedFile(t, golden.Render(t, "nginx/blueprint.yaml", "nginx/testdata/routes.in.yaml"), "nginx.conf")

	// One backend per Service, answering with its name.
	backends := map[string]string{}
	for _, name := range []string{"cart", "cart-next", "checkout", "promo", "catalog", "canary", "pay", "promo-sale"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, name) }))
		t.Cleanup(srv.Close)
		backends[name] = strings.TrimPrefix(srv.URL, "http://")
	}
	upstream := regexp.MustCompile(`server "([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.cluster\.local:\d+"`)
	conf = upstream.ReplaceAllStringFunc(conf, func(m string) string {
		name := upstream.FindStringSubmatch(m)[1]
		return "server " + backends[name]
	})
	ports := map[string]int{"80": freePort(t), "8080": freePort(t)}
	listen := regexp.MustCompile(`listen (\d+)`)
	conf = listen.ReplaceAllStringFunc(conf, func(m string) string {
		return fmt.Sprintf("listen 127.0.0.1:%d", ports[listen.FindStringSubmatch(m)[1]])
	})
	dir := t.TempDir()
	conf = fmt.Sprintf("daemon off;\nmaster_process off;\npid %[1]s/nginx.pid;\nerror_log %[1]s/error.log warn;\n", dir) +
		strings.Replace(conf, "http {", fmt.Sprintf("http {\n  client_body_temp_path %[1]s/b;\n  proxy_temp_path %[1]s/p;\n  fastcgi_temp_path %[1]s/f;\n  uwsgi_temp_path %[1]s/u;\n  scgi_temp_path %[1]s/s;", dir), 1)
	conf = strings.Replace(conf, "access_log /dev/stdout;", "access_log off;", 1)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir+"/", "-c", path, "-e", filepath.Join(dir, "error.log"))
	logs, _ := os.Create(filepath.Join(dir, "out.log"))
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(port, host, path string, header ...string) (int, string, error) {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", ports[port], path), nil)
		req.Host = host
		if len(header) == 2 {
			req.Header.Set(header[0], header[1])
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), nil
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, _, err := get("80", "probe", "/"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			o, _ := os.ReadFile(filepath.Join(dir, "out.log"))
			t.Fatalf("nginx did not start:\n%s%s\n%s", b, o, conf)
		}
	}
	for _, tc := range []struct {
		port, host, path string
		header           []string
		want             string // a backend's name (alternatives with |), or a status
	}{
		{"80", "shop.example.com", "/cart", nil, "cart|cart-next"},
		{"80", "shop.example.com", "/cart/items", nil, "cart|cart-next"},
		{"80", "shop.example.com", "/cartx", nil, "catalog"}, // a path prefix matches whole segments; catalog takes any host, /
		{"80", "shop.example.com", "/checkout", nil, "checkout"},
		{"80", "shop.example.com", "/checkout/x", nil, "catalog"}, // Exact
		{"80", "shop.example.com", "/promo", nil, "catalog"},      // promo attached to the 8080 listener only
		{"80", "any.example.org", "/whatever", nil, "catalog"},
		{"8080", "shop.example.com", "/promo/x", nil, "promo"},
		{"8080", "shop.example.com", "/cart", nil, "cart|cart-next"}, // shop is older than promo
		{"8080", "shop.example.com", "/cart", []string{"x-canary", "1"}, "cart|cart-next"},
		{"8080", "shop.example.com", "/sale", nil, "500"}, // no ReferenceGrant for its backend
		{"8080", "shop.example.com", "/pay$now", nil, "404"},
		{"8080", "other.example.com", "/", nil, "404"},
	} {
		status, body, err := get(tc.port, tc.host, tc.path, tc.header...)
		if err != nil {
			t.Fatalf("%s %s%s: %v", tc.port, tc.host, tc.path, err)
		}
		got := body
		if status != 200 {
			got = fmt.Sprint(status)
		}
		if !strings.Contains("|"+tc.want+"|", "|"+got+"|") {
			t.Errorf("port %s, %s%s %v: got %s, want %s", tc.port, tc.host, tc.path, tc.header, got, tc.want)
		}
	}
}

// renderedFile is a file (a key of a ConfigMap's data) in `gantry render` output.
func renderedFile(t *testing.T, out []byte, file string) string {
	t.Helper()
	docs, _ := yamltext.SplitDocuments(string(out))
	for _, d := range docs {
		var o struct {
			Kind string            `json:"kind"`
			Data map[string]string `json:"data"`
		}
		if err := yaml.Unmarshal([]byte(d), &o); err == nil && o.Kind == "ConfigMap" && o.Data[file] != "" {
			return o.Data[file]
		}
	}
	t.Fatalf("no %s in:\n%s", file, out)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// configServer is the nginx or haproxy that hack/config-servers.sh installs.
func configServer(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/" + name); err == nil {
		return "/usr/sbin/" + name
	}
	if os.Getenv("GANTRY_SKIP_CONFIG_SERVERS") == "1" {
		t.Skipf("%s is not installed and GANTRY_SKIP_CONFIG_SERVERS=1", name)
	}
	t.Fatalf("%s is not installed: run hack/config-servers.sh (make test does), or set GANTRY_SKIP_CONFIG_SERVERS=1 to skip", name)
	return ""
}
