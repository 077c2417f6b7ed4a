package faults_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/manifests"
)

// world is one test's Gateways of the ready proxy blueprint in a namespace of their own, and a
// bystander: a ConfigMap of the tenant's that carries Gantry's labels and owner annotation but
// no owner reference, which no fault may make Gantry touch.
type world struct {
	ns, class string
	// gone are the kinds each Gateway must not have (a template removed): converged checks
	// the others of Deployment, Service and ServiceAccount.
	gone      map[string]bool
	gateways  []*gwv1.Gateway
	bystander *corev1.ConfigMap
}

var seq int

func newWorld(t *testing.T) *world {
	t.Helper()
	seq++
	w := &world{ns: fmt.Sprintf("f%d-%d", seq, time.Now().UnixNano()%100000)}
	w.class = "proxy-" + w.ns
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.ns}})
	set, err := manifests.Load([]string{filepath.Join(testenv.Root(), "blueprints", "proxy", "blueprint.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bp := set.Blueprints["proxy"].DeepCopy()
	bp.Name = w.class
	create(t, bp, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: w.class}, Spec: gwv1.GatewayClassSpec{
		ControllerName: v1alpha1.ControllerName,
		ParametersRef:  &gwv1.ParametersReference{Group: "gateway.gantry.dev", Kind: "GatewayClassBlueprint", Name: w.class},
	}})
	w.bystander = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: "gw-0",
		Labels:      map[string]string{v1alpha1.LabelGatewayName: "gw-0", v1alpha1.LabelTemplate: "deployment"},
		Annotations: map[string]string{v1alpha1.AnnotationOwner: w.ns + "/gw-0"}}, Data: map[string]string{"mine": "yes"}}
	create(t, w.bystander)
	return w
}

// add creates n more Gateways.
func (w *world) add(t *testing.T, n int) {
	t.Helper()
	for range n {
		gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: fmt.Sprintf("gw-%d", len(w.gateways))}, Spec: gwv1.GatewaySpec{
			GatewayClassName: gwv1.ObjectName(w.class), Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}}}
		create(t, gw)
		w.gateways = append(w.gateways, gw)
	}
}

