package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
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
	f["toJson"] = toJSON
	f["fromJson"] = fromJSON
	f["fromJsonArray"] = fromJSONArray
	f["required"] = required
	f["shortname"] = Shortname
	// Placeholders so templates using them parse; execution binds the real ones.
	f["include"] = func(string, any) (string, error) { return "", errors.New("include outside a render") }
	f["tpl"] = func(string, any) (string, error) { return "", errors.New("tpl outside a render") }
	f[stepFunc] = func() string { return "" }
	f[outFunc] = func(v any) any { return v }
	return f
}

func toYAML(v any) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

func fromYAML(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("fromYaml: %w", err)
	}
	return m, nil
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
	strs := make([]string, 0, len(parts))
	for _, p := range parts {
		if s := fmt.Sprint(p); s != "" {
			strs = append(strs, s)
		}
	}
	full := strings.Join(strs, "-")
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
