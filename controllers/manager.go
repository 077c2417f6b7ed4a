package controllers

import (
	"cmp"
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// NewScheme knows the built-in kinds, Gateway API's and Gantry's.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, gwv1.Install, gwv1beta1.Install, v1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // registering static types; cannot fail
		}
	}
	return s
}

// ManagerOptions are the process-level settings of `gantry controller`.
type ManagerOptions struct {
	MetricsAddress     string
	HealthProbeAddress string
	// PprofAddress serves net/http/pprof's profiles ("0" or empty: off).
	PprofAddress            string
	LeaderElection          bool
	LeaderElectionNamespace string
	// SyncPeriod is how often every cached object is reconciled again (0: controller-runtime's
	// default of about ten hours).
	SyncPeriod time.Duration
	// WebhookPort serves the admission webhooks (webhooks.go) on this port, with the
	// certificate and key in WebhookCertDir (tls.crt, tls.key); 0: no webhook server.
	WebhookPort    int
	WebhookHost    string
	WebhookCertDir string
	// Restartable lets a process start a second manager after stopping the first (tests and
	// the scale harness restart the controller in-process; controller names must otherwise be
	// unique per process).
	Restartable bool
	// NewCache, when set, makes the manager's cache (default: controller-runtime's). Tests wrap
	// the cache to see which informers are asked for, and when.
	NewCache cache.NewCacheFunc
	// CacheSyncTimeout bounds each wait for informers to sync (0: controller-runtime's default,
	// two minutes): the manager's wait for its cache (boundedSync), then each controller's.
	CacheSyncTimeout time.Duration
}

// defaultCacheSyncTimeout is controller-runtime's default for a controller's wait.
const defaultCacheSyncTimeout = 2 * time.Minute

// boundedSync ends the manager's wait for its cache after a timeout. controller-runtime waits
// for the cache without a deadline, and does not return from that wait even when stopped, so
// one informer that can never list (its kind not readable under the controller's RBAC) held
// the process forever, ready to its probes and deaf to SIGTERM. Past the timeout the manager
// starts the controllers, whose own waits for the same informers have a deadline: the start
// fails with a timeout, and client-go's log says which list was refused and why
// (TestUnlistableKindFailsTheStart). Every informer is in the manager's wait since informEarly.
type boundedSync struct {
	cache.Cache
	timeout time.Duration
}

func (c boundedSync) WaitForCacheSync(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	c.Cache.WaitForCacheSync(ctx)
	return true
}

// NewManager builds the controller-runtime manager Gantry runs in.
func NewManager(cfg *rest.Config, o ManagerOptions) (manager.Manager, error) {
	var sync *time.Duration
	if o.SyncPeriod > 0 {
		sync = &o.SyncPeriod
	}
	var hooks webhook.Server
	if o.WebhookPort > 0 {
		hooks = webhook.NewServer(webhook.Options{Port: o.WebhookPort, Host: o.WebhookHost, CertDir: o.WebhookCertDir})
	}
	newCache := o.NewCache
	if newCache == nil {
		newCache = cache.New
	}
	if o.CacheSyncTimeout <= 0 {
		o.CacheSyncTimeout = defaultCacheSyncTimeout
	}
	var lock *resourcelock.LeaseLock
	if o.LeaderElection {
		var err error
		if lock, err = newLeaseLock(cmp.Or(leaderElectionConfig(cfg), cfg), o.LeaderElectionNamespace); err != nil {
			return nil, err
		}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		WebhookServer:                       hooks,
		Scheme:                              NewScheme(),
		MapperProvider:                      newRESTMapper,
		Metrics:                             metricsserver.Options{BindAddress: o.MetricsAddress},
		HealthProbeBindAddress:              o.HealthProbeAddress,
		PprofBindAddress:                    o.PprofAddress,
		LeaderElection:                      o.LeaderElection,
		LeaderElectionID:                    leaderElectionID,
		LeaderElectionNamespace:             o.LeaderElectionNamespace,
		LeaderElectionResourceLockInterface: lock,
		RenewDeadline:                       ptr(renewDeadline),
		// Not LeaderElectionReleaseOnCancel: leasingManager hands the Lease back (lease.go).
		// managedFields are most of a cached object's size and nothing here reads them.
		Cache: cache.Options{SyncPeriod: sync, DefaultTransform: cache.TransformStripManagedFields(),
			// Listener certificates are the only Secrets Gantry reads: the cache holds those of
			// type kubernetes.io/tls, not every Secret in the cluster, and of each only whether
			// it holds a certificate and its key, not the key.
			ByObject: map[client.Object]cache.ByObject{
				&corev1.Secret{}:  {Field: fields.OneTermEqualSelector("type", string(corev1.SecretTypeTLS)), Transform: stripSecret},
				serviceMetadata(): {Transform: serviceIdentity},
				&gwv1.Gateway{}:   {Transform: internGateway},
			}},
		NewCache: func(cfg *rest.Config, co cache.Options) (cache.Cache, error) {
			c, err := newCache(cfg, co)
			if err != nil {
				return nil, err
			}
			direct, err := client.New(cfg, client.Options{HTTPClient: co.HTTPClient, Scheme: co.Scheme, Mapper: co.Mapper})
			if err != nil {
				return nil, err
			}
			return boundedSync{Cache: newWarmCache(c, co.Scheme, direct), timeout: o.CacheSyncTimeout}, nil
		},
		Controller: config.Controller{SkipNameValidation: &o.Restartable, CacheSyncTimeout: o.CacheSyncTimeout},
	})
	if err != nil || lock == nil {
		return mgr, err
	}
	// The lock's Events ("became leader") go out through the manager's recorder, as they did
	// when controller-runtime built the lock.
	lock.LockConfig.EventRecorder = mgr.GetEventRecorderFor(lock.Identity()) //nolint:staticcheck // client-go's lock takes the old API's recorder
	return leasingManager{Manager: mgr, lock: lock}, nil
}

