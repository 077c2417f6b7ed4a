package boundary

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
)

// TestMaxNonStringWord: interchangeable looks for substrings of nonStringWords only in
// strings no longer than the longest of them.
func TestMaxNonStringWord(t *testing.T) {
	longest := 0
	for _, w := range nonStringWords {
		longest = max(longest, len(w))
	}
	if longest != maxNonStringWord {
		t.Errorf("the longest word is %d bytes, maxNonStringWord %d", longest, maxNonStringWord)
	}
}

// TestInterchangeableStaysAString: the fast path's condition, against the parser itself. Every
// string of up to three bytes over an alphabet of the characters YAML 1.1 numbers, bools,
// nulls and timestamps are made of (and a few others), that interchangeable accepts, must read
// as a string with template text of those characters on either side, as a placeholder would.
func TestInterchangeableStaysAString(t *testing.T) {
	alphabet := "019aefnoxyYtTlsuNOFL.+-_:~ghkqz"
	contexts := []string{"%s", "1%s", "%s1", "0x%s", "0%s", "%se5", ".%s", "%s.5", "-%s", "+%s", "2001-12-%s", "%s:10", "1%s0",
		"tr%s", "%se", "fa%s", "n%s", "%sll", "o%s", "%sn", "y%s", "%ss", ".i%s", "%sf"}
	var words []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if prefix != "" {
			words = append(words, prefix)
		}
		if n == 0 {
			return
		}
		for i := range len(alphabet) {
			gen(prefix+alphabet[i:i+1], n-1)
		}
	}
	gen("", 3)
	accepted := 0
	for _, w := range words {
		if !interchangeable(w) {
			continue
		}
		accepted++
		for _, c := range contexts {
			text := fmt.Sprintf(c, w)
			var v map[string]any
			if err := yamlv2.Unmarshal([]byte("k: "+text), &v); err != nil {
				continue // not YAML at all here: the check's slow path would see that
			}
			if _, isString := v["k"].(string); !isString {
				t.Errorf("interchangeable(%q), but yaml/v2 reads %q as %T %v", w, text, v["k"], v["k"])
			}
		}
	}
	if accepted == 0 {
		t.Fatal("interchangeable accepted nothing: the test proves nothing")
	}
}

// TestInertBytesIsContainsAny: inertBytes answers as strings.ContainsAny(s, notInert) does,
// and interchangeable's lookups as searching nonStringWords and numberBytes did, for random
// strings of ASCII, the non-ASCII runes of notInert, other runes and invalid UTF-8.
func TestInertBytesIsContainsAny(t *testing.T) {
	pieces := []string{"a", "0", "x", ".", ":", " ", "{", "<", "#", "\n", "\t", "\\", "é", "\u0085", "\u2028",
		"\u2029", "\ufeff", "\u2027", "\xe2", "\x80", "\xa8", "\xc2", "\x85", "\xff", "n", "ul", "tru", "O", "~"}
	rng := rand.New(rand.NewSource(7))
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(6) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := inertBytes(s), !strings.ContainsAny(s, notInert); got != want {
			t.Fatalf("inertBytes(%q) = %v, ContainsAny says %v", s, got, want)
		}
		wantPart := false
		for _, w := range nonStringWords {
			wantPart = wantPart || strings.Contains(w, s)
		}
		if len(s) <= maxNonStringWord && nonStringParts[s] != wantPart {
			t.Fatalf("nonStringParts[%q] = %v, a search says %v", s, nonStringParts[s], wantPart)
		}
		for i := 0; i < len(s); i++ {
			if numberByte[s[i]] != (strings.IndexByte(numberBytes, s[i]) >= 0) {
				t.Fatalf("numberByte[%q] = %v", s[i], numberByte[s[i]])
			}
		}
	}
}
