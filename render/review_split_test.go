package render_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// An adversarial review (a helper session, 2026-11-27) of the include call-site numbering and
// of the splits of tenant strings as decisions (docs/security.md, 8.8). Each attack test was
// accepted when found, and failed; the accepted idioms were refused by the first version of
// the splits ("lifting"), which taking A's parts by number replaced. The oracle of the attacks
// is the unchecked render of the same values as the platform's (renderPlatform): it must show
// the injected field.

const rvHead = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"

func rvHasAdmin(d map[string]any) bool {
	for k := range d {
		if strings.Contains(strings.ToLower(k), "admin") && !strings.Contains(k, "\n") {
			return true
		}
	}
	return false
}

// A split part equal to a platform dict key overwrites it in A (one key fewer) but not in B
// (qw stand-in): an injected key in another part balances the count.
func TestReviewSplitFlagsCollideWithPlatformKey(t *testing.T) {
	cm := rvHead +
		"{{- $flags := dict \"metrics\" \"true\" }}\n" +
		"{{- range splitList \",\" .Values.enable }}{{ $_ := set $flags . \"true\" }}{{ end }}\n" +
		"{{- range $k, $v := $flags }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n"
	values := map[string]any{"enable": "metrics,admin: \"true\"\n  zz"}
	refusesCollision(t, cm, values)
}

// Same with a tenant list instead of a split (pre-existing?).
func TestReviewListFlagsCollideWithPlatformKey(t *testing.T) {
	cm := rvHead +
		"{{- $flags := dict \"metrics\" \"true\" }}\n" +
		"{{- range .Values.enable }}{{ $_ := set $flags . \"true\" }}{{ end }}\n" +
		"{{- range $k, $v := $flags }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n"
	values := map[string]any{"enable": []any{"metrics", "admin: \"true\"\n  zz"}}
	refusesCollision(t, cm, values)
}

// The same, with every key the tenant gives prefixed ("feature."): the injected "admin" has no
// prefix, a key the template can never write.
func TestReviewSplitPrefixedFlagsInjectUnprefixedKey(t *testing.T) {
	cm := rvHead +
		"{{- $flags := dict \"metrics\" \"true\" }}\n" +
		"{{- range splitList \",\" .Values.enable }}{{ $_ := set $flags . \"true\" }}{{ end }}\n" +
		"{{- range $k, $v := $flags }}\n  feature.{{ $k }}: {{ $v | quote }}\n{{- end }}\n"
	values := map[string]any{"enable": "metrics,x: \"true\"\n  admin"}
	got := renderPlatform(t, "", cm, values)
	t.Logf("platform: %v", got)
	if _, ok := got["admin"]; !ok {
		t.Fatalf("no admin unchecked")
	}
	mustRefuse(t, "", cm, values)
}

// Lift puts back the tenant's text as it was, not as the template transformed it before the
// split (lower, nospace, replace): B's parts are then distinct where A's are equal, and uniq
// keeps one item more in B than in A, balancing a key that a part injects in A.
func TestReviewSplitOfLoweredThenUniq(t *testing.T) {
	cm := rvHead +
		"{{- range splitList \",\" (lower .Values.hosts) | uniq }}\n  host.{{ . }}: \"enabled\"\n{{- end }}\n"
	values := map[string]any{"hosts": "A,a,x: \"enabled\"\n  admin"}
	got := renderPlatform(t, "", cm, values)
	t.Logf("platform: %v", got)
	if _, ok := got["admin"]; !ok {
		t.Fatalf("no admin unchecked")
	}
	mustRefuse(t, "", cm, values)
}

// TestBOutOfStepBalanced with the template action instead of include: call sites of
// `template` are not numbered. B makes one more call of "f" than A before the printed one
// (uniq keeps a tenant string equal to the platform's "x" in B) and one fewer after it (trunc
// makes two tenant strings equal in B only): B's printed call replays the decision of another
// call and prints the platform's "mode: strict" where A printed the tenant's.
func TestReviewTemplateActionOutOfStepBalanced(t *testing.T) {
	helpers := `{{ define "f" }}{{ if .s }}{{ .s | default "" }}{{ else }}mode: strict{{ end }}{{ end }}`
	cm := rvHead +
		"{{- $after := uniq (list (trunc 2 .Values.c) (trunc 2 .Values.d)) }}\n" +
		"{{- range uniq (list \"x\" .Values.a) }}\n  # {{ template \"f\" (dict) }}\n{{- end }}\n" +
		"  {{ template \"f\" (dict \"s\" .Values.name) }}\n" +
		"{{- range $after }}\n  # {{ template \"f\" (dict) }}\n{{- end }}\n"
	values := map[string]any{"name": "mode: strict", "a": "x", "c": "pp", "d": "qq"}
	got := renderPlatform(t, helpers, cm, values)
	t.Logf("platform: %v", got)
	if got["mode"] != "strict" {
		t.Fatalf("no mode unchecked")
	}
	mustRefuse(t, helpers, cm, values)
}

