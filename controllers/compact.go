package controllers

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"unique"

	"github.com/klauspost/compress/s2"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// The rendered objects' cache holds each object as a compactObject: the metadata the
// informer's indexes, the label selectors and the event handlers read, typed, and everything
// else (spec, status, data, the rest of metadata, …) as one JSON string, packed as an s2 block
// against its kind's dictionary when that is smaller (packRest). Reading it out of the
// cache (a List or Get, which deep-copy) gives the object the API server returned, managedFields
// reduced, as an *unstructured.Unstructured: drift repair, .Resources and health see every field.
//
// The cache of rendered objects was half the controller's live heap as unstructured maps
// (docs/performance.md, "Issue 22: memory"): a Deployment as the API server returns it is
// 11.4 KB on the heap decoded. Its spec and status as one string cut that to 4.8 KB; its
// metadata as a map (nested maps of interfaces, every key its own string) was then most of the
// rest, hence typed metadata with the keys and values that repeat across objects interned.
// TestCompactIsSmaller measures both.
//
// Written by hand because no library keeps part of an object serialized: the informer's
// transform is the place controller-runtime offers, and it takes any function. Its cache reader
// deep-copies with DeepCopyObject and assigns the result to what the caller asked for, so a copy
// that is an *unstructured.Unstructured is what a List of unstructured objects expects.

// compactObject is a rendered object as the cache keeps it. Read through its accessors, only
// the typed fields below are there: generation, creationTimestamp, deletionTimestamp, finalizers
// and the like read as empty until a copy out of the cache expands the object. Nothing reads
// them of a cached object (the event handlers, the indexes and the selectors read names,
// labels, annotations, owner references and the resourceVersion); a predicate that would must
// expand first. client-go's cache mutation detector (KUBE_CACHE_MUTATION_DETECTOR, a debugging
// aid) compares a copy with the cached object and so cannot be used with this cache.
type compactObject struct {
	metav1.TypeMeta
	// ObjectMeta holds name, namespace, uid, resourceVersion and ownerReferences (those the
	// API server sent, of the types it sends); labels and annotations are below; the rest of
	// the metadata is in rest.
	metav1.ObjectMeta
	// labels and annotations are the metadata's maps, as pairs: the embedded ObjectMeta's maps
	// stay nil, and the accessors below read these.
	labels, annotations pairs
	// rest is the JSON of every other field, metadata's rest under "metadata"; an s2 block
	// against dict when dict is not nil.
	rest string
	dict *s2.Dict
}

var _ runtime.Object = &compactObject{}

// DeepCopyObject gives the object back whole, as an *unstructured.Unstructured: what the cache
// hands out. Numbers come back as the watch decoded them: int64 for integers, float64 otherwise.
func (c *compactObject) DeepCopyObject() runtime.Object {
	u, err := c.expand()
	if err != nil {
		// The JSON is what compactRendered marshalled, so it decodes. Were it not to, the
		// object comes out with its typed metadata only: a reconcile then sees its content gone
		// and applies it again, which puts it right. Said, since health and .Resources would
		// see an empty object until its next event.
		log.Log.WithName("cache").Error(err, "a cached object's content could not be read back; it is read without it until its next event", "kind", c.Kind, "namespace", c.Namespace, "name", c.Name)
		u = &unstructured.Unstructured{Object: map[string]any{}}
		c.putMeta(u.Object, map[string]any{})
	}
	return u
}

func (c *compactObject) expand() (*unstructured.Unstructured, error) {
	obj := map[string]any{}
	if c.rest != "" {
		raw := []byte(c.rest)
		if c.dict != nil {
			var err error
			if raw, err = c.dict.Decode(nil, raw); err != nil {
				return nil, fmt.Errorf("expand %s %s/%s: %w", c.Kind, c.Namespace, c.Name, err)
			}
		}
		if err := utiljson.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("expand %s %s/%s: %w", c.Kind, c.Namespace, c.Name, err)
		}
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	c.putMeta(obj, meta)
	return &unstructured.Unstructured{Object: obj}, nil
}

