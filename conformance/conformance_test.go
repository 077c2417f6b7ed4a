package conformance_test

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1alpha2 "sigs.k8s.io/gateway-api/apis/v1alpha2"
	gwv1alpha3 "sigs.k8s.io/gateway-api/apis/v1alpha3"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	xv1alpha1 "sigs.k8s.io/gateway-api/apisx/v1alpha1"
	gwconformance "sigs.k8s.io/gateway-api/conformance"
	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
	"sigs.k8s.io/gateway-api/conformance/tests"
	"sigs.k8s.io/gateway-api/conformance/utils/config"
	"sigs.k8s.io/gateway-api/conformance/utils/roundtripper"
	"sigs.k8s.io/gateway-api/conformance/utils/suite"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/manifests"
)

var (
	full    = flag.Bool("conformance.full", false, "run every test of the GATEWAY-HTTP profile, not only the core status tests")
	report  = flag.String("conformance.report", "", "write the GEP-1709 report to this file, and what was skipped and why next to it (<name>-skipped.md)")
	version = flag.String("conformance.version", "dev", "Gantry's version, for the report")
	only    = flag.String("conformance.run", "", "run only this test (its short name), for debugging")
)

const className = "gantry-conformance"

// coreTests run in `make test`: the core Gateway and HTTPRoute status tests and the
// ListenerSet ones (none sends traffic), so that a regression fails CI. `make conformance`
// runs everything.
var coreTests = []string{
	"GatewayClassObservedGenerationBump",
	"GatewayInfrastructureMetadata",
	"GatewayInvalidRouteKind",
	"GatewayInvalidParametersRef",
	"GatewayInvalidTLSConfiguration",
	"GatewayListenerUnsupportedProtocol",
	"GatewayModifyListeners",
	"GatewayObservedGenerationBump",
	"GatewaySecretInvalidReferenceGrant",
	"GatewaySecretMissingReferenceGrant",
	"GatewaySecretReferenceGrantAllInNamespace",
	"GatewaySecretReferenceGrantSpecific",
	"GatewayWithAttachedRoutes",
	"HTTPRouteInvalidBackendRefUnknownKind",
	"HTTPRouteInvalidCrossNamespaceBackendRef",
	"HTTPRouteInvalidCrossNamespaceParentRef",
	"HTTPRouteInvalidNonExistentBackendRef",
	"HTTPRouteInvalidParentRefNotMatchingSectionName",
	"HTTPRouteInvalidReferenceGrant",
	"HTTPRouteObservedGenerationBump",
	"HTTPRoutePartiallyInvalidViaInvalidReferenceGrant",
	"ListenerSetAllowedNamespaceNone",
	"ListenerSetAllowedNamespaceSame",
	"ListenerSetAllowedNamespaceSelector",
	"ListenerSetDefaultNotAllowed",
	"ListenerSetHostnameConflict",
	"ListenerSetProtocolConflict",
	"ListenerSetReferenceGrant",
	"ListenerSetRouteStatusScopedToParentRef",
}

// skipByName are tests that cannot run here at all, each with the reason the report gives.
// Tests that send traffic are not listed: they run up to their first request and are skipped
// there (noDataPlane).
var skipByName = map[string]string{}

