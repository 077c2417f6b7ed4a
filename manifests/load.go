// Package manifests reads Gantry's inputs from YAML files, folders or standard input, for
// `gantry render`: blueprints, GatewayClasses, Gateways, HTTPRoutes, ListenerSets, policies, Namespaces and
// live objects that Gantry rendered earlier. It turns them into the same desired.Input the
// controller gathers from an API server.
package manifests

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/internal/yamltext"
	"gantry.dev/gantry/render"
)

// Set is everything read from the manifests.
type Set struct {
	Blueprints map[string]*v1alpha1.GatewayClassBlueprint
	Classes    map[string]*gwv1.GatewayClass
	Gateways   []*gwv1.Gateway
	Routes     []*gwv1.HTTPRoute
	// OtherRoutes are GRPCRoutes, TLSRoutes, TCPRoutes and UDPRoutes, typed.
	OtherRoutes         []client.Object
	ListenerSets        []*gwv1.ListenerSet
	GatewayClassConfigs []*v1alpha1.GatewayClassConfig
	GatewayConfigs      []*v1alpha1.GatewayConfig
	NamespaceLabels     map[string]map[string]string
	// Live are other objects; those with Gantry's labels stand for what a Gateway rendered
	// before, and feed .Resources.
	Live []*unstructured.Unstructured
	// Services are the Services that exist (among Live, or read from a cluster), by
	// namespace/name: what routes' backendRefs resolve to (.Backends).
	Services map[types.NamespacedName]bool
	// ReferenceGrants are the ReferenceGrants among Live (or read from a cluster).
	ReferenceGrants []*gwv1beta1.ReferenceGrant
	// Proof, when set, must also hold for a live object to be a Gateway's (Owned): the
	// controller's ownership proof, for objects read from a cluster, where labels and the owner
	// annotation are only a claim a tenant can write.
	Proof func(gw *gwv1.Gateway, o *unstructured.Unstructured) bool
	// Unseen names what a read from a cluster could not see because the user may not read it
	// ("GatewayClassConfigs in gantry-system"): what it holds is missing from the set.
	Unseen []string

	mu       sync.Mutex
	compiled map[string]*render.Blueprint
	// byTarget indexes the policies by namespace and target, built once (see CandidateInput);
	// the policy slices must not change after the first CandidateInput.
	byTarget *policyIndex
	// owned indexes Live for Owned (ownedIndex), built from the Live that ownedOf names.
	owned   map[ownedKey][]int
	ownedOf liveID
	// kinds caches customKinds, read once per Set.
	kinds     map[schema.GroupKind]bool
	kindsOnce sync.Once
	// seen says where each object of the inputs came from (see once).
	seen map[string]string
}

// Load reads manifests from paths: files, folders (every .yaml, .yml and .json below them) or
// "-" for stdin. Known kinds are decoded strictly, so a misspelt field is an error naming the
// file and document.
func Load(paths []string, stdin io.Reader) (*Set, error) {
	s := NewSet()
	for _, p := range paths {
		if p == "-" {
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, fmt.Errorf("read stdin: %w", err)
			}
			if err := s.add("<stdin>", data); err != nil {
				return nil, err
			}
			continue
		}
		files, err := expand(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if err := s.add(f, data); err != nil {
				return nil, err
			}
		}
	}
	sortGateways(s.Gateways)
	return s, nil
}

// NewSet returns an empty set.
func NewSet() *Set {
	return &Set{
		Blueprints:      map[string]*v1alpha1.GatewayClassBlueprint{},
		Classes:         map[string]*gwv1.GatewayClass{},
		NamespaceLabels: map[string]map[string]string{},
	}
}

func sortGateways(gws []*gwv1.Gateway) {
	slices.SortFunc(gws, func(a, b *gwv1.Gateway) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}

func expand(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				files = append(files, path)
			}
		}
		return nil
	})
	return files, err
}

func (s *Set) add(file string, data []byte) error {
	docs, lines := yamltext.SplitDocuments(string(data))
	for i, text := range docs {
		where := fmt.Sprintf("%s: document %d (line %d)", file, i+1, lines[i])
		d := newDocument(text)
		if err := s.addDocument(d); err != nil {
			return fmt.Errorf("%s: %w", where, render.ExplainYAML(err, text))
		}
		if err := s.once(d, where); err != nil {
			return err
		}
	}
	return nil
}

// once refuses an object given twice in the inputs: which of the two counts would depend on
// the order files are read in, and the second one silently replaces or joins the first.
func (s *Set) once(d document, where string) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := d.head(&head); err != nil || head.Kind == "" || head.Metadata.Name == "" {
		return nil
	}
	gv, _ := schema.ParseGroupVersion(head.APIVersion)
	name := head.Metadata.Name
	if head.Metadata.Namespace != "" {
		name = head.Metadata.Namespace + "/" + name
	}
	key := gv.Group + " " + head.Kind + " " + name
	if s.seen == nil {
		s.seen = map[string]string{}
	}
	if first, ok := s.seen[key]; ok {
		return fmt.Errorf("%s %s is given twice: in %s and in %s", head.Kind, name, first, where)
	}
	s.seen[key] = where
	return nil
}

