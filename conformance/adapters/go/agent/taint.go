package agent

import (
	"sort"

	"loomref/adapters/go/protocol"
)

// Tainted is a TaintedValue: a value and its non-empty origin (taint.tainted-value).
type Tainted struct {
	Value  any
	Origin string
}

// decodeTainted reads the vector encoding of taint (taint.vector-encoding): an object with a
// "$tainted" key has no other key, and its value has exactly the keys value and origin; the
// origin is a non-empty string (taint.tainted-value) and the value is not itself tainted
// (taint.no-double-wrap). Anything else is argument.invalid.
func decodeTainted(v any) (any, *protocol.Error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			d, err := decodeTainted(item)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case map[string]any:
		if enc, ok := x["$tainted"]; ok {
			if len(x) != 1 {
				return nil, invalid("a $tainted object has another key")
			}
			body, ok := enc.(map[string]any)
			if !ok || len(body) != 2 {
				return nil, invalid("$tainted needs exactly value and origin")
			}
			origin, ok := body["origin"].(string)
			value, hasValue := body["value"]
			if !ok || !hasValue || origin == "" {
				return nil, invalid("$tainted needs a value and a non-empty string origin")
			}
			inner, err := decodeTainted(value)
			if err != nil {
				return nil, err
			}
			if _, double := inner.(*Tainted); double {
				return nil, invalid("a tainted value is not wrapped again")
			}
			return &Tainted{Value: inner, Origin: origin}, nil
		}
		out := make(map[string]any, len(x))
		for k, item := range x {
			d, err := decodeTainted(item)
			if err != nil {
				return nil, err
			}
			out[k] = d
		}
		return out, nil
	}
	return v, nil
}

// taintOrigins returns the sorted, distinct origins of the tainted values inside v, however
// deeply nested (taint.walk over JSON containers).
func taintOrigins(v any) []string {
	set := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case *Tainted:
			set[x.Origin] = true
			walk(x.Value)
		case []any:
			for _, item := range x {
				walk(item)
			}
		case map[string]any:
			for _, item := range x {
				walk(item)
			}
		}
	}
	walk(v)
	out := make([]string, 0, len(set))
	for o := range set {
		out = append(out, o)
	}
	sort.Strings(out)
	return out
}

// guardRequest refuses a request holding a tainted value anywhere (taint.guard-request).
func guardRequest(v any) *protocol.Error {
	if len(taintOrigins(v)) > 0 {
		return protocol.Fail("governance.tainted-request", "message", "the request holds a tainted value")
	}
	return nil
}

// encodeTainted writes a value back in the vector encoding (a plain JSON value).
func encodeTainted(v any) any {
	switch x := v.(type) {
	case *Tainted:
		return map[string]any{"$tainted": map[string]any{"value": encodeTainted(x.Value), "origin": x.Origin}}
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = encodeTainted(item)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = encodeTainted(item)
		}
		return out
	}
	return v
}
