package controllers

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/leaderelection"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// leaderElectionID is the name of the leader election's Lease.
const leaderElectionID = "gantry.gateway.gantry.dev"

// renewDeadline is how long a leader tries to renew its Lease before it gives up, as
// controller-runtime's default (its LeaseDuration of 15 s leaves the 5 s between them for the
// leader to stop before another may take over).
const renewDeadline = 10 * time.Second

// Why Gantry hands its Lease back itself rather than by controller-runtime's
// LeaderElectionReleaseOnCancel: client-go releases a Lease on the way out of its renew loop,
// also when that loop ended because renewing failed, and controller-runtime stops the
// controllers only after that release returns. Against an API server that does not answer (etcd
// stopped), the release waits out its request timeout (5 s), so a leader that had lost its
// Lease went on reconciling until about 17 s after its last renewal, past the 15 s after which
// a standby may take the Lease (TestEtcdPausedPastTheRenewDeadline: exited 16.4-16.6 s after
// etcd stopped). Here the Lease is released only after the manager stopped cleanly, all its
// controllers finished; a leader that lost the Lease exits at once.

// newLeaseLock is the leader election's lock, built as controller-runtime builds it, kept so
// that the Lease can be handed back after a clean stop.
func newLeaseLock(cfg *rest.Config, namespace string) (*resourcelock.LeaseLock, error) {
	// A copy: NewResourceLock sets the config's user agent and a 5 s timeout in place, which on
	// the manager's own config cut every watch of its cache after 5 s (review, sixteenth
	// session: TestReview16ElectionLeavesTheManagersConfigAlone).
	lock, err := leaderelection.NewResourceLock(rest.CopyConfig(cfg), noRecorders{}, leaderelection.Options{LeaderElection: true,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock, LeaderElectionID: leaderElectionID,
		LeaderElectionNamespace: namespace, RenewDeadline: renewDeadline})
	if err != nil {
		return nil, err
	}
	ll, ok := lock.(*resourcelock.LeaseLock)
	if !ok {
		return nil, fmt.Errorf("leader election: a %T, not a Lease lock", lock)
	}
	return ll, nil
}

// noRecorders gives the lock no event recorder until the manager's is there (leasingManager).
type noRecorders struct{}

func (noRecorders) GetEventRecorderFor(string) record.EventRecorder { return nil }
func (noRecorders) GetEventRecorder(string) recorder.EventRecorder  { return nil }

// leasingManager is the manager of a leader-electing process: it hands the Lease back once it
// stopped cleanly, so that a standby takes over at once rather than after the Lease expires
// (a rolling update's SIGTERM; before, every rollout paused reconciling for 16-20 s).
type leasingManager struct {
	manager.Manager
	lock *resourcelock.LeaseLock
}

func (m leasingManager) Start(ctx context.Context) error {
	if err := m.Manager.Start(ctx); err != nil {
		// The Lease lost, or controllers still running past the grace period: hand nothing
		// back, the Lease expires on its own.
		return err
	}
	if err := releaseLease(m.lock); err != nil {
		ctrl.Log.WithName("leaderelection").Error(err, "could not hand the Lease back; a standby takes over when it expires", "lease", m.lock.Describe())
	}
	return nil
}

// releaseLease hands the Lease back if this process holds it, as client-go's release does
// (holder empty, a duration of 1 s), with its own reads: the elector's goroutine may still be
// finishing and owns the lock's cached Lease. A conflict (the elector's last renewal landing
// meanwhile) is read again.
func releaseLease(lock *resourcelock.LeaseLock) error {
	ctx, cancel := context.WithTimeout(context.Background(), renewDeadline/2)
	defer cancel()
	leases := lock.Client.Leases(lock.LeaseMeta.Namespace)
	for range 3 {
		lease, err := leases.Get(ctx, lock.LeaseMeta.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil // never taken, or deleted: nothing to hand back
		}
		if err != nil {
			return err
		}
		if h := lease.Spec.HolderIdentity; h == nil || *h != lock.Identity() {
			return nil // another holds it, or nobody
		}
		now := metav1.NewMicroTime(time.Now())
		empty, second := "", int32(1)
		lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds = &empty, &second
		lease.Spec.AcquireTime, lease.Spec.RenewTime = &now, &now
		if _, err = leases.Update(ctx, lease, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("the Lease kept changing")
}
