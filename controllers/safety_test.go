package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
)

// The values of blueprints/proxy/testdata/yaml-injection.in.yaml: a tenant tries to smuggle
// a ClusterRoleBinding and a Secret in through GatewayConfig values.
const injection = `{
  "image": "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: pwned-%[1]s\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects:\n- {kind: ServiceAccount, name: web, namespace: %[1]s}",
  "service": {"annotations": {"example.com/note": "ok\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: stolen-%[1]s, namespace: kube-system}"}}
}`

// noInjectedObjects checks that neither object the injection tries to create exists.
func noInjectedObjects(t *testing.T, ns string) {
	t.Helper()
	for _, o := range []client.Object{
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "pwned-" + ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "stolen-" + ns}},
	} {
		if err := gone(t.Context(), o); err != nil {
			t.Errorf("injected object: %v", err)
		}
	}
}

// TestYAMLInjectionThroughGatewayConfig: tenant values that would add documents to the output
// stay data. With the proxy blueprint, which quotes them, they are literal strings and the
// Gateway gets its usual three objects; with a template that forgets to quote, the render is
// refused with a status naming the GatewayConfig, and nothing is applied.
func TestYAMLInjectionThroughGatewayConfig(t *testing.T) {
	ctx := t.Context()
	t.Run("quoted", func(t *testing.T) {
		ns := namespace(t, nil)
		bp := loadBlueprint(t, "proxy").Blueprints["proxy"].DeepCopy()
		class := setup(t, ns, bp)
		create(t, gatewayConfig(ns, "sneaky", "Gateway", "web", fmt.Sprintf(injection, ns), ""), gateway(ns, "web", class))
		waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
		dep := &appsv1.Deployment{}
		eventually(t, "Deployment with the literal image", func() error {
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, dep); err != nil {
				return err
			}
			if img := dep.Spec.Template.Spec.Containers[0].Image; !strings.HasPrefix(img, "x\n---\napiVersion: rbac") {
				return fmt.Errorf("image = %q", img)
			}
			return nil
		})
		svc := &corev1.Service{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, svc); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(svc.Annotations["example.com/note"], "kind: Secret") {
			t.Errorf("annotation = %q, want the literal value", svc.Annotations["example.com/note"])
		}
		noInjectedObjects(t, ns)
		// Exactly the three objects of the blueprint, in the Gateway's namespace.
		var n int
		for _, l := range []client.ObjectList{&appsv1.DeploymentList{}, &corev1.ServiceList{}, &corev1.ServiceAccountList{}, &corev1.ConfigMapList{}, &corev1.SecretList{}} {
			if err := k8s.List(ctx, l, client.MatchingLabels{v1alpha1.LabelGatewayName: "web"}, client.InNamespace(ns)); err != nil {
				t.Fatal(err)
			}
			n += meta.LenList(l)
		}
		if n != 3 {
			t.Errorf("%d rendered objects, want 3", n)
		}
	})

	t.Run("unquoted", func(t *testing.T) {
		ns := namespace(t, nil)
		class := setup(t, ns, blueprint("careless", `{"image": "nginx"}`, map[string]string{
			"values": valuesTemplate,
			"careless": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-careless
data:
  image: {{ .Values.image }}
`}))
		create(t, gateway(ns, "web", class))
		waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
		create(t, gatewayConfig(ns, "sneaky", "Gateway", "web", fmt.Sprintf(injection, ns), ""))
		gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "RenderFailed")
		msg := meta.FindStatusCondition(gw.Status.Conditions, "Programmed").Message
		for _, want := range []string{"GatewayConfig " + ns + "/sneaky", "careless", "image"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Programmed message %q does not name %q", msg, want)
			}
		}
		if err := conditionIs(gw.Status.Conditions, "Accepted", metav1.ConditionFalse, "InvalidParameters", gw.Generation); err != nil {
			t.Error(err)
		}
		noInjectedObjects(t, ns)
		// A Gateway is rendered whole or not at all: what was there stays as it was.
		waitValues(t, ns, "web", `{"image": "nginx"}`)
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-careless"}, cm); err != nil || cm.Data["image"] != "nginx" {
			t.Errorf("earlier object changed: %v %v", cm.Data, err)
		}
	})
}

// TestCollisionWithUnmanagedObject: an object Gantry would render that already exists and is
// not this Gateway's is never taken over or deleted, whoever made it; the Gateway says so,
// applies nothing, and converges once the object is gone.
func TestCollisionWithUnmanagedObject(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("collide", `{"x": "y"}`, map[string]string{
		"values": valuesTemplate,
		"shared": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  by: {{ .Gateway.metadata.name }}\n",
	}))
	theirs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shared"}, Data: map[string]string{"by": "someone"}}
	create(t, theirs, gateway(ns, "web", class))

	gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "ObjectExists")
	if msg := meta.FindStatusCondition(gw.Status.Conditions, "Programmed").Message; !strings.Contains(msg, "ConfigMap "+ns+"/shared") || !strings.Contains(msg, "not created by Gantry") {
		t.Errorf("Programmed message = %q", msg)
	}
	// checkUntouched: the object still says by, and belongs to owner ("" for nobody).
	checkUntouched := func(by, owner string) {
		t.Helper()
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(theirs), cm); err != nil {
			t.Fatal(err)
		}
		if cm.Data["by"] != by || cm.Annotations[v1alpha1.AnnotationOwner] != owner || owner == "" && (len(cm.OwnerReferences) != 0 || len(cm.Labels) != 0) {
			t.Errorf("the object was taken over: data %v labels %v annotations %v owners %v", cm.Data, cm.Labels, cm.Annotations, cm.OwnerReferences)
		}
	}
	checkUntouched("someone", "")
	// A collision leaves nothing applied, not even the objects that do not collide (a first
	// render creates them, then deletes them again: create.go).
	if err := gone(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-values"}}); err != nil {
		t.Error(err)
	}

	// Another Gantry Gateway rendering the same object does not take it over either.
	create(t, gateway(ns, "second", class))
	waitGateway(t, ns, "second", "Programmed", metav1.ConditionFalse, "ObjectExists")

	// Deleting a Gateway that collided deletes nothing of the other object.
	if err := k8s.Delete(ctx, gw); err != nil {
		t.Fatal(err)
	}
	waitGone(t, gw)
	checkUntouched("someone", "")

	// The owner removes the object: the remaining Gateway converges.
	if err := k8s.Delete(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	waitGateway(t, ns, "second", "Programmed", metav1.ConditionTrue, "Programmed")
	eventually(t, "the object rendered", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(theirs), cm); err != nil {
			return err
		}
		if cm.Data["by"] != "second" || cm.Annotations[v1alpha1.AnnotationOwner] != ns+"/second" {
			return fmt.Errorf("data %v annotations %v", cm.Data, cm.Annotations)
		}
		return nil
	})

	// Now a third Gateway collides with second's object: the message names the owner, and the
	// object stays second's.
	create(t, gateway(ns, "third", class))
	third := waitGateway(t, ns, "third", "Programmed", metav1.ConditionFalse, "ObjectExists")
	if msg := meta.FindStatusCondition(third.Status.Conditions, "Programmed").Message; !strings.Contains(msg, "belongs to Gateway "+ns+"/second") {
		t.Errorf("Programmed message = %q", msg)
	}
	if err := k8s.Delete(ctx, third); err != nil {
		t.Fatal(err)
	}
	waitGone(t, third)
	checkUntouched("second", ns+"/second")
}

// TestKeepAnnotation: an object annotated gateway.gantry.dev/keep: "true" stays when its
// template stops rendering it, and is taken up again when the template renders it again. A
// companion object without the annotation shows that the prune did run.
func TestKeepAnnotation(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	extra := "{{ if .Values.extra }}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Gateway.metadata.name }}-{{ get .Values \"name\" | default \"extra\" }}%s\n{{ end }}"
	class := setup(t, ns, blueprint("keep", `{"extra": true}`, map[string]string{
		"values":    valuesTemplate,
		"extra":     fmt.Sprintf(extra, ""),
		"companion": fmt.Sprintf(extra, "-companion"),
	}))
	create(t, gateway(ns, "web", class))
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	kept := cm("web-extra")
	eventually(t, "extra rendered", func() error { return k8s.Get(ctx, client.ObjectKeyFromObject(kept), kept) })
	uid := kept.UID
	update(t, kept, func(cm *corev1.ConfigMap) {
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[v1alpha1.AnnotationKeep] = "true"
	})
	stillKept := func() {
		t.Helper()
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(kept), kept); err != nil || kept.UID != uid {
			t.Fatalf("kept object pruned or replaced: %v", err)
		}
	}

	// Turned off: the companion goes, the kept object stays.
	policy := gatewayConfig(ns, "off", "Gateway", "web", `{"extra": false}`, "")
	create(t, policy)
	waitGone(t, cm("web-extra-companion"))
	stillKept()

	// Renamed by a value: the new objects appear, the kept old one still stays.
	setValues(t, policy, `{"extra": true, "name": "renamed"}`, "")
	eventually(t, "renamed objects", func() error {
		for _, name := range []string{"web-renamed", "web-renamed-companion"} {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(cm(name)), cm(name)); err != nil {
				return err
			}
		}
		return nil
	})
	stillKept()

	// Rendered again under its old name, it is the same object, Gantry's again, and the
	// renamed ones (not kept) go.
	if err := k8s.Delete(ctx, policy); err != nil {
		t.Fatal(err)
	}
	waitGone(t, cm("web-renamed"), cm("web-renamed-companion"))
	eventually(t, "companion back", func() error {
		return k8s.Get(ctx, client.ObjectKeyFromObject(cm("web-extra-companion")), cm("web-extra-companion"))
	})
	stillKept()
	if kept.Annotations[v1alpha1.AnnotationOwner] != ns+"/web" {
		t.Errorf("kept object's owner = %q", kept.Annotations[v1alpha1.AnnotationOwner])
	}
}
