package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
)

// JSON values are held as encoding/json decodes them with UseNumber: nil, bool, string,
// json.Number, []any and map[string]any. Every value a body receives is the journaled
// value, decoded (kernel.json-roundtrip).

// encodeJSON writes v as compact JSON, object members sorted, without HTML escaping.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// decodeJSON reads one JSON value, keeping numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("data after the value")
	}
	return v, nil
}

// roundTrip returns v as it reads back from the journal (kernel.json-roundtrip).
func roundTrip(v any) (any, error) {
	b, err := encodeJSON(v)
	if err != nil {
		return nil, NewError("journal.bad-payload", "not a JSON value: "+err.Error())
	}
	return decodeJSON(b)
}

// checkJSON refuses values that are not JSON values (journal.json-values): a number that
// is not finite.
func checkJSON(v any) error {
	switch x := v.(type) {
	case nil, bool, string:
		return nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("number %s is not finite", x)
		}
		return nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("number is not finite")
		}
		return nil
	case int, int64:
		return nil
	case []any:
		for _, it := range x {
			if err := checkJSON(it); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		for _, it := range x {
			if err := checkJSON(it); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%T is not a JSON value", v)
}

// truthy is JSON truthiness (INTERPRETING.md section 5, `if`): false, null, 0, "", [] and
// {} are false.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		return !ok || r.Sign() != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// jsonEqual is JSON equality (INTERPRETING.md section 7): numbers by value, objects by
// members in any order, arrays item by item, booleans are not numbers.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		if !okx || !oky {
			return string(x) == string(y)
		}
		return rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// numberRat reads a JSON number.
func numberRat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// addNumbers is `$add`: integers add exactly, anything else as IEEE-754 doubles.
func addNumbers(items []any) (json.Number, error) {
	allInt := true
	var isum int64
	var fsum float64
	for _, it := range items {
		n, ok := it.(json.Number)
		if !ok {
			return "", fmt.Errorf("$add of a non-number %v", it)
		}
		if i, err := n.Int64(); err == nil && allInt {
			isum += i
		} else {
			allInt = false
		}
		f, err := n.Float64()
		if err != nil {
			return "", err
		}
		fsum += f
	}
	if allInt {
		return json.Number(strconv.FormatInt(isum, 10)), nil
	}
	return json.Number(strconv.FormatFloat(fsum, 'g', -1, 64)), nil
}

// sortedKeys lists a map's keys in order.
func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
