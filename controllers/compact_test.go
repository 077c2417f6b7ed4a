package controllers

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

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
// cache, deep-copied out of it by a List, expanded.
func roundTrip(t *testing.T, watched *unstructured.Unstructured) (compacted, got *unstructured.Unstructured) {
	t.Helper()
	c, err := compactRendered(watched.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	compacted = c.(*unstructured.Unstructured)
	got = compacted.DeepCopy()
	if err := expand(got); err != nil {
		t.Fatal(err)
	}
	return compacted, got
}

// TestCompactRoundTrip: an object the API server sends (JSON that Go's encoder wrote) comes out
// of the compact cache as the watch decoded it, less managedFields, for random objects; the
// oracle is the plain decode, not the compaction's own idea of the object.
func TestCompactRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		obj := map[string]any{
			"apiVersion": "example.com/v1",
			"kind":       "Thing",
			"metadata": map[string]any{
				"name": fmt.Sprintf("t-%d", i), "namespace": "ns",
				"labels":        map[string]any{"gateway.gantry.dev/template": "x"},
				"managedFields": []any{map[string]any{"manager": "gantry", "operation": "Apply"}},
			},
		}
		for j := range r.IntN(4) {
			obj[[]string{"spec", "status", "data", compactKey, "x"}[(i+j)%5]] = randomJSON(r, 4)
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
		if !reflect.DeepEqual(compacted.Object["metadata"], want.Object["metadata"]) {
			t.Fatalf("object %d: the compact form's metadata\n%#v\nwant\n%#v", i, compacted.Object["metadata"], want.Object["metadata"])
		}
		again, err := compactRendered(compacted.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.(*unstructured.Unstructured).Object, compacted.Object) {
			t.Fatalf("object %d: compacting twice changed it", i)
		}
	}
}

// TestCompactIsSmaller: the point of compacting, on a Deployment as the API server returns it.
func TestCompactIsSmaller(t *testing.T) {
	watched := decodeAsWatch(t, []byte(servedDeployment))
	compacted, got := roundTrip(t, watched)
	if !reflect.DeepEqual(got.Object, watched.Object) {
		t.Fatalf("expanded\n%#v\nwant\n%#v", got.Object, watched.Object)
	}
	if n := len(compacted.Object); n != 4 {
		t.Errorf("compact form has %d top-level fields, want apiVersion, kind, metadata and %s", n, compactKey)
	}
	if _, ok := compacted.Object["spec"]; ok {
		t.Error("spec is still a map in the compact form")
	}
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
			m[[]string{"a", "b", "spec", "", "gantry.dev/compact", "ü"}[r.IntN(6)]] = randomJSON(r, depth-1)
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
