// Package playground runs Gantry on a local, real API server: kube-apiserver and etcd started
// by envtest, Gantry's and Gateway API's CRDs installed, the controller in-process, and a
// sample applied. It prints, for each Gateway, what the controller rendered and applied, the
// Gateway's status, and its effective values with their provenance.
package playground

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/internal/cluster"
	"gantry.dev/gantry/internal/explain"
	"gantry.dev/gantry/internal/install"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/manifests"
)

// Options of a playground run.
type Options struct {
	// Paths are the manifests to apply: files or folders.
	Paths []string
	// Once exits after printing; otherwise Run waits for ctx to end.
	Once bool
	// Kubeconfig is where to write a kubeconfig for kubectl.
	Kubeconfig string
	// Timeout bounds the wait for every Gateway to settle.
	Timeout time.Duration
	// Ready, when set, is called once everything is printed, while the API server still runs.
	Ready func()
	// Chart installs the Helm chart's objects (rendered by Helm's engine) and runs the
	// controller as the chart's ServiceAccount, with exactly the chart's permissions and its
	// admission (the webhooks served on loopback): what works here then works with the chart.
	Chart bool
	// Watch applies the paths again whenever a file below them changes (objects removed from
	// the files are deleted), then prints the Gateways again; until ctx ends.
	Watch bool
	// Changed, when set, is called after each re-apply that Watch made has been printed.
	Changed func()
}

// Run starts the API server and the controller, applies the manifests, prints the result and,
// unless Once, keeps running until ctx ends. Everything it started is stopped on return.
func Run(ctx context.Context, out io.Writer, o Options) (err error) {
	set, err := manifests.Load(o.Paths, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Starting kube-apiserver and etcd ...")
	env, cfg, err := testenv.Start()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, env.Stop()) }()
	if o.Kubeconfig != "" {
		if err := writeKubeconfig(env, o.Kubeconfig); err != nil {
			return err
		}
		defer os.Remove(o.Kubeconfig)
	}

	c, err := client.New(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return err
	}
	// Restartable: tests run several playgrounds in one process.
	controllerCfg, mo, co := cfg, controllers.ManagerOptions{MetricsAddress: "0", Restartable: true}, controllers.Options{}
	if o.Chart {
		fmt.Fprintln(out, "Installing the Helm chart (charts/gantry) ...")
		dir, err := os.MkdirTemp("", "gantry-playground-webhook-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if controllerCfg, mo, err = installChart(ctx, c, cfg, dir); err != nil {
			return err
		}
		co.Webhooks = true
	}
	stopController, err := controllers.Start(controllerCfg, mo, co)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopController()) }()
	if o.Chart {
		if err := install.LocalWebhooks(ctx, c, "gantry", mo.WebhookPort, webhookCA); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, "Applying", strings.Join(o.Paths, " "), "...")
	if err := apply(ctx, c, set); err != nil {
		return err
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	if err := settle(ctx, c, set, timeout); err != nil {
		return err
	}
	if err := report(ctx, c, out); err != nil {
		return err
	}
	var w *fsnotify.Watcher
	if o.Watch && !o.Once {
		// Before Ready: a change made from then on is seen.
		if w, err = newWatcher(o.Paths); err != nil {
			return err
		}
		defer w.Close()
	}
	if o.Ready != nil {
		o.Ready()
	}
	if o.Once {
		return nil
	}
	if o.Kubeconfig != "" {
		fmt.Fprintf(out, "\nThe playground is running. Try:\n  kubectl --kubeconfig %s get gateways,gatewayconfigs,gatewayclassconfigs -A\n", o.Kubeconfig)
	}
	if o.Watch {
		fmt.Fprintf(out, "Watching %s: a change there is applied and printed again.\n", strings.Join(o.Paths, " "))
	}
	fmt.Fprintln(out, "Press Ctrl-C to stop it and clean up.")
	if o.Watch {
		return watch(ctx, c, w, out, o, set, timeout)
	}
	<-ctx.Done()
	return nil
}

// The chart as the playground installs it.
const (
	chartRelease   = "gantry"
	chartNamespace = desired.DefaultControllerNamespace
)

// webhookCA is the CA bundle of the playground's webhook certificate (installChart).
var webhookCA []byte

