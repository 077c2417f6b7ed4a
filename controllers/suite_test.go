package controllers_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/manifests"
)

// One API server for the package; each test works in namespaces of its own.
var (
	cfg       *rest.Config
	k8s       client.Client
	stopMgr   context.CancelFunc
	testNSSeq int
)

const controllerNS = "gantry-system"

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	env, c, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	cfg = c
	k8s, err = client.New(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNS}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stop, err := startController(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stopMgr = stop
	defer func() { stopMgr() }()
	return m.Run()
}

// startController runs the controller in-process, as `gantry controller` does.
func startController(ctx context.Context) (context.CancelFunc, error) {
	// Errors always show; everything with -v.
	level := zapcore.ErrorLevel
	if testing.Verbose() {
		level = zapcore.InfoLevel
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.Level(level)))
	mgr, err := controllers.NewManager(cfg, controllers.ManagerOptions{MetricsAddress: "0"})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	if err := controllers.Setup(ctx, mgr, controllers.Options{ControllerNamespace: controllerNS, PolicyStatusInterval: 100 * time.Millisecond}); err != nil {
		cancel()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	return func() { cancel(); <-done }, nil
}

// namespace creates a fresh namespace for a test.
func namespace(t *testing.T, labels map[string]string) string {
	t.Helper()
	testNSSeq++
	name := fmt.Sprintf("t%d-%d", testNSSeq, time.Now().UnixNano()%100000)
	if err := k8s.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// eventually polls check until it returns nil, failing the test with its last error.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}

// apply creates the manifests of a file (relative to the repository root) or fails the test.
func loadBlueprint(t *testing.T, name string) *manifests.Set {
	t.Helper()
	set, err := manifests.Load([]string{filepath.Join(testenv.Root(), "blueprints", name, "blueprint.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := k8s.Create(t.Context(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

func gantryClass(name, blueprint string) *gwv1.GatewayClass {
	return &gwv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: gwv1.GatewayClassSpec{
			ControllerName: "gantry.dev/gateway-controller",
			ParametersRef:  &gwv1.ParametersReference{Group: "gateway.gantry.dev", Kind: "GatewayClassBlueprint", Name: blueprint},
		},
	}
}

func gateway(ns, name, class string, listeners ...gwv1.Listener) *gwv1.Gateway {
	if len(listeners) == 0 {
		listeners = []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}
	}
	return &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       gwv1.GatewaySpec{GatewayClassName: gwv1.ObjectName(class), Listeners: listeners},
	}
}
