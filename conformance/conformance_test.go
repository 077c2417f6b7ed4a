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
	"sigs.k8s.io/gateway-api/conformance/utils/suite"
	"sigs.k8s.io/gateway-api/pkg/features"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/manifests"
)

var (
	full    = flag.Bool("conformance.full", false, "run every test of the profiles, not only the core status tests")
	report  = flag.String("conformance.report", "", "write the GEP-1709 report to this file, and what was skipped and why next to it (<name>-skipped.md)")
	version = flag.String("conformance.version", "dev", "Gantry's version, for the report")
	only    = flag.String("conformance.run", "", "run only this test (its short name), for debugging")
)

const className = "gantry-conformance"

// profiles are the conformance profiles run and reported: one per route kind Gantry attaches.
// Taking a profile makes the suite count its core features (HTTPRoute, GRPCRoute, TLSRoute,
// TCPRoute, UDPRoute, ReferenceGrant) as supported, besides those the class claims.
var profiles = []suite.ConformanceProfileName{
	suite.GatewayHTTPConformanceProfileName,
	suite.GatewayGRPCConformanceProfileName,
	suite.GatewayTLSConformanceProfileName,
	suite.GatewayTCPConformanceProfileName,
	suite.GatewayUDPConformanceProfileName,
}

// coreTests run in `make test`: the core status tests of each profile (Gateway, HTTPRoute,
// GRPCRoute, TLSRoute, TCPRoute, UDPRoute) and the ListenerSet ones, so that a regression
// fails CI. Most send no traffic; the others are stopped at it. `make conformance` runs
// everything.
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
	// Listeners that allow only TLSRoutes, with an HTTPRoute and a ListenerSet.
	"HTTPRouteDisallowedKind",
	"ListenerSetAllowedRoutesSupportedKinds",
	// GATEWAY-GRPC: a GRPCRoute accepted on an HTTP listener, and on listeners by hostname.
	"GRPCExactMethodMatching",
	"GRPCRouteListenerHostnameMatching",
	// GATEWAY-TLS: TLSRoutes on passthrough listeners; a terminating TLS listener is not
	// accepted (UnsupportedValue).
	"TLSRouteHostnameIntersection",
	"TLSRouteListenerTerminateNotSupported",
	"TLSRouteInvalidBackendRefNonexistent",
	"TLSRouteInvalidBackendRefUnknownKind",
	"TLSRouteInvalidNoMatchingListener",
	"TLSRouteInvalidNoMatchingListenerHostname",
	"TLSRouteInvalidReferenceGrant",
	"TLSRouteListenerPassthroughSupportedKinds",
	"TLSRouteSimpleSameNamespace",
	// GATEWAY-TCP
	"TCPRouteInvalidBackendRefNonexistent",
	"TCPRouteInvalidCrossNamespaceBackendRef",
	"TCPRouteInvalidNonTCPListener",
	"TCPRouteMultipleRoutesAttachment",
	"TCPRouteParentRefAttachAll",
	"TCPRouteReferenceGrant",
	// GATEWAY-UDP
	"UDPRouteInvalidBackendRefNonexistent",
	"UDPRouteInvalidCrossNamespaceBackendRef",
	"UDPRouteMultipleRoutesAttachment",
	"UDPRouteNotAllowedByListeners",
	"UDPRouteParentRefAttachAllListeners",
	"UDPRouteReferenceGrant",
}

// skipByName are tests that cannot run here at all, each with the reason the report gives.
// Tests that send traffic are not listed: they run up to their traffic and are skipped there
// (traffic_test.go).
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
		began := time.Now()
		defer func() { t.Logf("the controller stopped in %v", time.Since(began).Round(time.Millisecond)) }()
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
	outcomes := map[string]string{} // test -> passed, failed or skipped, for the report
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
			ConformanceProfiles: profiles,
		},
		Client:        c,
		ClientOptions: client.Options{Scheme: scheme},
		Clientset:     cs,
		RestConfig:    rest.CopyConfig(cfg),
		RoundTripper:  traffic,
		GRPCClient:    traffic,
		Hook: func(st *testing.T, ct suite.ConformanceTest, _ *suite.ConformanceTestSuite) {
			switch {
			case st.Failed():
				outcomes[ct.ShortName] = "failed"
			case st.Skipped():
				outcomes[ct.ShortName] = "skipped"
			default:
				outcomes[ct.ShortName] = "passed"
			}
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
		t.Cleanup(func() { writeReport(t, s, traffic, selected, outcomes) })
	}
	s.Setup(t, selected)
	if err := s.Run(t, selected); err != nil {
		t.Fatal(err)
	}
}