// installChart creates the chart's objects, as Helm's engine renders them, and returns the
// controller's config (impersonating the chart's ServiceAccount) and manager options (its
// webhooks served on loopback with a certificate made in dir).
func installChart(ctx context.Context, c client.Client, cfg *rest.Config, dir string) (*rest.Config, controllers.ManagerOptions, error) {
	mo := controllers.ManagerOptions{MetricsAddress: "0", Restartable: true, WebhookHost: "127.0.0.1", WebhookCertDir: dir}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chartNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, mo, err
	}
	objs, err := install.Render(filepath.Join(testenv.Root(), "charts", "gantry"), chartRelease, chartNamespace, nil)
	if err != nil {
		return nil, mo, fmt.Errorf("render the chart: %w", err)
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return nil, mo, fmt.Errorf("install the chart's %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	if webhookCA, err = testenv.ServingCert(dir); err != nil {
		return nil, mo, err
	}
	if mo.WebhookPort, err = testenv.FreePort(); err != nil {
		return nil, mo, err
	}
	sa := rest.CopyConfig(cfg)
	sa.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + chartNamespace + ":gantry"}
	return sa, mo, nil
}

func writeKubeconfig(env *envtest.Environment, path string) error {
	user, err := env.AddUser(envtest.User{Name: "playground", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	kc, err := user.KubeConfig()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, kc, 0o600)
}

// objects are the manifests' objects the playground applies, in dependency order.
func objects(set *manifests.Set) []client.Object {
	var objs []client.Object
	for _, name := range slices.Sorted(maps.Keys(set.Blueprints)) {
		objs = append(objs, set.Blueprints[name])
	}
	for _, name := range slices.Sorted(maps.Keys(set.Classes)) {
		objs = append(objs, set.Classes[name])
	}
	for _, p := range set.GatewayClassConfigs {
		objs = append(objs, p)
	}
	for _, p := range set.GatewayConfigs {
		objs = append(objs, p)
	}
	for _, gw := range set.Gateways {
		objs = append(objs, gw)
	}
	for _, ls := range set.ListenerSets {
		objs = append(objs, ls)
	}
	for _, r := range set.Routes {
		objs = append(objs, r)
	}
	objs = append(objs, set.OtherRoutes...)
	for _, g := range set.ReferenceGrants {
		objs = append(objs, g)
	}
	// Services the routes send to (backendRefs resolve when they exist), not objects that
	// stand for what a Gateway rendered before.
	for _, u := range set.Live {
		if u.GetKind() == "Service" && u.GroupVersionKind().Group == "" && u.GetLabels()[v1alpha1.LabelTemplate] == "" {
			objs = append(objs, u.DeepCopy())
		}
	}
	return objs
}

// createNamespaces creates the namespaces the objects are in, with the manifests' labels.
func createNamespaces(ctx context.Context, c client.Client, set *manifests.Set, objs []client.Object) error {
	namespaces := map[string]bool{desired.DefaultControllerNamespace: true}
	for _, o := range objs {
		if o.GetNamespace() != "" {
			namespaces[o.GetNamespace()] = true
		}
	}
	for ns := range namespaces {
		nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: set.NamespaceLabels[ns]}}
		if err := c.Create(ctx, nsObj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create Namespace %s: %w", ns, err)
		}
	}
	return nil
}

// apply creates the manifests' namespaces and objects, in dependency order.
func apply(ctx context.Context, c client.Client, set *manifests.Set) error {
	objs := objects(set)
	if err := createNamespaces(ctx, c, set, objs); err != nil {
		return err
	}
	// A manifest's creationTimestamp orders policies of one level (the older is higher); the
	// API server sets its own. Created in that order, a second apart where the manifests' differ,
	// the cluster's objects keep the manifests' order, and the playground renders what
	// `gantry render` renders offline.
	slices.SortStableFunc(objs, func(a, b client.Object) int {
		return a.GetCreationTimestamp().Compare(b.GetCreationTimestamp().Time)
	})
	var last time.Time
	for _, o := range objs {
		if ts := o.GetCreationTimestamp().Time; !ts.IsZero() {
			if !last.IsZero() && ts.After(last) {
				waitNextSecond()
			}
			last = ts
		}
		o.SetResourceVersion("")
		o.SetCreationTimestamp(metav1.Time{}) // the API server sets it
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("create %T %s: %w", o, client.ObjectKeyFromObject(o), err)
		}
	}
	return nil
}