// putMeta writes the typed fields into obj and its metadata, as the watch decoded them.
func (c *compactObject) putMeta(obj, meta map[string]any) {
	if c.APIVersion != "" {
		obj["apiVersion"] = c.APIVersion
	}
	if c.Kind != "" {
		obj["kind"] = c.Kind
	}
	for _, f := range [...]struct{ k, v string }{{"name", c.Name}, {"namespace", c.Namespace}, {"uid", string(c.UID)}, {"resourceVersion", c.ResourceVersion}} {
		if f.v != "" {
			meta[f.k] = f.v
		}
	}
	if c.labels != nil {
		meta["labels"] = c.labels.anyMap()
	}
	if c.annotations != nil {
		meta["annotations"] = c.annotations.anyMap()
	}
	if c.OwnerReferences != nil {
		refs := make([]any, len(c.OwnerReferences))
		for i, r := range c.OwnerReferences {
			m := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": string(r.UID)}
			if r.Controller != nil {
				m["controller"] = *r.Controller
			}
			if r.BlockOwnerDeletion != nil {
				m["blockOwnerDeletion"] = *r.BlockOwnerDeletion
			}
			refs[i] = m
		}
		meta["ownerReferences"] = refs
	}
	obj["metadata"] = meta
}

// pairs is a map of strings as its keys and values in turn, sorted by key: what the cache
// keeps of an object's labels and of its annotations. A Go map of a few strings is a 48-byte
// header and a 264-byte group; its pairs are 16 bytes a string. In a heap profile of the
// harness's N=10,000 run the maps of the cached objects were 24.5 MB of a 176 MB live heap.
// nil is no map; an empty map is empty pairs, not nil.
type pairs []string

// pairsOf packs m's strings, interned (intern); nil for nil.
func pairsOf[V any](m map[string]V) (pairs, bool) {
	if m == nil {
		return nil, true
	}
	p := make(pairs, 0, 2*len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, ok := any(m[k]).(string)
		if !ok {
			return nil, false
		}
		p = append(p, intern(k), intern(v))
	}
	return p, true
}

// stringMap is p as a map of strings; nil for nil.
func (p pairs) stringMap() map[string]string {
	if p == nil {
		return nil
	}
	m := make(map[string]string, len(p)/2)
	for i := 0; i < len(p); i += 2 {
		m[p[i]] = p[i+1]
	}
	return m
}

// anyMap is p as the watch decodes a map of strings.
func (p pairs) anyMap() map[string]any {
	m := make(map[string]any, len(p)/2)
	for i := 0; i < len(p); i += 2 {
		m[p[i]] = p[i+1]
	}
	return m
}

// get is the value of key k, "" when there is none.
func (p pairs) get(k string) string {
	for i := 0; i < len(p); i += 2 {
		if p[i] == k {
			return p[i+1]
		}
	}
	return ""
}

// labelOf and annotationOf read one label or annotation of an object, of a compact one
// without the map its accessor builds: the owner index and the rendered objects' event
// handler read one on every event.
func labelOf(o client.Object, k string) string {
	if c, ok := o.(*compactObject); ok {
		return c.labels.get(k)
	}
	return o.GetLabels()[k]
}

func annotationOf(o client.Object, k string) string {
	if c, ok := o.(*compactObject); ok {
		return c.annotations.get(k)
	}
	return o.GetAnnotations()[k]
}

// GetLabels, SetLabels, GetAnnotations and SetAnnotations read and write the pairs, for the
// informer's selectors and indexes and the event handlers; each Get builds a map.
func (c *compactObject) GetLabels() map[string]string { return c.labels.stringMap() }
func (c *compactObject) SetLabels(m map[string]string) {
	c.labels, _ = pairsOf(m)
}
func (c *compactObject) GetAnnotations() map[string]string { return c.annotations.stringMap() }
func (c *compactObject) SetAnnotations(m map[string]string) {
	c.annotations, _ = pairsOf(m)
}

