package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/cluster"
	"gantry.dev/gantry/manifests"
)

// wrapTransport, set by tests, wraps the transport below the read-only guard, where it sees
// exactly the requests that reach the API server.
var wrapTransport func(http.RoundTripper) http.RoundTripper

// clusterOptions are kubectl's flags for reaching a cluster, the ones a read needs.
type clusterOptions struct {
	config        *genericclioptions.ConfigFlags
	allNamespaces bool
	// noClientRateLimit lifts client-go's rate limit, for a command that bounds its requests
	// in flight itself (diff's --concurrency): at kubectl's 50 QPS a diff of 2,000 Gateways
	// would wait on the client, not on the API server, which has its own priority and
	// fairness.
	noClientRateLimit bool
}

func (o *clusterOptions) addFlags(f *pflag.FlagSet) {
	o.addConfigFlags(f)
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "look at the Gateways of every namespace")
}

// addConfigFlags adds --kubeconfig, --context and -n/--namespace.
func (o *clusterOptions) addConfigFlags(f *pflag.FlagSet) {
	o.config = genericclioptions.NewConfigFlags(false)
	kubeconfig, context, namespace := o.config.KubeConfig, o.config.Context, o.config.Namespace
	// Only these: a read-only command has no use for the others, and they would crowd --help.
	*o.config = genericclioptions.ConfigFlags{KubeConfig: kubeconfig, Context: context, Namespace: namespace}
	o.config.AddFlags(f)
}

// liveCluster is what was read from a cluster.
type liveCluster struct {
	client client.Client
	// namespace is the namespace of the Gateways read; "" for all.
	namespace string
	set       *manifests.Set
}

// read connects through a client that can only read and reads Gantry's inputs. allNamespaces
// reads the Gateways of every namespace whatever -n says (the command names them itself).
func (o *clusterOptions) read(ctx context.Context, allNamespaces bool) (*liveCluster, error) {
	c, err := o.connect()
	if err != nil {
		return nil, err
	}
	ns := ""
	if !o.allNamespaces && !allNamespaces {
		if ns, _, err = o.config.ToRawKubeConfigLoader().Namespace(); err != nil {
			return nil, err
		}
	}
	set, err := cluster.Read(ctx, c, ns)
	if err != nil {
		return nil, fmt.Errorf("read the cluster: %w", err)
	}
	return &liveCluster{client: c, namespace: ns, set: set}, nil
}

// connect returns a client of the cluster the flags name that can only read.
func (o *clusterOptions) connect() (client.Client, error) {
	cfg, err := o.config.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 50, 100 // as kubectl; client-go's default of 5 makes a large read slow
	if o.noClientRateLimit {
		cfg.QPS = -1 // client-go: no rate limiter
	}
	if wrapTransport != nil {
		cfg.Wrap(wrapTransport)
	}
	c, err := client.New(cluster.ReadOnly(cfg), client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return nil, fmt.Errorf("connect to the cluster %s: %w", cfg.Host, err)
	}
	return c, nil
}

// isNamespaced asks the API server for a kind's scope, as the controller does.
func (l *liveCluster) isNamespaced(gvk schema.GroupVersionKind) (bool, error) {
	m, err := l.client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, fmt.Errorf("kind %s is not served by the API server (is its CRD installed?)", gvk)
	}
	return m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// unseenNote says what a read could not see with the user's rights, or "" when it saw all.
func unseenNote(set *manifests.Set) string {
	if len(set.Unseen) == 0 {
		return ""
	}
	return "not readable with your rights (forbidden), so not taken into account: " + strings.Join(slices.Compact(slices.Sorted(slices.Values(set.Unseen))), "; ") +
		". Values set by policies you cannot read are missing (docs/tenants.md says which role reads what)"
}

// warnUnseen prints unseenNote on w, as a note.
func warnUnseen(w io.Writer, set *manifests.Set) {
	if n := unseenNote(set); n != "" {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
}
