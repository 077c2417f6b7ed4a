package render_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gantry.dev/gantry/render"
)

// hash8 is the first 8 hex digits of a SHA-256, as Shortname ends a shortened name.
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:8]
}

func TestFunctions(t *testing.T) {
	values := map[string]any{
		"m":     map[string]any{"b": int64(2), "a": "x"},
		"l":     []any{"x", int64(1)},
		"s":     "a: b",
		"who":   "bob",
		"big":   int64(1000000),
		"empty": "",
	}
	helpers := `{{- define "greet" }}hi {{ . }}{{ end -}}`
	tests := []struct {
		name, expr string
		want       any
	}{
		{"toYaml map", `{{ toYaml .Values.m | quote }}`, "a: x\nb: 2"},
		{"toYaml list", `{{ toYaml .Values.l | quote }}`, "- x\n- 1"},
		{"toYaml string", `{{ toYaml .Values.s | quote }}`, "'a: b'"},
		{"fromYaml", `{{ (fromYaml "a: 1\nb: [p, q]").b | join "," | quote }}`, "p,q"},
		{"fromYaml number", `{{ (fromYaml "a: 1").a | quote }}`, "1"},
		{"fromYamlArray", `{{ fromYamlArray "[a, b]" | join "," | quote }}`, "a,b"},
		{"toJson", `{{ toJson .Values.m | quote }}`, `{"a":"x","b":2}`},
		{"fromJson", `{{ (fromJson "{\"a\":{\"b\":\"c\"}}").a.b | quote }}`, "c"},
		{"fromJsonArray", `{{ fromJsonArray "[1,2,3]" | len | quote }}`, "3"},
		{"required", `{{ required "s is required" .Values.s | quote }}`, "a: b"},
		{"include", `{{ include "greet" .Values.who | quote }}`, "hi bob"},
		{"include piped", `{{ include "greet" .Values.who | upper | quote }}`, "HI BOB"},
		{"tpl", `{{ tpl "{{ .Values.who }}!" . | quote }}`, "bob!"},
		{"tpl with include", `{{ tpl "{{ include \"greet\" .Values.who }}" . | quote }}`, "hi bob"},
		{"shortname", `{{ shortname 10 "abcdefghijk" | quote }}`, "a-" + hash8("abcdefghijk")},
		{"integer value quoted", `{{ .Values.big | quote }}`, "1000000"},
		{"integer value", `{{ .Values.big }}`, int64(1000000)},
		{"sprig upper", `{{ upper "abc" | quote }}`, "ABC"},
		{"sprig default", `{{ default "d" .Values.empty | quote }}`, "d"},
		{"sprig b64enc", `{{ b64enc "gantry" | quote }}`, "Z2FudHJ5"},
		{"sprig sha256sum", `{{ sha256sum "" | quote }}`, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"sprig dig", `{{ dig "m" "a" "none" .Values | quote }}`, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, "cm": configMap("cm", "v: "+tt.expr)}))
			out, err := b.RenderGateway(input(values))
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			want := []render.Object{{Template: "cm", Object: cm("cm", map[string]any{"v": tt.want})}}
			if !reflect.DeepEqual(out.Objects, want) {
				t.Errorf("objects =\n%#v\nwant\n%#v", out.Objects, want)
			}
		})
	}
}

func TestFunctionErrors(t *testing.T) {
	tests := []struct {
		name, expr string
		values     map[string]any
		want       string
	}{{
		name:   "required nil",
		expr:   `{{ required "x is required" .Values.x }}`,
		values: map[string]any{"x": nil},
		want:   `x is required (required, at <required "x is required" .Values.x>)`,
	}, {
		name:   "required empty string",
		expr:   `{{ required "x is required" .Values.x }}`,
		values: map[string]any{"x": ""},
		want:   `x is required (required, at <required "x is required" .Values.x>)`,
	}, {
		name: "fromJson of something else",
		expr: `{{ fromJson "[1]" }}`,
		want: `fromJson "[1]": error calling fromJson: fromJson: json: cannot unmarshal array into Go value of type map[string]interface {}`,
	}, {
		name: "include of an undefined template",
		expr: `{{ include "nope" . }}`,
		want: `include "nope" .: error calling include: template: no template "nope" associated with template "bp"`,
	}, {
		name: "tpl that does not parse",
		expr: `{{ tpl "{{ nope }}" . }}`,
		want: `tpl "{{ nope }}" .: error calling tpl: tpl: template: tpl:1: function "nope" not defined`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"cm": configMap("cm", "v: "+tt.expr)}))
			_, err := b.RenderGateway(input(tt.values))
			want := "blueprint bp: gatewayTemplate.resourceTemplates.cm:6: " + tt.want
			if err == nil || err.Error() != want {
				t.Errorf("error\n got %v\nwant %s", err, want)
			}
		})
	}
}