// document is one YAML document of the inputs and, when it parses, its JSON (YAML read as
// sigs.k8s.io/yaml reads it, without a target type), which the head reads and withDefaults
// share: each read of a document parsed its YAML again, four times per Gateway.
type document struct {
	text string
	json []byte // nil when the YAML does not parse
}

func newDocument(text string) document {
	j, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		j = nil
	}
	return document{text: text, json: j}
}

// head decodes the document's fields into head, a struct of string fields, as
// yaml.Unmarshal(text, head) does. From the shared JSON when that decodes: its strings are
// then the YAML's strings, as yaml.Unmarshal would have given them. Otherwise (a YAML error, a
// number where a string is wanted, which yaml.Unmarshal turns into a string) with
// yaml.Unmarshal itself, for its result and its error.
func (d document) head(head any) error {
	if d.json != nil && json.Unmarshal(d.json, head) == nil {
		return nil
	}
	reflect.ValueOf(head).Elem().SetZero()
	return yaml.Unmarshal([]byte(d.text), head)
}

func (s *Set) addDocument(d document) error {
	doc := d.text
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := d.head(&head); err != nil {
		return err
	}
	if head.APIVersion == "" && head.Kind == "" {
		if strings.TrimSpace(doc) == "null" {
			return nil
		}
		return fmt.Errorf("not a Kubernetes object (no apiVersion and kind)")
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return err
	}
	group := gv.Group
	// strict decodes known kinds strictly, then with the defaults of their CRD.
	strict := func(into any) error {
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			return err
		}
		return withDefaults(d, gv.WithKind(head.Kind), into)
	}
	switch {
	case group == v1alpha1.GroupName && head.Kind == "GatewayClassBlueprint":
		o := &v1alpha1.GatewayClassBlueprint{}
		if err := strict(o); err != nil {
			return err
		}
		s.Blueprints[o.Name] = o
	case group == v1alpha1.GroupName && head.Kind == "GatewayClassConfig":
		o := &v1alpha1.GatewayClassConfig{}
		if err := strict(o); err != nil {
			return err
		}
		o.Namespace = cmp.Or(o.Namespace, "default")
		s.GatewayClassConfigs = append(s.GatewayClassConfigs, o)
	case group == v1alpha1.GroupName && head.Kind == "GatewayConfig":
		o := &v1alpha1.GatewayConfig{}
		if err := strict(o); err != nil {
			return err
		}
		o.Namespace = cmp.Or(o.Namespace, "default")
		s.GatewayConfigs = append(s.GatewayConfigs, o)
	case group == gwv1.GroupName && head.Kind == "GatewayClass":
		o := &gwv1.GatewayClass{}
		if err := strict(o); err != nil {
			return err
		}
		s.Classes[o.Name] = o
	case group == gwv1.GroupName && head.Kind == "Gateway":
		o := &gwv1.Gateway{}
		if err := strict(o); err != nil {
			return err
		}
		o.Namespace = cmp.Or(o.Namespace, "default")
		s.Gateways = append(s.Gateways, o)
	case group == gwv1.GroupName && head.Kind == "HTTPRoute":
		o := &gwv1.HTTPRoute{}
		if err := strict(o); err != nil {
			return err
		}
		o.Namespace = cmp.Or(o.Namespace, "default")
		s.Routes = append(s.Routes, o)
	case group == gwv1.GroupName && slices.Contains(desired.RouteKinds, head.Kind) && head.Kind != desired.KindHTTPRoute:
		o := desired.NewRoute(head.Kind)
		if err := strict(o); err != nil {
			return err
		}
		o.SetNamespace(cmp.Or(o.GetNamespace(), "default"))
		s.OtherRoutes = append(s.OtherRoutes, o)
	case group == gwv1.GroupName && head.Kind == "ListenerSet":
		o := &gwv1.ListenerSet{}
		if err := strict(o); err != nil {
			return err
		}
		o.Namespace = cmp.Or(o.Namespace, "default")
		s.ListenerSets = append(s.ListenerSets, o)
	case group == "" && head.Kind == "Namespace":
		o := &corev1.Namespace{}
		if err := strict(o); err != nil {
			return err
		}
		s.NamespaceLabels[o.Name] = o.Labels
	default:
		u := &unstructured.Unstructured{}
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return err
		}
		if err := u.UnmarshalJSON(bytes.TrimSpace(j)); err != nil {
			return err
		}
		s.Live = append(s.Live, u)
		switch {
		case group == "" && head.Kind == "Service":
			if s.Services == nil {
				s.Services = map[types.NamespacedName]bool{}
			}
			s.Services[types.NamespacedName{Namespace: cmp.Or(u.GetNamespace(), "default"), Name: u.GetName()}] = true
		case group == gwv1.GroupName && head.Kind == "ReferenceGrant":
			o := &gwv1beta1.ReferenceGrant{}
			if err := yaml.UnmarshalStrict([]byte(doc), o); err != nil {
				return err
			}
			o.Namespace = cmp.Or(o.Namespace, "default")
			s.ReferenceGrants = append(s.ReferenceGrants, o)
		}
	}
	return nil
}
