package faults_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"gantry.dev/gantry/internal/testenv"
)

// faultProxy stands between the controller and the API server, as the network and the API
// server's front do in a cluster, and can fail as they do: go down (connections refused, every
// open connection cut) and come back on the same address, or expire every watch (410 Gone, as
// an API server does when a watch's resourceVersion is older than it keeps).
type faultProxy struct {
	t       *testing.T
	addr    string
	cert    tls.Certificate
	ca      []byte
	handler http.Handler

	mu  sync.Mutex
	srv *http.Server

	expired atomic.Bool
	// deleteDelay holds each DELETE this long before it goes on (nanoseconds); deletes counts
	// the DELETEs that went on.
	deleteDelay, deletes atomic.Int64
	// writes counts the requests that reached the API server through the proxy and could
	// change it (any method but GET, HEAD and OPTIONS).
	writes atomic.Int64
	// gone counts the watches answered with 410 Gone.
	gone atomic.Int64
	// watches cancels the watches in flight.
	watchMu sync.Mutex
	watches map[*http.Request]context.CancelFunc
}

func startFaultProxy(t *testing.T) *faultProxy {
	t.Helper()
	cert, ca := servingCert(t)
	rt, err := rest.TransportFor(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(env.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{t: t, cert: cert, ca: ca, watches: map[*http.Request]context.CancelFunc{}}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, Transport: rt, FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }}
	p.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			p.writes.Add(1)
		}
		if r.URL.Query().Get("watch") != "true" {
			if r.Method == http.MethodDelete {
				time.Sleep(time.Duration(p.deleteDelay.Load()))
				p.deletes.Add(1)
			}
			rp.ServeHTTP(w, r)
			return
		}
		if p.expired.Load() {
			p.gone.Add(1)
			// What an API server answers a watch from a resourceVersion it no longer keeps.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}}` + "\n"))
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		p.watchMu.Lock()
		p.watches[r] = cancel
		p.watchMu.Unlock()
		defer func() {
			p.watchMu.Lock()
			delete(p.watches, r)
			p.watchMu.Unlock()
			cancel()
		}()
		rp.ServeHTTP(w, r.WithContext(ctx))
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = l.Addr().String()
	p.serve(l)
	t.Cleanup(p.down)
	return p
}

// servingCert is a serving certificate for 127.0.0.1 and the CA bundle that trusts it.
func servingCert(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	dir := t.TempDir()
	ca, err := testenv.ServingCert(dir)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	return cert, ca
}

func (p *faultProxy) serve(l net.Listener) {
	srv := &http.Server{Handler: p.handler, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{p.cert}, NextProtos: []string{"h2", "http/1.1"}},
		ErrorLog:  nil}
	p.mu.Lock()
	p.srv = srv
	p.mu.Unlock()
	go func() { _ = srv.ServeTLS(l, "", "") }()
}

// down closes the listener and every connection: the API server is unreachable.
func (p *faultProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil {
		_ = p.srv.Close()
		p.srv = nil
	}
}

// up listens again on the same address.
func (p *faultProxy) up() {
	p.t.Helper()
	var l net.Listener
	var err error
	for range 50 { // the port was just closed; the kernel may hold it a moment
		if l, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("listen on %s again: %v", p.addr, err)
	}
	p.serve(l)
}

// expire ends every watch in flight and answers new ones with 410 Gone for d: every informer
// must list again.
func (p *faultProxy) expire(d time.Duration) {
	p.expired.Store(true)
	p.watchMu.Lock()
	for _, cancel := range p.watches {
		cancel()
	}
	p.watchMu.Unlock()
	time.Sleep(d)
	p.expired.Store(false)
}

// kubeconfig is a kubeconfig for the proxy: no credentials, the proxy adds the admin's.
func (p *faultProxy) kubeconfig() string {
	p.t.Helper()
	c := clientcmdapi.NewConfig()
	c.Clusters["faults"] = &clientcmdapi.Cluster{Server: "https://" + p.addr, CertificateAuthorityData: p.ca}
	c.AuthInfos["faults"] = &clientcmdapi.AuthInfo{}
	c.Contexts["faults"] = &clientcmdapi.Context{Cluster: "faults", AuthInfo: "faults"}
	c.CurrentContext = "faults"
	path := filepath.Join(p.t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*c, path); err != nil {
		p.t.Fatal(err)
	}
	return path
}