func TestConformance(t *testing.T) {
	env, cfg, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	level := zapcore.ErrorLevel
	if testing.Verbose() && *only != "" {
		level = zapcore.InfoLevel
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.Level(level)))

	scheme := controllers.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{gwv1beta1.Install, gwv1alpha2.Install, gwv1alpha3.Install, xv1alpha1.Install, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gantry-system"}}); err != nil {
		t.Fatal(err)
	}
	stop, err := controllers.Start(cfg, controllers.ManagerOptions{MetricsAddress: "0"}, controllers.Options{ControllerNamespace: "gantry-system"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			// A manager that outlives its 30 s grace period is not a conformance failure (the
			// controllers suite reports it the same way), but which runnable did not stop is
			// in the goroutines still running.
			fmt.Fprintln(os.Stderr, "conformance: stopping the controller:", err)
			_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		}
	})
	applyBlueprint(t, c)
	waitForFeatures(t, c)
	kctx, stopKubelet := context.WithCancel(context.Background())
	defer stopKubelet()
	go standInKubelet(kctx, t, c)

	selected := selectTests(t)
	traffic := &noDataPlane{needed: map[string]string{}}
	for i := range selected {
		selected[i] = traffic.wrap(selected[i])
	}

	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	timeouts := config.DefaultTimeoutConfig()
	// Nothing answers requests: waiting for consistent responses would only add minutes.
	timeouts.MaxTimeToConsistency, timeouts.RequestTimeout = time.Second, time.Second
	opts := suite.ConformanceOptions{
		ConfigurableOptions: suite.ConfigurableOptions{
			GatewayClassName:     className,
			CleanupBaseResources: true,
			CleanupTestResources: true,
			// No SupportedFeatures: the suite reads them from the class's status.supportedFeatures,
			// as it would from any implementation's.
			TimeoutConfig:        timeouts,
			SkipTests:            skipped(),
			DisableParallelTests: true, // the roundtripper attributes a request to the one test running
			RunTest:              *only,
			Mode:                 "default",
			Implementation: confv1.Implementation{
				Organization: "gantry.dev",
				Project:      "gantry",
				URL:          "https://gantry.dev",
				Version:      *version,
				Contact:      []string{"https://gantry.dev/issues"},
			},
			ConformanceProfiles: []suite.ConformanceProfileName{suite.GatewayHTTPConformanceProfileName},
		},
		Client:        c,
		ClientOptions: client.Options{Scheme: scheme},
		Clientset:     cs,
		RestConfig:    rest.CopyConfig(cfg),
		RoundTripper:  traffic,
		Hook: func(st *testing.T, ct suite.ConformanceTest, _ *suite.ConformanceTestSuite) {
			// The core tests guard Gantry's status: one skipped before its first request (a
			// feature the class stopped claiming, say) no longer guards anything.
			if !*full && *only == "" && st.Skipped() && traffic.firstRequest(ct.ShortName) == "" {
				t.Errorf("core test %s was skipped before any request; make test must run its status part", ct.ShortName)
			}
		},
		ManifestFS: []fs.FS{&gwconformance.Manifests},
	}
	s, err := suite.NewConformanceTestSuite(opts)
	if err != nil {
		t.Fatal(err)
	}
	if *report != "" {
		// The suite counts itself running until a cleanup of this test: the report can only be
		// written in a cleanup registered before that one.
		t.Cleanup(func() { writeReport(t, s, traffic, selected) })
	}
	s.Setup(t, selected)
	if err := s.Run(t, selected); err != nil {
		t.Fatal(err)
	}
}

// selectTests picks the core status tests, or with -conformance.full every test.
func selectTests(t *testing.T) []suite.ConformanceTest {
	if *full || *only != "" {
		return slices.Clone(tests.ConformanceTests)
	}
	var out []suite.ConformanceTest
	for _, ct := range tests.ConformanceTests {
		if slices.Contains(coreTests, ct.ShortName) {
			out = append(out, ct)
		}
	}
	if len(out) != len(coreTests) {
		t.Fatalf("%d of the %d core tests exist in this version of the suite: update coreTests", len(out), len(coreTests))
	}
	return out
}

