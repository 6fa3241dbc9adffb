package effects

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Helpers reading a vector's input (decoded with json.Decoder.UseNumber). An explicit null for
// an optional member is a value of the wrong type unless a chapter says otherwise
// ({#errors.vector-null}).

// object returns v as an object whose members are all in allowed.
func object(v any, what string, allowed ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		panic(malformed{invalid("%s: not an object", what)})
	}
	for k := range m {
		found := false
		for _, a := range allowed {
			if a == k {
				found = true
				break
			}
		}
		if !found {
			panic(malformed{invalid("%s: unknown member %q", what, k)})
		}
	}
	return m
}

func bad(format string, args ...any) { panic(malformed{invalid(format, args...)}) }

// isInt reports whether a JSON number is written as an integer (an integral float such as
// 2.0 is not: INTERPRETING.md section 7, loom-ref's reading).
func isInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		return 0, false
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return i, true
}

// isNum reports whether v is a finite JSON number.
func isNum(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func reqInt(m map[string]any, key, what string) int64 {
	v, ok := m[key]
	if !ok {
		bad("%s: missing %s", what, key)
	}
	i, ok := isInt(v)
	if !ok {
		bad("%s: %s is not an integer", what, key)
	}
	return i
}

func optInt(m map[string]any, key, what string, def int64) int64 {
	if _, ok := m[key]; !ok {
		return def
	}
	return reqInt(m, key, what)
}

func reqNum(m map[string]any, key, what string) float64 {
	v, ok := m[key]
	if !ok {
		bad("%s: missing %s", what, key)
	}
	f, ok := isNum(v)
	if !ok {
		bad("%s: %s is not a finite number", what, key)
	}
	return f
}

func optNum(m map[string]any, key, what string, def float64) float64 {
	if _, ok := m[key]; !ok {
		return def
	}
	return reqNum(m, key, what)
}

func reqStr(m map[string]any, key, what string, nonEmpty bool) string {
	v, ok := m[key]
	if !ok {
		bad("%s: missing %s", what, key)
	}
	s, ok := v.(string)
	if !ok || (nonEmpty && s == "") {
		bad("%s: %s is not a (non-empty) string", what, key)
	}
	return s
}

func optStr(m map[string]any, key, what string, def string, nonEmpty bool) string {
	if _, ok := m[key]; !ok {
		return def
	}
	return reqStr(m, key, what, nonEmpty)
}

func optBool(m map[string]any, key, what string, def bool) bool {
	v, ok := m[key]
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		bad("%s: %s is not a boolean", what, key)
	}
	return b
}

func list(v any, what string) []any {
	l, ok := v.([]any)
	if !ok {
		bad("%s: not a list", what)
	}
	return l
}
