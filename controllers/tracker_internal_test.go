package controllers

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// TestEventDuringWriteIsHeld: a watch event that arrives while Gantry is writing the object is
// held until the write's answer: dropped if it is the write's own, passed on (to the Gateway's
// queue) if the object was changed by someone else, or if the write failed. Without the hold,
// an echo that beats the answer reconciles the Gateway again for nothing.
func TestEventDuringWriteIsHeld(t *testing.T) {
	drift := make(chan event.GenericEvent, 8)
	tr := &tracker{drift: drift}
	obj := func(rv string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetNamespace("ns")
		u.SetName("a")
		u.SetResourceVersion(rv)
		return u
	}
	cached := func(rv string) client.Object { // as the informer hands it to the predicate
		c, err := compactRendered(obj(rv))
		if err != nil {
			t.Fatal(err)
		}
		return c.(client.Object)
	}
	passed := func() []string {
		var rvs []string
		for {
			select {
			case e := <-drift:
				rvs = append(rvs, e.Object.GetResourceVersion())
			default:
				return rvs
			}
		}
	}

	if tr.echo(cached("1")) {
		t.Fatal("an event with no write under way is taken for Gantry's own")
	}

	done := tr.writing(context.Background(), obj(""))
	if !tr.echo(cached("5")) {
		t.Fatal("the event of an object being written is not held")
	}
	done(obj("5"))
	if got := passed(); len(got) != 0 {
		t.Errorf("the write's own echo, held, was passed on: %v", got)
	}
	if !tr.echo(cached("5")) {
		t.Error("the write's echo arriving after its answer is not known as Gantry's own")
	}

	done = tr.writing(context.Background(), obj("5"))
	tr.echo(cached("6")) // someone else's change, seen while Gantry writes
	done(obj("7"))
	if got := passed(); len(got) != 1 || got[0] != "6" {
		t.Errorf("a change of someone else's held during a write: passed on %v, want [6]", got)
	}

	done = tr.writing(context.Background(), obj("7"))
	tr.echo(cached("8"))
	done(nil) // the write failed: whatever happened meanwhile was not Gantry's
	if got := passed(); len(got) != 1 || got[0] != "8" {
		t.Errorf("an event held during a failed write: passed on %v, want [8]", got)
	}
	// A write during which the object changes again and again holds maxHeld events and passes
	// on one, the newest.
	done = tr.writing(context.Background(), obj("7"))
	for i := range 3 * maxHeld {
		tr.echo(cached(fmt.Sprint(100 + i)))
	}
	if n := len(tr.inflight[wroteHash(keyOf(obj("")))].held); n != maxHeld {
		t.Errorf("a flight holds %d events, want at most %d", n, maxHeld)
	}
	done(obj("100")) // even if the write's own version is among them
	if got, want := passed(), fmt.Sprint(100+3*maxHeld-1); len(got) != 1 || got[0] != want {
		t.Errorf("many changes during a write: passed on %v, want [%s]", got, want)
	}
	if tr.echo(cached("9")) {
		t.Error("an event after the write ended is still held")
	}
	if len(tr.inflight) != 0 {
		t.Errorf("writes under way left behind: %d", len(tr.inflight))
	}
}

// TestDeletedObjectIsForgotten: the record of Gantry's writes loses an object with its delete
// event, whoever deleted it, not only with Gantry's own prune.
func TestDeletedObjectIsForgotten(t *testing.T) {
	tr := &tracker{}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace("ns")
	u.SetName("a")
	u.SetResourceVersion("3")
	tr.writing(context.Background(), u)(u)
	if len(tr.wrote) != 1 {
		t.Fatalf("a write recorded %d entries", len(tr.wrote))
	}
	c, err := compactRendered(u)
	if err != nil {
		t.Fatal(err)
	}
	tr.forgetApplied(cachedKey(c.(client.Object)))
	if len(tr.wrote) != 0 {
		t.Errorf("the deleted object's record stays: %d entries", len(tr.wrote))
	}
}
