package blueprints_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gantry.dev/gantry/internal/yamltext"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// TestGoldenNames reads every object in the reviewed golden outputs and checks what an API
// server or a cloud provider would refuse: object names, label values, port names, and the AWS
// names and tags of cloud-lb. Together with the long-name cases (253-character Gateway names)
// it keeps generated names within limits as blueprints change.
func TestGoldenNames(t *testing.T) {
	outs, err := filepath.Glob("*/testdata/*.out.yaml")
	if err != nil || len(outs) == 0 {
		t.Fatalf("no golden outputs: %v", err)
	}
	for _, path := range outs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs, _ := yamltext.SplitDocuments(string(b))
		for i, doc := range docs {
			if !strings.HasPrefix(strings.TrimSpace(doc), "# Source: ") {
				continue // the header, --explain tables: not an object
			}
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%s: document %d: %v", path, i+1, err)
			}
			if obj == nil {
				continue
			}
			for _, problem := range nameProblems(obj) {
				t.Errorf("%s: %s %s: %s", path, obj["kind"], name(obj), problem)
			}
		}
	}
}

// awsName is what AWS accepts as a load balancer or target group name.
var awsName = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9]{0,30}[A-Za-z0-9])?$`)

func nameProblems(obj map[string]any) []string {
	var out []string
	add := func(what string, errs []string) {
		for _, e := range errs {
			out = append(out, what+": "+e)
		}
	}
	n := name(obj)
	// Every blueprint here promises names of at most 63 characters; Services, and the child
	// Gateway a Service is named after, need RFC 1035 labels.
	add("metadata.name", validation.IsDNS1123Subdomain(n))
	if len(n) > 63 {
		out = append(out, fmt.Sprintf("metadata.name has %d characters, more than 63", len(n)))
	}
	switch obj["kind"] {
	case "Service", "Gateway":
		add("metadata.name", validation.IsDNS1035Label(n))
	}
	for k, v := range mapAt(obj, "metadata", "labels") {
		add("label "+k, validation.IsValidLabelValue(fmt.Sprint(v)))
	}
	spec := mapAt(obj, "spec")
	for _, p := range listAt(spec, "ports") {
		add("port name", validation.IsValidPortName(fmt.Sprint(p.(map[string]any)["name"])))
	}
	for _, c := range listAt(mapAt(spec, "template", "spec"), "containers") {
		for _, p := range listAt(c.(map[string]any), "ports") {
			add("container port name", validation.IsValidPortName(fmt.Sprint(p.(map[string]any)["name"])))
		}
	}
	if strings.HasSuffix(fmt.Sprint(obj["apiVersion"]), ".services.k8s.aws/v1alpha1") {
		switch obj["kind"] {
		case "LoadBalancer", "TargetGroup":
			if s := fmt.Sprint(spec["name"]); !awsName.MatchString(s) {
				out = append(out, fmt.Sprintf("spec.name %q is not an AWS load balancer name (32 characters of [A-Za-z0-9-])", s))
			}
		}
		for _, tag := range listAt(spec, "tags") {
			kv := tag.(map[string]any)
			if k, v := fmt.Sprint(kv["key"]), fmt.Sprint(kv["value"]); len(k) > 128 || len(v) > 256 {
				out = append(out, fmt.Sprintf("tag %q: keys are at most 128 characters and values 256", k))
			}
		}
	}
	return out
}

func name(obj map[string]any) string {
	s, _ := mapAt(obj, "metadata")["name"].(string)
	return s
}

func mapAt(m map[string]any, path ...string) map[string]any {
	for _, k := range path {
		m, _ = m[k].(map[string]any)
	}
	return m
}

func listAt(m map[string]any, key string) []any {
	l, _ := m[key].([]any)
	return l
}
