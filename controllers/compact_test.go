package controllers

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/s2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// decodeAsWatch decodes JSON the way the informers' watch does.
func decodeAsWatch(t *testing.T, b []byte) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return u
}

// roundTrip is what a reconcile gets for an object the watch delivered: compacted into the
// cache, deep-copied out of it by a List.
func roundTrip(t *testing.T, watched *unstructured.Unstructured) (compacted *compactObject, got *unstructured.Unstructured) {
	t.Helper()
	c, err := compactRendered(watched.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	compacted, ok := c.(*compactObject)
	if !ok {
		t.Fatalf("compacted to %T", c)
	}
	got, ok = compacted.DeepCopyObject().(*unstructured.Unstructured)
	if !ok {
		t.Fatalf("a copy out of the cache is %T", compacted.DeepCopyObject())
	}
	return compacted, got
}

// randomMeta is metadata as the API server sends it, and now and then as it never does (a
// label that is not a string, an owner reference with a field OwnerReference lacks, an empty
// name): whatever it is, it must come out as it went in.
func randomMeta(r *rand.Rand, i int) (meta map[string]any, valid bool) {
	strs := func(n int) map[string]any {
		m := map[string]any{}
		for range n {
			m[[]string{"gateway.gantry.dev/template", "app", "gateway.networking.k8s.io/gateway-name", "", "ü/x"}[r.IntN(5)]] = []string{"x", "", "gw-1", "ünï"}[r.IntN(4)]
		}
		return m
	}
	meta = map[string]any{
		"name":          fmt.Sprintf("t-%d", i),
		"labels":        map[string]any{"gateway.gantry.dev/template": "x"},
		"managedFields": []any{map[string]any{"manager": "gantry", "operation": "Apply"}},
	}
	valid = true
	if r.IntN(3) > 0 {
		meta["namespace"] = "ns"
	}
	if r.IntN(2) == 0 {
		meta["uid"], meta["resourceVersion"] = fmt.Sprintf("uid-%d", i), fmt.Sprint(r.IntN(1000))
	}
	if r.IntN(2) == 0 {
		meta["labels"] = strs(r.IntN(4))
	}
	if r.IntN(2) == 0 {
		meta["annotations"] = strs(r.IntN(4))
	}
	if r.IntN(2) == 0 {
		meta["creationTimestamp"], meta["generation"] = "2026-11-26T09:09:36Z", int64(r.IntN(5))
	}
	if r.IntN(2) == 0 {
		refs := []any{}
		for range r.IntN(3) {
			ref := map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway", "name": "gw", "uid": "u"}
			if r.IntN(2) == 0 {
				ref["controller"] = r.IntN(2) == 0
			}
			if r.IntN(2) == 0 {
				ref["blockOwnerDeletion"] = true
			}
			refs = append(refs, ref)
		}
		meta["ownerReferences"] = refs
	}
	switch r.IntN(12) {
	case 0:
		meta["labels"] = map[string]any{"a": int64(1)}
		valid = false
	case 1:
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "extra": "x"}}
		valid = false
	case 2:
		meta["ownerReferences"] = []any{map[string]any{"kind": "K", "name": "n", "uid": "u"}}
		valid = false
	case 3:
		meta["name"] = ""
	case 4:
		meta["finalizers"] = []any{"a/b"}
	case 5:
		meta["uid"] = int64(7)
		valid = false
	}
	return meta, valid
}

