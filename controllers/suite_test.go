package controllers_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
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
	// The controller serves its admission webhooks here, with a certificate the API server
	// trusts through webhookCA (webhook_test.go registers them for its own objects only).
	webhookPort    int
	webhookCertDir string
	webhookCA      []byte
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
	// Errors always show; everything with -v.
	level := zapcore.ErrorLevel
	if testing.Verbose() {
		level = zapcore.InfoLevel
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.Level(level)))
	webhookCertDir, err = os.MkdirTemp("", "gantry-webhook-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(webhookCertDir)
	if webhookCA, err = testenv.ServingCert(webhookCertDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if webhookPort, err = testenv.FreePort(); err != nil {
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

// startController runs the controller in-process, as `gantry controller` does. It may run
// again after the previous one stopped (restart tests).
func startController(_ context.Context) (context.CancelFunc, error) {
	stop, err := controllers.Start(cfg, controllers.ManagerOptions{MetricsAddress: "0", Restartable: true,
		WebhookPort: webhookPort, WebhookHost: "127.0.0.1", WebhookCertDir: webhookCertDir},
		controllers.Options{ControllerNamespace: controllerNS, PolicyStatusInterval: 100 * time.Millisecond, Webhooks: true})
	if err != nil {
		return nil, err
	}
	return func() {
		if err := stop(); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}, nil
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

// crdClient is a client of the suite's API server that also knows CustomResourceDefinitions.
func crdClient(t *testing.T) client.Client {
	t.Helper()
	scheme := controllers.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	testenv.Eventually(t, what, check)
}

// loadBlueprint loads one of the ready blueprints (blueprints/<name>/blueprint.yaml).
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

func ptr[T any](v T) *T { return &v }

// restartController stops the running controller and starts a new one, the way a crash and a
// new pod would: nothing survives but what is in the API server.
func restartController(t *testing.T) {
	t.Helper()
	stopMgr()
	startOrFail(t)
}

// startOrFail starts the controller and makes it the one TestMain stops.
func startOrFail(t *testing.T) {
	t.Helper()
	stop, err := startController(context.Background())
	if err != nil {
		t.Fatalf("start controller: %v", err)
	}
	stopMgr = stop
}

// raw is a JSON object for a values stanza ("" for none).
func raw(s string) *apiextensionsv1.JSON {
	if s == "" {
		return nil
	}
	return &apiextensionsv1.JSON{Raw: []byte(s)}
}

// valuesTemplate renders one ConfigMap holding the Gateway's effective values as JSON, so a
// test can read exactly what a template saw.
const valuesTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-values
data:
  values: {{ toJson .Values | quote }}
`

// blueprint builds a GatewayClassBlueprint from gateway templates and default values (JSON).
func blueprint(name, defaults string, templates map[string]string) *v1alpha1.GatewayClassBlueprint {
	return &v1alpha1.GatewayClassBlueprint{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.GatewayClassBlueprintSpec{
			Values:          v1alpha1.ValuesStanzas{Default: raw(defaults)},
			GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: templates},
		},
	}
}

// setup creates a blueprint and a class named after the test's namespace, and returns the
// class name.
func setup(t *testing.T, ns string, bp *v1alpha1.GatewayClassBlueprint) string {
	t.Helper()
	bp.Name = bp.Name + "-" + ns
	class := "class-" + ns
	create(t, bp, gantryClass(class, bp.Name))
	return class
}

// gatewayConfig and gatewayClassConfig build policies; def and ovr are JSON objects or "".
func gatewayConfig(ns, name, kind, target, def, ovr string) *v1alpha1.GatewayConfig {
	return &v1alpha1.GatewayConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.GatewayConfigSpec{
			TargetRef:    targetRef(kind, target),
			PolicyValues: v1alpha1.PolicyValues{Default: raw(def), Override: raw(ovr)},
		},
	}
}

func gatewayClassConfig(ns, name, kind, target, def, ovr string) *v1alpha1.GatewayClassConfig {
	return &v1alpha1.GatewayClassConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.GatewayClassConfigSpec{
			TargetRef:    targetRef(kind, target),
			PolicyValues: v1alpha1.PolicyValues{Default: raw(def), Override: raw(ovr)},
		},
	}
}

func targetRef(kind, name string) v1alpha1.PolicyTargetReference {
	group := gwv1.Group(gwv1.GroupName)
	if kind == "Namespace" {
		group = ""
	}
	return v1alpha1.PolicyTargetReference{Group: group, Kind: gwv1.Kind(kind), Name: gwv1.ObjectName(name)}
}

// renderedValues reads the values ConfigMap of a Gateway (see valuesTemplate).
func renderedValues(ctx context.Context, ns, gw string) (map[string]any, error) {
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: gw + "-values"}, cm); err != nil {
		return nil, err
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(cm.Data["values"]), &v); err != nil {
		return nil, fmt.Errorf("values ConfigMap: %w", err)
	}
	return v, nil
}

// waitValues waits until the Gateway's values ConfigMap says want (a JSON object).
func waitValues(t *testing.T, ns, gw, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	eventually(t, "values "+want, func() error {
		got, err := renderedValues(t.Context(), ns, gw)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, w) {
			return fmt.Errorf("values = %v, want %v", got, w)
		}
		return nil
	})
}

// gone returns nil once the object does not exist.
func gone(ctx context.Context, o client.Object) error {
	err := k8s.Get(ctx, client.ObjectKeyFromObject(o), o)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%T %s still exists", o, client.ObjectKeyFromObject(o))
}

// waitGone waits until every object is deleted.
func waitGone(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		eventually(t, fmt.Sprintf("%T %s deleted", o, client.ObjectKeyFromObject(o)), func() error { return gone(t.Context(), o) })
	}
}

// waitGateway waits until the Gateway has a condition of the type, status and reason at its
// current generation, and returns it.
func waitGateway(t *testing.T, ns, name, typ string, status metav1.ConditionStatus, reason string) *gwv1.Gateway {
	t.Helper()
	gw := &gwv1.Gateway{}
	eventually(t, fmt.Sprintf("Gateway %s/%s %s=%s/%s", ns, name, typ, status, reason), func() error {
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, gw); err != nil {
			return err
		}
		return conditionIs(gw.Status.Conditions, typ, status, reason, gw.Generation)
	})
	return gw
}

// renderedConfigMaps lists the ConfigMaps labelled as rendered for a Gateway name in a namespace, by
// name.
func renderedConfigMaps(ctx context.Context, ns, gw string) (map[string]corev1.ConfigMap, error) {
	l := &corev1.ConfigMapList{}
	if err := k8s.List(ctx, l, client.InNamespace(ns), client.MatchingLabels{v1alpha1.LabelGatewayName: gw}); err != nil {
		return nil, err
	}
	out := map[string]corev1.ConfigMap{}
	for _, cm := range l.Items {
		out[cm.Name] = cm
	}
	return out, nil
}

// update reads an object, changes it and writes it back, retrying on conflicts with the
// controller's own writes.
func update[T client.Object](t *testing.T, o T, change func(T)) {
	t.Helper()
	eventually(t, fmt.Sprintf("update %T %s", o, o.GetName()), func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(o), o); err != nil {
			return err
		}
		change(o)
		return k8s.Update(t.Context(), o)
	})
}

// ancestor returns a policy's ancestor status entry for a Gateway, or for the policy's target
// when gw is empty and the entry is the only one.
func ancestor(st v1alpha1.PolicyStatus, ns, gw string) (*gwv1.PolicyAncestorStatus, error) {
	for i, a := range st.Ancestors {
		if a.ControllerName != v1alpha1.ControllerName {
			continue
		}
		if a.AncestorRef.Kind != nil && *a.AncestorRef.Kind == "Gateway" && a.AncestorRef.Namespace != nil &&
			string(*a.AncestorRef.Namespace) == ns && string(a.AncestorRef.Name) == gw {
			return &st.Ancestors[i], nil
		}
	}
	return nil, fmt.Errorf("no ancestor for Gateway %s/%s in %s", ns, gw, describeAncestors(st))
}

func describeAncestors(st v1alpha1.PolicyStatus) string {
	var parts []string
	for _, a := range st.Ancestors {
		kind := ""
		if a.AncestorRef.Kind != nil {
			kind = string(*a.AncestorRef.Kind)
		}
		ns := ""
		if a.AncestorRef.Namespace != nil {
			ns = string(*a.AncestorRef.Namespace) + "/"
		}
		var conds []string
		for _, c := range a.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s/%s(%q)", c.Type, c.Status, c.Reason, c.Message))
		}
		parts = append(parts, fmt.Sprintf("%s %s%s [%s]", kind, ns, a.AncestorRef.Name, strings.Join(conds, ", ")))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// policyStatus reads a policy's status.
func policyStatus(ctx context.Context, p client.Object) (v1alpha1.PolicyStatus, int64, error) {
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
		return v1alpha1.PolicyStatus{}, 0, err
	}
	switch p := p.(type) {
	case *v1alpha1.GatewayConfig:
		return p.Status, p.Generation, nil
	case *v1alpha1.GatewayClassConfig:
		return p.Status, p.Generation, nil
	}
	return v1alpha1.PolicyStatus{}, 0, fmt.Errorf("%T is not a policy", p)
}

// waitPolicy waits until the policy's ancestor entry for Gateway ns/gw has Accepted and
// Enforced as wanted (enforced "" means: no Enforced condition).
func waitPolicy(t *testing.T, p client.Object, ns, gw string, accepted metav1.ConditionStatus, acceptedReason string, enforced metav1.ConditionStatus, enforcedReason string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%T %s on Gateway %s: Accepted %s/%s, Enforced %s/%s", p, p.GetName(), gw, accepted, acceptedReason, enforced, enforcedReason), func() error {
		st, gen, err := policyStatus(t.Context(), p)
		if err != nil {
			return err
		}
		a, err := ancestor(st, ns, gw)
		if err != nil {
			return err
		}
		return policyConditions(a, gen, accepted, acceptedReason, enforced, enforcedReason)
	})
}

func policyConditions(a *gwv1.PolicyAncestorStatus, gen int64, accepted metav1.ConditionStatus, acceptedReason string, enforced metav1.ConditionStatus, enforcedReason string) error {
	if err := conditionIs(a.Conditions, "Accepted", accepted, acceptedReason, gen); err != nil {
		return err
	}
	if enforced == "" {
		if c := meta.FindStatusCondition(a.Conditions, controllers.ConditionEnforced); c != nil {
			return fmt.Errorf("unexpected %s condition %s/%s (%s)", c.Type, c.Status, c.Reason, c.Message)
		}
		return nil
	}
	return conditionIs(a.Conditions, controllers.ConditionEnforced, enforced, enforcedReason, gen)
}

// waitPolicyTarget waits until the policy's only ancestor of ours is its target (no Gateway
// reached) with the Accepted status and reason, and no Enforced condition.
func waitPolicyTarget(t *testing.T, p client.Object, status metav1.ConditionStatus, reason string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%T %s Accepted %s/%s on its target", p, p.GetName(), status, reason), func() error {
		st, gen, err := policyStatus(t.Context(), p)
		if err != nil {
			return err
		}
		if len(st.Ancestors) != 1 {
			return fmt.Errorf("ancestors = %s, want one for the target", describeAncestors(st))
		}
		return policyConditions(&st.Ancestors[0], gen, status, reason, "", "")
	})
}

// gatewayReconciles is how many Gateway reconciles the controller process ran: controller-
// runtime's counter. Tests use it only to know a reconcile happened, never to assert on calls.
func gatewayReconciles(t *testing.T) float64 {
	t.Helper()
	mfs, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "gateway" {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}
