package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestLongEventIsTruncated: issue 21. An Event's note may hold at most 1,024 bytes; a longer
// message (a template's own fail text, a long list of objects) was refused by the API server,
// and the Event lost. It is cut to fit, on a character boundary, and says so.
func TestLongEventIsTruncated(t *testing.T) {
	ns := namespace(t, nil)
	long := strings.Repeat("é", 1500) // 3,000 bytes, two a character
	class := setup(t, ns, blueprint("long", "", map[string]string{"fails": `{{ fail "` + long + `" }}`}))
	create(t, gateway(ns, "web", class))
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "RenderFailed")
	eventually(t, "a RenderFailed Event on the Gateway", func() error {
		l := &eventsv1.EventList{}
		if err := k8s.List(t.Context(), l, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range l.Items {
			if e.Regarding.Kind != "Gateway" || e.Type != corev1.EventTypeWarning || e.Reason != "RenderFailed" {
				continue
			}
			if len(e.Note) > 1024 || !utf8.ValidString(e.Note) || !strings.Contains(e.Note, "éé") || !strings.HasSuffix(e.Note, "(truncated)") {
				return fmt.Errorf("note of %d bytes, valid UTF-8 %v, ends %q", len(e.Note), utf8.ValidString(e.Note), e.Note[max(0, len(e.Note)-20):])
			}
			return nil
		}
		return fmt.Errorf("%d events in %s, none a Warning RenderFailed on the Gateway", len(l.Items), ns)
	})
}