// rvMustAccept renders as the tenant's and as the platform's and wants the same data.
func rvMustAccept(t *testing.T, helpers, cm string, values map[string]any) {
	t.Helper()
	want := renderPlatform(t, helpers, cm, values)
	got, err := renderData(t, helpers, cm, values)
	if err != nil {
		t.Fatalf("refused (platform render: %v): %v", want, err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Common idioms over a split tenant string.
func TestReviewSplitIdiomsAccepted(t *testing.T) {
	for _, c := range []struct {
		name, helpers, body string
		values              map[string]any
	}{
		{"port count", "",
			"  count: {{ len (splitList \",\" .Values.hosts) | quote }}\n",
			map[string]any{"hosts": "a,b,c"}},
		{"image repo and tag", "",
			"{{- $p := splitn \":\" 2 .Values.image }}\n  repo: {{ $p._0 | quote }}\n  tag: {{ $p._1 | default \"latest\" | quote }}\n",
			map[string]any{"image": "nginx:1.25"}},
		{"image without tag", "",
			"{{- $p := splitn \":\" 2 .Values.image }}\n  repo: {{ $p._0 | quote }}\n  tag: {{ $p._1 | default \"latest\" | quote }}\n",
			map[string]any{"image": "nginx"}},
		{"last part of a domain", "",
			"  tld: {{ splitList \".\" .Values.host | last | quote }}\n",
			map[string]any{"host": "a.example.com"}},
		{"joined back", "",
			"  hosts: {{ splitList \",\" .Values.hosts | sortAlpha | uniq | join \";\" | quote }}\n",
			map[string]any{"hosts": "b,a,b"}},
		{"joined back and split again", "",
			"{{- range splitList \";\" (splitList \",\" .Values.hosts | join \";\") }}\n  h-{{ . }}: \"1\"\n{{- end }}\n",
			map[string]any{"hosts": "b,a"}},
		{"regexFindAll with tenant n", "",
			"{{- range regexFindAll \"[a-z]+\" .Values.s (int .Values.n) }}\n  w-{{ . }}: \"1\"\n{{- end }}\n",
			map[string]any{"s": "ab cd ef", "n": int64(2)}},
		{"splitn with tenant n", "",
			"{{- range $k, $v := splitn \",\" (int .Values.n) .Values.s }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n",
			map[string]any{"s": "a,b,c", "n": int64(2)}},
		{"key=value labels", "",
			"{{- range splitList \",\" .Values.labels }}{{ $kv := splitn \"=\" 2 . }}\n  {{ $kv._0 }}: {{ $kv._1 | quote }}\n{{- end }}\n",
			map[string]any{"labels": "team=a,tier=gold"}},
		{"empty string", "",
			"{{- range splitList \",\" .Values.hosts }}\n  h-{{ . }}: \"1\"\n{{- end }}\n",
			map[string]any{"hosts": "", "x": "y"}},
		{"trailing comma with compact", "",
			"{{- range splitList \",\" .Values.hosts | compact }}\n  h-{{ . }}: \"1\"\n{{- end }}\n",
			map[string]any{"hosts": "a,b,"}},
		{"include per part", `{{ define "h" }}h-{{ . | replace "." "-" }}{{ end }}`,
			"{{- range splitList \",\" .Values.hosts }}\n  {{ include \"h\" . }}: \"1\"\n{{- end }}\n",
			map[string]any{"hosts": "a.x,b.x"}},
		{"part equals another tenant value", "",
			"{{- range splitList \",\" .Values.hosts }}\n  h-{{ . }}: {{ eq . $.Values.primary | quote }}\n{{- end }}\n",
			map[string]any{"hosts": "a,b", "primary": "b"}},
	} {
		t.Run(c.name, func(t *testing.T) { rvMustAccept(t, c.helpers, rvHead+c.body, c.values) })
	}
}

// rvErr renders cm (with helpers) as the tenant's (tenant true) or the platform's, and returns
// the Compile or render error.
func rvErr(t *testing.T, helpers, cm string, values map[string]any, tenantValues bool) error {
	t.Helper()
	tmpls := map[string]string{"cm": cm}
	if helpers != "" {
		tmpls["_helpers"] = helpers
	}
	b, err := render.Compile("bp", gatewaySpec(tmpls))
	if err != nil {
		return err
	}
	in := input(values)
	if tenantValues {
		in.Tainted = boundary.TaintedStrings(values, tenant)
	}
	_, err = b.RenderGateway(in)
	return err
}

// Error messages must not show what Gantry rewrote: gantryInclude, gantryCounted_, the
// decision numbers, or B's stand-ins.
func TestReviewErrorMessagesPlain(t *testing.T) {
	internal := regexp.MustCompile(`gantry[A-Z]|gantryCounted|\bqw\d{6}|\bqz\d|\bqv\d{6}`)
	for _, c := range []struct {
		name, helpers, body string
		values              map[string]any
	}{
		{"include of a missing template", "", "  a: {{ include \"nope\" . }}\n", map[string]any{"x": "y"}},
		{"include with too few args", "", "  a: {{ include \"nope\" }}\n", map[string]any{"x": "y"}},
		{"splitList with too few args", "", "  a: {{ splitList \",\" }}\n", map[string]any{"x": "y"}},
		{"splitList of a number", "", "  a: {{ splitList \",\" 5 }}\n", map[string]any{"x": "y"}},
		{"bad regex of the tenant", "", "  a: {{ mustRegexSplit .Values.re \"a,b\" -1 | quote }}\n", map[string]any{"re": "("}},
		{"regexSplit panics on the tenant's pattern", "", "  a: {{ regexSplit .Values.re \"a,b\" -1 | quote }}\n", map[string]any{"re": "("}},
		{"fail in an include in a tpl", `{{ define "f" }}{{ fail "no" }}{{ end }}`,
			"  a: {{ tpl \"{{ if .Values.x }}{{ include \\\"f\\\" . }}{{ end }}\" $ }}\n", map[string]any{"x": "y"}},
		{"missing template in a tpl", "",
			"  a: {{ tpl \"{{ if .Values.x }}{{ include \\\"nope\\\" . }}{{ end }}\" $ }}\n", map[string]any{"x": "y"}},
		{"a part the template cannot read as a date", "",
			"{{- range splitList \",\" .Values.dates }}\n  d: {{ mustToDate \"2006-01-02\" . | date \"2006\" | quote }}\n{{- end }}\n",
			map[string]any{"dates": "2024-01-02"}},
		{"transformed regex that B lifts untransformed", "",
			"  a: {{ regexFindAll (.Values.re | trunc 3) \"abc\" -1 | join \",\" | quote }}\n", map[string]any{"re": "abc("}},
		{"split in a recursive include", `{{ define "r" }}{{ range splitList "," . }}{{ include "r" . }}{{ end }}{{ end }}`,
			"  a: {{ include \"r\" .Values.x | quote }}\n", map[string]any{"x": "a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := rvErr(t, c.helpers, rvHead+c.body, c.values, true)
			t.Logf("error: %v", err)
			if err != nil && internal.MatchString(err.Error()) {
				t.Errorf("the message shows Gantry's internals: %q", internal.FindAllString(err.Error(), -1))
			}
		})
	}
}

// TestBOutOfStepBalanced through tpl: three tpl calls of one text (`{{ include "f" . }}`) with
// another dot each. Their include call site has one number (from the text's shape) in all
// three, and the tpl calls are no decisions: B skips the first call A made and makes the last
// one A skipped (and/or stop elsewhere), the code shapes match in order, and the printed call
// replays the first call's decision, printing the platform's "mode: strict" where A printed
// the tenant's.
func TestReviewTplIncludeOutOfStepBalanced(t *testing.T) {
	helpers := `{{ define "f" }}{{ if .s }}{{ .s | default "" }}{{ else }}mode: strict{{ end }}{{ end }}`
	cm := rvHead +
		"  {{- $_ := or .Values.replicas (tpl \"{{ include \\\"f\\\" . }}\" (dict)) }}\n" +
		"  {{ tpl \"{{ include \\\"f\\\" . }}\" (dict \"s\" .Values.name) }}\n" +
		"  {{- $_ := or (regexFind \"^mode\" .Values.name) (tpl \"{{ include \\\"f\\\" . }}\" (dict)) }}\n"
	values := map[string]any{"name": "mode: strict", "replicas": int64(0)}
	got := renderPlatform(t, helpers, cm, values)
	t.Logf("platform: %v", got)
	if got["mode"] != "strict" {
		t.Fatalf("no mode unchecked")
	}
	mustRefuse(t, helpers, cm, values)
}

// TestBOutOfStepBalanced at one include call site: the three calls are one site's, in a loop
// with no other decision between them. B skips the first call A made (a tenant number, 0 in A)
// and makes the last one A skipped (regexFind on the tenant's string): the call site's count
// and order balance, and the second call, the one printed, replays the first call's decision.
func TestReviewIncludeOneSiteOutOfStepBalanced(t *testing.T) {
	helpers := `{{ define "f" }}{{ if .s }}{{ .s | default "" }}{{ else }}mode: strict{{ end }}{{ end }}`
	cm := rvHead +
		"{{- $outs := list }}\n" +
		"{{- range list (dict \"c\" .Values.replicas) (dict \"s\" .Values.name) (dict \"c\" (regexFind \"^mode\" .Values.name)) }}\n" +
		"{{- $outs = append $outs (or .c (include \"f\" .)) }}\n" +
		"{{- end }}\n" +
		"  {{ index $outs 1 }}\n"
	values := map[string]any{"name": "mode: strict", "replicas": int64(0)}
	got := renderPlatform(t, helpers, cm, values)
	t.Logf("platform: %v", got)
	if got["mode"] != "strict" {
		t.Fatalf("no mode unchecked")
	}
	mustRefuse(t, helpers, cm, values)
}

// The first version of the splits cut, in B, the tenant's text untransformed: where the
// template normalises the separator before the split (replace " " ","), B cut another number
// of parts than A, padded to A's count with copies of its last part, and a key per part was a
// duplicate key in B.
func TestReviewSplitAfterNormalisingSeparatorAccepted(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"replace", "{{- range splitList \",\" (replace \" \" \",\" .Values.hosts) }}\n  host.{{ . }}: \"enabled\"\n{{- end }}\n"},
		{"regexReplaceAll", "{{- range splitList \",\" (regexReplaceAll \"[ ;]+\" .Values.hosts \",\") }}\n  host.{{ . }}: \"enabled\"\n{{- end }}\n"},
		{"regexQuoteMeta pattern", "  count: {{ regexFindAll (regexQuoteMeta .Values.word) .Values.text -1 | len | quote }}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rvMustAccept(t, "", rvHead+c.body, map[string]any{"hosts": "a b;c", "word": "c++", "text": "c++ or c++"})
		})
	}
}

