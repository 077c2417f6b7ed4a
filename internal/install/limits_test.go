package install_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/internal/command"
	"gantry.dev/gantry/internal/install"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/render"
)

// The chart passes the render budgets to the controller, with the binary's own defaults unless
// told otherwise.
func TestChartRenderLimits(t *testing.T) {
	args := func(values map[string]any) []string {
		var out []string
		for _, a := range controllerContainer(t, values)["args"].([]any) {
			out = append(out, a.(string))
		}
		return out
	}
	d := render.DefaultLimits
	got := args(nil)
	for _, want := range []string{
		"--render-timeout=" + d.Timeout.String(),
		fmt.Sprintf("--render-max-bytes=%d", d.MaxBytes),
		fmt.Sprintf("--render-max-objects=%d", d.MaxObjects),
		fmt.Sprintf("--render-max-loop=%d", d.MaxLoop),
		fmt.Sprintf("--render-max-steps=%d", d.MaxSteps),
		fmt.Sprintf("--render-max-alloc=%d", d.MaxAlloc),
		fmt.Sprintf("--render-check-memory=%d", boundary.DefaultMemory),
		fmt.Sprintf("--render-memory=%d", render.DefaultOutputMemory),
		fmt.Sprintf("--kube-api-qps=%d", command.DefaultKubeAPIQPS), // the binary's own client limit
	} {
		if !slices.Contains(got, want) {
			t.Errorf("default args %q lack %s", got, want)
		}
	}
	got = args(map[string]any{"render": map[string]any{"maxObjects": 5000, "timeout": "10s"}})
	for _, want := range []string{"--render-max-objects=5000", "--render-timeout=10s", fmt.Sprintf("--render-max-bytes=%d", d.MaxBytes)} {
		if !slices.Contains(got, want) {
			t.Errorf("args %q lack %s", got, want)
		}
	}
}

// The chart gives the Go runtime its memory limit, and GOGC only when asked.
func TestChartGoRuntimeEnv(t *testing.T) {
	env := func(values map[string]any) map[string]string {
		out := map[string]string{}
		list, _ := controllerContainer(t, values)["env"].([]any)
		for _, e := range list {
			m := e.(map[string]any)
			out[m["name"].(string)] = fmt.Sprint(m["value"])
		}
		return out
	}
	if got := env(nil); len(got) != 1 || got["GOMEMLIMIT"] != "360MiB" {
		t.Errorf("default env %v, want only GOMEMLIMIT=360MiB", got)
	}
	if got := env(map[string]any{"goGC": "50"}); got["GOGC"] != "50" || got["GOMEMLIMIT"] != "360MiB" {
		t.Errorf("env with goGC 50: %v", got)
	}
	if got := env(map[string]any{"goMemLimit": "", "goGC": ""}); len(got) != 0 {
		t.Errorf("env with neither: %v, want none", got)
	}
}

// controllerContainer is the controller's container in the chart rendered with values.
func controllerContainer(t *testing.T, values map[string]any) map[string]any {
	t.Helper()
	objs, err := install.Render(filepath.Join(testenv.Root(), "charts", "gantry"), "gantry", "gantry-system", values)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() == "Deployment" {
			containers := o.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
			return containers[0].(map[string]any)
		}
	}
	t.Fatal("the chart has no Deployment")
	return nil
}
