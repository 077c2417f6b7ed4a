package precedence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// ParseValues decodes a JSON object of values. Numbers become int64 when they are whole and
// fit, float64 otherwise, so that templates print 1000000 rather than 1e+06 and sprig's
// arithmetic and text/template's eq work on them. Empty input is no values (nil).
func ParseValues(raw []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("values must be one JSON object, with nothing after it")
	}
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("values must be an object, not %s", jsonType(v))
	}
	return Normalize(m).(map[string]any), nil
}

// Normalize rewrites the numbers in a decoded value tree (json.Number, float64 or any Go
// integer, as Helm's value parsing produces) the way ParseValues does. Maps and lists are
// rewritten in place.
func Normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = Normalize(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = Normalize(e)
		}
		return v
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, err := v.Float64()
		if err != nil {
			return v.String()
		}
		return Normalize(f)
	case float64:
		if v == math.Trunc(v) && v >= math.MinInt64 && v < math.MaxInt64 && !math.IsInf(v, 0) {
			return int64(v)
		}
		return v
	case float32:
		return Normalize(float64(v))
	case int:
		return int64(v)
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case uint:
		return Normalize(uint64(v))
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint64:
		if v <= math.MaxInt64 {
			return int64(v)
		}
		return float64(v)
	default:
		return v
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64, int64:
		return "a number"
	default:
		return fmt.Sprintf("%T", v)
	}
}
