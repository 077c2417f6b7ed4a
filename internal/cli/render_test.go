package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/internal/cli"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/precedence"
)

var sample = filepath.Join(testenv.Root(), "samples", "defaults-vs-overrides")

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(append([]string{"render"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// row finds the --explain line of a value path and returns its columns.
func row(t *testing.T, explain, path string) []string {
	t.Helper()
	for _, l := range strings.Split(explain, "\n") {
		if f := regexp.MustCompile(`\s{2,}`).Split(l, -1); len(f) > 1 && f[0] == path {
			return f
		}
	}
	t.Fatalf("no --explain row for %s in:\n%s", path, explain)
	return nil
}

func TestCommandLineLayer(t *testing.T) {
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte("replicas: 9\nservice:\n  type: NodePort\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "", sample, "--gateway", "team-a/web", "--explain", "--values", values, "--set", "replicas=7", "--set-string", "image=1234")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// --set is applied after --values, and the layer beats the global override of image.
	for path, want := range map[string][]string{
		"replicas":     {"replicas", "7", "command line", "override", "8 (command line)"},
		"service.type": {"service.type", `"NodePort"`, "command line", "override", "8 (command line)"},
		"image":        {"image", `"1234"`, "command line", "override", "8 (command line)"},
	} {
		got := row(t, out, path)
		if strings.Join(got[:5], "|") != strings.Join(want, "|") {
			t.Errorf("%s row = %q, want %q", path, got[:5], want)
		}
	}
}

func TestShowValues(t *testing.T) {
	code, out, errOut := run(t, "", sample, "--gateway", "team-a/web", "--show-values")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	body := strings.SplitN(out, "\n", 2)[1] // after the "# Gateway ..." title
	var v map[string]any
	if err := yaml.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("--show-values is not YAML: %v\n%s", err, out)
	}
	if v["replicas"] != float64(5) || v["service"].(map[string]any)["type"] != "LoadBalancer" {
		t.Errorf("values = %v", v)
	}
}

func TestJSONShowOnlyAndStdin(t *testing.T) {
	manifests, err := os.ReadFile(filepath.Join(sample, "team-a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The rest of the scenario from files, team-a's manifests from stdin.
	args := []string{filepath.Join(sample, "blueprint.yaml"), filepath.Join(sample, "platform.yaml"), filepath.Join(sample, "namespaces.yaml"), "-",
		"--gateway", "team-a/web", "-o", "json", "--show-only", "service", "--show-only", "deployment"}
	code, out, errOut := run(t, string(manifests), args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var list struct {
		Kind  string
		Items []struct {
			Kind     string
			Metadata struct{ Name, Namespace string }
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("-o json is not JSON: %v\n%s", err, out)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Kind+" "+it.Metadata.Namespace+"/"+it.Metadata.Name)
	}
	if list.Kind != "List" || strings.Join(got, ",") != "Deployment team-a/web,Service team-a/web" {
		t.Errorf("kind %s, items %v, want a List of the Deployment and Service", list.Kind, got)
	}
}

func TestOutputDir(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "", sample, "--output-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{"team-a/web/deployment.yaml", "team-a/web/service.yaml", "team-a/web/serviceaccount.yaml", "team-a/web/pdb.yaml", "team-b/api/deployment.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s not written: %v", f, err)
			continue
		}
		if !strings.Contains(out, filepath.Join(dir, f)) {
			t.Errorf("stdout does not list %s", f)
		}
		if !bytes.HasPrefix(b, []byte("---\napiVersion: ")) {
			t.Errorf("%s does not hold YAML objects:\n%s", f, b)
		}
	}
}

func TestUsageAndErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no input", nil, 2, "requires at least 1 arg"},
		{"bad output", []string{sample, "-o", "xml"}, 2, `--output must be yaml or json, not "xml"`},
		{"bad gateway", []string{sample, "--gateway", "web"}, 2, `--gateway must be namespace/name, not "web"`},
		{"unknown flag", []string{sample, "--frobnicate"}, 2, "unknown flag: --frobnicate"},
		{"bad --set", []string{sample, "--set", "a="}, 0, ""},
		{"missing Gateway", []string{sample, "--gateway", "team-a/nope"}, 1, "Gateway team-a/nope is not in the manifests"},
		{"missing file", []string{filepath.Join(sample, "nope.yaml")}, 1, "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, "", tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestShowOnlyUnknownTemplate: issue 21. --show-only with a name that is no template printed
// nothing and exited 0; as Helm's, it is an error that lists the templates there are.
func TestShowOnlyUnknownTemplate(t *testing.T) {
	code, out, errOut := gantry("render", sample, "--gateway", "team-a/web", "--show-only", "nosuch")
	if code != 2 || out != "" || !strings.Contains(errOut, `--show-only "nosuch"`) || !strings.Contains(errOut, "deployment") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming nosuch and the templates there are", code, out, errOut)
	}
}

// TestDebugPrintsTheFailingOutput: issue 21. "output is not valid YAML: … yaml: line 3: mapping
// values are not allowed" showed nothing of the output; --debug prints the document with line
// numbers, as helm template --debug does, and without --debug nothing of it is printed.
func TestDebugPrintsTheFailingOutput(t *testing.T) {
	bp := `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bad}
spec:
  gatewayTemplate:
    resourceTemplates:
      cm: "apiVersion: v1\nkind: ConfigMap\nmetadata: name: x: y\n"
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: bad}
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: bad}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: bad
  listeners: [{name: http, port: 80, protocol: HTTP}]
`
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte(bp), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := gantry("render", path, "--debug")
	if code != 1 || !strings.Contains(errOut, "output is not valid YAML") || !strings.Contains(errOut, "# Output of gatewayTemplate.resourceTemplates.cm, document 1 (blueprint bad):") ||
		!strings.Contains(errOut, "3 | metadata: name: x: y") {
		t.Errorf("exit %d, stderr:\n%s\nwant the failing document, numbered", code, errOut)
	}
	_, _, plain := gantry("render", path)
	if strings.Contains(plain, "name: x: y") {
		t.Errorf("without --debug the output is printed:\n%s", plain)
	}
}

// TestValuesJSONIsOneDocument: issue 21. --show-values -o json printed a comment and a document
// per Gateway, and --explain -o json its tables; both print one JSON list a script can parse,
// provenance and policy outcomes included with --explain.
func TestValuesJSONIsOneDocument(t *testing.T) {
	code, out, errOut := gantry("render", sample, "--explain", "--show-values", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []struct {
		Gateway    string               `json:"gateway"`
		Values     map[string]any       `json:"values"`
		Provenance []precedence.Leaf    `json:"provenance"`
		Policies   []precedence.Outcome `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	if len(got) < 2 || got[0].Values == nil || len(got[0].Provenance) == 0 || len(got[0].Policies) == 0 {
		t.Errorf("got %+v, want every Gateway with values, provenance and policies", got)
	}
}

// TestOutputDirRefusesJSON: issue 21. -o json with --output-dir wrote YAML files anyway; the
// pair is refused.
func TestOutputDirRefusesJSON(t *testing.T) {
	code, _, errOut := gantry("render", sample, "-o", "json", "--output-dir", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "--output-dir") {
		t.Errorf("exit %d, stderr %q; want a usage error", code, errOut)
	}
}

// TestMissingClassIsNamed: issue 21. A Gateway whose class is missing from the inputs got no
// hint of which class it names.
func TestMissingClassIsNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gw.yaml")
	gw := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: web, namespace: team-a}\nspec:\n  gatewayClassName: internet\n  listeners: [{name: http, port: 80, protocol: HTTP}]\n"
	if err := os.WriteFile(path, []byte(gw), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := gantry("render", path)
	if code == 0 || !strings.Contains(errOut, "Gateway team-a/web names GatewayClass internet, which is not there") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = gantry("render", path, "--gateway", "team-a/web")
	if code == 0 || !strings.Contains(errOut, "GatewayClass internet, which the Gateway names, does not exist") {
		t.Errorf("--gateway: exit %d, stderr %q", code, errOut)
	}
}

// TestAsWrittenKeepsTheTemplateText: issue 21. render re-serialises every object, losing the
// template's comments and key order; --as-written prints the text as the template wrote it,
// tenant values and all, and the default output stays the object as applied.
func TestAsWrittenKeepsTheTemplateText(t *testing.T) {
	bp := `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: commented}
spec:
  values: {default: {greeting: hello}}
  gatewayTemplate:
    resourceTemplates:
      cm: |
        # The greeting, for people
        kind: ConfigMap
        apiVersion: v1
        metadata:
          name: {{ .Gateway.metadata.name }}-greeting  # named after the Gateway
        data:
          zeta: "last in the alphabet, first here"
          greeting: {{ .Values.greeting | quote }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: commented}
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: commented}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: commented
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: team-a}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web}
  default: {greeting: "hi # not a comment"}
`
	path := filepath.Join(t.TempDir(), "commented.yaml")
	if err := os.WriteFile(path, []byte(bp), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := gantry("render", path, "--as-written")
	want := `# The greeting, for people
kind: ConfigMap
apiVersion: v1
metadata:
  name: web-greeting  # named after the Gateway
data:
  zeta: "last in the alphabet, first here"
  greeting: "hi # not a comment"
`
	if code != 0 || !strings.Contains(out, "# Source: commented/gatewayTemplate/cm\n"+want) {
		t.Errorf("exit %d, stderr %q; want the template's text as written:\n%s", code, errOut, out)
	}
	// Without it: the object as applied, keys sorted, Gantry's labels added, no comments.
	code, out, _ = gantry("render", path)
	g, z := strings.Index(out, "  greeting: "), strings.Index(out, "  zeta: ")
	if code != 0 || strings.Contains(out, "for people") || !strings.Contains(out, "gateway.gantry.dev/template: cm") || g < 0 || z < g {
		t.Errorf("exit %d; the default output is not the object as applied:\n%s", code, out)
	}
	if code, _, errOut := gantry("render", path, "--as-written", "-o", "json"); code != 2 || !strings.Contains(errOut, "--as-written") {
		t.Errorf("--as-written with -o json: exit %d, stderr %q; want a usage error", code, errOut)
	}
}
