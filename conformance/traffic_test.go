package conformance_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/gateway-api/conformance/utils/grpc"
	"sigs.k8s.io/gateway-api/conformance/utils/roundtripper"
	"sigs.k8s.io/gateway-api/conformance/utils/suite"
)

// Envtest has no nodes and no network: nothing answers on a Gateway's address, so no request
// a test sends could be answered. Each test runs its status assertions and stops at its
// traffic, which is then skipped, and the test as a whole is marked skipped when it ends, so
// that the report never counts a test whose traffic part did not run as passed. The suite
// sends traffic three ways:
//
//   - HTTP, HTTPS and TLS-passthrough HTTPS requests through its RoundTripper, and gRPC calls
//     through its GRPCClient: noDataPlane stands in for both and skips the (sub)test at its
//     first request, after every status assertion that came before it has passed;
//   - TCP and UDP connections, and TLS handshakes expected to be rejected, that the test
//     dials itself (utils/tcp, utils/udp, utils/tls): nothing stands in for a dialer, so the
//     subtests that dial (rawTraffic) are kept from running with -test.skip (TestMain); the
//     status assertions outside them run.

// rawTraffic are, per test, the subtests (their names as the test gives them, "/" between
// levels) that dial the Gateway's address themselves, and what they send. A status assertion
// inside one of them does not run either; noted where it happens.
var rawTraffic = map[string]rawSubtests{
	"TCPRouteMultipleRoutesAttachment": {"TCP", []string{"Only the oldest TCPRoute should receive traffic"}},
	"TCPRouteParentRefAttachAll": {"TCP", []string{
		"Listener one routes to the attach-all backend", "Listener two routes to the attach-all backend",
		"Listener three routes to the attach-all backend", "Listener four routes to the attach-all backend",
	}},
	// Each subtest checks the route's parents, then dials: the parents are not checked.
	"TCPRouteParentRefPortAndSectionName": {"TCP", []string{
		"TCPRoute attaches to a TCP listener by port", "TCPRoute attaches to a TCP listener by sectionName",
		"TCPRoute attaches to a TCP listener by sectionName and port",
	}},
	"TCPRouteReferenceGrant":  {"TCP", []string{"TCP request should reach the cross-namespace backend"}},
	"TCPRouteWeightedRouting": {"TCP", []string{"TCP traffic should be distributed across the weighted backends and skip the zero-weighted backend"}},
	// The HTTPS requests go through the RoundTripper; the rejected handshakes are dialed.
	"TLSRouteHostnameIntersection": {"TLS handshake", []string{
		"TLSRoutes intersect with exact listener hostname/TLS request not matching hostnames intersection should not reach backend",
		"TLSRoutes intersect with more specific wildcard listener hostname/TLS request not matching hostnames intersection should not reach backend",
		"TLSRoutes intersect with less specific wildcard listener hostname/TLS request not matching hostnames intersection should not reach backend",
		"TLSRoutes intersect with empty listener hostname/TLS request not matching hostnames intersection should not reach backend",
	}},
	"TLSRouteInvalidBackendRefNonexistent":  {"TLS handshake", []string{"TLS connection to nonexistent backend should be rejected"}},
	"TLSRouteInvalidBackendRefUnknownKind":  {"TLS handshake", []string{"TLS connection to invalid backend with invalid Kind should be rejected"}},
	"TLSRouteMixedTerminationSameNamespace": {"TLS over TCP", []string{"Simple TLS request matching terminated TLSRoute should reach tcp-backend unencrypted", "Simple TLS request matching TLSRoute Passthrough should reach infra-backend"}},
	"TLSRouteSimpleSameNamespace":           {"TLS over TCP", []string{"Simple TLS request matching TLSRoute should reach infra-backend"}},
	"TLSRouteTerminateSimpleSameNamespace":  {"TLS over TCP", []string{"Simple TLS request matching terminated TLSRoute should reach tcp-backend with plain text"}},
	"UDPRouteMultipleRoutesAttachment":      {"UDP", []string{"Only the oldest UDPRoute should receive traffic"}},
	"UDPRouteParentRefAttachAllListeners": {"UDP", []string{
		"UDP echo via listener udp-1 reaches the backend", "UDP echo via listener udp-2 reaches the backend",
		"UDP echo via listener udp-3 reaches the backend",
	}},
	// Each subtest checks the route's parents, then dials: the parents are not checked.
	"UDPRouteParentRefPortAndSectionName": {"UDP", []string{
		"UDPRoute attaches to a UDP listener by port", "UDPRoute attaches to a UDP listener by sectionName",
		"UDPRoute attaches to a UDP listener by sectionName and port",
	}},
	"UDPRouteReferenceGrant": {"UDP", []string{"UDP echo request reaches the cross-namespace backend while the ReferenceGrant exists"}},
	// Its only subtest waits for the Gateway and the route to be accepted, then sends a DNS
	// query: the acceptance is not checked.
	"UDPRoute":                {"UDP (DNS)", []string{"Simple UDP request matching UDPRoute should reach coredns backend"}},
	"UDPRouteWeightedRouting": {"UDP", []string{"UDP traffic should be distributed across the weighted backends"}},
}

