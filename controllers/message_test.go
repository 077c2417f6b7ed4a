package controllers

import (
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestConditionMessagesFitTheAPI: an error message can hold a tenant's value, so its length
// and its bytes are the tenant's to choose. A message the API server refuses makes the whole
// status write fail, and the Gateway keeps saying what it said before. The cut must keep
// within the API's limit with any prefix and land between runes (a rune cut in half is
// replaced by U+FFFD when encoded, three bytes, which can push it past the limit).
func TestConditionMessagesFitTheAPI(t *testing.T) {
	for _, tenant := range []string{
		strings.Repeat("x", 40000),
		strings.Repeat("x", maxMessage-4) + strings.Repeat("é", 1000), // a two-byte rune across the cut
		strings.Repeat("x", maxMessage-5) + strings.Repeat("€", 1000), // three bytes
	} {
		msg := notRendered(tenant)
		if !utf8.ValidString(msg) {
			t.Errorf("message of %d bytes is not valid UTF-8 at the cut: %q", len(msg), msg[len(msg)-8:])
		}
		c := metav1.Condition{Type: "Programmed", Status: metav1.ConditionFalse, Reason: "RenderFailed", Message: msg, LastTransitionTime: metav1.Now()}
		if errs := metav1validation.ValidateConditions([]metav1.Condition{c}, field.NewPath("status", "conditions")); len(errs) > 0 {
			t.Errorf("the API would refuse the condition: %v", errs)
		}
		if !strings.HasPrefix(msg, "not rendered: ") || !strings.HasSuffix(msg, "...") {
			t.Errorf("message %q… does not keep its prefix and say it was cut", msg[:20])
		}
	}
}
