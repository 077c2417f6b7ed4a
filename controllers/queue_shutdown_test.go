package controllers

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestWorkQueueStopsWhileBusy: the work queue every controller here gets (controller-runtime's
// priority queue, the manager's default) lets all its workers go when it is shut down while
// items are being added and handed out, as SIGTERM does to a controller converging a fleet.
//
// controller-runtime v0.24.1's queue could hand a ready item to a worker that had just seen the
// shutdown and left: the hand-over then blocked for ever with the queue's lock held, every other
// worker waited on that lock, and the manager gave up only after its 30 s grace period — the
// chart's whole terminationGracePeriodSeconds, so the pod was killed instead of stopping
// (kubernetes-sigs/controller-runtime#3538, fixed in v0.25). CI saw it as a `gantry controller`
// still running 30 s after SIGTERM (faults.TestStoppedMidConvergence). On v0.24.1 this test
// fails within a few hundred rounds; each round is a fresh queue.
func TestWorkQueueStopsWhileBusy(t *testing.T) {
	const rounds, workers = 400, 8
	for round := range rounds {
		q := priorityqueue.New[reconcile.Request]("shutdown-test")
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					item, _, shutdown := q.GetWithPriority()
					if shutdown {
						return
					}
					q.Done(item)
				}
			})
		}
		stop := make(chan struct{})
		adding := make(chan struct{})
		go func() {
			defer close(adding)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: fmt.Sprint(i % 64)}})
			}
		}()
		time.Sleep(time.Duration(round%5) * 100 * time.Microsecond)
		q.ShutDown()
		close(stop)
		<-adding
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: workers still waiting on the queue 10 s after it was shut down", round)
		}
	}
}