// programmed counts the Gateways Programmed=True for their generation.
func (w *world) programmed(t *testing.T) int {
	t.Helper()
	l := &gwv1.GatewayList{}
	if err := k8s.List(t.Context(), l, client.InNamespace(w.ns)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, gw := range l.Items {
		if c := meta.FindStatusCondition(gw.Status.Conditions, "Programmed"); c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == gw.Generation {
			n++
		}
	}
	return n
}

// firstProgrammed waits until a first Gateway is programmed: the controller is converging.
func (w *world) firstProgrammed(t *testing.T) {
	t.Helper()
	eventually(t, "a first Gateway programmed", func() error {
		if w.programmed(t) == 0 {
			return fmt.Errorf("none yet")
		}
		return nil
	})
}

// converged waits until the world is as it must be whatever happened on the way: every
// Gateway Programmed; each Gateway's Deployment, Service and ServiceAccount present once, owned
// by that Gateway (its UID), with the blueprint's content; no other rendered Deployment; the
// bystander as it was. It returns how long that took.
func (w *world) converged(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	eventually(t, fmt.Sprintf("%d Gateways of %s programmed", len(w.gateways), w.ns), func() error {
		if n := w.programmed(t); n != len(w.gateways) {
			return fmt.Errorf("%d of %d programmed", n, len(w.gateways))
		}
		return nil
	})
	took := time.Since(start)
	deps := &appsv1.DeploymentList{}
	if err := k8s.List(t.Context(), deps, client.InNamespace(w.ns), client.HasLabels{v1alpha1.LabelTemplate}); err != nil {
		t.Fatal(err)
	}
	if len(deps.Items) != len(w.gateways) {
		t.Errorf("%d rendered Deployments in %s, want one per Gateway (%d)", len(deps.Items), w.ns, len(w.gateways))
	}
	for _, gw := range w.gateways {
		key := client.ObjectKeyFromObject(gw)
		for _, o := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}, &corev1.ServiceAccount{}} {
			if kind := fmt.Sprintf("%T", o); w.gone[kind] {
				if err := k8s.Get(t.Context(), key, o); !apierrors.IsNotFound(err) {
					t.Errorf("%s %s is still there, its template removed (%v)", kind, key, err)
				}
				continue
			}
			if err := k8s.Get(t.Context(), key, o); err != nil {
				t.Errorf("%T %s: %v", o, key, err)
				continue
			}
			if ref := metav1.GetControllerOf(o); ref == nil || ref.Kind != "Gateway" || ref.UID != gw.UID {
				t.Errorf("%T %s is not owned by its Gateway (UID %s): %+v", o, key, gw.UID, o.GetOwnerReferences())
			}
		}
		d := &appsv1.Deployment{}
		if err := k8s.Get(t.Context(), key, d); err == nil {
			if *d.Spec.Replicas != 2 || d.Spec.Template.Spec.Containers[0].Image != "docker.io/envoyproxy/envoy:v1.33.0" {
				t.Errorf("Deployment %s: replicas %d, image %s; want the blueprint's 2 and docker.io/envoyproxy/envoy:v1.33.0", key, *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image)
			}
		}
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(w.bystander), cm); err != nil {
		t.Errorf("the bystander ConfigMap: %v", err)
	} else if cm.ResourceVersion != w.bystander.ResourceVersion || len(cm.OwnerReferences) != 0 {
		t.Errorf("the bystander ConfigMap was written (resourceVersion %s, was %s; owners %+v)", cm.ResourceVersion, w.bystander.ResourceVersion, cm.OwnerReferences)
	}
	return took
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := k8s.Create(t.Context(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// TestKilledMidConvergence: the controller is killed (SIGKILL, no cleanup) while it converges
// 40 Gateways, and a new one starts. Nothing is lost or duplicated.
func TestKilledMidConvergence(t *testing.T) {
	w := newWorld(t)
	a := startGantry(t, "first")
	w.add(t, 40)
	w.firstProgrammed(t)
	a.signal(syscall.SIGKILL)
	<-a.done
	done := w.programmed(t)
	t.Logf("killed with %d of %d Gateways programmed", done, len(w.gateways))
	startGantry(t, "second")
	took := w.converged(t)
	t.Logf("the second process converged the rest in %v", took.Round(10*time.Millisecond))
}

// TestKilledMidPrune: a template is removed from the blueprint, and the controller is killed
// (SIGKILL) while it deletes its 40 objects; deletes are slowed so that the kill lands in the
// middle. A new process prunes the rest, and deletes nothing else: every other object stays, as
// does the bystander that carries Gantry's labels.
func TestKilledMidPrune(t *testing.T) {
	w := newWorld(t)
	p := startFaultProxy(t)
	a := startGantry(t, "first", "--kubeconfig", p.kubeconfig())
	w.add(t, 40)
	w.converged(t)

	// A tenant's ServiceAccount that looks like one of the template's: Gantry's labels and owner
	// annotation, no owner reference. No prune may take it.
	lookalike := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: "lookalike",
		Labels:      map[string]string{v1alpha1.LabelGatewayName: "gw-1", v1alpha1.LabelTemplate: "serviceaccount"},
		Annotations: map[string]string{v1alpha1.AnnotationOwner: w.ns + "/gw-1"}}}
	create(t, lookalike)
	p.deleteDelay.Store(int64(150 * time.Millisecond))
	bp := &v1alpha1.GatewayClassBlueprint{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Name: w.class}, bp); err != nil {
		t.Fatal(err)
	}
	delete(bp.Spec.GatewayTemplate.ResourceTemplates, "serviceaccount")
	if err := k8s.Update(t.Context(), bp); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for p.deletes.Load() < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	a.signal(syscall.SIGKILL)
	<-a.done
	left := &corev1.ServiceAccountList{}
	if err := k8s.List(t.Context(), left, client.InNamespace(w.ns), client.HasLabels{v1alpha1.LabelTemplate}); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed after %d deletes, with %d of 40 ServiceAccounts left", p.deletes.Load(), len(left.Items)-1)
	if len(left.Items) <= 1 || len(left.Items) >= 41 { // the lookalike is one of them
		t.Fatalf("the kill did not land mid-prune (%d of 40 left)", len(left.Items)-1)
	}
	p.deleteDelay.Store(0)
	startGantry(t, "second", "--kubeconfig", p.kubeconfig())
	w.gone = map[string]bool{"*v1.ServiceAccount": true}
	start := time.Now()
	eventually(t, "every ServiceAccount pruned", func() error {
		l := &corev1.ServiceAccountList{}
		if err := k8s.List(t.Context(), l, client.InNamespace(w.ns), client.HasLabels{v1alpha1.LabelTemplate}); err != nil {
			return err
		}
		if len(l.Items) != 1 || l.Items[0].Name != lookalike.Name {
			return fmt.Errorf("%d left, want only the lookalike", len(l.Items))
		}
		return nil
	})
	t.Logf("the second process pruned the rest in %v", time.Since(start).Round(10*time.Millisecond))
	w.converged(t)
	if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(lookalike), &corev1.ServiceAccount{}); err != nil {
		t.Errorf("the tenant's lookalike ServiceAccount: %v", err)
	}
}