// TestCompactRoundTrip: an object the API server sends (JSON that Go's encoder wrote) comes out
// of the compact cache as the watch decoded it, less managedFields, for random objects; the
// oracle is the plain decode, not the compaction's own idea of the object. What the indexes and
// handlers read of the cached object is what client-go's accessors read of the decoded one.
func TestCompactRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	blocks := 0 // objects whose rest is an s2 block against the kind's dictionary
	for i := range 3000 {
		meta, valid := randomMeta(r, i)
		obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": meta}
		for j := range r.IntN(4) {
			obj[[]string{"spec", "status", "data", "gantry.dev/managedFields", "x"}[(i+j)%5]] = randomJSON(r, 4)
		}
		if i%2 == 0 { // long enough to be packed as a block (minPackBytes)
			obj["template"] = strings.Repeat("rendered from a template; ", 10+r.IntN(30))
		}
		b, err := json.Marshal(obj) // as the API server writes it
		if err != nil {
			t.Fatal(err)
		}
		want := decodeAsWatch(t, b)
		want.SetManagedFields(nil)
		compacted, got := roundTrip(t, decodeAsWatch(t, b))
		if !reflect.DeepEqual(got.Object, want.Object) {
			t.Fatalf("object %d: expanded\n%#v\nwant\n%#v", i, got.Object, want.Object)
		}
		if compacted.dict != nil {
			blocks++
		}
		if valid {
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"kind", compacted.GetObjectKind().GroupVersionKind(), want.GroupVersionKind()},
				{"name", compacted.GetName(), want.GetName()},
				{"namespace", compacted.GetNamespace(), want.GetNamespace()},
				{"uid", compacted.GetUID(), want.GetUID()},
				{"resourceVersion", compacted.GetResourceVersion(), want.GetResourceVersion()},
				{"labels", compacted.GetLabels(), want.GetLabels()},
				{"annotations", compacted.GetAnnotations(), want.GetAnnotations()},
				{"ownerReferences", compacted.GetOwnerReferences(), want.GetOwnerReferences()},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Fatalf("object %d: the cached %s is %#v, the decoded object's %#v", i, c.what, c.got, c.want)
				}
			}
			for _, k := range []string{"gateway.gantry.dev/template", "app", "gateway.networking.k8s.io/gateway-name", "", "ü/x", "absent"} {
				if got, want := labelOf(compacted, k), want.GetLabels()[k]; got != want {
					t.Fatalf("object %d: the cached label %q reads %q, the decoded object's %q", i, k, got, want)
				}
				if got, want := annotationOf(compacted, k), want.GetAnnotations()[k]; got != want {
					t.Fatalf("object %d: the cached annotation %q reads %q, the decoded object's %q", i, k, got, want)
				}
			}
		}
		again, err := compactRendered(compacted)
		if err != nil {
			t.Fatal(err)
		}
		if again != any(compacted) {
			t.Fatalf("object %d: compacting twice changed it", i)
		}
	}
	if blocks < 100 {
		t.Errorf("%d of 3,000 objects were kept as s2 blocks: the dictionary's path is hardly tested", blocks)
	}
	t.Logf("%d of 3,000 objects kept as s2 blocks", blocks)
}

// TestCompactIsSmaller: the point of compacting, on Deployments as the API server returns them,
// each with its own name and uid: the heap they hold decoded as the watch decodes them, and
// compacted. Typed metadata and the rest as JSON held 3,000 bytes of 9,337 (32%); the rest as
// an s2 block against the kind's dictionary 1,346 (14%). The bound is between the two. Measured
// again on 2026-11-27: labels and annotations as maps 1,789–2,016 bytes in three runs (two of
// them over the bound), as pairs 1,352–1,557 in eight.
func TestCompactIsSmaller(t *testing.T) {
	restDicts.Clear() // the dictionary is the first Deployment compacted here, not another test's
	defer restDicts.Clear()
	const n = 4000
	decoded := make([]*unstructured.Unstructured, n)
	held := func(build func(i int)) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range n {
			build(i)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		return (after.HeapAlloc - before.HeapAlloc) / n
	}
	served := func(i int) []byte {
		return []byte(strings.NewReplacer("gw-00005", fmt.Sprintf("gw-%05d", i), "0b6a2c1e", fmt.Sprintf("%08x", i), "8c7e0a57", fmt.Sprintf("%08x", i+n), "123456", fmt.Sprint(i)).Replace(servedDeployment))
	}
	full := held(func(i int) { decoded[i] = decodeAsWatch(t, served(i)) })
	compacted := make([]any, n)
	small := held(func(i int) {
		c, err := compactRendered(decodeAsWatch(t, served(i)))
		if err != nil {
			t.Fatal(err)
		}
		compacted[i] = c
	})
	t.Logf("a Deployment holds %d bytes decoded, %d compacted", full, small)
	if small*100 > full*20 {
		t.Errorf("compacted, a Deployment holds %d bytes, more than 20%% of its %d decoded", small, full)
	}
	runtime.KeepAlive(decoded)
	runtime.KeepAlive(compacted)
	_, got := roundTrip(t, decodeAsWatch(t, []byte(servedDeployment)))
	if want := decodeAsWatch(t, []byte(servedDeployment)); !reflect.DeepEqual(got.Object, want.Object) {
		t.Fatalf("expanded\n%#v\nwant\n%#v", got.Object, want.Object)
	}
}

