package render

import (
	"slices"
	"testing"

	"gantry.dev/gantry/boundary"
)

// notNumbered are the functions a template can call whose answer is not a decision of the
// structure check, each with why none is needed. A function whose result's size, or choice
// among its arguments, depends on whether two values are equal, or on a value's truth, must
// be numbered instead (boundary/compare.go): B's stand-ins are equal to nothing of the
// template's, a tenant bool is its opposite in B and a tenant number never zero.
var notNumbered = map[string]string{}

func classify(why string, names ...string) {
	for _, n := range names {
		notNumbered[n] = why
	}
}

func init() {
	classify("text from text: the tenant's text passes through, changed or not, and the comparison sees what it became",
		"abbrev", "abbrevboth", "b32dec", "b32enc", "b64dec", "b64enc", "base", "camelcase", "cat", "clean", "dir", "ext",
		"indent", "initials", "kebabcase", "lower", "nindent", "nospace", "osBase", "osClean", "osDir", "osExt", "quote",
		"regexQuoteMeta", "replace", "shortname", "snakecase", "squote", "substr", "swapcase", "title", "trim",
		"trimAll", "trimPrefix", "trimSuffix", "trimall", "trunc", "untitle", "upper", "wrap", "wrapWith", "urlJoin",
		"printf", "print", "println", "html", "js", "urlquery", "toString", "adler32sum", "sha1sum", "sha256sum",
		"sha512sum", "nginxQuote", "haproxyQuote", "haproxyLogFormatQuote", "regexReplaceAll", "regexReplaceAllLiteral",
		"mustRegexReplaceAll", "mustRegexReplaceAllLiteral", "regexFind", "mustRegexFind", "derivePassword",
		"decryptAES", "buildCustomCert", "hello", "seq", "join", "toStrings", "toJson", "toPrettyJson", "toRawJson",
		"mustToJson", "mustToPrettyJson", "mustToRawJson", "toYaml", "toYamlPretty", "toToml", "urlParse", "semver",
		"toDecimal", "duration", "toDate", "mustToDate", "unixEpoch", "mustDateModify", "must_date_modify",
		"kindOf", "typeOf")
	classify("a choice between two of the template's words by a number, printed as text: B's other word is "+
		"the template's, and the comparison sees a template scalar changed",
		"plural")
	classify("numbers from numbers: B's are its stand-ins' (where a number is a count, until, slice and chunk take A's)",
		"add", "add1", "add1f", "addf", "biggest", "ceil", "div", "divf", "float64", "floor", "int", "int64", "atoi",
		"len", "max", "maxf", "min", "minf", "mod", "mul", "mulf", "round", "sub", "subf")
	classify("lists and maps built from their arguments by place: as many items in B as in A",
		"list", "tuple", "append", "push", "mustAppend", "mustPush", "prepend", "mustPrepend", "concat", "first",
		"mustFirst", "last", "mustLast", "initial", "mustInitial", "rest", "mustRest", "reverse", "mustReverse",
		"values", "deepCopy", "mustDeepCopy")
	classify("stop at an operand by its truth: the builtins stay (they evaluate lazily, which a function cannot), "+
		"and every operand that can stop them is a decision (gantryTruth N)",
		"and", "or")
	classify("fails the render, or calls what it is given (no function is among a template's values)",
		"fail", "required", "call")
	classify("the engine's own instruments: a step of the budget, an output's place, a value that must be present",
		"gantryStep", "gantryOut", "gantryPresent")
}

// TestEveryFunctionIsClassified: every function a blueprint can call, sprig's, Gantry's and
// text/template's builtins, is numbered by the check or classified above. A function added to
// the set (a sprig upgrade, a new helper) fails here until someone decides which.
func TestEveryFunctionIsClassified(t *testing.T) {
	numbered := boundary.NumberedFuncs()
	all := []string{"and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println",
		"urlquery", "eq", "ge", "gt", "le", "lt", "ne"}
	for n := range baseFuncs() {
		all = append(all, n)
	}
	for _, n := range all {
		_, listed := notNumbered[n]
		isNumbered := slices.Contains(numbered, n)
		switch {
		case listed && isNumbered:
			t.Errorf("%s is numbered and listed as not numbered", n)
		case !listed && !isNumbered:
			t.Errorf("%s is neither numbered by the check nor classified: decide whether its answer depends on equality or truth", n)
		}
	}
	for n := range notNumbered {
		if !slices.Contains(all, n) {
			t.Errorf("%s is classified but no template can call it", n)
		}
	}
}
