package cli_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
)

// TestRolloutCommands runs `gantry rollout` against the sample's playground: status of a
// blueprint with no staged rollout and with one, pause and resume writing spec.rollout.paused,
// and undo putting the earlier revision's template back.
func TestRolloutCommands(t *testing.T) {
	startCluster(t)
	c := clusterClient(t)
	ctx := t.Context()
	get := func() *v1alpha1.GatewayClassBlueprint {
		t.Helper()
		bp := &v1alpha1.GatewayClassBlueprint{}
		if err := c.Get(ctx, client.ObjectKey{Name: "proxy"}, bp); err != nil {
			t.Fatal(err)
		}
		return bp
	}

	if code, out, errOut := gantry("rollout", "status", "proxy"); code != 0 || !strings.Contains(spaced(out), "Rollout: none: a new revision reaches every Gateway at once") {
		t.Errorf("status without spec.rollout: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := gantry("rollout", "pause", "proxy"); code != 1 || !strings.Contains(errOut, "GatewayClassBlueprint proxy asks for no staged rollout") {
		t.Errorf("pause without spec.rollout: exit %d, stderr %q", code, errOut)
	}

	// The playground runs no kubelet: the sample's Deployments are never ready, and their
	// Gateways never Healthy. Such a Gateway does not hold a rollout, as long as it was unhealthy
	// before the step began: wait until both have said so, and for the next second.
	testenv.Eventually(t, "both Gateways say how healthy they are", func() error {
		l := &gwv1.GatewayList{}
		if err := c.List(ctx, l); err != nil {
			return err
		}
		for _, gw := range l.Items {
			if h := meta.FindStatusCondition(gw.Status.Conditions, controllers.ConditionHealthy); h == nil || h.Reason != controllers.ReasonInProgress {
				return fmt.Errorf("Gateway %s/%s: Healthy %+v", gw.Namespace, gw.Name, h)
			}
		}
		if len(l.Items) != 2 {
			return fmt.Errorf("%d Gateways, want 2", len(l.Items))
		}
		return nil
	})
	time.Sleep(1100 * time.Millisecond)
	first := get().Status.LatestRevision // the spec and the sample's class-wide GatewayClassConfig
	if first == "" {
		t.Fatal("the blueprint's status names no revision")
	}
	testenv.Eventually(t, "a staged rollout of a new revision", func() error {
		bp := get()
		bp.Spec.Rollout = &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{Percent: ptrTo(int32(50))}}}
		bp.Spec.Values.Override = &apiextensionsv1.JSON{Raw: []byte(`{"replicas": 3}`)}
		return c.Update(ctx, bp)
	})
	var second string
	testenv.Eventually(t, "rollout status says it completed", func() error {
		if second = get().Status.LatestRevision; second == first {
			return fmt.Errorf("still revision %s", first)
		}
		code, out, errOut := gantry("rollout", "status", "proxy")
		for _, want := range []string{"Rollout: Complete, step 2 of 2", "Revision: " + second + ", from proxy-", "Gateways: 2 of 2 updated", " " + second + " 2"} {
			if code != 0 || !strings.Contains(spaced(out), want) {
				return fmt.Errorf("exit %d, want %q:\n%s%s", code, want, out, errOut)
			}
		}
		return nil
	})

	testenv.Eventually(t, "explain class shows where the rollout stands", func() error {
		if code, out, errOut := gantry("explain", "class", "internet"); code != 0 || !strings.Contains(spaced(out), "Rollout: True Complete: blueprint proxy, revision "+second+": 2 of 2 Gateways updated") {
			return fmt.Errorf("exit %d:\n%s%s", code, out, errOut)
		}
		return nil
	})

	if code, out, errOut := gantry("rollout", "pause", "proxy"); code != 0 || !get().Spec.Rollout.Paused {
		t.Errorf("pause: exit %d, paused %v\n%s%s", code, get().Spec.Rollout.Paused, out, errOut)
	}
	if code, out, errOut := gantry("rollout", "resume", "proxy"); code != 0 || get().Spec.Rollout.Paused {
		t.Errorf("resume: exit %d, paused %v\n%s%s", code, get().Spec.Rollout.Paused, out, errOut)
	}
	code, out, errOut := gantry("rollout", "undo", "proxy")
	if code != 0 || !strings.Contains(out, "set back to revision "+first) {
		t.Errorf("undo: exit %d\n%s%s", code, out, errOut)
	}
	testenv.Eventually(t, "undo makes the first revision the latest again", func() error {
		if bp := get(); bp.Status.LatestRevision != first || bp.Spec.Rollout == nil {
			return fmt.Errorf("latest revision %s, rollout %v; want %s, kept", bp.Status.LatestRevision, bp.Spec.Rollout, first)
		}
		return nil
	})
	if code, _, errOut := gantry("rollout", "undo", "proxy", "--to-revision", "99"); code != 1 || !strings.Contains(errOut, "GatewayClassBlueprint proxy has no revision 99") {
		t.Errorf("undo to a revision that is not there: exit %d, stderr %q", code, errOut)
	}
}

// spaced is s with each run of spaces as one, as a table's columns move with their contents.
func spaced(s string) string { return strings.Join(strings.Fields(s), " ") }

func ptrTo[T any](v T) *T { return &v }