// serviceMetadata is the object of the metadata-only Service cache (builder.OnlyMetadata).
func serviceMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	return m
}

// serviceIdentity is the Service cache's transform. That cache holds every Service of the
// cluster, most of them others', and is asked only whether a routes' backend exists (by
// namespace and name, and on create and delete events): each keeps its identity, and not its
// labels, annotations (a kubectl-applied Service carries its whole last-applied configuration
// in one), owner references, finalizers or managedFields. In the harness's N=10,000 run the
// cached Services' metadata was 8.5 MB of a 170 MB live heap.
func serviceIdentity(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return stripManagedFields(obj) // this setting is the Service kind's in every form
	}
	m.ObjectMeta = metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		Generation: m.Generation, DeletionTimestamp: m.DeletionTimestamp}
	return m, nil
}

// internGateway is the Gateway cache's transform: managedFields dropped, as for every kind
// (cache.TransformStripManagedFields), and the strings that recur from Gateway to Gateway
// interned (intern, compact.go): the conditions' types, statuses, reasons and messages, which
// Gantry writes alike on every Gateway of a class, the listeners' names and protocols, the
// route kinds they support, the class and the namespace. A Gateway as Gantry leaves it, with
// ten conditions, holds about 3.2–3.8 KB decoded and 2.3–2.5 KB interned
// (TestInternGatewayIsSmaller): 7 to 14 MB at 10,000 Gateways. The values are not changed,
// only where their bytes are.
func internGateway(obj any) (any, error) {
	gw, ok := obj.(*gwv1.Gateway)
	if !ok {
		return stripManagedFields(obj) // this setting is the Gateway kind's in every form
	}
	gw.ManagedFields = nil
	gw.Namespace = intern(gw.Namespace)
	gw.Spec.GatewayClassName = gwv1.ObjectName(intern(string(gw.Spec.GatewayClassName)))
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		l.Name = gwv1.SectionName(intern(string(l.Name)))
		l.Protocol = gwv1.ProtocolType(intern(string(l.Protocol)))
	}
	internConditions(gw.Status.Conditions)
	for i := range gw.Status.Listeners {
		l := &gw.Status.Listeners[i]
		l.Name = gwv1.SectionName(intern(string(l.Name)))
		internConditions(l.Conditions)
		for j := range l.SupportedKinds {
			k := &l.SupportedKinds[j]
			k.Kind = gwv1.Kind(intern(string(k.Kind)))
			if k.Group != nil {
				*k.Group = gwv1.Group(intern(string(*k.Group)))
			}
		}
	}
	return gw, nil
}

// stripManagedFields is the default transform, for the forms of a kind (typed, metadata,
// unstructured) that a kind's own transform does not handle: a ByObject setting is the kind's
// in every form, and replaces the default transform.
var stripManagedFields = cache.TransformStripManagedFields()

func internConditions(cs []metav1.Condition) {
	for i := range cs {
		c := &cs[i]
		c.Type, c.Reason, c.Message = intern(c.Type), intern(c.Reason), intern(c.Message)
		c.Status = metav1.ConditionStatus(intern(string(c.Status)))
	}
}

// stripSecret is the Secret cache's transform (desired.StripTLSSecret).
func stripSecret(obj any) (any, error) {
	if s, ok := obj.(*corev1.Secret); ok {
		desired.StripTLSSecret(s)
	}
	return obj, nil
}

// leaderElectionConfig is the leader election's own config when cfg carries a rate limiter that
// the controller's clients share: renewing the Lease must not queue behind a convergence's
// writes, or a busy leader loses its Lease. nil (the manager's default, cfg itself) otherwise.
// With the limiter cleared, client-go gives the election's client a bucket of the same QPS.
func leaderElectionConfig(cfg *rest.Config) *rest.Config {
	if cfg.RateLimiter == nil {
		return nil
	}
	own := rest.CopyConfig(cfg)
	own.RateLimiter = nil
	return own
}
