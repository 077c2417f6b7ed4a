package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"gantry.dev/gantry/confquote"
	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	yamlv2 "go.yaml.in/yaml/v2"
	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// maxIncludeDepth caps include/tpl recursion, as Helm does, so a template that includes itself
// fails with an error instead of exhausting the stack.
const maxIncludeDepth = 64

// nondeterministic are sprig functions that HermeticTxtFuncMap still offers but whose output
// changes from one call to the next — they read the clock (ago, durationRound of a time) or a
// random source (the rest: keys, certificates, salts, IVs, shuffles); a rendered object that
// changes by itself would be re-applied on every reconcile.
var nondeterministic = []string{
	"randInt", "genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert",
	"genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
	"ago", "durationRound", "shuffle", "bcrypt", "htpasswd", "encryptAES",
}

// baseFuncs is sprig's hermetic set (no env, expandenv, getHostByName, clock or random) plus
// Gantry's own functions. include and tpl are bound per render (see execution.funcs).
func baseFuncs() template.FuncMap {
	f := sprig.HermeticTxtFuncMap()
	for _, name := range nondeterministic {
		delete(f, name)
	}
	f["toYaml"] = toYAML
	f["fromYaml"] = fromYAML
	f["fromYamlArray"] = fromYAMLArray
	f["toYamlPretty"] = toYAMLPretty
	f["toToml"] = toTOML
	f["fromToml"] = fromTOML
	f["toJson"] = toJSON
	f["fromJson"] = fromJSON
	f["fromJsonArray"] = fromJSONArray
	f["required"] = required
	f["shortname"] = Shortname
	// Quoting for the configuration languages a blueprint writes whole files in (package
	// confquote: which directives each is safe for, and which it is not).
	f["nginxQuote"] = confquote.Nginx
	f["haproxyQuote"] = confquote.HAProxy
	f["haproxyLogFormatQuote"] = confquote.HAProxyLogFormat
	// Placeholders so templates using them parse; execution binds the real ones.
	f["include"] = func(string, any) (string, error) { return "", errors.New("include outside a render") }
	f["tpl"] = func(string, any) (string, error) { return "", errors.New("tpl outside a render") }
	f[stepFunc] = func() string { return "" }
	f[outFunc] = func(_ string, v any) any { return v }
	f[presentFunc] = func(_ string, v any) any { return v }
	return f
}

// toYAML writes v as YAML the way sigs.k8s.io/yaml.Marshal does (Helm's toYaml): through JSON,
// read back as YAML and written out, so that numbers, key order and quoting are JSON's. For the
// values templates nearly always pass it (JSON-typed trees), it writes them with the same YAML
// encoder directly, which gives the same bytes without the JSON round trip, a third of a
// render's time in blueprints that write tags or labels with it; TestToYAMLIsWhatTheJSONRoundTripWrites
// holds the two to the same output. Anything else takes the round trip.
func toYAML(v any) (string, error) {
	b, err := MarshalYAML(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// MarshalYAML is sigs.k8s.io/yaml.Marshal, byte for byte, without its JSON round trip for the
// JSON-typed trees a render returns (toYaml's direct path above). `gantry render` prints every
// object with it: through the round trip, printing was a third of the command's CPU at 1,000
// Gateways.
func MarshalYAML(v any) ([]byte, error) {
	if b, ok := appendYAML(make([]byte, 0, 1024), v); ok {
		return b, nil // the common case, without yaml/v2's emitter (yamlemit.go)
	}
	if plainJSON(v, 0) {
		return yamlv2.Marshal(v)
	}
	return yaml.Marshal(v)
}

// maxPlainDepth bounds plainJSON's walk; deeper values (a map that holds itself) take the JSON
// round trip, which reports a cycle.
const maxPlainDepth = 100

// plainString reports whether the JSON round trip gives s back as it is: valid UTF-8 (JSON
// replaces invalid bytes) of printable characters, tabs and line feeds. The YAML reader folds a
// NEL that JSON leaves raw into a space, refuses other control characters, and the
// rest (byte order marks, LS, PS, non-characters) are left to the round trip too.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			return plainRunes(s[i:])
		} else if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

func plainRunes(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r < 0x20 && r != '\t' && r != '\n', r >= 0x7f && r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff, r >= 0xfffe && r <= 0xffff:
			return false
		}
	}
	return true
}