func skipped() []string {
	var out []string
	for name := range skipByName {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// applyBlueprint creates the harness's blueprint and GatewayClass (blueprint.yaml).
func applyBlueprint(t *testing.T, c client.Client) {
	t.Helper()
	set, err := manifests.Load([]string{filepath.Join(testenv.Root(), "conformance", "blueprint.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, bp := range set.Blueprints {
		if err := c.Create(t.Context(), bp); err != nil {
			t.Fatal(err)
		}
	}
	for _, gc := range set.Classes {
		if err := c.Create(t.Context(), gc); err != nil {
			t.Fatal(err)
		}
	}
}

// waitForFeatures waits for the class to publish its supported features, which the suite reads
// when it starts.
func waitForFeatures(t *testing.T, c client.Client) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		class := &gwv1.GatewayClass{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: className}, class); err == nil && len(class.Status.SupportedFeatures) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GatewayClass %s published no status.supportedFeatures within 30s", className)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// noDataPlane stands in for the suite's HTTP client. Envtest has no nodes and no network, so
// no request could be answered: the first request a test sends skips it, after every status
// assertion that came before the request has passed. A request the suite sends from a
// subtest skips that subtest, and the test as a whole is marked skipped when it ends, so that
// the report never counts a test whose traffic part did not run as passed.
type noDataPlane struct {
	mu      sync.Mutex
	current string
	needed  map[string]string // test -> its first request
}

func (n *noDataPlane) CaptureRoundTrip(req roundtripper.Request) (*roundtripper.CapturedRequest, *roundtripper.CapturedResponse, error) {
	what := orGET(req.Method) + " " + req.URL.String()
	if req.Host != "" {
		what += " (Host " + req.Host + ")"
	}
	n.mu.Lock()
	if _, ok := n.needed[n.current]; !ok {
		n.needed[n.current] = what
	}
	n.mu.Unlock()
	if req.T == nil {
		return nil, nil, fmt.Errorf("no data plane on envtest: cannot send %s", what)
	}
	req.T.Skipf("needs traffic, and envtest has no data plane: first request %s", what)
	return nil, nil, nil // not reached: Skipf ends the test's goroutine
}

func orGET(m string) string {
	if m == "" {
		return "GET"
	}
	return m
}

// wrap makes the roundtripper know which test runs, and skips the test at its end if any
// request of it was skipped.
func (n *noDataPlane) wrap(ct suite.ConformanceTest) suite.ConformanceTest {
	body := ct.Test
	ct.Test = func(t *testing.T, s *suite.ConformanceTestSuite) {
		n.mu.Lock()
		n.current = ct.ShortName
		n.mu.Unlock()
		t.Cleanup(func() {
			if why := n.firstRequest(ct.ShortName); why != "" && !t.Skipped() && !t.Failed() {
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

// writeReport writes the suite's GEP-1709 report and, next to it, what was skipped and why
// (the report lists skipped tests without reasons).
func writeReport(t *testing.T, s *suite.ConformanceTestSuite, traffic *noDataPlane, ran []suite.ConformanceTest) {
	t.Helper()
	r, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := yaml.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(*report), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*report, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Skipped conformance tests\n\nWritten by `make conformance` with %s (%s). Tests of the GATEWAY-HTTP\n", filepath.Base(*report), r.GatewayAPIVersion)
	fmt.Fprintf(&b, "profile that did not run to their end on envtest, and why. Tests of extended features Gantry\ndoes not claim (its GatewayClass's status.supportedFeatures) did not run and are not listed.\n\n")
	fmt.Fprintf(&b, "## Need traffic\n\nEnvtest has no data plane. These tests ran up to their first request, with every status\nassertion before it, and were skipped there.\n\n| test | first request |\n|---|---|\n")
	for _, ct := range ran {
		if why := traffic.firstRequest(ct.ShortName); why != "" {
			fmt.Fprintf(&b, "| %s | `%s` |\n", ct.ShortName, why)
		}
	}
	if len(skipByName) > 0 {
		fmt.Fprintf(&b, "\n## Skipped by name\n\n| test | why |\n|---|---|\n")
		for _, name := range skipped() {
			fmt.Fprintf(&b, "| %s | %s |\n", name, skipByName[name])
		}
	}
	side := strings.TrimSuffix(*report, filepath.Ext(*report)) + "-skipped.md"
	if err := os.WriteFile(side, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
