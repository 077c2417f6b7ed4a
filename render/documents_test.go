package render_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/render"
)

func TestDocuments(t *testing.T) {
	objA := cm("a", nil)
	objB := cm("b", nil)
	tests := []struct {
		name     string
		template string
		want     []map[string]any
	}{{
		name:     "several documents, a separator with a comment, empty and comment-only ones",
		template: "---\n" + configMap("a") + "--- # the second\n\n---\n# nothing here\n---\n" + configMap("b") + "---\n",
		want:     []map[string]any{objA, objB},
	}, {
		name: "--- in strings and mid-line",
		template: configMap("a",
			`sep: "---"`,
			`mid: a --- b`,
			`block: |`,
			`  ---`,
			`  apiVersion: v1`,
		),
		want: []map[string]any{cm("a", map[string]any{"sep": "---", "mid": "a --- b", "block": "---\napiVersion: v1\n"})},
	}, {
		name:     "a template that renders nothing",
		template: "{{- if false }}\n" + configMap("a") + "{{- end }}\n",
	}, {
		name:     "a trailing document end marker",
		template: configMap("a") + "...\n",
		want:     []map[string]any{objA},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": tt.template}))
			out, err := b.RenderGateway(input(nil))
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			var got []map[string]any
			for _, o := range out.Objects {
				if o.Template != "t" {
					t.Errorf("object from template %q, want t", o.Template)
				}
				got = append(got, o.Object)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("objects =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestDocumentErrors(t *testing.T) {
	const prefix = "blueprint bp: gatewayTemplate.resourceTemplates.t: "
	tests := []struct {
		name     string
		template string
		want     string
	}{{
		name:     "no apiVersion",
		template: "kind: ConfigMap\nmetadata:\n  name: a\n",
		want:     prefix + "document 1: object has no apiVersion",
	}, {
		name:     "no kind",
		template: configMap("a") + "---\napiVersion: v1\nmetadata:\n  name: b\n",
		want:     prefix + "document 2: object has no kind",
	}, {
		name:     "no name",
		template: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n",
		want:     prefix + "document 1: ConfigMap has no metadata.name",
	}, {
		name:     "no metadata",
		template: "apiVersion: v1\nkind: ConfigMap\n",
		want:     prefix + "document 1: ConfigMap has no metadata.name",
	}, {
		name:     "empty name",
		template: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"\"\n",
		want:     prefix + "document 1: ConfigMap has no metadata.name",
	}, {
		name:     "a list",
		template: "- a\n- b\n",
		want:     prefix + "document 1: a document must be an object, not []interface {}",
	}, {
		name:     "a string",
		template: configMap("a") + "---\nhello\n",
		want:     prefix + "document 2: a document must be an object, not string",
	}, {
		name:     "bad apiVersion",
		template: "apiVersion: a/b/c\nkind: ConfigMap\nmetadata:\n  name: a\n",
		want:     prefix + "document 1: ConfigMap a: unexpected GroupVersion string: a/b/c",
	}, {
		name:     "another document started inside a line",
		template: configMap("a") + "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
		want:     prefix + `document 1: output is not valid YAML: line 6 starts another YAML document ("--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}"); documents must be separated by a line holding only "---"`,
	}, {
		name:     "content after a document end marker",
		template: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n...\ndata: {x: y}\n",
		want:     prefix + `document 1: output is not valid YAML: line 5 starts another YAML document ("..."); documents must be separated by a line holding only "---"`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": tt.template}))
			out, err := b.RenderGateway(input(nil))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error\n got %v\nwant %s", err, tt.want)
			}
			if out != nil {
				t.Errorf("output %v with an error; a render is all or nothing", out)
			}
		})
	}

	// The YAML parser's own message follows ours.
	b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("a", "x: 1", "x: 2")}))
	_, err := b.RenderGateway(input(nil))
	if want := prefix + "document 1: output is not valid YAML: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("duplicate key: error %v, want one starting %q", err, want)
	}
}

