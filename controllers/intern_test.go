package controllers

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/json"
)

// gatewayFixture is a Gateway as the scale harness's N=10,000 run left it (two GatewayConfigs
// and three GatewayClassConfigs apply, ten conditions), managedFields included, renamed to
// gw-<i>.
func gatewayFixture(t testing.TB, i int) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/gateway-as-gantry-leaves-it.json")
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "gw-00000", fmt.Sprintf("gw-%05d", i)))
}

func decodeGateway(t testing.TB, b []byte) *gwv1.Gateway {
	t.Helper()
	gw := &gwv1.Gateway{}
	if err := json.UnmarshalCaseSensitivePreserveInts(b, gw); err != nil {
		t.Fatal(err)
	}
	return gw
}

// TestInternGatewayKeepsValues: the Gateway cache's transform changes where a Gateway's strings
// are, not what they say; managedFields go, as the default transform drops them. The oracle is
// the plain decode.
func TestInternGatewayKeepsValues(t *testing.T) {
	for i := range 3 {
		want := decodeGateway(t, gatewayFixture(t, i))
		if len(want.ManagedFields) == 0 || len(want.Status.Conditions) == 0 || len(want.Status.Listeners) == 0 {
			t.Fatal("the fixture lacks managedFields, conditions or listener status")
		}
		want.ManagedFields = nil
		got, err := internGateway(decodeGateway(t, gatewayFixture(t, i)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("transformed\n%#v\nwant\n%#v", got, want)
		}
	}
	if got, err := internGateway("not a Gateway"); err != nil || got != "not a Gateway" {
		t.Errorf("a tombstone or other object came back as %v, %v", got, err)
	}
}

// TestInternGatewayIsSmaller: what the transform is for. A Gateway as Gantry leaves it held 3,232
// bytes decoded (managedFields dropped) and 2,470 with only its conditions interned, measured
// alone; with this transform, in this test binary, 3,718–3,883 and 2,250–2,364. Those figures
// are logged, not asserted: the controller suite runs beside the test and allocates too. What
// is asserted is what interning does, counted the same way whatever else runs: the bytes of
// string data the Gateways hold, each distinct string counted once, found by walking every
// string of every Gateway (not only those the transform touches).
func TestInternGatewayIsSmaller(t *testing.T) {
	const n = 1000
	gws := make([]*gwv1.Gateway, n)
	held := func(transform func(*gwv1.Gateway) *gwv1.Gateway) (heap, strs uint64) {
		clear(gws) // the previous pass's Gateways go before this one is measured
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range n {
			gws[i] = transform(decodeGateway(t, gatewayFixture(t, i)))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		seen := map[uintptr]bool{}
		for _, gw := range gws {
			strs += stringBytes(reflect.ValueOf(gw), seen)
		}
		return (after.HeapAlloc - before.HeapAlloc) / n, strs / n
	}
	plainHeap, plain := held(func(gw *gwv1.Gateway) *gwv1.Gateway { gw.ManagedFields = nil; return gw })
	internedHeap, interned := held(func(gw *gwv1.Gateway) *gwv1.Gateway { o, _ := internGateway(gw); return o.(*gwv1.Gateway) })
	runtime.KeepAlive(gws)
	t.Logf("a Gateway holds %d bytes decoded, %d interned; of them string data %d and %d bytes", plainHeap, internedHeap, plain, interned)
	if interned*2 > plain {
		t.Errorf("interned, a Gateway holds %d bytes of string data of its own, more than half its %d decoded", interned, plain)
	}
}

// stringBytes is the length of every string v reaches whose data seen has not counted yet.
func stringBytes(v reflect.Value, seen map[uintptr]bool) uint64 {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if len(s) == 0 || seen[uintptr(unsafe.Pointer(unsafe.StringData(s)))] {
			return 0
		}
		seen[uintptr(unsafe.Pointer(unsafe.StringData(s)))] = true
		return uint64(len(s))
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return stringBytes(v.Elem(), seen)
	case reflect.Struct:
		var n uint64
		for i := range v.NumField() {
			n += stringBytes(v.Field(i), seen)
		}
		return n
	case reflect.Slice, reflect.Array:
		var n uint64
		for i := range v.Len() {
			n += stringBytes(v.Index(i), seen)
		}
		return n
	case reflect.Map:
		var n uint64
		for it := v.MapRange(); it.Next(); {
			n += stringBytes(it.Key(), seen) + stringBytes(it.Value(), seen)
		}
		return n
	}
	return 0
}