// selectTests picks the core status tests, or with -conformance.full every test.
func selectTests(t *testing.T) []suite.ConformanceTest {
	for _, name := range rawTrafficTests() {
		if !slices.ContainsFunc(tests.ConformanceTests, func(ct suite.ConformanceTest) bool { return ct.ShortName == name }) {
			t.Fatalf("rawTraffic names %s, which is not a test of this version of the suite: update rawTraffic", name)
		}
	}
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

// writeReport writes the suite's GEP-1709 report, its profiles in the order of profiles, and
// next to it what was skipped and why (the report lists skipped tests without reasons), which
// profiles each belongs to, and the outcome of tests in none of the profiles (which the
// report leaves out).
func writeReport(t *testing.T, s *suite.ConformanceTestSuite, traffic *noDataPlane, ran []suite.ConformanceTest, outcomes map[string]string) {
	t.Helper()
	r, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(r.ProfileReports, func(a, b confv1.ProfileReport) int {
		return slices.Index(profiles, suite.ConformanceProfileName(a.Name)) - slices.Index(profiles, suite.ConformanceProfileName(b.Name))
	})
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
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = string(p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Skipped conformance tests\n\nWritten by `make conformance` with %s (%s).\n", filepath.Base(*report), r.GatewayAPIVersion)
	fmt.Fprintf(&b, "Tests of the profiles %s\n", strings.Join(names, ", "))
	fmt.Fprintf(&b, "that did not run to their end on envtest, and why. Tests of features Gantry does not claim\n")
	fmt.Fprintf(&b, "(its GatewayClass's status.supportedFeatures, and the core features of these profiles) did\nnot run and are not listed.\n\n")
	fmt.Fprintf(&b, "## Need traffic\n\nEnvtest has no data plane. These tests ran their status assertions up to their traffic and\n")
	fmt.Fprintf(&b, "were skipped there. A request sent through the suite's HTTP or gRPC client is caught at the\n")
	fmt.Fprintf(&b, "first one. TCP and UDP connections and TLS handshakes a test dials itself cannot be caught:\n")
	fmt.Fprintf(&b, "the subtests that dial are not run (rawTraffic in conformance/traffic_test.go), and the\n")
	fmt.Fprintf(&b, "status assertions outside them ran.\n\n| test | profiles | first request |\n|---|---|---|\n")
	for _, ct := range ran {
		if why := traffic.firstRequest(ct.ShortName); why != "" && outcomes[ct.ShortName] == "skipped" {
			fmt.Fprintf(&b, "| %s | %s | `%s` |\n", ct.ShortName, profilesOf(ct), why)
		}
	}
	if len(skipByName) > 0 {
		fmt.Fprintf(&b, "\n## Skipped by name\n\n| test | why |\n|---|---|\n")
		for _, name := range skipped() {
			fmt.Fprintf(&b, "| %s | %s |\n", name, skipByName[name])
		}
	}
	var failed, outside []string
	for _, ct := range ran {
		if outcomes[ct.ShortName] == "failed" {
			failed = append(failed, fmt.Sprintf("| %s | %s |", ct.ShortName, profilesOf(ct)))
		}
		if _, ok := outcomes[ct.ShortName]; ok && profilesOf(ct) == "" && s.SupportedFeatures.HasAll(ct.Features...) {
			outside = append(outside, fmt.Sprintf("| %s | %s | %s |", ct.ShortName, featureList(ct), outcomes[ct.ShortName]))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\n## Failed\n\n| test | profiles |\n|---|---|\n%s\n", strings.Join(failed, "\n"))
	}
	if len(outside) > 0 {
		fmt.Fprintf(&b, "\n## In none of the profiles\n\nThese tests ran (Gantry has their features) but need features of two profiles, so the\n")
		fmt.Fprintf(&b, "report counts them in neither.\n\n| test | features | outcome |\n|---|---|---|\n%s\n", strings.Join(outside, "\n"))
	}
	side := strings.TrimSuffix(*report, filepath.Ext(*report)) + "-skipped.md"
	if err := os.WriteFile(side, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

var profileDefinitions = map[suite.ConformanceProfileName]suite.ConformanceProfile{
	suite.GatewayHTTPConformanceProfileName: suite.GatewayHTTPConformanceProfile,
	suite.GatewayGRPCConformanceProfileName: suite.GatewayGRPCConformanceProfile,
	suite.GatewayTLSConformanceProfileName:  suite.GatewayTLSConformanceProfile,
	suite.GatewayTCPConformanceProfileName:  suite.GatewayTCPConformanceProfile,
	suite.GatewayUDPConformanceProfileName:  suite.GatewayUDPConformanceProfile,
}

// profilesOf are the profiles among profiles the report counts a test in, as the suite
// decides it: those that have each of the test's features, at core or extended level.
func profilesOf(ct suite.ConformanceTest) string {
	var out []string
	for _, name := range profiles {
		p := profileDefinitions[name]
		if !slices.ContainsFunc(ct.Features, func(f features.FeatureName) bool { return !p.CoreFeatures.Has(f) && !p.ExtendedFeatures.Has(f) }) {
			out = append(out, strings.TrimPrefix(string(name), "GATEWAY-"))
		}
	}
	return strings.Join(out, ", ")
}

func featureList(ct suite.ConformanceTest) string {
	out := make([]string, len(ct.Features))
	for i, f := range ct.Features {
		out[i] = string(f)
	}
	return strings.Join(out, ", ")
}
