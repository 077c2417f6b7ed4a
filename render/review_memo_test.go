package render_test

import (
	"regexp"
	"testing"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// A second adversarial review (a helper session, 2026-11-27), of the include memo with its
// decisions, the splits' parts by number and the distinct-keys rule (docs/security.md, 8.8).
// Each test failed when found. A tenant string equal to a platform constant collides with it
// in A's maps and not in B's: the forms where the keys reach the output as list items, or
// after a transform, passed until set and unset recorded whether the key was there.

// rv2Render renders the given templates (one ConfigMap each) as the tenant's (tenant true) or
// the platform's; it returns the data of every object by template order, and the error.
func rv2Render(t *testing.T, tmpls map[string]string, values map[string]any, tenantValues bool) ([]map[string]any, *render.Output, error) {
	t.Helper()
	b := mustCompile(t, gatewaySpec(tmpls))
	in := input(values)
	if tenantValues {
		in.Tainted = boundary.TaintedStrings(values, tenant)
	}
	out, err := b.RenderGateway(in)
	if err != nil {
		return nil, nil, err
	}
	var ds []map[string]any
	for _, o := range out.Objects {
		d, _ := o.Object["data"].(map[string]any)
		ds = append(ds, d)
	}
	return ds, out, nil
}

// A pending template ("a", waiting for .Resources.cm) is rendered by B's catch-up without any
// check of its decisions: B departs there (a with B cannot take), and remembers the include
// with the else branch's output, kept with A's decisions. In "cm", B takes that output.
func TestReview2MemoFromUncheckedPendingTemplate(t *testing.T) {
	helpers := `{{- define "h" }}{{ with get (dict "gold" "g") .Values.tier }}{{ $.Values.extra }}{{ else }}{{ $.Values.k1 }}: "1"
  {{ $.Values.k2 }}: "2"{{ end }}{{ end }}`
	tmpls := map[string]string{
		"_helpers": helpers,
		"a":        rvHead + "  x: {{ include \"h\" . | quote }}\n  y: {{ (index .Resources.cm 0).status | quote }}\n",
		"cm":       rvHead + "  {{ include \"h\" . }}\n",
	}
	values := map[string]any{"tier": "gold", "extra": "a: \"1\"\n  admin: \"2\"", "k1": "x", "k2": "y"}
	ds, out, err := rv2Render(t, tmpls, values, false)
	t.Logf("platform: %v %v %v", ds, err, out)
	ds, out, err = rv2Render(t, tmpls, values, true)
	if err == nil {
		t.Fatalf("accepted: %v pending %v", ds, out.Pending)
	}
	t.Logf("refused: %v", err)
}

// The same without the memo: refused (the memo is what lets it through).
func TestReview2MemoFromUncheckedPendingTemplateMemoOffOracle(t *testing.T) {
	defer render.SetIncludeMemo(false)()
	helpers := `{{- define "h" }}{{ with get (dict "gold" "g") .Values.tier }}{{ $.Values.extra }}{{ else }}{{ $.Values.k1 }}: "1"
  {{ $.Values.k2 }}: "2"{{ end }}{{ end }}`
	tmpls := map[string]string{
		"_helpers": helpers,
		"a":        rvHead + "  x: {{ include \"h\" . | quote }}\n  y: {{ (index .Resources.cm 0).status | quote }}\n",
		"cm":       rvHead + "  {{ include \"h\" . }}\n",
	}
	values := map[string]any{"tier": "gold", "extra": "a: \"1\"\n  admin: \"2\"", "k1": "x", "k2": "y"}
	ds, out, err := rv2Render(t, tmpls, values, true)
	if err == nil {
		t.Fatalf("accepted: %v pending %v", ds, out.Pending)
	}
	t.Logf("refused: %v", err)
}

// TestReviewFlagsJoin with the keys joined into a list's items instead of a map's keys: the
// distinct-keys rule of the comparison covers map keys only. A tenant part equal to the
// platform's "metrics" is one key in A, two in B; another part injects a list item.
func TestReview2FlagsJoinListItems(t *testing.T) {
	cm := rvHead +
		"{{- $flags := dict \"metrics\" \"true\" }}\n" +
		"{{- range splitList \",\" .Values.enable }}{{ $_ := set $flags . \"true\" }}{{ end }}\n" +
		"  flags: |\n    x\n  list:\n  - {{ keys $flags | sortAlpha | join \"\\n  - \" }}\n"
	values := map[string]any{"enable": "metrics,x\n  - admin"}
	got := renderPlatform(t, "", cm, values)
	t.Logf("platform: %v", got)
	refusesCollision(t, cm, values)
}

// Harmless idioms over splits and includes.
func TestReview2IdiomsAccepted(t *testing.T) {
	for _, c := range []struct {
		name, helpers, body string
		values              map[string]any
	}{
		{"upper then split, keys", "",
			"{{- range splitList \",\" (.Values.hosts | upper) }}\n  {{ . }}: \"1\"\n{{- end }}\n",
			map[string]any{"hosts": "a,b"}},
		{"version number split", "",
			"{{- $v := splitList \".\" (toString .Values.version) }}\n  major: {{ first $v | quote }}\n  minor: {{ index $v 1 | quote }}\n",
			map[string]any{"version": 1.25}},
		{"without a platform word", "",
			"{{- range without (splitList \",\" .Values.features) \"none\" }}\n  f-{{ . }}: \"1\"\n{{- end }}\n",
			map[string]any{"features": "none,a"}},
		{"without a platform word, list", "",
			"{{- range without .Values.features \"none\" }}\n  f-{{ . }}: \"1\"\n{{- end }}\n",
			map[string]any{"features": []any{"none", "a"}}},
		{"include per part with root", `{{ define "h" }}{{ .root.Values.prefix }}-{{ .host }}{{ end }}`,
			"{{- range $i, $h := splitList \",\" .Values.hosts }}\n  k{{ $i }}: {{ include \"h\" (dict \"host\" $h \"root\" $) | quote }}\n{{- end }}\n",
			map[string]any{"hosts": "a,b,a", "prefix": "p"}},
		{"include of labels twice", `{{ define "labels" }}app: {{ .Values.app | quote }}
{{- if .Values.team }}
team: {{ .Values.team | quote }}
{{- end }}{{ end }}`,
			"  a: x\n{{ include \"labels\" . | indent 2 }}\n  b: y\n",
			map[string]any{"app": "web", "team": ""}},
		{"split then trim each", "",
			"{{- range splitList \",\" .Values.hosts }}\n  h-{{ trim . }}: \"1\"\n{{- end }}\n",
			map[string]any{"hosts": "a, b"}},
		{"split of a number", "",
			"{{- range $i, $p := splitList \"0\" (toString .Values.n) }}\n  k{{ $i }}: {{ $p | quote }}\n{{- end }}\n",
			map[string]any{"n": int64(105)}},
		{"regexFindAll digits of a port", "",
			"  port: {{ regexFindAll \"[0-9]+\" .Values.addr -1 | last | quote }}\n",
			map[string]any{"addr": "host:8080"}},
		{"split nested", "",
			"{{- range splitList \";\" .Values.groups }}{{ $g := splitn \":\" 2 . }}\n  {{ $g._0 }}: {{ splitList \",\" $g._1 | len | quote }}\n{{- end }}\n",
			map[string]any{"groups": "a:x,y;b:z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// "without a platform word" was refused until without's drops became decisions
			// (boundary/compare.go): A dropped the tenant's "none", B kept its stand-in.
			rvMustAccept(t, c.helpers, rvHead+c.body, c.values)
		})
	}
}

// Error messages must not show Gantry's internals.
func TestReview2ErrorMessagesPlain(t *testing.T) {
	internal := regexp.MustCompile(`gantry[A-Z]|gantryCounted|\bqw\d{6}|qz\d|\bqv\d{6}|9000[0-9]{2}|qy\d`)
	for _, c := range []struct {
		name, helpers, body string
		values              map[string]any
	}{
		{"index by a tenant number", "", "  a: {{ index .Values.ports .Values.i | quote }}\n", map[string]any{"ports": []any{"80", "443"}, "i": int64(1)}},
		{"include by a tenant name", `{{ define "web" }}w{{ end }}`, "  a: {{ include .Values.kind . | quote }}\n", map[string]any{"kind": "web"}},
		{"repeat by a tenant number", "", "  a: {{ repeat (int .Values.n) \"x\" | quote }}\n", map[string]any{"n": int64(3)}},
		{"semver of a tenant string", "", "  a: {{ (semver .Values.v).Major | quote }}\n", map[string]any{"v": "1.2.3"}},
		{"printf %c of a part", "", "  a: {{ mustRegexFind (splitList \",\" .Values.re | first) \"abc\" | quote }}\n", map[string]any{"re": "b"}},
		{"get of a part in a dict", "", "  a: {{ index (dict \"a\" (dict \"b\" \"c\")) (splitList \",\" .Values.k | first) \"b\" | quote }}\n", map[string]any{"k": "a,x"}},
		{"split part as a template name", `{{ define "web" }}w{{ end }}`, "  a: {{ include (splitList \",\" .Values.k | first) . | quote }}\n", map[string]any{"k": "web,x"}},
		{"nindent by a part", "", "  a: {{ \"x\" | nindent (splitList \",\" .Values.k | first | int) | quote }}\n", map[string]any{"k": "2,x"}},
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

// The distinct-keys rule compares B's restored keys with YAML's types in the ordered walk: a
// template key `80` (an int) and a tenant key restored to "80" (a string) are distinct there,
// though one JSON key. The JSON walk, which would see it, stops at the first document that it
// cannot decide (a key the template upper-cased), and the ordered walk decides every document.
// A part equal to the platform's "80" is one key in A, two in B; another part injects "admin".
func TestReview2CollisionWithIntKeyAfterUndecidedDocument(t *testing.T) {
	cm := rvHead + "  {{ .Values.name | upper }}: \"1\"\n---\n" + rvHead +
		"{{- $ports := dict \"80\" \"http\" }}\n" +
		"{{- range splitList \",\" .Values.extra }}{{ $_ := set $ports . \"x\" }}{{ end }}\n" +
		"  {{ keys $ports | sortAlpha | join \": x\\n  \" }}: x\n"
	values := map[string]any{"name": "web", "extra": "80,zz: x\n  admin"}
	tmpls := map[string]string{"cm": cm}
	ds, _, err := rv2Render(t, tmpls, values, false)
	t.Logf("platform: %v %v", ds, err)
	for i := range 20 {
		ds, _, err = rv2Render(t, tmpls, values, true)
		if err == nil {
			t.Fatalf("try %d: accepted: %v", i, ds)
		}
	}
	t.Logf("refused: %v", err)
}

// The distinct-keys rule sees keys that restore: a part upper-cased before it is set into a
// dict with the platform's "METRICS" collides in A only, and B's keys (QZ…, QW… upper-cased)
// do not restore, so nothing says they stand for one key.
func TestReview2CollisionAfterUpper(t *testing.T) {
	cm := rvHead +
		"{{- $m := dict \"METRICS\" \"1\" }}\n" +
		"{{- range splitList \",\" .Values.enable }}{{ $_ := set $m (upper .) \"1\" }}{{ end }}\n" +
		"  {{ keys $m | sortAlpha | join \": \\\"1\\\"\\n  \" }}: \"1\"\n"
	values := map[string]any{"enable": "metrics,zz: \"1\"\n  admin"}
	got := renderPlatform(t, "", cm, values)
	t.Logf("platform: %v", got)
	refusesCollision(t, cm, values)
}

// TestReview2CollisionAfterUpper without a split: two tenant strings (does it predate splits?).
func TestReview2CollisionAfterUpperNoSplit(t *testing.T) {
	cm := rvHead +
		"{{- $m := dict \"METRICS\" \"1\" }}\n" +
		"{{- $_ := set $m (upper .Values.a) \"1\" }}{{ $_ := set $m (upper .Values.b) \"1\" }}\n" +
		"  {{ keys $m | sortAlpha | join \": \\\"1\\\"\\n  \" }}: \"1\"\n"
	values := map[string]any{"a": "metrics", "b": "zz: \"1\"\n  admin"}
	got := renderPlatform(t, "", cm, values)
	t.Logf("platform: %v", got)
	refusesCollision(t, cm, values)
}

// TestReview2FlagsJoinListItems without a split: a tenant list (does it predate splits?).
func TestReview2FlagsJoinListItemsNoSplit(t *testing.T) {
	cm := rvHead +
		"{{- $flags := dict \"metrics\" \"true\" }}\n" +
		"{{- $_ := set $flags .Values.a \"true\" }}{{ $_ := set $flags .Values.b \"true\" }}\n" +
		"  list:\n  - {{ keys $flags | sortAlpha | join \"\\n  - \" }}\n"
	values := map[string]any{"a": "metrics", "b": "x\n  - admin"}
	got := renderPlatform(t, "", cm, values)
	t.Logf("platform: %v", got)
	refusesCollision(t, cm, values)
}

// refusesCollision: the attack (a tenant string equal to a platform map key, and an injected
// key or item that evens the count) adds a field or item when unchecked, and is refused.
func refusesCollision(t *testing.T, cm string, values map[string]any) {
	t.Helper()
	if got := renderPlatform(t, "", cm, values); !rvHasAdmin(got) && !rvListHasAdmin(got) {
		t.Fatalf("the attack adds nothing even unchecked: %v", got)
	}
	mustRefuse(t, "", cm, values)
}

func rvListHasAdmin(d map[string]any) bool {
	l, _ := d["list"].([]any)
	for _, v := range l {
		if v == "admin" || v == "xadmin" {
			return true
		}
	}
	return false
}

// The memo answered before the depth check: an include of a remembered helper at the depth
// limit succeeded with the memo and failed without it.
func TestReview2MemoDepthChangesVerdict(t *testing.T) {
	helpers := `{{- define "leaf" }}{{ .Values.name }}{{ end }}
{{- define "rec" }}{{ if gt .n 0 }}{{ include "rec" (dict "n" (sub .n 1) "r" .r) }}{{ else }}{{ include "leaf" .r }}{{ end }}{{ end }}`
	cm := rvHead + "  a: {{ include \"leaf\" . | quote }}\n  b: {{ include \"rec\" (dict \"n\" 63 \"r\" $) | quote }}\n"
	values := map[string]any{"name": "web"}
	_, errOn := renderData(t, helpers, cm, values)
	restore := render.SetIncludeMemo(false)
	_, errOff := renderData(t, helpers, cm, values)
	restore()
	if (errOn == nil) != (errOff == nil) {
		t.Errorf("with the memo: %v; without: %v", errOn, errOff)
	}
}

// TestReview2CollisionWithIntKeyAfterUndecidedDocument with two tenant strings instead of a split.
func TestReview2CollisionWithIntKeyNoSplit(t *testing.T) {
	cm := rvHead + "  {{ .Values.name | upper }}: \"1\"\n---\n" + rvHead +
		"{{- $ports := dict \"80\" \"http\" }}\n" +
		"{{- $_ := set $ports .Values.a \"x\" }}{{ $_ := set $ports .Values.b \"x\" }}\n" +
		"  {{ keys $ports | sortAlpha | join \": x\\n  \" }}: x\n"
	values := map[string]any{"name": "web", "a": "80", "b": "zz: x\n  admin"}
	ds, _, err := rv2Render(t, map[string]string{"cm": cm}, values, true)
	if err == nil {
		t.Fatalf("accepted: %v", ds)
	}
	t.Logf("refused: %v", err)
}