// TestCompactDictionaryRenews: a tenant may put a Deployment of its own first (after a restart
// the list comes in namespace order), so that it is the kind's dictionary, and against it the
// blueprint's Deployments compress poorly. The dictionary is renewed from a later object, and
// every object, whichever dictionary it was packed against, reads back as the watch decoded it.
func TestCompactDictionaryRenews(t *testing.T) {
	restDicts.Clear()
	defer restDicts.Clear()
	r := rand.New(rand.NewPCG(3, 4))
	junk := make([]byte, 20000)
	for i := range junk {
		junk[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[r.IntN(36)]
	}
	first := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a","namespace":"aaa","labels":{"gateway.gantry.dev/template":"x"}},"spec":{"template":{"metadata":{"annotations":{"x":"` + string(junk) + `"}}}}}`
	objects := []string{first}
	for i := range 4 * renewAfter {
		objects = append(objects, strings.NewReplacer("gw-00005", fmt.Sprintf("gw-%05d", i), "0b6a2c1e", fmt.Sprintf("%08x", i), "123456", fmt.Sprint(i)).Replace(servedDeployment))
	}
	var packed []*compactObject
	for _, o := range objects {
		c, got := roundTrip(t, decodeAsWatch(t, []byte(o)))
		want := decodeAsWatch(t, []byte(o))
		want.SetManagedFields(nil)
		if !reflect.DeepEqual(got.Object, want.Object) {
			t.Fatalf("%s: expanded\n%#v\nwant\n%#v", c.Name, got.Object, want.Object)
		}
		packed = append(packed, c)
	}
	// Against the tenant's dictionary a Deployment's rest was kept in more than half its JSON (827
	// of 1,558 bytes, renewal turned off); against one of the blueprint's, in 20-23 bytes.
	for _, c := range packed[len(packed)-renewAfter:] {
		u, err := c.expand()
		if err != nil {
			t.Fatal(err)
		}
		delete(u.Object, "apiVersion")
		delete(u.Object, "kind")
		raw, err := json.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		if c.dict == nil || len(c.rest)*100 > len(raw)*40 {
			t.Fatalf("%s: kept in %d bytes (a block: %v) of its %d bytes of JSON; the dictionary was not renewed", c.Name, len(c.rest), c.dict != nil, len(raw))
		}
	}
	for _, c := range packed[:2] {
		if c.dict != packed[1].dict {
			t.Fatalf("the first objects were packed against different dictionaries")
		}
	}
	if packed[len(packed)-1].dict == packed[1].dict {
		t.Fatalf("the kind's dictionary was never renewed")
	}
}

// TestCompactConcurrently: informers compact objects of a kind at once, so a kind's dictionary
// is made, used and renewed by several goroutines together (run with -race, as make test does).
// Every object reads back as the plain decode has it, whichever dictionary it was packed against.
func TestCompactConcurrently(t *testing.T) {
	restDicts.Clear()
	defer restDicts.Clear()
	var (
		mu    sync.Mutex
		errs  []error
		dicts = map[*s2.Dict]bool{}
		wg    sync.WaitGroup
	)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 100 {
				o := strings.NewReplacer("gw-00005", fmt.Sprintf("gw-%d-%d", g, i), "Deployment", []string{"Deployment", "Other"}[i%2]).Replace(servedDeployment)
				if i%2 == 1 && r.IntN(4) > 0 { // unlike the others: Other's windows renew its dictionary
					junk := make([]byte, 500+r.IntN(3000))
					for j := range junk {
						junk[j] = byte('a' + r.IntN(26))
					}
					o = strings.Replace(o, `"replicas":2`, `"replicas":2,"junk":"`+string(junk)+`"`, 1)
				}
				watched, want := &unstructured.Unstructured{}, &unstructured.Unstructured{}
				err := watched.UnmarshalJSON([]byte(o))
				if err == nil {
					err = want.UnmarshalJSON([]byte(o))
				}
				var c any
				if err == nil {
					c, err = compactRendered(watched)
				}
				mu.Lock()
				switch {
				case err != nil:
					errs = append(errs, err)
				case !reflect.DeepEqual(c.(*compactObject).DeepCopyObject().(*unstructured.Unstructured).Object, want.Object):
					errs = append(errs, fmt.Errorf("goroutine %d, object %d reads back different", g, i))
				default:
					dicts[c.(*compactObject).dict] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(dicts) < 3 { // nil, the two kinds' first dictionaries, and renewals
		t.Errorf("objects were packed against %d dictionaries (nil included): renewal was not exercised", len(dicts))
	}
	t.Logf("%d dictionaries (nil included)", len(dicts))
}

func randomJSON(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth == 0 && k >= 7 {
		k = r.IntN(7)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 53, r.Int64()}[r.IntN(7)]
	case 3:
		return []float64{0.5, -1.25, 1e-7, 1e21, 3.141592653589793, math.MaxFloat64, r.Float64()}[r.IntN(7)]
	case 4, 5:
		return []string{"", "a", "500m", "ünïcode ✓", "quote\" and \\ back", "\x00\x1f", "1", "true", "null"}[r.IntN(9)]
	case 6:
		return []any{}
	case 7:
		m := map[string]any{}
		for range r.IntN(5) {
			m[[]string{"a", "b", "spec", "", "metadata", "ü"}[r.IntN(6)]] = randomJSON(r, depth-1)
		}
		return m
	default:
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = randomJSON(r, depth-1)
		}
		return l
	}
}

const servedDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{"deployment.kubernetes.io/revision":"1","gateway.gantry.dev/owner":"bench-00/gw-00005"},"creationTimestamp":"2026-11-26T09:09:36Z","generation":1,"labels":{"gateway.gantry.dev/template":"deployment","gateway.networking.k8s.io/gateway-name":"gw-00005"},"name":"gw-00005","namespace":"bench-00","ownerReferences":[{"apiVersion":"gateway.networking.k8s.io/v1","blockOwnerDeletion":true,"controller":true,"kind":"Gateway","name":"gw-00005","uid":"8c7e0a57-2a4e-4c1b-9d43-5a6f2f1e9b11"}],"resourceVersion":"123456","uid":"0b6a2c1e-7d4e-4b8a-a1f0-3c2d1e0f9a87"},"spec":{"progressDeadlineSeconds":600,"replicas":2,"revisionHistoryLimit":10,"selector":{"matchLabels":{"app.kubernetes.io/instance":"gw-00005"}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"},"template":{"metadata":{"labels":{"app.kubernetes.io/instance":"gw-00005"}},"spec":{"containers":[{"image":"envoy:v1.33.2","imagePullPolicy":"IfNotPresent","name":"proxy","ports":[{"containerPort":80,"name":"l-http","protocol":"TCP"}],"resources":{"requests":{"cpu":"750m"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","securityContext":{},"terminationGracePeriodSeconds":30}}},"status":{"availableReplicas":2,"conditions":[{"lastTransitionTime":"2026-11-26T09:09:40Z","message":"Deployment has minimum availability.","reason":"MinimumReplicasAvailable","status":"True","type":"Available"}],"observedGeneration":1,"readyReplicas":2,"replicas":2}}`

// TestCompactKeepsCreatedEntries: the cache keeps of managedFields only what upgradeCreated
// reads, and only while Gantry's create entry is there; the entries keep their order, so the
// index it patches is the server's.
func TestCompactKeepsCreatedEntries(t *testing.T) {
	const fields = `"fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}`
	for _, c := range []struct {
		name, entries string
		want          []metav1.ManagedFieldsEntry
	}{
		{"created", `[{"manager":"kubectl","operation":"Update",` + fields + `},{"manager":"gantry","operation":"Update","time":"2026-11-26T00:00:00Z",` + fields + `},{"manager":"gantry","operation":"Update","subresource":"status",` + fields + `}]`,
			[]metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: "Update"}, {Manager: "gantry", Operation: "Update"}, {Manager: "gantry", Operation: "Update", Subresource: "status"}}},
		{"applied", `[{"manager":"gantry","operation":"Apply",` + fields + `},{"manager":"kubectl","operation":"Update",` + fields + `}]`, nil},
		{"status only", `[{"manager":"gantry","operation":"Update","subresource":"status",` + fields + `}]`, nil},
		{"none", `[]`, nil},
	} {
		watched := decodeAsWatch(t, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","managedFields":`+c.entries+`},"data":{"k":"v"}}`))
		_, got := roundTrip(t, watched)
		if mf := got.GetManagedFields(); !reflect.DeepEqual(mf, c.want) {
			t.Errorf("%s: managedFields kept = %+v, want %+v", c.name, mf, c.want)
		}
	}
}