// lease is the leader-election Lease's holder in ns ("" when none holds it).
func lease(t *testing.T, ns string) string {
	t.Helper()
	l := &coordinationv1.Lease{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "gantry.gateway.gantry.dev"}, l); err != nil {
		return ""
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// twoReplicas starts two leader-electing replicas in w's namespace, with more args, and returns
// them, the leader first, once the leader holds the Lease.
func twoReplicas(t *testing.T, w *world, more ...string) (leader, standby *process, holder string) {
	t.Helper()
	args := append([]string{"--leader-elect", "--leader-election-namespace", w.ns}, more...)
	leader = startGantry(t, "leader", args...)
	eventually(t, "the first replica holds the Lease", func() error {
		if holder = lease(t, w.ns); holder == "" {
			return fmt.Errorf("no holder")
		}
		return nil
	})
	standby = startGantry(t, "standby", args...)
	return leader, standby, holder
}

// takeover waits for the Lease to pass from old to another holder and returns how long that took.
func takeover(t *testing.T, ns, old string, from time.Time) time.Duration {
	t.Helper()
	var took time.Duration
	eventually(t, "the standby takes the Lease", func() error {
		if h := lease(t, ns); h == "" || h == old {
			return fmt.Errorf("holder %q", h)
		}
		took = time.Since(from)
		return nil
	})
	return took
}

// TestLeaderStopsAndHandsOver: SIGTERM to the leader of two replicas, as a rolling update
// sends. It stops within its grace period, hands the Lease over, and the standby takes over at
// once (before, it waited 16-20 s for the Lease to expire) and reconciles.
func TestLeaderStopsAndHandsOver(t *testing.T) {
	w := newWorld(t)
	leader, _, holder := twoReplicas(t, w)
	w.add(t, 5)
	w.converged(t)
	sent := time.Now()
	leader.signal(syscall.SIGTERM)
	if !leader.wait(30 * time.Second) {
		t.Fatalf("the leader did not stop within 30 s of SIGTERM (the chart's grace period)")
	}
	t.Logf("the leader stopped %v after SIGTERM", leader.exited.Sub(sent).Round(time.Millisecond))
	took := takeover(t, w.ns, holder, sent)
	t.Logf("the standby held the Lease %v after SIGTERM", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("takeover took %v; a released Lease is taken within the standby's retry period (2 s)", took)
	}
	w.add(t, 1) // only the new leader can program it
	w.converged(t)
}

// TestLeaderKilled: SIGKILL to the leader (a node lost): the standby takes over once the Lease
// expires (15 s by default) and reconciles. make faults only: it waits for the expiry.
func TestLeaderKilled(t *testing.T) {
	if !all() {
		t.Skip("waits for a Lease to expire; make faults runs it")
	}
	w := newWorld(t)
	leader, _, holder := twoReplicas(t, w)
	w.add(t, 5)
	w.converged(t)
	sent := time.Now()
	leader.signal(syscall.SIGKILL)
	<-leader.done
	took := takeover(t, w.ns, holder, sent)
	t.Logf("the standby held the Lease %v after the leader was killed", took.Round(time.Millisecond))
	w.add(t, 1)
	w.converged(t)
}

// TestLeaderCutOff: the leader of two replicas loses the API server (a network partition: its
// connections refused and cut) while the standby keeps it. The standby takes over once the Lease
// expires; the old leader, unable to renew, gives up and exits; when its network comes back, not
// one write of it reaches the API server. make faults only: it waits for the expiry.
func TestLeaderCutOff(t *testing.T) {
	if !all() {
		t.Skip("waits for a Lease to expire; make faults runs it")
	}
	w := newWorld(t)
	p := startFaultProxy(t)
	args := []string{"--leader-elect", "--leader-election-namespace", w.ns}
	leader := startGantry(t, "leader", append(args, "--kubeconfig", p.kubeconfig())...)
	var holder string
	eventually(t, "the cut-off replica holds the Lease", func() error {
		if holder = lease(t, w.ns); holder == "" {
			return fmt.Errorf("no holder")
		}
		return nil
	})
	startGantry(t, "standby", args...)
	w.add(t, 5)
	w.converged(t)

	cut := time.Now()
	p.down()
	took := takeover(t, w.ns, holder, cut)
	t.Logf("the standby held the Lease %v after the leader was cut off", took.Round(time.Millisecond))
	if !leader.wait(30 * time.Second) {
		t.Fatalf("the cut-off leader still runs 30 s after it lost the Lease:\n%s", leader.tail(20))
	}
	t.Logf("the cut-off leader exited %v after it was cut off", leader.exited.Sub(cut).Round(time.Millisecond))
	if leader.exited.After(cut.Add(took)) {
		t.Errorf("the old leader ran on after the standby was seen holding the Lease: two leaders at once")
	}
	before := p.writes.Load()
	p.up()
	w.add(t, 1) // only the new leader can program it
	w.converged(t)
	if after := p.writes.Load(); after != before {
		t.Errorf("%d writes reached the API server from the old leader after the partition ended", after-before)
	}
}

// TestAPIServerUnreachableMidConvergence: the API server becomes unreachable (connections
// refused, every open one cut, watches included) while the controller converges 40 Gateways;
// 5 more are made meanwhile. Once it is back, everything converges, nothing twice.
func TestAPIServerUnreachableMidConvergence(t *testing.T) {
	w := newWorld(t)
	p := startFaultProxy(t)
	startGantry(t, "controller", "--kubeconfig", p.kubeconfig())
	w.add(t, 40)
	w.firstProgrammed(t)
	p.down()
	t.Logf("API server unreachable with %d of %d Gateways programmed", w.programmed(t), len(w.gateways))
	w.add(t, 5)
	time.Sleep(5 * time.Second)
	back := time.Now()
	p.up()
	w.converged(t)
	t.Logf("converged %v after the API server was reachable again", time.Since(back).Round(10*time.Millisecond))
}

// TestWatchesExpire: every watch ends with 410 Gone (too old resource version) and new ones get
// the same for 2 s, so every informer lists again; Gateways made meanwhile are not lost.
func TestWatchesExpire(t *testing.T) {
	w := newWorld(t)
	p := startFaultProxy(t)
	startGantry(t, "controller", "--kubeconfig", p.kubeconfig())
	w.add(t, 5)
	w.converged(t)
	done := make(chan struct{})
	go func() { p.expire(2 * time.Second); close(done) }()
	w.add(t, 3)
	<-done
	if p.gone.Load() == 0 {
		t.Fatal("no watch was answered 410 Gone: the fault was not injected")
	}
	t.Logf("%d watches answered 410 Gone", p.gone.Load())
	took := w.converged(t)
	t.Logf("converged %v after the watches worked again", took.Round(10*time.Millisecond))
}

// etcdPID is the process ID of the test's etcd, found by its data directory.
func etcdPID(t *testing.T) int {
	t.Helper()
	dir := env.ControlPlane.Etcd.DataDir
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if filepath.Base(args[0]) == "etcd" && slices.ContainsFunc(args, func(a string) bool { return a == dir || a == "--data-dir="+dir }) {
			pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
	}
	t.Fatalf("no etcd process with data directory %s", dir)
	return 0
}

// TestEtcdPaused: etcd stops answering (SIGSTOP) for 5 s while the controller converges 40
// Gateways: every request that reaches it waits. Once it goes on (SIGCONT), everything
// converges, nothing twice, and the controller is the same process.
func TestEtcdPaused(t *testing.T) {
	w := newWorld(t)
	a := startGantry(t, "controller")
	w.add(t, 40)
	w.firstProgrammed(t)
	pid := etcdPID(t)
	done := w.programmed(t) // read before: the test's own reads wait for etcd too
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Logf("etcd paused with %d of %d Gateways programmed", done, len(w.gateways))
	time.Sleep(5 * time.Second)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	took := w.converged(t)
	if a.wait(0) {
		t.Fatalf("the controller exited:\n%s", a.tail(20))
	}
	t.Logf("converged %v after etcd went on", took.Round(10*time.Millisecond))
}

// TestEtcdPausedPastTheRenewDeadline: etcd stops answering (SIGSTOP) while the leader of two
// replicas converges 40 Gateways, and stays stopped past the leader's renew deadline (10 s, the
// manager's default). The leader, unable to renew its Lease, must give up and exit while etcd is
// still stopped: a leader that went on acting could act beside the next one. The standby, which
// cannot take the Lease meanwhile either, keeps running. A new process stands in for the old
// leader's pod restarting. Once etcd goes on (SIGCONT) another holder takes the Lease and
// everything converges, nothing twice, the bystander untouched. make faults only: it waits out
// the deadline.
func TestEtcdPausedPastTheRenewDeadline(t *testing.T) {
	if !all() {
		t.Skip("waits out the leader's renew deadline; make faults runs it")
	}
	w := newWorld(t)
	// With a client-side limit, as a platform may set: the controller's clients share one
	// bucket and the Lease's renewals have their own (internal/command, controllers.NewManager).
	limit := "--kube-api-qps=50"
	leader, standby, holder := twoReplicas(t, w, limit)
	w.add(t, 40)
	w.firstProgrammed(t)
	pid := etcdPID(t)
	done := w.programmed(t) // read before: the test's own reads wait for etcd too
	l := &coordinationv1.Lease{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: w.ns, Name: "gantry.gateway.gantry.dev"}, l); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	// A standby takes the Lease no sooner than its duration after it saw the last renewal,
	// which was this one or later (the same machine's clock).
	expires := l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
	resume := func() { _ = syscall.Kill(pid, syscall.SIGCONT) }
	t.Cleanup(resume) // whatever fails below, the next test gets a running etcd
	t.Logf("etcd paused with %d of %d Gateways programmed", done, len(w.gateways))
	// The renew deadline is 10 s; the elector retries every 2 s. 20 s is past both with room.
	exited := leader.wait(20 * time.Second)
	resume()
	resumed := time.Now()
	if !exited {
		t.Fatalf("the leader still ran %v after etcd stopped, past its renew deadline:\n%s", resumed.Sub(paused).Round(time.Second), leader.tail(20))
	}
	t.Logf("the leader exited %v after etcd stopped, %v before the Lease it last renewed could be taken; etcd went on %v after it stopped",
		leader.exited.Sub(paused).Round(10*time.Millisecond), expires.Sub(leader.exited).Round(10*time.Millisecond), resumed.Sub(paused).Round(10*time.Millisecond))
	if !leader.exited.Before(expires) {
		t.Errorf("the leader ran on %v past the time another replica may take its Lease: two leaders at once", leader.exited.Sub(expires).Round(10*time.Millisecond))
	}
	if standby.wait(0) {
		t.Fatalf("the standby exited while etcd was stopped:\n%s", standby.tail(20))
	}
	startGantry(t, "restarted", "--leader-elect", "--leader-election-namespace", w.ns, limit)
	took := takeover(t, w.ns, holder, resumed)
	t.Logf("another replica held the Lease %v after etcd went on", took.Round(10*time.Millisecond))
	w.add(t, 5) // only a leader can program them
	t.Logf("converged %v after the takeover", w.converged(t).Round(10*time.Millisecond))
}

