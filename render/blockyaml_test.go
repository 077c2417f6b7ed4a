package render

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gantry.dev/gantry/internal/yamltext"
)

// blockYAMLAccepted are documents within parseBlockYAML's subset: it must read them, and as
// yaml/v2 does.
var blockYAMLAccepted = []string{
	"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n",
	"k1: 1\nk2: -2\nk3: +3\nk4: 0x1F\nk5: 017\nk6: 1_000\nk7: 1e3\nk8: 1.5\nk9: 100m\nk10: 128Mi\nk11: 9223372036854775807\n",
	"k1: y\nk2: Yes\nk3: on\nk4: OFF\nk5: n\nk6: No\nk7: true\nk8: False\nk9: ~\nk10: null\nk11: Null\nk12:\nk13: ~x\nk14: yess\n",
	"k1: .x\nk2: 1.\nk3: -1.5e-3\nk5: 99999999999999999999\nk6: 1e999\nk7: 0o17\nk8: 0X1f\nk9: 08\nk10: 0.\nk11: -0\n",
	"image: docker.io/envoyproxy/envoy:v1.33.0\nurl: http://example.com/a\nd: sha256@abc=1 (x)\ns: a b  c\n",
	"a: \"quoted: yes, [no] {x} 'y' @z\"\nb: 'single \"x\"'\nc: \"\"\nd: ''\ne: \"80\"\nf: 'true'\n",
	"a: {}\nb: []\nc:\n- {}\n- []\n",
	"spec:\n  ports:\n  - name: http\n    port: 80\n  - name: https\n    port: 443\n  selector:\n    app: web\n",
	"spec:\n  ports:\n    - name: http\n      port: 80\n    - a\n  x: 1\n",
	"l:\n- a\n- b\nm: c\n",
	"- a\n- b: c\n  d: e\n- f\n",
	"-   a: 1\n    b: 2\n-  c\n",
	"- name:\n  - a\n  x: 1\n- z\n",
	"- name:\n  x: 1\n",
	"a:\n  b:\n    c:\n      d: 1\n  e: 2\nf: 3\n",
	"  a: 1\n  b:\n  - x\n",
	"a: 1\n\n   \nb: 2\n",
	"args:\n- --admin=false\n- -v\n- ---\n- -1\n- ...\n",
	"a: x:y\nb: Load balancer x, managed by y\nc: x :y\nd: x-\ne: -x\nf: _x\ng: /x\nh: .x.\n",
	"a.b/c-d_e: 1\n_x: 2\n",
	"a: 1\nb: 2",
}

// blockYAMLOther are documents outside the subset, valid YAML or not: declined, or if
// accepted, read as yaml/v2 reads them.
var blockYAMLOther = []string{
	"a: .5\nb: .inf\nc: -.Inf\nd: .NaN\n",
	"a: 0b101\n", "a: 1234-x\n", "a: -0b11\n", "a: 2024-01-02\n", "a: 2024-1-2\n", "a: 18446744073709551615\n",
	"on: 1\n", "y: 1\n", "80: http\n", "0x10: a\n", "null: a\n", "~: a\n", "1.5: a\n",
	"a: 1\na: 2\n",
	"a: 1 # comment\n",
	"# comment\na: 1\n",
	"a:\tb\n",
	"a: b\r\n",
	"a: b \n",
	"a: caf\u00e9\n",
	"a: b\n  c\n",
	"a: b: c\n",
	"a: b:\n",
	"a: [x, y]\n",
	"a: {x: y}\n",
	"a: \"x\\ny\"\n",
	"a: \"x\" y\n",
	"a: 'it''s'\n",
	"a: \"open\n  close\"\n",
	"a: |\n  text\n",
	"a: >\n  text\n",
	"a: &x 1\nb: *x\n",
	"a: !!str 1\n",
	"<<: {a: 1}\n",
	"\"a\": 1\n",
	"? a\n: 1\n",
	"a:\n    b: 1\n  c: 2\n",
	"a:\n  b: 1\n c: 2\n",
	"- a\n  - b\n",
	"- - a\n",
	"-\n  a: 1\n",
	"- a\nb: 1\n",
	"a: 1\n- b\n",
	"a\n",
	"a: 1\n---\nb: 2\n",
	"a: 1\n...\n",
	"%YAML 1.1\n---\na: 1\n",
	"a: - b\n",
	"a: @x\n", "a: `x\n", "a: %x\n", "a: ,x\n", "a: x,y\n", "a: ?x\n", "a: :x\n", "a: =x\n",
	"a: x\n b: y\n",
	"key :\n",
	"a b: c\n",
	"a:b\n",
	"",
	"   \n",
}

