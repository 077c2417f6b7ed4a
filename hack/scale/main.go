// Command scale measures Gantry on a real kube-apiserver and etcd: first convergence, a
// steady-state resync, fan-out after policy edits, and offline render, for N Gateways. It is
// what `make bench` runs; docs/performance.md explains the method and holds the results.
//
// Each N runs in a child process of its own (fresh API server, fresh heap), so memory and CPU
// figures belong to that N alone.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/internal/command"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/manifests"
)

const (
	namespaces   = 20
	controllerNS = "gantry-system"
	className    = "bench"
)

// Result is one N's figures; the JSON file holds a list of them.
type Result struct {
	Gateways int `json:"gateways"`
	Policies int `json:"policies"`
	Objects  int `json:"objectsRendered"`

	ConvergeSeconds float64 `json:"convergeSeconds"`
	// FloorSeconds is the same writes made by a bare client on a fresh API server (floor.go);
	// FloorRatio is ConvergeSeconds over it.
	FloorSeconds   float64        `json:"floorSeconds"`
	FloorRatio     float64        `json:"floorRatio"`
	ConvergeWrites map[string]int `json:"convergeWritesByVerbAndResource"`
	Writes         int            `json:"convergeWrites"`
	WritesNoEvents int            `json:"convergeWritesWithoutEvents"`
	Reads          int            `json:"convergeReads"`
	DryRuns        int            `json:"convergeDryRuns"`
	WriteBudget    int            `json:"writeBudget"`
	CPUSeconds     float64        `json:"controllerCPUSeconds"`
	// AllocatedMiB is what the controller allocated up to the first convergence
	// (go_memstats_alloc_bytes_total): a measure of its work that, unlike its CPU time, does not
	// depend on how busy the machine's cores and caches are.
	AllocatedMiB float64 `json:"controllerAllocatedMiB"`
	// ReadSyscalls and WriteSyscalls are the controller's read and write system calls up to the
	// first convergence (/proc's syscr and syscw), mostly on its connection to the API server:
	// how many answers and watch events one read carries shows in them, which its CPU time
	// follows (docs/performance.md, sixteenth session).
	ReadSyscalls  int64   `json:"convergeReadSyscalls"`
	WriteSyscalls int64   `json:"convergeWriteSyscalls"`
	PeakHeapMiB   float64 `json:"peakHeapMiB"`
	PeakRSSMiB    float64 `json:"peakRSSMiB"`
	// LaterPeakRSSMiB is the restarted controller's peak resident set over the restart, the
	// global and the tenant edit: a chart limit must hold it as well as the first convergence's.
	LaterPeakRSSMiB  float64        `json:"laterPeakRSSMiB"`
	ResyncWrites     map[string]int `json:"resyncWrites"`
	ResyncReconciles int            `json:"resyncReconciles"`
	// RestartSeconds is from the restarted controller's exec until it has made N Gateway
	// reconciles (about one per Gateway; nothing changed); RestartCPUSeconds is its CPU then.
	RestartSeconds    float64 `json:"restartSeconds"`
	RestartCPUSeconds float64 `json:"restartCPUSeconds"`

	GlobalEditSeconds    float64        `json:"globalEditSeconds"`
	GlobalEditWrites     map[string]int `json:"globalEditWrites"`
	TenantEditSeconds    float64        `json:"tenantEditSeconds"`
	TenantEditReconciles int            `json:"tenantEditGatewayReconciles"`
	TenantEditWrites     map[string]int `json:"tenantEditWrites"`
	// FleetDiff… is `gantry diff -A` of a blueprint edit that changes every Gateway (a new
	// default image), against the converged cluster: what a pre-merge CI step costs.
	FleetDiffSeconds  float64 `json:"fleetDiffSeconds"`
	FleetDiffChanged  int     `json:"fleetDiffChangedGateways"`
	FleetDiffDryRuns  int     `json:"fleetDiffDryRuns"`
	FleetDiffRequests int     `json:"fleetDiffRequests"`

	// ConvergeCheckRenders counts the structure check's placeholder renders (B) during the first
	// convergence, ConvergeCheckRemembered those taken from its memory instead; Offline… the
	// same for the offline phase (`gantry render` of every Gateway, then each Gateway timed).
	ConvergeCheckRenders    int64 `json:"convergeCheckRenders"`
	ConvergeCheckRemembered int64 `json:"convergeCheckRemembered"`
	OfflineCheckRenders     int64 `json:"offlineCheckRenders"`
	OfflineCheckRemembered  int64 `json:"offlineCheckRemembered"`

	// Renders are the controller's renders of a Gateway's or a route's templates in each phase,
	// rendered or answered from its memory of outputs (gantry_template_renders_total).
	ConvergeRenders   renders `json:"convergeRenders"`
	ResyncRenders     renders `json:"restartRenders"`
	GlobalEditRenders renders `json:"globalEditRenders"`
	TenantEditRenders renders `json:"tenantEditRenders"`

	OfflineSeconds         float64 `json:"offlineRenderSeconds"`
	OfflineMedianMicros    float64 `json:"offlineRenderMedianMicrosPerGateway"`
	LoadAverageAtStart     string  `json:"loadAverageAtStart"`
	LoadAverageAtEnd       string  `json:"loadAverageAtEnd"`
	GatewayReconcilesTotal int     `json:"gatewayReconcilesTotal"`
}

