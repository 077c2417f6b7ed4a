package blueprints_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gantry.dev/gantry/internal/golden"
)

// TestHAProxyServesTheRoutes: the haproxy blueprint's configuration, as `gantry render` writes
// it for testdata/routes.in.yaml, run by the real haproxy, passes TLS connections through by
// SNI and forwards TCP as the TLSRoutes and TCPRoutes say. The oracle is haproxy itself and
// the backends it reaches: each backend answers with its name, over TLS for passthrough (so the
// TLS session is the backend's own, not haproxy's). Only the addresses change.
func TestHAProxyServesTheRoutes(t *testing.T) {
	bin := configServer(t, "haproxy")
	cfg := renderedFile(t, golden.Render(t, "haproxy/blueprint.yaml", "haproxy/testdata/routes.in.yaml"), "haproxy.cfg")

	backends := map[string]string{}
	for _, name := range []string{"db", "web", "pg", "pg-replica"} {
		backends[name] = backend(t, name, name == "db" || name == "web")
	}
	server := regexp.MustCompile(`'([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.cluster\.local:\d+'`)
	cfg = server.ReplaceAllStringFunc(cfg, func(m string) string { return backends[server.FindStringSubmatch(m)[1]] })
	ports := map[string]int{"443": freePort(t), "5432": freePort(t)}
	bind := regexp.MustCompile(`bind :(\d+)`)
	cfg = bind.ReplaceAllStringFunc(cfg, func(m string) string {
		return fmt.Sprintf("bind 127.0.0.1:%d", ports[bind.FindStringSubmatch(m)[1]])
	})
	cfg = strings.Replace(cfg, "log stdout format raw local0", "log stdout format raw local0 err", 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s\n%s", err, out, cfg)
	}
	cmd := exec.Command(bin, "-db", "-f", path)
	logs, _ := os.Create(filepath.Join(dir, "out.log"))
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	dial := func(port, sni string) (string, error) {
		addr := fmt.Sprintf("127.0.0.1:%d", ports[port])
		var conn net.Conn
		var err error
		if sni == "" {
			conn, err = net.DialTimeout("tcp", addr, 2*time.Second)
		} else {
			conn, err = tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", addr, &tls.Config{ServerName: sni, InsecureSkipVerify: true})
		}
		if err != nil {
			return "", err
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(2 * time.Second))
		b, err := io.ReadAll(conn)
		return string(b), err
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := dial("5432", ""); err == nil {
			break
		}
		if time.Now().After(deadline) {
			o, _ := os.ReadFile(filepath.Join(dir, "out.log"))
			t.Fatalf("haproxy did not start:\n%s\n%s", o, cfg)
		}
	}
	for _, tc := range []struct {
		port, sni string
		want      string // a backend's name (alternatives with |), or "" for no connection
	}{
		{"443", "db.example.com", "db"},    // team-a/db is older than team-b/db-too
		{"443", "shop.example.com", "web"}, // team-b/any's wildcard
		{"443", "a.b.example.com", "web"},  // a wildcard matches one or more labels
		{"443", "example.com", ""},         // no route's hostname
		{"443", "db.example.org", ""},      // nor this
		{"5432", "", "pg|pg-replica"},      // the TCPRoute
	} {
		got, err := dial(tc.port, tc.sni)
		if err != nil && tc.want != "" {
			t.Errorf("port %s, SNI %q: %v", tc.port, tc.sni, err)
			continue
		}
		if !strings.Contains("|"+tc.want+"|", "|"+got+"|") {
			t.Errorf("port %s, SNI %q: got %q, want %q", tc.port, tc.sni, got, tc.want)
		}
	}
}

// backend listens on a local port and answers every connection with its name, over TLS (with
// a certificate of its own) when tlsOn, and returns its address.
func backend(t *testing.T, name string, tlsOn bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if tlsOn {
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{selfSigned(t, name)}})
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { io.WriteString(c, name); c.Close() }()
		}
	}()
	return l.Addr().String()
}

func selfSigned(t *testing.T, name string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{name}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
