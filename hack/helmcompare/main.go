// Command helmcompare times `gantry render` against `helm template` on the same work (issue 22):
// the proxy blueprint's templates, rendered for N Gateways.
//
// For each N it writes, under -dir:
//
//   - input/: the proxy blueprint, its GatewayClass, two GatewayClassConfigs (a global one and
//     one per namespace) and N Gateways with two listeners each, spread over ten namespaces;
//   - chart/: a Helm chart whose templates are the blueprint's, each looping over
//     .Values.gateways, and whose values.yaml holds every Gateway with the values Gantry merged
//     for it (`gantry render --show-values -o json`): Helm is given the merge already done.
//
// It then checks that both print the same objects (parsed, not as text: Gantry's labels and
// namespace, which it adds when it applies an object, are removed before comparing), and runs
// the two commands in turn, A B A B ..., printing each one's wall and CPU seconds (min, median,
// max) and the median of the pairs' ratios. Both print to /dev/null.
//
// The blueprint's one Gantry-only function, shortname, is given to Helm as a named template
// (gantry.shortname) and its calls rewritten to include it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/apis/v1alpha1"
)

func main() {
	gantry := flag.String("gantry", "bin/gantry", "the gantry binary")
	helm := flag.String("helm", "bin/helm", "the helm binary (make bench-helm builds it from the version in go.mod)")
	blueprint := flag.String("blueprint", "blueprints/proxy/blueprint.yaml", "the blueprint whose templates both render")
	sizes := flag.String("sizes", "1,1000", "numbers of Gateways, comma-separated")
	runs := flag.Int("runs", 5, "timed pairs per size (after one warm-up pair)")
	dir := flag.String("dir", "bin/helmcompare", "where the inputs and the chart are written")
	flag.Parse()

	bp, err := readBlueprint(*blueprint)
	if err != nil {
		fail(err)
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at start: %s", load)
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fail(fmt.Errorf("-sizes: %q is not a positive number", s))
		}
		base := filepath.Join(*dir, fmt.Sprintf("n%d", n))
		inputDir, chartDir := filepath.Join(base, "input"), filepath.Join(base, "chart")
		if err := writeInput(inputDir, *blueprint, n); err != nil {
			fail(err)
		}
		if err := writeChart(chartDir, bp, *gantry, inputDir); err != nil {
			fail(err)
		}
		gantryCmd := []string{*gantry, "render", inputDir}
		helmCmd := []string{*helm, "template", "r", chartDir}
		if err := compare(gantryCmd, helmCmd); err != nil {
			fail(fmt.Errorf("N=%d: %w", n, err))
		}
		fmt.Printf("N=%d: outputs equal as objects\n", n)
		fmt.Printf("  A: %s\n  B: %s\n", strings.Join(gantryCmd, " "), strings.Join(helmCmd, " "))
		if err := timePairs(gantryCmd, helmCmd, *runs); err != nil {
			fail(err)
		}
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at end: %s", load)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "helmcompare:", err)
	os.Exit(1)
}

func readBlueprint(path string) (*v1alpha1.GatewayClassBlueprint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bp := &v1alpha1.GatewayClassBlueprint{}
	if err := yaml.UnmarshalStrict(b, bp); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return bp, nil
}

const namespaces = 10

// writeInput writes the blueprint and N Gateways of its class, with a global policy (autoscaling
// and a PodDisruptionBudget on: every template renders) and one per namespace.
func writeInput(dir, blueprint string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := os.ReadFile(blueprint)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "blueprint.yaml"), b, 0o644); err != nil {
		return err
	}
	var w strings.Builder
	w.WriteString(`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: proxy
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: proxy}
---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassConfig
metadata:
  name: proxy-global
  namespace: gantry-system
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: GatewayClass, name: proxy}
  default:
    replicas: 3
    autoscaling: {enabled: true, maxReplicas: 8}
    service:
      annotations:
        service.beta.kubernetes.io/aws-load-balancer-scheme: internet-facing
  override:
    podDisruptionBudget: {enabled: true}
`)
	for i := range min(n, namespaces) {
		fmt.Fprintf(&w, `---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassConfig
metadata:
  name: team-budget
  namespace: team-%d
spec:
  targetRef: {group: "", kind: Namespace, name: team-%d}
  default:
    resources:
      limits: {cpu: "1", memory: 512Mi}
  override:
    service:
      annotations:
        example.com/cost-center: team-%d
`, i, i, i)
	}
	for i := range n {
		fmt.Fprintf(&w, `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw-%04d
  namespace: team-%d
spec:
  gatewayClassName: proxy
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: https, port: 443, protocol: HTTPS, hostname: "*.gw-%04d.example.com"}
`, i, i%namespaces, i)
	}
	return os.WriteFile(filepath.Join(dir, "gateways.yaml"), []byte(w.String()), 0o644)
}