// TestAPIServerRestarted: the kube-apiserver process is stopped while the controller converges
// 40 Gateways and started again 3 s later against the same etcd, on the same address with the
// same certificates, as a control-plane upgrade restarts it; 5 Gateways are made after. Everything
// converges, nothing twice, and the controller is the same process. make faults only: the
// API server takes a minute to stop, draining its requests.
func TestAPIServerRestarted(t *testing.T) {
	if !all() {
		t.Skip("slow: make faults runs it")
	}
	w := newWorld(t)
	a := startGantry(t, "controller")
	w.add(t, 40)
	w.firstProgrammed(t)
	done := w.programmed(t)
	stopping := time.Now()
	if err := env.ControlPlane.APIServer.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver stopped (in %v) with %d of %d Gateways programmed", time.Since(stopping).Round(10*time.Millisecond), done, len(w.gateways))
	time.Sleep(3 * time.Second)
	if err := env.ControlPlane.APIServer.Start(); err != nil {
		t.Fatalf("start kube-apiserver again: %v", err)
	}
	back := time.Now()
	w.add(t, 5)
	w.converged(t)
	if a.wait(0) {
		t.Fatalf("the controller exited:\n%s", a.tail(20))
	}
	t.Logf("all 45 converged %v after kube-apiserver was back", time.Since(back).Round(10*time.Millisecond))
}

// TestStoppedMidConvergence: SIGTERM while the controller converges 150 Gateways, its workers
// busy, as a rolling update may send it. It stops within the chart's 30 s grace period; a new
// process converges the rest.
func TestStoppedMidConvergence(t *testing.T) {
	w := newWorld(t)
	a := startGantry(t, "first")
	w.add(t, 150)
	w.firstProgrammed(t)
	sent := time.Now()
	a.signal(syscall.SIGTERM)
	if !a.wait(30 * time.Second) {
		t.Fatalf("still running 30 s after SIGTERM (the chart's grace period); its goroutines:\n%s", a.stacks())
	}
	t.Logf("stopped %v after SIGTERM, with %d of %d Gateways programmed", a.exited.Sub(sent).Round(time.Millisecond), w.programmed(t), len(w.gateways))
	startGantry(t, "second")
	w.converged(t)
}