// A wrong argument count is told with the call site's number counted: the blueprint wrote one
// argument to a function of two, and the message says "want 3 got 2".
func TestReviewArgCountMessages(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"  a: {{ include \"x\" }}\n", "want 2 got 1"},
		{"  a: {{ splitList \",\" }}\n", "want 2 got 1"},
		{"  a: {{ ternary 1 2 }}\n", "want 3 got 2"},
	} {
		err := rvErr(t, `{{ define "x" }}x{{ end }}`, rvHead+c.body, map[string]any{"v": "w"}, true)
		t.Logf("%q: %v", c.body, err)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.want)
		}
	}
}

// The collision with a platform key without a loop over the map: the keys joined into the
// output's text. Found while fixing the review's case: the leftover pairing matched B's extra
// tenant key with the injected one; B's keys must be distinct once restored.
func TestReviewFlagsJoin(t *testing.T) {
	cm := rvHead +
		"{{- $flags := dict \"metrics\" \"true\" }}\n" +
		"{{- range splitList \",\" .Values.enable }}{{ $_ := set $flags . \"true\" }}{{ end }}\n" +
		"  {{ keys $flags | sortAlpha | join \": x\\n  \" }}: x\n"
	values := map[string]any{"enable": "metrics,admin: x\n  zz"}
	refusesCollision(t, cm, values)
}

// TestReviewFlagsJoinList is TestReviewFlagsJoin with a tenant list: the hole predates splits.
func TestReviewFlagsJoinList(t *testing.T) {
	cm := rvHead +
		"{{- $flags := dict \"metrics\" \"true\" }}\n" +
		"{{- $_ := set $flags (index .Values.enable 0) \"true\" }}{{ $_ := set $flags (index .Values.enable 1) \"true\" }}\n" +
		"  {{ keys $flags | sortAlpha | join \": x\\n  \" }}: x\n"
	values := map[string]any{"enable": []any{"metrics", "admin: x\n  zz"}}
	refusesCollision(t, cm, values)
}
