package governance

import (
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Reading a vector's input ({#guards.vector-run}): an unlisted member, a missing required
// member or a member of the wrong type, at any depth, is argument.invalid.

// object reads v as a JSON object whose members are all among required and optional,
// with every required member present.
func object(v any, what string, required, optional []string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("%s must be an object", what)
	}
	for k := range m {
		if !contains(required, k) && !contains(optional, k) {
			return nil, invalid("%s: unknown member %q", what, k)
		}
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return nil, invalid("%s: missing member %q", what, k)
		}
	}
	return m, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sortedKeys lists an object's member names in code-point order, the order of a canonical
// case file (§4.5, member order). UTF-8 byte order is code-point order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// integer reads a JSON integer literal (§4.5, integers: `1.0` and `1e3` are refused).
// Integers beyond int64 are clamped; cases never hold one beyond ±2^53.
func integer(v any, what string) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, invalid("%s must be an integer", what)
	}
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		return 0, invalid("%s must be an integer literal", what)
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			if strings.HasPrefix(s, "-") {
				return math.MinInt64, nil
			}
			return math.MaxInt64, nil
		}
		return 0, invalid("%s must be an integer", what)
	}
	return i, nil
}

// boolean reads a JSON boolean.
func boolean(v any, what string) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, invalid("%s must be a boolean", what)
	}
	return b, nil
}

// clampInt converts a non-negative int64 to int.
func clampInt(i int64) int {
	if i > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(i)
}