func TestNamespaces(t *testing.T) {
	const prefix = "blueprint bp: gatewayTemplate.resourceTemplates.t: document 1: "
	rbac := "rbac.authorization.k8s.io"
	clusterRole := "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n"
	withNS := func(template, namespace string) string {
		return strings.Replace(template, "metadata:\n", "metadata:\n  namespace: "+namespace+"\n", 1)
	}
	widget := "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
	tests := []struct {
		name          string
		template      string
		clusterScoped []v1alpha1.GroupKind
		isNamespaced  func(schema.GroupVersionKind) (bool, error)
		want          map[string]any
		err           string
	}{{
		name:     "namespaced object without a namespace lands in the Gateway's",
		template: configMap("a"),
		want:     cm("a", nil),
	}, {
		name:     "namespaced object naming the Gateway's namespace",
		template: withNS(configMap("a"), ns),
		want:     cm("a", nil),
	}, {
		name:     "namespaced object naming another namespace",
		template: withNS(configMap("a"), "kube-system"),
		err:      prefix + `ConfigMap a names namespace "kube-system"; objects rendered here must be in namespace "team-a"`,
	}, {
		name:     "cluster-scoped kind not listed",
		template: clusterRole,
		err:      prefix + "ClusterRole reader is cluster-scoped and the blueprint does not list ClusterRole.rbac.authorization.k8s.io in spec.clusterScopedKinds",
	}, {
		name:     "core cluster-scoped kind not listed",
		template: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: extra\n",
		err:      prefix + "Namespace extra is cluster-scoped and the blueprint does not list Namespace in spec.clusterScopedKinds",
	}, {
		name:          "cluster-scoped kind listed",
		template:      clusterRole,
		clusterScoped: []v1alpha1.GroupKind{{Group: rbac, Kind: "ClusterRole"}},
		want:          map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "reader"}},
	}, {
		name:          "another cluster-scoped kind listed",
		template:      clusterRole,
		clusterScoped: []v1alpha1.GroupKind{{Group: rbac, Kind: "ClusterRoleBinding"}},
		err:           prefix + "ClusterRole reader is cluster-scoped and the blueprint does not list ClusterRole.rbac.authorization.k8s.io in spec.clusterScopedKinds",
	}, {
		name:          "cluster-scoped kind listed, naming a namespace",
		template:      withNS(clusterRole, ns),
		clusterScoped: []v1alpha1.GroupKind{{Group: rbac, Kind: "ClusterRole"}},
		err:           prefix + `ClusterRole reader is cluster-scoped but names namespace "team-a"`,
	}, {
		name:         "scope from the API server: cluster-scoped",
		template:     widget,
		isNamespaced: func(schema.GroupVersionKind) (bool, error) { return false, nil },
		err:          prefix + "Widget w is cluster-scoped and the blueprint does not list Widget.example.com in spec.clusterScopedKinds",
	}, {
		name:         "scope from the API server: namespaced",
		template:     widget,
		isNamespaced: func(schema.GroupVersionKind) (bool, error) { return true, nil },
		want:         map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": ns}},
	}, {
		name:     "scope from the API server: unknown kind",
		template: widget,
		isNamespaced: func(gvk schema.GroupVersionKind) (bool, error) {
			return false, errors.New("no matches for kind " + gvk.Kind)
		},
		err: prefix + "Widget w: no matches for kind Widget",
	}, {
		name:     "unknown kind without an API server is namespaced",
		template: widget,
		want:     map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": ns}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := gatewaySpec(map[string]string{"t": tt.template})
			spec.ClusterScopedKinds = tt.clusterScoped
			b := mustCompile(t, spec)
			in := input(nil)
			in.IsNamespaced = tt.isNamespaced
			out, err := b.RenderGateway(in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error\n got %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			if want := []render.Object{{Template: "t", Object: tt.want}}; !reflect.DeepEqual(out.Objects, want) {
				t.Errorf("objects =\n%v\nwant\n%v", out.Objects, want)
			}
		})
	}
}

// TestRouteNamespace: route templates render into the route's namespace, not the Gateway's.
func TestRouteNamespace(t *testing.T) {
	spec := &v1alpha1.GatewayClassBlueprintSpec{HTTPRouteTemplate: &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{
		"plain":   configMap("plain"),
		"gateway": strings.Replace(configMap("gateway"), "metadata:\n", "metadata:\n  namespace: {{ .Gateway.metadata.namespace }}\n", 1),
	}}}
	b := mustCompile(t, spec)
	in := input(nil)
	in.Namespace = "team-b"
	in.Route = map[string]any{"metadata": map[string]any{"name": "shop", "namespace": "team-b"}}
	_, err := b.RenderRoute(in)
	want := `blueprint bp: httpRouteTemplate.resourceTemplates.gateway: document 1: ConfigMap gateway names namespace "team-a"; objects rendered here must be in namespace "team-b"`
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got %v\nwant %s", err, want)
	}

	delete(spec.HTTPRouteTemplate.ResourceTemplates, "gateway")
	b = mustCompile(t, spec)
	out, err := b.RenderRoute(in)
	if err != nil {
		t.Fatalf("RenderRoute: %v", err)
	}
	obj := cm("plain", nil)
	obj["metadata"].(map[string]any)["namespace"] = "team-b"
	if want := []render.Object{{Template: "plain", Object: obj}}; !reflect.DeepEqual(out.Objects, want) {
		t.Errorf("objects =\n%v\nwant\n%v", out.Objects, want)
	}
}