type rawSubtests struct {
	what     string // what they send
	subtests []string
}

// TestMain keeps the rawTraffic subtests from running: -test.skip, added to any the command
// line gives, makes t.Run return without running them.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := skipRawTraffic(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

func skipRawTraffic() error {
	var alts []string
	for test, raw := range rawTraffic {
		for _, sub := range raw.subtests {
			elems := []string{"TestConformance", test}
			elems = append(elems, strings.Split(sub, "/")...)
			for i, e := range elems {
				// The testing package matches each level's rewritten name (spaces become
				// underscores) against one "/"-separated element of the pattern.
				elems[i] = "^" + regexp.QuoteMeta(strings.ReplaceAll(e, " ", "_")) + "$"
			}
			alts = append(alts, strings.Join(elems, "/"))
		}
	}
	// The testing package takes the first alternative that matches, even partially: a
	// shallower one, which can match in full, goes first.
	sort.Slice(alts, func(i, j int) bool {
		if a, b := strings.Count(alts[i], "/"), strings.Count(alts[j], "/"); a != b {
			return a < b
		}
		return alts[i] < alts[j]
	})
	if cur := flag.Lookup("test.skip").Value.String(); cur != "" {
		alts = append([]string{cur}, alts...)
	}
	return flag.Set("test.skip", strings.Join(alts, "|"))
}

// noDataPlane stands in for the suite's HTTP client and gRPC client, and records which test
// needed traffic and what it sent first.
type noDataPlane struct {
	mu      sync.Mutex
	current string
	needed  map[string]string // test -> its first request
}

func (n *noDataPlane) record(what string) {
	n.mu.Lock()
	if _, ok := n.needed[n.current]; !ok {
		n.needed[n.current] = what
	}
	n.mu.Unlock()
}

func (n *noDataPlane) CaptureRoundTrip(req roundtripper.Request) (*roundtripper.CapturedRequest, *roundtripper.CapturedResponse, error) {
	what := orGET(req.Method) + " " + req.URL.String()
	if req.Host != "" {
		what += " (Host " + req.Host + ")"
	}
	if req.ServerName != "" && req.ServerName != req.Host {
		what += " (SNI " + req.ServerName + ")"
	}
	n.record(what)
	if req.T == nil {
		return nil, nil, fmt.Errorf("no data plane on envtest: cannot send %s", what)
	}
	req.T.Skipf("needs traffic, and envtest has no data plane: first request %s", what)
	return nil, nil, nil // not reached: Skipf ends the test's goroutine
}

// SendRPC is the gRPC client's: the suite calls it from the test's goroutine first (the
// weighted test's sampler, which calls it from others, comes after that first call).
func (n *noDataPlane) SendRPC(t *testing.T, address string, expected grpc.ExpectedResponse, _ time.Duration) (*grpc.Response, error) {
	what := "gRPC " + grpcMethod(expected) + " " + address
	if md := expected.RequestMetadata; md != nil && md.Authority != "" {
		what += " (authority " + md.Authority + ")"
	}
	n.record(what)
	if t == nil {
		return nil, fmt.Errorf("no data plane on envtest: cannot send %s", what)
	}
	t.Skipf("needs traffic, and envtest has no data plane: first request %s", what)
	return nil, nil // not reached
}

func (n *noDataPlane) Close() {}

func grpcMethod(e grpc.ExpectedResponse) string {
	switch {
	case e.EchoTwoRequest != nil:
		return "GrpcEcho/EchoTwo"
	case e.EchoThreeRequest != nil:
		return "GrpcEcho/EchoThree"
	}
	return "GrpcEcho/Echo"
}

func orGET(m string) string {
	if m == "" {
		return "GET"
	}
	return m
}

// wrap makes noDataPlane know which test runs, and skips the test at its end if any request
// of it was skipped or it has rawTraffic subtests (which did not run).
func (n *noDataPlane) wrap(ct suite.ConformanceTest) suite.ConformanceTest {
	body := ct.Test
	ct.Test = func(t *testing.T, s *suite.ConformanceTestSuite) {
		n.mu.Lock()
		n.current = ct.ShortName
		n.mu.Unlock()
		t.Cleanup(func() {
			if t.Skipped() || t.Failed() {
				return
			}
			if raw, ok := rawTraffic[ct.ShortName]; ok {
				// After any request through the stand-ins: that one came first if there was one.
				n.record(fmt.Sprintf("%s, dialed by the test (subtest %q)", raw.what, raw.subtests[0]))
			}
			if why := n.firstRequest(ct.ShortName); why != "" {
				t.Skipf("needs traffic, and envtest has no data plane: the status assertions before %s passed", why)
			}
		})
		body(t, s)
	}
	return ct
}

func (n *noDataPlane) firstRequest(test string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.needed[test]
}

// rawTrafficTests are the tests with rawTraffic subtests, sorted.
func rawTrafficTests() []string {
	var out []string
	for name := range rawTraffic {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