// clientQPS and clientBurst are the controller client's rate limit; gatewayWorkers, when not 0,
// its --gateway-concurrency.
var (
	clientQPS      float64
	clientBurst    int
	gatewayWorkers int
	keepLogs       bool
)

func main() {
	child := flag.Int("n", 0, "measure N Gateways in this process (internal; the parent runs one child per N)")
	sizes := flag.String("sizes", "100,1000,2000", "comma-separated Gateway counts")
	out := flag.String("json", "bin/performance.json", "where to write the results")
	baseline := flag.String("baseline", "docs/performance.json", "results to compare with; a regression over 20% is reported")
	flag.StringVar(&gantryBinary, "gantry", "", "the gantry CLI, for `gantry diff` and `gantry render`, and the controller unless -controller is given (default: built from this checkout)")
	flag.StringVar(&controllerBinary, "controller", "", "the controller's binary, as the image ships it (default: -gantry if given, else cmd/gantry-controller built from this checkout)")
	flag.StringVar(&profileFile, "cpuprofile", "", "write a CPU profile of the controller's first seconds (with -n; see -profile-seconds)")
	flag.IntVar(&profileSeconds, "profile-seconds", 10, "how long -cpuprofile profiles, from the controller's start")
	flag.StringVar(&traceFile, "trace", "", "write an execution trace of the controller's first seconds, where it waits as well as where it works (with -n, instead of -cpuprofile; see -profile-seconds)")
	flag.StringVar(&offlineProfileFile, "offline-cpuprofile", "", "write a CPU profile of the offline phase's timed renders, and stop after that phase (with -n)")
	flag.StringVar(&restartProfileFile, "restart-cpuprofile", "", "write a CPU profile of the restarted controller's first seconds (with -n; see -profile-seconds)")
	flag.BoolVar(&keepLogs, "keep-logs", false, "keep the controller's logs (and kubeconfig) in their temporary directory, and say where (with -n)")
	flag.StringVar(&heapProfileFile, "heapprofile", "", "write a profile of the controller's live heap once it has converged (with -n)")
	// What users get: gantry controller's default (no client-side limit).
	flag.Float64Var(&clientQPS, "qps", command.DefaultKubeAPIQPS, "the controller client's QPS, as --kube-api-qps (negative: no client-side limit)")
	flag.IntVar(&clientBurst, "burst", 0, "the controller client's burst, as --kube-api-burst (0: twice the QPS)")
	flag.IntVar(&gatewayWorkers, "workers", 0, "the controller's --gateway-concurrency (0: its default); the floor keeps its own 4 workers")
	flag.Parse()
	if *child == 0 && (keepLogs || traceFile != "" || profileFile != "" || heapProfileFile != "" || restartProfileFile != "" || offlineProfileFile != "") {
		fmt.Fprintln(os.Stderr, "scale: the profile flags measure one size: give -n")
		os.Exit(2)
	}
	ctrl.SetLogger(logr.Discard()) // the harness prints figures; the controller's logs are not its output
	if controllerBinary == "" && gantryBinary != "" {
		controllerBinary = gantryBinary // one binary of both, as before cmd/gantry-controller
	}
	if gantryBinary == "" || controllerBinary == "" {
		dir, err := os.MkdirTemp("", "gantry-scale-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		if gantryBinary == "" {
			gantryBinary, err = build(dir, "./cmd/gantry")
		}
		if err == nil && controllerBinary == "" {
			controllerBinary, err = build(dir, "./cmd/gantry-controller")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
	}
	if *child > 0 {
		res, err := measure(*child)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(res)
		return
	}
	var results []Result
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale: bad size", s)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "measuring %d Gateways ...\n", n)
		cmd := exec.Command(os.Args[0], "-n", strconv.Itoa(n), "-qps", fmt.Sprint(clientQPS), "-burst", strconv.Itoa(clientBurst), "-workers", strconv.Itoa(gatewayWorkers), "-gantry", gantryBinary, "-controller", controllerBinary)
		cmd.Stderr = os.Stderr
		b, err := cmd.Output()
		if err != nil {
			fmt.Fprintf(os.Stderr, "scale: N=%d: %v\n", n, err)
			os.Exit(1)
		}
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			fmt.Fprintf(os.Stderr, "scale: N=%d: %v\n", n, err)
			os.Exit(1)
		}
		results = append(results, r)
	}
	printTable(os.Stdout, results)
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err == nil {
		b, _ := json.MarshalIndent(results, "", "  ")
		os.WriteFile(*out, append(b, '\n'), 0o644)
		fmt.Printf("\nwrote %s\n", *out)
	}
	compare(os.Stdout, results, *baseline)
}

