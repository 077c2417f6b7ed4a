package controllers

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"gantry.dev/gantry/precedence"
)

// TestBoardGivesOutcomesBack: the board files each outcome under its policy, without the
// policy's Ref, and gives it back whole. Every field of precedence.Outcome is set here, so a
// field the board does not carry fails the comparison; a field added to Outcome later fails
// the count.
func TestBoardGivesOutcomesBack(t *testing.T) {
	if n := reflect.TypeFor[precedence.Outcome]().NumField(); n != 5 {
		t.Fatalf("precedence.Outcome has %d fields; the board's outcome copies 5 (Ref, Level, State, Reason, Superseded): carry the new one", n)
	}
	ref := precedence.Ref{Kind: "GatewayConfig", Namespace: "team-a", Name: "web"}
	want := precedence.Outcome{Ref: ref, Level: precedence.Level(3), State: precedence.StatePartiallyEnforced, Reason: "a reason",
		Superseded: []precedence.Superseded{{Path: precedence.Path{"replicas"}, Stanza: "default",
			By: precedence.Source{Ref: precedence.Ref{Kind: "GatewayClassConfig", Name: "global"}, Stanza: "override", Level: 1}}}}
	gw := types.NamespacedName{Namespace: "team-a", Name: "web"}
	b := &board{}
	b.record(gw, &precedence.Result{Outcomes: []precedence.Outcome{want}})
	got := b.policy(ref)
	if len(got) != 1 || !reflect.DeepEqual(got[gw], want) {
		t.Fatalf("the board gives back %#v, want {%v: %#v}", got, gw, want)
	}
}