// plainJSON reports whether the YAML encoder writes v as the JSON round trip would: maps with
// string keys, lists, strings of valid UTF-8 (JSON replaces invalid bytes), booleans, nil,
// integers, and floats that JSON and YAML both write as floats (not whole numbers, which JSON
// writes as integers, nor NaN or infinities, which JSON refuses). A nil map or list is null in
// JSON and empty in YAML: not plain.
func plainJSON(v any, depth int) bool {
	if depth > maxPlainDepth {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return false
		}
		for k, e := range v {
			if !plainString(k) || !plainJSON(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		if v == nil {
			return false
		}
		for _, e := range v {
			if !plainJSON(e, depth+1) {
				return false
			}
		}
		return true
	case string:
		return plainString(v)
	case nil, bool, int, int64, int32:
		return true
	case float64:
		return !math.IsNaN(v) && !math.IsInf(v, 0) && v != math.Trunc(v)
	}
	return false
}

func fromYAML(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("fromYaml: %w", err)
	}
	return m, nil
}

// toYAMLPretty writes v as Helm's toYamlPretty does: yaml.v3 with an indent of two, lists
// indented under their key. An error fails the render (Helm prints nothing).
func toYAMLPretty(v any) (string, error) {
	var b bytes.Buffer
	e := yamlv3.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(v); err != nil {
		return "", fmt.Errorf("toYamlPretty: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// toTOML writes v as TOML, as Helm's toToml does (github.com/BurntSushi/toml). An error fails
// the render (Helm prints the error's text as the output).
func toTOML(v any) (string, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return "", fmt.Errorf("toToml: %w", err)
	}
	return b.String(), nil
}

// fromTOML reads a TOML document into the values templates work with: TOML's dates and times
// become RFC 3339 strings, numbers int64 or float64. An error fails the render (Helm puts it
// under the key "Error" of the result, which a template prints unnoticed).
func fromTOML(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := toml.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("fromToml: %w", err)
	}
	return tomlValues(m).(map[string]any), nil
}

func tomlValues(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = tomlValues(e)
		}
		return v
	case []map[string]any: // an array of tables
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = tomlValues(e)
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = tomlValues(e)
		}
		return v
	case time.Time: // local dates and times too, which the decoder gives a zone of its own
		return v.Format(time.RFC3339Nano)
	case int:
		return int64(v)
	}
	return v
}

func fromYAMLArray(s string) ([]any, error) {
	var a []any
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		return nil, fmt.Errorf("fromYamlArray: %w", err)
	}
	return a, nil
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	// encoding/json escapes LS and PS but not NEL, which YAML reads as a line break. Outside
	// strings JSON has no such character, so escaping every one is safe.
	return strings.ReplaceAll(string(b), "\u0085", `\u0085`), nil
}

func fromJSON(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("fromJson: %w", err)
	}
	return m, nil
}

func fromJSONArray(s string) ([]any, error) {
	var a []any
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, fmt.Errorf("fromJsonArray: %w", err)
	}
	return a, nil
}

func required(msg string, v any) (any, error) {
	if v == nil {
		return nil, errors.New(msg)
	}
	if s, ok := v.(string); ok && s == "" {
		return nil, errors.New(msg)
	}
	return v, nil
}

// Shortname joins parts with "-" and, when the result is longer than max, cuts it and ends it
// with a hash of the whole, so that distinct long names stay distinct and within a provider's
// or Kubernetes' limit (63 for most names and label values, 32 for an AWS load balancer).
// Used in templates as `shortname 63 .Gateway.metadata.name "lb"`.
func Shortname(max int, parts ...any) (string, error) {
	var full string
	if s, ok := onlyString(parts); ok {
		full = s // one string, as labels and most names are: nothing to print or join
	} else {
		strs := make([]string, 0, len(parts))
		for _, p := range parts {
			if s := fmt.Sprint(p); s != "" {
				strs = append(strs, s)
			}
		}
		full = strings.Join(strs, "-")
	}
	if len(full) <= max {
		return full, nil
	}
	const hashLen = 8
	if max < hashLen+2 {
		return "", fmt.Errorf("shortname: a limit of %d leaves no room for a name and its hash", max)
	}
	sum := sha256.Sum256([]byte(full))
	head := strings.TrimRight(full[:max-hashLen-1], "-.")
	return head + "-" + hex.EncodeToString(sum[:])[:hashLen], nil
}

func onlyString(parts []any) (string, bool) {
	if len(parts) != 1 {
		return "", false
	}
	s, ok := parts[0].(string)
	return s, ok
}