func measure(n int) (*Result, error) {
	ctx := context.Background()
	res := &Result{Gateways: n, LoadAverageAtStart: loadavg()}
	objs, err := scenario(n)
	if err != nil {
		return nil, err
	}
	// Offline first, on the same objects, before an API server competes for the CPU.
	rendered0, remembered0 := boundary.Renders()
	if err := offline(objs, res); err != nil {
		return nil, err
	}
	rendered1, remembered1 := boundary.Renders()
	res.OfflineCheckRenders, res.OfflineCheckRemembered = rendered1-rendered0, remembered1-remembered0
	if offlineProfileFile != "" {
		return res, nil
	}
	boundary.SetMemory(boundary.DefaultMemory) // the controller starts with an empty memory
	env, cfg, err := testenv.Start()
	if err != nil {
		return nil, err
	}
	defer env.Stop()
	// The harness's own client is not counted; the controller's goes through the counter.
	harness, err := client.NewWithWatch(rest.CopyConfig(cfg), client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if err := harness.Create(ctx, o); err != nil {
			return nil, fmt.Errorf("create %T %s: %w", o, o.GetName(), err)
		}
		switch o.(type) {
		case *v1alpha1.GatewayClassConfig, *v1alpha1.GatewayConfig:
			res.Policies++
		}
	}
	res.Objects = 4 * n
	res.WriteBudget = int(math.Floor(1.05 * float64(res.Objects+n+res.Policies)))

	cnt := &counter{}
	proxy, err := startProxy(cfg, cnt)
	if err != nil {
		return nil, err
	}
	defer proxy.stop()
	work, err := os.MkdirTemp("", "gantry-scale-controller")
	if err != nil {
		return nil, err
	}
	if !keepLogs {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintf(os.Stderr, "  the controller's logs are kept in %s\n", work)
	}
	kubeconfig, err := writeKubeconfig(work, proxy)
	if err != nil {
		return nil, err
	}
	runs := 0
	start := func() (*controllerProcess, error) {
		runs++
		return startControllerProcess(controllerBinary, kubeconfig, work, runs)
	}
	p, err := start()
	if err != nil {
		return nil, err
	}
	first := p
	defer first.stop() // on an early return; stopping twice is harmless
	profiled := make(chan error, 1)
	switch {
	case profileFile != "":
		go func() { profiled <- p.profile(profileFile, profileSeconds) }()
	case traceFile != "":
		go func() { profiled <- p.fetchProfile(traceFile, fmt.Sprintf("trace?seconds=%d", profileSeconds)) }()
	default:
		profiled <- nil
	}
	began := time.Now()
	if err := waitProgrammed(ctx, harness, n); err != nil {
		p.stop()
		return nil, fmt.Errorf("%w; controller log: %s", err, p.tail())
	}
	res.ConvergeSeconds = time.Since(began).Seconds()
	if res.CPUSeconds, err = p.cpuSeconds(); err != nil {
		return nil, err
	}
	if res.PeakRSSMiB, err = p.peakRSSMiB(); err != nil {
		return nil, err
	}
	if res.ReadSyscalls, res.WriteSyscalls, err = p.syscalls(); err != nil {
		return nil, err
	}
	res.AllocatedMiB = p.metric("go_memstats_alloc_bytes_total") / (1 << 20)
	res.ConvergeCheckRenders, res.ConvergeCheckRemembered = p.checkRenders()
	res.ConvergeRenders = p.templateRenders()
	writes, err := captureWrites(ctx, harness)
	if err != nil {
		return nil, err
	}
	quiet(cnt, p)
	res.ConvergeWrites = writesOnly(cnt.snapshot())
	res.Writes, res.WritesNoEvents, res.Reads = split(cnt.snapshot())
	res.DryRuns = dryRuns(cnt.snapshot())
	res.PeakHeapMiB = p.peakHeapMiB()
	if heapProfileFile != "" {
		if err := p.heapProfile(heapProfileFile); err != nil {
			return nil, err
		}
	}

	if err := <-profiled; err != nil {
		return nil, err
	}

	// Steady state: a restart makes the controller list everything and reconcile every
	// Gateway again, with nothing changed.
	p.stop()
	before := cnt.snapshot()
	began = time.Now()
	if p, err = start(); err != nil {
		return nil, err
	}
	defer p.stop()
	restartProfiled := make(chan error, 1)
	if restartProfileFile != "" {
		go func() { restartProfiled <- p.profile(restartProfileFile, profileSeconds) }()
	} else {
		restartProfiled <- nil
	}
	if err := waitReconciles(p, n); err != nil {
		return nil, err
	}
	res.RestartSeconds = time.Since(began).Seconds()
	if res.RestartCPUSeconds, err = p.cpuSeconds(); err != nil {
		return nil, err
	}
	quiet(cnt, p)
	if err := <-restartProfiled; err != nil {
		return nil, err
	}
	res.ResyncWrites = writesOnly(since(cnt.snapshot(), before))
	res.ResyncReconciles = p.reconciles()
	res.ResyncRenders = p.templateRenders()

	// Fan-out: the global policy changes replicas for every Gateway but every tenth, whose own
	// GatewayConfig default (4) is more specific: their values do not change.
	before, renders0 := cnt.snapshot(), p.templateRenders()
	began = time.Now()
	if err := patchPolicy(ctx, harness, &v1alpha1.GatewayClassConfig{}, controllerNS, "global", `{"spec":{"default":{"replicas":3,"podDisruptionBudget":{"enabled":true}}}}`); err != nil {
		return nil, err
	}
	if err := waitReplicas(ctx, harness, n, 3, ""); err != nil {
		return nil, err
	}
	res.GlobalEditSeconds = time.Since(began).Seconds()
	quiet(cnt, p)
	res.GlobalEditWrites = writesOnly(since(cnt.snapshot(), before))
	res.GlobalEditRenders = p.templateRenders().since(renders0)

	// One tenant's GatewayConfig: one Gateway changes.
	before, rec0, renders0 := cnt.snapshot(), p.reconciles(), p.templateRenders()
	began = time.Now()
	if err := patchPolicy(ctx, harness, &v1alpha1.GatewayConfig{}, nsName(0), "gw-00000", `{"spec":{"default":{"replicas":7}}}`); err != nil {
		return nil, err
	}
	if err := waitReplicas(ctx, harness, 1, 7, nsName(0)+"/gw-00000"); err != nil {
		return nil, err
	}
	res.TenantEditSeconds = time.Since(began).Seconds()
	quiet(cnt, p)
	res.TenantEditWrites = writesOnly(since(cnt.snapshot(), before))
	res.TenantEditReconciles = p.reconciles() - rec0
	res.TenantEditRenders = p.templateRenders().since(renders0)
	res.GatewayReconcilesTotal = p.reconciles()
	if res.LaterPeakRSSMiB, err = p.peakRSSMiB(); err != nil {
		return nil, err
	}

	// A blueprint edit previewed against the whole fleet, as a CI step would.
	before = cnt.snapshot()
	if err := fleetDiff(work, kubeconfig, res); err != nil {
		return nil, err
	}
	diffCounts := since(cnt.snapshot(), before)
	res.FleetDiffDryRuns, res.FleetDiffRequests = dryRuns(diffCounts), total(diffCounts)
	p.stop()

	// The floor, last, on its own API server, with the controller stopped.
	if res.FloorSeconds, err = measureFloor(ctx, n, writes); err != nil {
		return nil, err
	}
	res.FloorRatio = res.ConvergeSeconds / res.FloorSeconds
	res.LoadAverageAtEnd = loadavg()
	return res, nil
}