// shortnameCall is a call of Gantry's shortname in a template action: `shortname ARGS -}}`.
var shortnameCall = regexp.MustCompile(`shortname ([^}]*?)\s*(-?}})`)

// shortnameHelm is Gantry's shortname (render.Shortname) as a Helm named template, called with
// (list MAX PARTS...).
const shortnameHelm = `{{- define "gantry.shortname" -}}
{{- $max := int (first .) -}}
{{- $parts := list -}}
{{- range rest . }}{{ if ne (toString .) "" }}{{ $parts = append $parts (toString .) }}{{ end }}{{ end -}}
{{- $full := join "-" $parts -}}
{{- if le (len $full) $max -}}
{{- $full -}}
{{- else -}}
{{- printf "%s-%s" (regexReplaceAll "[-.]+$" (substr 0 (int (sub $max 9)) $full) "") (sha256sum $full | trunc 8) -}}
{{- end -}}
{{- end -}}
`

// writeChart writes a chart whose templates are the blueprint's, each rendering once per Gateway
// of values.yaml with the context Gantry gives it (.Gateway, .Values), and whose values are the
// ones Gantry merged for each Gateway.
func writeChart(dir string, bp *v1alpha1.GatewayClassBlueprint, gantry, inputDir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: proxy\nversion: 0.1.0\n",
	}
	helpers := shortnameHelm
	for name, tpl := range bp.Spec.GatewayTemplate.ResourceTemplates {
		tpl = shortnameCall.ReplaceAllString(tpl, `include "gantry.shortname" (list $1) $2`)
		if strings.HasPrefix(name, "_") {
			helpers += tpl
			continue
		}
		files["templates/"+name+".yaml"] = "{{- range .Values.gateways }}\n---\n{{ with dict \"Gateway\" .gateway \"Values\" .values -}}\n" + tpl + "\n{{ end -}}\n{{- end }}\n"
	}
	files["templates/_helpers.tpl"] = helpers

	// The values: each Gateway as the templates read it, with the values Gantry merged for it.
	out, err := exec.Command(gantry, "render", "--show-values", "-o", "json", inputDir).Output()
	if err != nil {
		return fmt.Errorf("gantry render --show-values: %w", err)
	}
	var merged []struct {
		Gateway string         `json:"gateway"`
		Values  map[string]any `json:"values"`
	}
	if err := json.Unmarshal(out, &merged); err != nil {
		return err
	}
	gateways, err := readGateways(filepath.Join(inputDir, "gateways.yaml"))
	if err != nil {
		return err
	}
	var list []any
	for _, m := range merged {
		gw, ok := gateways[m.Gateway]
		if !ok {
			return fmt.Errorf("gantry merged values for %s, which is not in the input", m.Gateway)
		}
		list = append(list, map[string]any{"gateway": gw, "values": m.Values})
	}
	vals, err := json.Marshal(map[string]any{"gateways": list})
	if err != nil {
		return err
	}
	files["values.yaml"] = string(vals) + "\n"
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readGateways reads the input's Gateways as the templates see them (.Gateway), by namespace/name.
func readGateways(path string) (map[string]map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	docs, err := parseDocs(b)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]any{}
	for _, d := range docs {
		if d["kind"] != "Gateway" {
			continue
		}
		md := d["metadata"].(map[string]any)
		out[md["namespace"].(string)+"/"+md["name"].(string)] = d
	}
	return out, nil
}