func TestBlockYAMLAgreesWithTheParser(t *testing.T) {
	docs := append(append([]string(nil), blockYAMLAccepted...), blockYAMLOther...)
	// Every document the shipped blueprints render.
	golden, _ := filepath.Glob("../blueprints/*/testdata/*.out.yaml")
	if len(golden) == 0 {
		t.Fatal("no golden outputs found")
	}
	for _, g := range golden {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := yamltext.SplitDocuments(string(b))
		for _, doc := range d {
			// Without the comments the golden files add (`# Source: ...`): what templates print.
			var lines []string
			for l := range strings.Lines(doc) {
				if !strings.HasPrefix(l, "#") {
					lines = append(lines, l)
				}
			}
			docs = append(docs, strings.Join(lines, ""))
		}
	}
	accepted := 0
	for _, doc := range docs {
		if checkBlockYAML(t, doc) {
			accepted++
		}
	}
	t.Logf("parseBlockYAML accepted %d of %d documents", accepted, len(docs))
	// The subset must cover what blueprints print, or the fast path is for nothing.
	if accepted < len(docs)/2 {
		t.Errorf("parseBlockYAML accepted %d of %d documents", accepted, len(docs))
	}
	for _, must := range blockYAMLAccepted {
		if _, ok := parseBlockYAML(must); !ok {
			t.Errorf("parseBlockYAML declined %q, which is within its subset", must)
		}
	}
}

// checkBlockYAML fails t when parseBlockYAML accepts doc and reads it otherwise than yaml/v2;
// it reports whether parseBlockYAML accepted it.
func checkBlockYAML(t *testing.T, doc string) bool {
	t.Helper()
	got, ok := parseBlockYAML(doc)
	if !ok {
		return false
	}
	want, err := parseYAMLv2(doc)
	if err != nil {
		t.Errorf("parseBlockYAML accepted %q, which yaml/v2 refuses: %v", doc, err)
		return true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseBlockYAML(%q) =\n%#v\nyaml/v2 reads\n%#v", doc, got, want)
	}
	return true
}

// FuzzBlockYAML: whatever parseBlockYAML accepts, yaml/v2 reads to the same value.
//
//	go test -run='^$' -fuzz=FuzzBlockYAML -fuzztime=60s ./render
func FuzzBlockYAML(f *testing.F) {
	for _, c := range append(append([]string(nil), blockYAMLAccepted...), blockYAMLOther...) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if strings.Count(doc, "\n") > 200 {
			return
		}
		checkBlockYAML(t, doc)
	})
}

// TestBlockYAMLRandomDocuments builds documents from the pieces block YAML is made of, at
// random indentations, most of them near the subset's edges, and holds parseBlockYAML to
// yaml/v2 on each: a byte-level fuzzer rarely finds a valid nesting.
func TestBlockYAMLRandomDocuments(t *testing.T) {
	keys := []string{"a", "b", "name", "app.kubernetes.io/name", "on", "y", "80", "0x1", "1e3", "null", "_k", "k-", "x.y", "targetPort", "no", "On", "Name", "0b1", "1_0", "8m"}
	values := []string{
		"", "v", "1", "-1", "+1", "08", "0x1F", "1_0", "1e3", "1.5", ".5", "1.", "~", "null", "yes", "Off", "100m",
		"a b", "a, b", "x:y", "x: y", "x:", "--x", "-", "- v", "---", "...", "2024-01-01", "9223372036854775808",
		`"q"`, `"a: b"`, `""`, "'s'", "''", "{}", "[]", "{a: b}", "[a]", "&x v", "*x", "!t v", "|", ">", "@v", "=v",
		"(v)", "~v", ".inf", "0b1", "0_b1", "-0b1", "1:2", "0x1Fz", "1e", "0o8", "1__0", "+.5", "-0x1", "12345-6", "Yes", "t", "o",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	n := 30000
	if s := os.Getenv("BLOCKYAML_DOCS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			indent := 2 * rng.IntN(3) // mostly the indentations of a real nesting
			if rng.IntN(5) == 0 {
				indent = rng.IntN(7)
			}
			b.WriteString(strings.Repeat(" ", indent))
			k, v := keys[rng.IntN(len(keys))], values[rng.IntN(len(values))]
			switch rng.IntN(6) {
			case 0, 1:
				b.WriteString(k + ": " + v)
			case 2:
				b.WriteString(k + ":")
			case 3:
				b.WriteString("- " + v)
			case 4:
				b.WriteString("- " + k + ": " + v)
			case 5:
				b.WriteString("- " + k + ":")
			}
			b.WriteString("\n")
		}
		if checkBlockYAML(t, strings.TrimRight(b.String(), " \n")+"\n") {
			accepted++
		}
	}
	t.Logf("accepted %d of %d", accepted, n)
}