// GetObjectMeta is the object itself, whose accessors read the pairs: the embedded
// ObjectMeta's would read its empty maps.
func (c *compactObject) GetObjectMeta() metav1.Object { return c }

// compactRendered is the rendered cache's transform: managedFields dropped, but for what
// upgradeCreated needs of an object Gantry created and has not written since
// (createdEntries, kept in the JSON's metadata), and the object compacted. Anything that is not an
// unstructured object (a tombstone, an object compacted already) is left alone.
func compactRendered(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	// The transform owns what the watch decoded: its maps are taken apart in place.
	c := &compactObject{}
	rest := u.Object
	if s, ok := rest["apiVersion"].(string); ok {
		c.APIVersion = intern(s)
		delete(rest, "apiVersion")
	}
	if s, ok := rest["kind"].(string); ok {
		c.Kind = intern(s)
		delete(rest, "kind")
	}
	if m, ok := rest["metadata"].(map[string]any); ok {
		if kept := createdEntries(m); kept != nil {
			m["managedFields"] = kept
		} else {
			delete(m, "managedFields")
		}
		c.takeMeta(m)
		if len(m) == 0 {
			delete(rest, "metadata")
		} else {
			rest["metadata"] = m
		}
	}
	if len(rest) > 0 {
		raw, err := json.Marshal(rest)
		if err != nil {
			return nil, fmt.Errorf("compact %s %s/%s: %w", c.Kind, c.Namespace, c.Name, err)
		}
		if c.rest, c.dict = packRest(c.APIVersion, c.Kind, raw); c.dict == nil {
			c.rest = string(raw)
		}
	}
	return c, nil
}

// The rest of an object is kept as an s2 block against a dictionary of its kind (apiVersion
// and kind): the JSON of an object of the kind (its last 16 KiB at most). The objects of a kind
// are rendered from a few templates, so most of an object's JSON is in another's: a Deployment's
// 1.6 KB of JSON is an s2 block of a few hundred bytes against it, where on its own it
// compresses by a third. s2 (klauspost/compress) because its blocks encode and decode against a
// dictionary without a compressor's state: flate's writer is hundreds of kilobytes, which a pool
// would keep for each informer.
//
// The first object of a kind the cache compacts becomes its dictionary, and anyone who may label
// an object as Gantry's (a tenant, in their namespace) can be first, after a restart too. The
// dictionary is only a compression context: against a poor one objects compress worse, or are
// kept as JSON when a block is not smaller, and read back the same (each keeps its dictionary).
// So that a poor dictionary does not stay, a kind's objects are counted in windows of
// renewAfter: when a window's blocks hold more than half the bytes of its JSON, the window's last
// object is the kind's new dictionary. Secrets are kept as JSON: a dictionary outlives its
// object.
var restDicts sync.Map // apiVersion + " " + kind → *kindDict

const (
	maxDictBytes = 16 << 10
	renewAfter   = 32
	// minPackBytes: a shorter rest is kept as JSON. There is little to gain, and an object too
	// short to compress would count against its kind's dictionary.
	minPackBytes = 256
)

type kindDict struct {
	d           atomic.Pointer[s2.Dict]
	n           atomic.Int64 // objects of the kind in this window
	raw, blocks atomic.Int64 // their bytes as JSON, and as kept
}