// waitNextSecond sleeps until the clock's second changes: creation timestamps have a
// resolution of one second.
func waitNextSecond() {
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second).Sub(now))
}

// settle waits until every Gateway of a Gantry class has a Programmed condition for its
// current generation (True, or False with a reason).
func settle(ctx context.Context, c client.Client, set *manifests.Set, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		waiting := ""
		for _, want := range set.Gateways {
			if !set.Serves(want) {
				continue
			}
			gw := &gwv1.Gateway{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(want), gw); err != nil {
				return err
			}
			p := meta.FindStatusCondition(gw.Status.Conditions, string(gwv1.GatewayConditionProgrammed))
			if p == nil || p.ObservedGeneration != gw.Generation || p.Reason == string(gwv1.GatewayReasonPending) && p.Status == metav1.ConditionUnknown {
				waiting = gw.Namespace + "/" + gw.Name
				break
			}
		}
		if waiting == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("Gateway %s did not settle within %s", waiting, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// report prints, for each Gantry Gateway in the cluster, its objects, status and values.
func report(ctx context.Context, c client.Client, out io.Writer) error {
	set, err := cluster.Read(ctx, c, "")
	if err != nil {
		return err
	}
	for _, gw := range set.Gateways {
		if !set.Serves(gw) {
			continue
		}
		fmt.Fprintf(out, "\n======== Gateway %s/%s (class %s) ========\n", gw.Namespace, gw.Name, gw.Spec.GatewayClassName)
		fmt.Fprintln(out, "\n--- Rendered objects in the cluster")
		in := set.Input(gw, desired.DefaultControllerNamespace)
		objs, err := renderedObjects(ctx, c, in.Blueprint, gw)
		if err != nil {
			return err
		}
		for _, o := range objs {
			fmt.Fprintf(out, "%s %s (template %s)\n", o.GetKind(), client.ObjectKeyFromObject(o), o.GetLabels()[v1alpha1.LabelTemplate])
		}
		fmt.Fprintln(out, "\n--- Gateway status")
		st, err := yaml.Marshal(statusView(gw))
		if err != nil {
			return err
		}
		out.Write(st)
		fmt.Fprintln(out, "\n--- Effective values and who set them")
		res, err := desired.Gateway(in)
		if err != nil {
			fmt.Fprintf(out, "cannot compute: %v\n", err)
			continue
		}
		explain.Write(out, res.Values)
	}
	return nil
}

// statusView keeps the parts of the status a person reads: conditions without timestamps.
func statusView(gw *gwv1.Gateway) map[string]any {
	conds := make([]map[string]any, 0, len(gw.Status.Conditions))
	for _, c := range gw.Status.Conditions {
		conds = append(conds, map[string]any{"type": c.Type, "status": c.Status, "reason": c.Reason, "message": c.Message})
	}
	v := map[string]any{"conditions": conds}
	if len(gw.Status.Addresses) > 0 {
		v["addresses"] = gw.Status.Addresses
	}
	listeners := make([]string, 0, len(gw.Status.Listeners))
	for _, l := range gw.Status.Listeners {
		listeners = append(listeners, fmt.Sprintf("%s: %d attached routes", l.Name, l.AttachedRoutes))
	}
	v["listeners"] = listeners
	return v
}

// renderedObjects lists, from the API server, the objects of the kinds the blueprint records
// that carry the Gateway's owner annotation.
func renderedObjects(ctx context.Context, c client.Client, bp *v1alpha1.GatewayClassBlueprint, gw *gwv1.Gateway) ([]*unstructured.Unstructured, error) {
	if bp == nil {
		return nil, nil
	}
	var out []*unstructured.Unstructured
	owner := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}.String()
	for _, k := range bp.Status.RenderedKinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind + "List"})
		if err := c.List(ctx, l, client.MatchingLabels{v1alpha1.LabelGatewayName: desired.LabelValue(gw.Name)}); err != nil {
			return nil, err
		}
		for i := range l.Items {
			if l.Items[i].GetAnnotations()[v1alpha1.AnnotationOwner] == owner {
				out = append(out, &l.Items[i])
			}
		}
	}
	slices.SortFunc(out, func(a, b *unstructured.Unstructured) int {
		return strings.Compare(a.GetKind()+"/"+a.GetName(), b.GetKind()+"/"+b.GetName())
	})
	return out, nil
}
