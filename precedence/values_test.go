package precedence

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestParseValues(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want map[string]any
	}{
		{"whole numbers are int64", `{"replicas": 3, "big": 1000000, "neg": -7}`,
			vals{"replicas": int64(3), "big": int64(1000000), "neg": int64(-7)}},
		{"whole numbers written as floats are int64", `{"a": 2.0, "b": 1e3, "c": -0.0}`,
			vals{"a": int64(2), "b": int64(1000), "c": int64(0)}},
		{"fractions are float64", `{"ratio": 0.25, "neg": -1.5, "small": 1e-3}`,
			vals{"ratio": 0.25, "neg": -1.5, "small": 0.001}},
		// 2^53+1 is not a float64; parsed through float64 it would come back as ...992.
		{"big ints keep their precision", `{"a": 9007199254740993, "max": 9223372036854775807, "min": -9223372036854775808}`,
			vals{"a": int64(9007199254740993), "max": int64(math.MaxInt64), "min": int64(math.MinInt64)}},
		{"whole numbers beyond int64 are float64", `{"a": 9223372036854775808}`,
			vals{"a": float64(1 << 63)}},
		{"nested maps and lists", `{"svc": {"ports": [80, 1.5, {"n": 2}], "on": true, "name": "x", "none": null}}`,
			vals{"svc": vals{"ports": []any{int64(80), 1.5, vals{"n": int64(2)}}, "on": true, "name": "x", "none": nil}}},
		{"empty object", `{}`, vals{}},
		{"surrounding whitespace", " \n\t{\"a\": 1}\n ", vals{"a": int64(1)}},
		{"empty input is no values", ``, nil},
		{"blank input is no values", " \n\t ", nil},
		{"null is no values", `null`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseValues([]byte(tt.raw))
			if err != nil {
				t.Fatalf("ParseValues(%q): %v", tt.raw, err)
			}
			wantEqual(t, "values", got, tt.want)
		})
	}
}

func TestParseValuesErrors(t *testing.T) {
	tests := []struct {
		name, raw, mention string
	}{
		{"a list", `[1, 2]`, "a list"},
		{"a string", `"replicas: 3"`, "a string"},
		{"a number", `3`, "a number"},
		{"a boolean", `true`, "a boolean"},
		{"invalid JSON", `{"a": }`, "invalid character"},
		{"truncated JSON", `{"a": 1`, "EOF"},
		{"a second object after the first", `{"a": 1} {"b": 2}`, "nothing after"},
		{"garbage after the object", `{"a": 1} x`, "nothing after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseValues([]byte(tt.raw))
			if err == nil {
				t.Fatalf("ParseValues(%q) = %v, want an error", tt.raw, got)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %q does not mention %q", err, tt.mention)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"float64 whole", float64(3), int64(3)},
		{"float64 fraction", 2.5, 2.5},
		{"float64 negative zero", math.Copysign(0, -1), int64(0)},
		{"float64 beyond int64", 1e19, 1e19},
		{"float64 at -2^63", float64(math.MinInt64), int64(math.MinInt64)},
		{"float64 +Inf", math.Inf(1), math.Inf(1)},
		{"float64 -Inf", math.Inf(-1), math.Inf(-1)},
		{"float32 whole", float32(4), int64(4)},
		{"float32 fraction", float32(0.5), 0.5},
		{"int", 5, int64(5)},
		{"int8", int8(-5), int64(-5)},
		{"int16", int16(300), int64(300)},
		{"int32", int32(-70000), int64(-70000)},
		{"int64", int64(1) << 62, int64(1) << 62},
		{"uint", uint(7), int64(7)},
		{"uint8", uint8(255), int64(255)},
		{"uint16", uint16(65535), int64(65535)},
		{"uint32", uint32(math.MaxUint32), int64(math.MaxUint32)},
		{"uint64 that fits", uint64(math.MaxInt64), int64(math.MaxInt64)},
		{"uint64 that does not fit", uint64(math.MaxUint64), float64(math.MaxUint64)},
		{"json.Number int", json.Number("42"), int64(42)},
		{"json.Number whole float", json.Number("4.0"), int64(4)},
		{"json.Number fraction", json.Number("4.5"), 4.5},
		{"string", "3", "3"},
		{"bool", true, true},
		{"nil", nil, nil},
		{"nested", vals{"a": []any{float64(1), vals{"b": 2}}, "c": json.Number("3")},
			vals{"a": []any{int64(1), vals{"b": int64(2)}}, "c": int64(3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantEqual(t, "Normalize", Normalize(tt.in), tt.want)
		})
	}
	t.Run("NaN stays NaN", func(t *testing.T) {
		if got, ok := Normalize(math.NaN()).(float64); !ok || !math.IsNaN(got) {
			t.Errorf("Normalize(NaN) = %#v", got)
		}
	})
	t.Run("in place", func(t *testing.T) {
		list := []any{float64(1)}
		m := vals{"l": list}
		Normalize(m)
		if list[0] != int64(1) {
			t.Errorf("list item = %#v, want it rewritten in place to int64(1)", list[0])
		}
	})
}