// packRest returns raw as an s2 block and the dictionary it is against, or "", nil to keep raw
// as it is.
func packRest(apiVersion, kind string, raw []byte) (string, *s2.Dict) {
	if len(raw) < minPackBytes || apiVersion == "v1" && kind == "Secret" {
		return "", nil
	}
	key := apiVersion + " " + kind
	v, ok := restDicts.Load(key)
	if !ok {
		v, _ = restDicts.LoadOrStore(key, &kindDict{})
	}
	k := v.(*kindDict)
	d := k.d.Load()
	if d == nil {
		if d = newDict(raw); d == nil {
			return "", nil // MakeDict refused it: the next object of the kind may do
		}
		if !k.d.CompareAndSwap(nil, d) {
			d = k.d.Load()
		}
	}
	b := d.Encode(nil, raw)
	n := k.n.Add(1)
	blocks, total := k.blocks.Add(int64(min(len(b), len(raw)))), k.raw.Add(int64(len(raw)))
	if n == renewAfter {
		// The end of a window. Counts racing with this reset are lost, which only shifts a
		// window.
		k.n.Store(0)
		k.blocks.Store(0)
		k.raw.Store(0)
		if 2*blocks > total {
			if next := newDict(raw); next != nil {
				k.d.CompareAndSwap(d, next)
			}
		}
	}
	if len(b) >= len(raw) {
		return "", nil
	}
	return string(b), d
}

// newDict makes a dictionary of a copy of raw's tail (MakeDict keeps the slice it is given).
func newDict(raw []byte) *s2.Dict {
	sample := slices.Clone(raw[max(0, len(raw)-maxDictBytes):])
	return s2.MakeDict(sample, sample[:min(len(sample), 16)])
}

// takeMeta moves the fields the typed metadata holds out of meta, each only if it has the type
// the API server sends (anything else stays in meta, and so in the JSON).
func (c *compactObject) takeMeta(meta map[string]any) {
	// A Gateway's objects share its name and namespace: interned. An empty string stays in
	// meta, so that the typed field's "" means absent.
	for _, f := range [...]struct {
		k   string
		dst *string
	}{{"name", &c.Name}, {"namespace", &c.Namespace}, {"resourceVersion", &c.ResourceVersion}} {
		if s, ok := meta[f.k].(string); ok && s != "" {
			*f.dst = s
			delete(meta, f.k)
		}
	}
	c.Name, c.Namespace = intern(c.Name), intern(c.Namespace)
	if s, ok := meta["uid"].(string); ok && s != "" {
		c.UID = types.UID(s)
		delete(meta, "uid")
	}
	if m, ok := meta["labels"].(map[string]any); ok && m != nil {
		if p, ok := pairsOf(m); ok {
			c.labels = p
			delete(meta, "labels")
		}
	}
	if m, ok := meta["annotations"].(map[string]any); ok && m != nil {
		if p, ok := pairsOf(m); ok {
			c.annotations = p
			delete(meta, "annotations")
		}
	}
	if refs, ok := ownerRefs(meta["ownerReferences"]); ok {
		c.OwnerReferences = refs
		delete(meta, "ownerReferences")
	}
}

// ownerRefs converts ownerReferences that hold only the fields OwnerReference has, of their
// types; anything else is left as it is.
func ownerRefs(v any) ([]metav1.OwnerReference, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]metav1.OwnerReference, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		r := &out[i]
		// The four strings are required fields: one missing would come back as "".
		for _, k := range []string{"apiVersion", "kind", "name", "uid"} {
			if _, ok := m[k]; !ok {
				return nil, false
			}
		}
		for k, v := range m {
			switch k {
			case "apiVersion", "kind", "name", "uid":
				s, ok := v.(string)
				if !ok {
					return nil, false
				}
				switch k {
				case "apiVersion":
					r.APIVersion = intern(s)
				case "kind":
					r.Kind = intern(s)
				case "name":
					r.Name = intern(s)
				case "uid":
					r.UID = types.UID(s)
				}
			case "controller", "blockOwnerDeletion":
				b, ok := v.(bool)
				if !ok {
					return nil, false
				}
				if k == "controller" {
					r.Controller = &b
				} else {
					r.BlockOwnerDeletion = &b
				}
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// intern returns the runtime's canonical copy of s (unique.Make). The runtime keeps it only while
// a unique.Handle does, and none is kept: objects decoded close together (a list, a burst of
// events, within one garbage collection cycle) share their strings; after a cycle, a new copy.
// Weak on purpose: strings a tenant's objects bring are not kept after the objects are gone.
func intern(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}