// TestSealedFunctions: nothing that reads the environment, the network, the clock or a random
// source is defined, so a template using one does not parse.
func TestSealedFunctions(t *testing.T) {
	for _, name := range []string{
		"env", "expandenv", "getHostByName",
		"now", "date", "dateInZone", "date_in_zone", "htmlDate", "ago", "durationRound",
		"randAlpha", "randAlphaNum", "randAscii", "randNumeric", "randBytes", "randInt", "uuidv4", "shuffle",
		"genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert", "genSelfSignedCertWithKey",
		"genSignedCert", "genSignedCertWithKey", "bcrypt", "htpasswd", "encryptAES",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := render.Compile("bp", gatewaySpec(map[string]string{"cm": "\n{{ " + name + " }}"}))
			want := `blueprint bp: gatewayTemplate.resourceTemplates.cm:2: function "` + name + `" not defined`
			if err == nil || err.Error() != want {
				t.Errorf("Compile error\n got %v\nwant %s", err, want)
			}
		})
	}
}

func TestShortname(t *testing.T) {
	long := strings.Repeat("a", 60) + ".example-" + strings.Repeat("b", 184) // 253 characters
	dashAt54 := strings.Repeat("a", 53) + "-" + strings.Repeat("b", 20)
	tests := []struct {
		name  string
		max   int
		parts []any
		want  string
		err   string
	}{
		{name: "short", max: 63, parts: []any{"web"}, want: "web"},
		{name: "joined", max: 63, parts: []any{"web", "lb"}, want: "web-lb"},
		{name: "empty parts dropped", max: 63, parts: []any{"", "lb", ""}, want: "lb"},
		{name: "numbers", max: 15, parts: []any{"l", int64(8080)}, want: "l-8080"},
		{name: "exactly max", max: 5, parts: []any{"ab", "cd"}, want: "ab-cd"},
		{name: "one over", max: 10, parts: []any{"abcdefghijk"}, want: "a-" + hash8("abcdefghijk")},
		{name: "253 characters into 63", max: 63, parts: []any{long}, want: long[:54] + "-" + hash8(long)},
		{name: "parts hashed whole", max: 20, parts: []any{"gateway", "listener-https"}, want: "gateway-lis-" + hash8("gateway-listener-https")},
		{name: "no dash or dot before the hash", max: 63, parts: []any{dashAt54}, want: strings.Repeat("a", 53) + "-" + hash8(dashAt54)},
		{name: "no room", max: 9, parts: []any{"abcdefghij"}, err: "shortname: a limit of 9 leaves no room for a name and its hash"},
		{name: "no room needed", max: 3, parts: []any{"abc"}, want: "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := render.Shortname(tt.max, tt.parts...)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("Shortname error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Shortname(%d, %q) = %q, %v; want %q", tt.max, tt.parts, got, err, tt.want)
			}
			if len(got) > tt.max {
				t.Errorf("len(%q) = %d > %d", got, len(got), tt.max)
			}
		})
	}

	// Distinct long names stay distinct, even when they share everything the cut keeps.
	seen := map[string]string{}
	for _, suffix := range []string{"a", "b", "c", "aa", "ab", "a-b", "a.b"} {
		for _, max := range []int{10, 32, 63} {
			name := strings.Repeat("x", 70) + suffix
			got, err := render.Shortname(max, name)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) > max {
				t.Errorf("Shortname(%d, %q) = %q, longer than %d", max, name, got, max)
			}
			key := string(rune('0'+max/10)) + got
			if other, ok := seen[key]; ok {
				t.Errorf("Shortname(%d) gives %q for both %q and %q", max, got, other, name)
			}
			seen[key] = name
		}
	}
}

// TestHelmFormatFunctions: issue 21. toToml, fromToml and toYamlPretty, as Helm has them; an
// error fails the render instead of printing itself into the output.
func TestHelmFormatFunctions(t *testing.T) {
	for _, tt := range []struct{ name, tmpl, want string }{
		{"toToml", `{{ toToml (dict "a" 1 "b" (dict "c" "d")) | quote }}`, "a = 1\n\n[b]\n  c = \"d\"\n"},
		{"fromToml", `{{ (fromToml "x = 2\ny = \"z\"\n[t]\nu = true").x }}`, "2"},
		{"fromToml dates are strings", `{{ (fromToml "when = 1979-05-27T07:32:00Z").when }}`, "1979-05-27T07:32:00Z"},
		{"toYamlPretty", `{{ toYamlPretty (dict "l" (list 1 2)) | quote }}`, "l:\n  - 1\n  - 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"cm": configMap("cm", "v: "+quoteIfNeeded(tt.tmpl))}))
			out, err := b.RenderGateway(&render.Input{Gateway: map[string]any{}, Namespace: "ns"})
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Objects[0].Object["data"].(map[string]any)["v"]; fmt.Sprint(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	b := mustCompile(t, gatewaySpec(map[string]string{"cm": configMap("cm", `v: {{ (fromToml "not toml = = =").x | quote }}`)}))
	if _, err := b.RenderGateway(&render.Input{Gateway: map[string]any{}, Namespace: "ns"}); err == nil || !strings.Contains(err.Error(), "fromToml") {
		t.Errorf("fromToml of bad TOML: %v, want an error", err)
	}
}

// quoteIfNeeded quotes a template's plain output for a YAML value.
func quoteIfNeeded(tmpl string) string {
	if strings.Contains(tmpl, "| quote") {
		return tmpl
	}
	return tmpl[:len(tmpl)-3] + " | quote }}"
}