// gantryBinary is the CLI the harness runs as `gantry diff` and `gantry render`;
// controllerBinary is the one it runs as the controller.
var gantryBinary, controllerBinary string

// profileFile, when set, receives a CPU profile of the controller's first profileSeconds,
// taken from its --pprof-bind-address.
var (
	profileFile    string
	profileSeconds int
	// traceFile, when set, receives an execution trace of the same seconds.
	traceFile string
	// heapProfileFile, when set, receives a profile of the controller's live heap after the
	// first convergence.
	heapProfileFile string
	// restartProfileFile, when set, receives a CPU profile of the restarted controller.
	restartProfileFile string
	// offlineProfileFile, when set, receives a CPU profile of the offline phase's timed
	// renders, and the run ends after that phase.
	offlineProfileFile string
)

// fleetDiff runs `gantry diff -A -o json` with the proxy blueprint's default image changed, and
// records its wall time and how many Gateways it found changed (it must be every one).
func fleetDiff(work, kubeconfig string, res *Result) error {
	set, err := manifests.Load([]string{filepath.Join(testenv.Root(), "blueprints", "proxy", "blueprint.yaml")}, nil)
	if err != nil {
		return err
	}
	bp := set.Blueprints["proxy"].DeepCopy()
	bp.TypeMeta = metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "GatewayClassBlueprint"}
	var defaults map[string]any
	if err := json.Unmarshal(bp.Spec.Values.Default.Raw, &defaults); err != nil {
		return err
	}
	defaults["image"] = "docker.io/envoyproxy/envoy:v1.34.0"
	if bp.Spec.Values.Default.Raw, err = json.Marshal(defaults); err != nil {
		return err
	}
	b, err := yaml.Marshal(bp)
	if err != nil {
		return err
	}
	file := filepath.Join(work, "blueprint-edit.yaml")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return err
	}
	cmd := exec.Command(gantryBinary, "diff", "-A", "-o", "json", "--kubeconfig", kubeconfig, file)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	began := time.Now()
	err = cmd.Run()
	res.FleetDiffSeconds = time.Since(began).Seconds()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return fmt.Errorf("gantry diff: %v: %s", err, errOut.String())
	}
	var got struct {
		Summary struct {
			Changed int `json:"changed"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		return fmt.Errorf("gantry diff -o json: %w", err)
	}
	res.FleetDiffChanged = got.Summary.Changed
	if got.Summary.Changed != res.Gateways {
		return fmt.Errorf("gantry diff found %d of %d Gateways changed by a new default image", got.Summary.Changed, res.Gateways)
	}
	return nil
}

func nsName(i int) string { return fmt.Sprintf("bench-%02d", i) }

// scenario builds the objects: 20 namespaces, the proxy blueprint (4 objects per Gateway with
// the PDB on), policies at all six levels, N Gateways spread over the namespaces.
func scenario(n int) ([]client.Object, error) {
	set, err := manifests.Load([]string{filepath.Join(testenv.Root(), "blueprints", "proxy", "blueprint.yaml")}, nil)
	if err != nil {
		return nil, err
	}
	bp := set.Blueprints["proxy"]
	objs := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNS}}, bp,
		&gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: className}, Spec: gwv1.GatewayClassSpec{
			ControllerName: v1alpha1.ControllerName,
			ParametersRef:  &gwv1.ParametersReference{Group: v1alpha1.GroupName, Kind: "GatewayClassBlueprint", Name: bp.Name},
		}},
		gcc(controllerNS, "global", "GatewayClass", className, `{"replicas":2,"podDisruptionBudget":{"enabled":true}}`, `{"service":{"annotations":{"example.com/owner":"platform"}}}`),
	}
	for i := 0; i < namespaces; i++ {
		ns := nsName(i)
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			gcc(ns, "tenant", "Namespace", ns, `{"resources":{"limits":{"memory":"256Mi"}}}`, ""),
			gcc(ns, "class", "GatewayClass", className, `{"service":{"type":"ClusterIP"}}`, ""),
			gc(ns, "namespace", "Namespace", ns, `{"resources":{"requests":{"cpu":"200m"}}}`))
	}
	for i := 0; i < n; i++ {
		ns, name := nsName(i%namespaces), fmt.Sprintf("gw-%05d", i/namespaces)
		objs = append(objs, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: gwv1.GatewaySpec{
			GatewayClassName: className,
			Listeners:        []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}},
		}})
		if i%10 == 0 {
			objs = append(objs, gc(ns, name, "Gateway", name, `{"replicas":4}`))
		}
	}
	return objs, nil
}

func raw(s string) *apiextensionsv1.JSON {
	if s == "" {
		return nil
	}
	return &apiextensionsv1.JSON{Raw: []byte(s)}
}

func gcc(ns, name, kind, target, def, over string) *v1alpha1.GatewayClassConfig {
	group := gwv1.Group(gwv1.GroupName)
	if kind == "Namespace" {
		group = ""
	}
	return &v1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.GatewayClassConfigSpec{
		TargetRef:    v1alpha1.PolicyTargetReference{Group: group, Kind: gwv1.Kind(kind), Name: gwv1.ObjectName(target)},
		PolicyValues: v1alpha1.PolicyValues{Default: raw(def), Override: raw(over)},
	}}
}

func gc(ns, name, kind, target, def string) *v1alpha1.GatewayConfig {
	group := gwv1.Group(gwv1.GroupName)
	if kind == "Namespace" {
		group = ""
	}
	return &v1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.GatewayConfigSpec{
		TargetRef:    v1alpha1.PolicyTargetReference{Group: group, Kind: gwv1.Kind(kind), Name: gwv1.ObjectName(target)},
		PolicyValues: v1alpha1.PolicyValues{Default: raw(def)},
	}}
}

// waitLimit is how long a wait gives N Gateways.
func waitLimit(n int) time.Duration { return 15*time.Minute + time.Duration(n)*100*time.Millisecond }

func waitProgrammed(ctx context.Context, c client.WithWatch, n int) error {
	return await(ctx, c, &gwv1.GatewayList{}, &gwv1.Gateway{}, n, nil, programmed, "Gateways Programmed")
}

// waitReplicas waits until n Deployments (the one named only, if only is namespace/name) have
// the replicas given, or, every tenth Gateway's keeping its own GatewayConfig default (level 5,
// more specific than the global policy), 4.
func waitReplicas(ctx context.Context, c client.WithWatch, n int, replicas int32, only string) error {
	opts := &client.ListOptions{}
	if only != "" {
		ns, name, _ := strings.Cut(only, "/")
		opts.Namespace, opts.FieldSelector = ns, fields.OneTermEqualSelector("metadata.name", name)
	}
	return await(ctx, c, &appsv1.DeploymentList{}, &appsv1.Deployment{}, n, opts, func(o client.Object) bool {
		r := o.(*appsv1.Deployment).Spec.Replicas
		return r != nil && (*r == replicas || only == "" && *r == 4)
	}, fmt.Sprintf("Deployments with %d replicas", replicas))
}

func patchPolicy(ctx context.Context, c client.Client, obj client.Object, ns, name, patch string) error {
	obj.SetNamespace(ns)
	obj.SetName(name)
	return c.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", []byte(patch)))
}

// quiet waits until the controller made no write for two seconds and its Gateway queue is
// empty: reconciles that write nothing (an echo taken for a change) would otherwise still be
// running when the next phase starts, and be counted there.
func quiet(c *counter, p *controllerProcess) {
	last, since, began := c.snapshot(), time.Now(), time.Now()
	for time.Since(since) < 2*time.Second || !p.idle() {
		if time.Since(began) > 10*time.Minute {
			fmt.Fprintln(os.Stderr, "the controller wrote nothing for 2 s but its Gateway queue did not empty in 10 minutes; going on")
			return
		}
		time.Sleep(250 * time.Millisecond)
		now := c.snapshot()
		w1, _, _ := split(now)
		w0, _, _ := split(last)
		if w1 != w0 {
			last, since = now, time.Now()
		}
	}
}

func writesOnly(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		verb, _, _ := strings.Cut(k, " ")
		if writeVerbs[verb] {
			out[k] = v
		}
	}
	return out
}

// waitReconciles waits until the controller has made n Gateway reconciles (with nothing changed,
// about one per Gateway).
func waitReconciles(p *controllerProcess, n int) error {
	deadline := time.Now().Add(15 * time.Minute)
	for p.reconciles() < n {
		if time.Now().After(deadline) {
			return fmt.Errorf("restart: %d of %d Gateway reconciles after 15 minutes", p.reconciles(), n)
		}
		time.Sleep(250 * time.Millisecond)
	}
	return nil
}

// offline renders all Gateways from files, as `gantry render DIR` would, and times each one.
func offline(objs []client.Object, res *Result) (err error) {
	dir, err := os.MkdirTemp("", "gantry-scale")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var buf bytes.Buffer
	scheme := controllers.NewScheme()
	for _, o := range objs {
		gvks, _, err := scheme.ObjectKinds(o)
		if err != nil {
			return err
		}
		o.GetObjectKind().SetGroupVersionKind(gvks[0])
		b, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	file := filepath.Join(dir, "all.yaml")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		return err
	}
	start := time.Now()
	var stderr bytes.Buffer
	cmd := exec.Command(gantryBinary, "render", file)
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gantry render: %v: %s", err, stderr.String())
	}
	res.OfflineSeconds = time.Since(start).Seconds()

	set, err := manifests.Load([]string{file}, nil)
	if err != nil {
		return err
	}
	var times []float64
	if offlineProfileFile != "" {
		f, err := os.Create(offlineProfileFile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			if cerr := f.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}()
	}
	for _, gw := range set.Gateways {
		in := set.CandidateInput(gw, controllerNS) // as `gantry render` without --explain
		t0 := time.Now()
		if _, err := desired.Gateway(in); err != nil {
			return err
		}
		times = append(times, float64(time.Since(t0).Microseconds()))
	}
	slices.Sort(times)
	res.OfflineMedianMicros = times[len(times)/2]
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ") + fmt.Sprintf(" (%d CPUs)", runtime.NumCPU())
}

func printTable(w *os.File, rs []Result) {
	fmt.Fprintf(w, "%-34s", "")
	for _, r := range rs {
		fmt.Fprintf(w, "%14s", fmt.Sprintf("N=%d", r.Gateways))
	}
	fmt.Fprintln(w)
	row := func(name string, f func(Result) string) {
		fmt.Fprintf(w, "%-34s", name)
		for _, r := range rs {
			fmt.Fprintf(w, "%14s", f(r))
		}
		fmt.Fprintln(w)
	}
	row("policies", func(r Result) string { return strconv.Itoa(r.Policies) })
	row("objects rendered", func(r Result) string { return strconv.Itoa(r.Objects) })
	row("converge (s)", func(r Result) string { return fmt.Sprintf("%.1f", r.ConvergeSeconds) })
	row("floor: same writes, bare client (s)", func(r Result) string { return fmt.Sprintf("%.1f", r.FloorSeconds) })
	row("converge / floor", func(r Result) string { return fmt.Sprintf("%.2f×", r.FloorRatio) })
	row("converge writes", func(r Result) string { return strconv.Itoa(r.Writes) })
	row("  without Events", func(r Result) string { return strconv.Itoa(r.WritesNoEvents) })
	row("  budget 1.05×(obj+gw+pol)", func(r Result) string { return strconv.Itoa(r.WriteBudget) })
	row("converge reads", func(r Result) string { return strconv.Itoa(r.Reads) })
	row("converge dry-runs", func(r Result) string { return strconv.Itoa(r.DryRuns) })
	row("converge check renders/remembered", func(r Result) string {
		return fmt.Sprintf("%d/%d", r.ConvergeCheckRenders, r.ConvergeCheckRemembered)
	})
	row("converge renders/remembered", func(r Result) string { return r.ConvergeRenders.String() })
	row("CPU (s)", func(r Result) string { return fmt.Sprintf("%.1f", r.CPUSeconds) })
	row("  allocated per Gateway (KiB)", func(r Result) string { return fmt.Sprintf("%.0f", r.AllocatedMiB*1024/float64(r.Gateways)) })
	row("  read/write syscalls per Gateway", func(r Result) string {
		return fmt.Sprintf("%.1f/%.1f", float64(r.ReadSyscalls)/float64(r.Gateways), float64(r.WriteSyscalls)/float64(r.Gateways))
	})
	row("peak heap (MiB)", func(r Result) string { return fmt.Sprintf("%.0f", r.PeakHeapMiB) })
	row("peak RSS (MiB)", func(r Result) string { return fmt.Sprintf("%.0f", r.PeakRSSMiB) })
	row("  restarted, through the edits (MiB)", func(r Result) string { return fmt.Sprintf("%.0f", r.LaterPeakRSSMiB) })
	row("resync writes", func(r Result) string { return strconv.Itoa(total(r.ResyncWrites)) })
	row("resync Gateway reconciles", func(r Result) string { return strconv.Itoa(r.ResyncReconciles) })
	row("restart renders/remembered", func(r Result) string { return r.ResyncRenders.String() })
	row("restart: all reconciled (s)", func(r Result) string { return fmt.Sprintf("%.1f", r.RestartSeconds) })
	row("restart CPU (s)", func(r Result) string { return fmt.Sprintf("%.1f", r.RestartCPUSeconds) })
	row("global edit (s)", func(r Result) string { return fmt.Sprintf("%.1f", r.GlobalEditSeconds) })
	row("global edit writes", func(r Result) string { return strconv.Itoa(total(r.GlobalEditWrites)) })
	row("global edit renders/remembered", func(r Result) string { return r.GlobalEditRenders.String() })
	row("tenant edit (s)", func(r Result) string { return fmt.Sprintf("%.2f", r.TenantEditSeconds) })
	row("fleet diff of a blueprint edit (s)", func(r Result) string { return fmt.Sprintf("%.1f", r.FleetDiffSeconds) })
	row("fleet diff changed Gateways", func(r Result) string { return strconv.Itoa(r.FleetDiffChanged) })
	row("fleet diff requests/dry-runs", func(r Result) string { return fmt.Sprintf("%d/%d", r.FleetDiffRequests, r.FleetDiffDryRuns) })
	row("tenant edit Gateway reconciles", func(r Result) string { return strconv.Itoa(r.TenantEditReconciles) })
	row("tenant edit renders/remembered", func(r Result) string { return r.TenantEditRenders.String() })
	row("tenant edit writes", func(r Result) string { return strconv.Itoa(total(r.TenantEditWrites)) })
	row("offline render all (s)", func(r Result) string { return fmt.Sprintf("%.2f", r.OfflineSeconds) })
	row("offline median/Gateway (µs)", func(r Result) string { return fmt.Sprintf("%.0f", r.OfflineMedianMicros) })
	row("offline check renders/remembered", func(r Result) string {
		return fmt.Sprintf("%d/%d", r.OfflineCheckRenders, r.OfflineCheckRemembered)
	})
	row("load average at start", func(r Result) string { return strings.Fields(r.LoadAverageAtStart)[0] })
	for _, r := range rs {
		fmt.Fprintf(w, "\nN=%d writes by verb and resource: first convergence %s; resync %s; global edit %s; tenant edit %s\n",
			r.Gateways, fmtCounts(r.ConvergeWrites), fmtCounts(r.ResyncWrites), fmtCounts(r.GlobalEditWrites), fmtCounts(r.TenantEditWrites))
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func fmtCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// compare flags figures more than 20% worse than the baseline's.
func compare(w *os.File, rs []Result, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(w, "no baseline at %s to compare with\n", path)
		return
	}
	var base []Result
	if err := json.Unmarshal(b, &base); err != nil {
		fmt.Fprintf(w, "baseline %s: %v\n", path, err)
		return
	}
	regressions := 0
	for _, r := range rs {
		i := slices.IndexFunc(base, func(b Result) bool { return b.Gateways == r.Gateways })
		if i < 0 {
			fmt.Fprintf(w, "N=%d: not in %s, not compared\n", r.Gateways, path)
			continue
		}
		b := base[i]
		for _, m := range []struct {
			name      string
			now, then float64
		}{
			{"converge seconds", r.ConvergeSeconds, b.ConvergeSeconds},
			{"converge writes", float64(r.Writes), float64(b.Writes)},
			{"CPU seconds", r.CPUSeconds, b.CPUSeconds},
			{"peak heap MiB", r.PeakHeapMiB, b.PeakHeapMiB},
			{"global edit seconds", r.GlobalEditSeconds, b.GlobalEditSeconds},
			{"offline median µs", r.OfflineMedianMicros, b.OfflineMedianMicros},
		} {
			if m.then > 0 && m.now > 1.2*m.then {
				regressions++
				fmt.Fprintf(w, "REGRESSION N=%d %s: %.2f, baseline %.2f (+%.0f%%)\n", r.Gateways, m.name, m.now, m.then, 100*(m.now/m.then-1))
			}
		}
	}
	fmt.Fprintf(w, "compared with %s: %s\n", path, cmp.Or(map[bool]string{true: "no regression over 20%"}[regressions == 0], fmt.Sprintf("%d regressions over 20%%", regressions)))
}