// parseDocs parses a stream of YAML documents, skipping empty ones.
func parseDocs(b []byte) ([]map[string]any, error) {
	var out []map[string]any
	for _, doc := range regexp.MustCompile(`(?m)^---[ \t]*$`).Split(string(b), -1) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			return nil, fmt.Errorf("%w in:\n%s", err, doc)
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// gantryAdded are the labels Gantry adds to an object when it applies it; Helm's chart does not.
var gantryAdded = []string{"gateway.gantry.dev/template", "gateway.networking.k8s.io/gateway-class-name", "gateway.networking.k8s.io/gateway-name"}

// compare runs both commands and checks that they print the same objects.
func compare(gantryCmd, helmCmd []string) error {
	g, err := exec.Command(gantryCmd[0], gantryCmd[1:]...).Output()
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(gantryCmd, " "), err)
	}
	h, err := exec.Command(helmCmd[0], helmCmd[1:]...).Output()
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(helmCmd, " "), err)
	}
	gObjs, err := parseDocs(g)
	if err != nil {
		return fmt.Errorf("gantry output: %w", err)
	}
	hObjs, err := parseDocs(h)
	if err != nil {
		return fmt.Errorf("helm output: %w", err)
	}
	key := func(o map[string]any) string {
		md, _ := o["metadata"].(map[string]any)
		return fmt.Sprintf("%v %v", o["kind"], md["name"])
	}
	byKey := map[string]map[string]any{}
	for _, o := range hObjs {
		if _, dup := byKey[key(o)]; dup {
			return fmt.Errorf("helm printed %s twice", key(o))
		}
		byKey[key(o)] = o
	}
	if len(gObjs) != len(hObjs) {
		return fmt.Errorf("gantry printed %d objects, helm %d", len(gObjs), len(hObjs))
	}
	for _, o := range gObjs {
		md := o["metadata"].(map[string]any)
		delete(md, "namespace")
		if labels, ok := md["labels"].(map[string]any); ok {
			for _, l := range gantryAdded {
				delete(labels, l)
			}
			if len(labels) == 0 {
				delete(md, "labels")
			}
		}
		want, ok := byKey[key(o)]
		if !ok {
			return fmt.Errorf("gantry printed %s, helm did not", key(o))
		}
		if !reflect.DeepEqual(o, want) {
			gj, _ := json.Marshal(o)
			hj, _ := json.Marshal(want)
			return fmt.Errorf("%s differs:\ngantry: %s\nhelm:   %s", key(o), gj, hj)
		}
	}
	return nil
}

type run struct{ wall, cpu time.Duration }

func timeOnce(argv []string) (run, error) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return run{}, err
	}
	defer devnull.Close()
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdout, c.Stderr = devnull, devnull
	start := time.Now()
	if err := c.Run(); err != nil {
		return run{}, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	wall := time.Since(start)
	return run{wall: wall, cpu: c.ProcessState.UserTime() + c.ProcessState.SystemTime()}, nil
}

// timePairs runs A and B in turn (one warm-up pair, then runs pairs) and prints min, median and
// max of each one's wall and CPU seconds, and the median of the pairs' A/B ratios.
func timePairs(a, b []string, runs int) error {
	var as, bs []run
	for i := range runs + 1 {
		ra, err := timeOnce(a)
		if err != nil {
			return err
		}
		rb, err := timeOnce(b)
		if err != nil {
			return err
		}
		if i > 0 {
			as, bs = append(as, ra), append(bs, rb)
		}
	}
	row := func(name string, rs []run) {
		fmt.Printf("  %s wall %s  cpu %s\n", name, stats(rs, func(r run) float64 { return r.wall.Seconds() }), stats(rs, func(r run) float64 { return r.cpu.Seconds() }))
	}
	row("A", as)
	row("B", bs)
	var wallRatio, cpuRatio []float64
	for i := range as {
		wallRatio = append(wallRatio, as[i].wall.Seconds()/bs[i].wall.Seconds())
		cpuRatio = append(cpuRatio, as[i].cpu.Seconds()/bs[i].cpu.Seconds())
	}
	fmt.Printf("  A/B median of pairs: wall %.2f×, cpu %.2f×\n", median(wallRatio), median(cpuRatio))
	return nil
}

func stats(rs []run, f func(run) float64) string {
	var v []float64
	for _, r := range rs {
		v = append(v, f(r))
	}
	slices.Sort(v)
	return fmt.Sprintf("%.3f/%.3f/%.3f s", v[0], median(v), v[len(v)-1])
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
