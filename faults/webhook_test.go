package faults_test

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Webhook modes: what the third party's admission webhook does with a Deployment.
const (
	webhookAllows int32 = iota
	webhookRefuses
	webhookHangs
)

// thirdPartyWebhook serves a validating webhook for Deployments of one namespace, as a policy
// engine of the cluster's would, and registers it with failurePolicy Fail and a 2 s timeout.
// mode says what it does; it counts the reviews it answered.
type thirdPartyWebhook struct {
	mode    atomic.Int32
	reviews atomic.Int32
}

func startThirdPartyWebhook(t *testing.T, ns string) *thirdPartyWebhook {
	t.Helper()
	cert, ca := servingCert(t)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	wh := &thirdPartyWebhook{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		review := &admissionv1.AdmissionReview{}
		if err := json.NewDecoder(r.Body).Decode(review); err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		wh.reviews.Add(1)
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		switch wh.mode.Load() {
		case webhookRefuses:
			resp.Allowed, resp.Result = false, &metav1.Status{Code: http.StatusForbidden, Message: "policy require-signed-images: image is not signed"}
		case webhookHangs:
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
			return
		}
		review.Response, review.Request = resp, nil
		_ = json.NewEncoder(w).Encode(review)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })

	url := "https://" + l.Addr().(*net.TCPAddr).String() + "/validate"
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "third-party-" + ns},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "deployments.policy.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			TimeoutSeconds:          ptr(int32(2)),
			AdmissionReviewVersions: []string{"v1"},
		}}}
	create(t, vwc)
	t.Cleanup(func() { _ = k8s.Delete(t.Context(), vwc) })
	return wh
}

func ptr[T any](v T) *T { return &v }

// TestThirdPartyWebhookRefusesOrTimesOut: a cluster's own admission webhook (a policy engine)
// refuses the Deployments Gantry renders, then stops answering in time. Each Gateway says so in
// Programmed=False ApplyFailed, naming what refused; nothing of a Gateway's unit stays written
// meanwhile (its Service and ServiceAccount wait with the Deployment); once the webhook allows,
// every Gateway converges without anything being touched again.
func TestThirdPartyWebhookRefusesOrTimesOut(t *testing.T) {
	w := newWorld(t)
	wh := startThirdPartyWebhook(t, w.ns)
	wh.mode.Store(webhookRefuses)
	startGantry(t, "controller")
	w.add(t, 3)

	says := func(what string) {
		t.Helper()
		eventually(t, "every Gateway says "+what, func() error {
			for _, gw := range w.gateways {
				got := &gwv1.Gateway{}
				if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(gw), got); err != nil {
					return err
				}
				c := meta.FindStatusCondition(got.Status.Conditions, "Programmed")
				if c == nil || c.Status != metav1.ConditionFalse || c.Reason != "ApplyFailed" || !strings.Contains(c.Message, what) {
					return fmt.Errorf("Gateway %s: Programmed %+v", gw.Name, c)
				}
			}
			return nil
		})
		for _, gw := range w.gateways {
			key := client.ObjectKeyFromObject(gw)
			for _, o := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}, &corev1.ServiceAccount{}} {
				if err := k8s.Get(t.Context(), key, o); !apierrors.IsNotFound(err) {
					t.Errorf("%T %s exists while its Deployment is refused (%v): the unit was half-applied", o, key, err)
				}
			}
		}
	}
	says("policy require-signed-images: image is not signed")

	wh.mode.Store(webhookHangs)
	says(`failed calling webhook "deployments.policy.example.com"`) // the API server's words for a webhook that timed out
	if wh.reviews.Load() == 0 {
		t.Fatal("the webhook reviewed nothing: the fault was not injected")
	}

	allowed := time.Now()
	wh.mode.Store(webhookAllows)
	w.converged(t)
	t.Logf("converged %v after the webhook allowed (%d reviews in all)", time.Since(allowed).Round(10*time.Millisecond), wh.reviews.Load())
}
