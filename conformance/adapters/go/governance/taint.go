package governance

import (
	"strconv"
	"strings"

	"loomref/adapters/go/protocol"
)

// Tainted is a TaintedValue: a value and its non-empty origin ({#taint.tainted-value}).
type Tainted struct {
	Value  any
	Origin string
}

// Taint builds a tainted value. An empty origin, or a value that is already tainted, is
// argument.invalid ({#taint.tainted-value}, {#taint.no-double-wrap}).
func Taint(value any, origin string) (*Tainted, error) {
	if origin == "" {
		return nil, invalid("a tainted value's origin must be a non-empty string")
	}
	if _, ok := value.(*Tainted); ok {
		return nil, invalid("a tainted value must not be wrapped again")
	}
	return &Tainted{Value: value, Origin: origin}, nil
}

// Unwrap is unwrap_tainted, the explicit audit point: a value that is not tainted is
// argument.not-tainted ({#taint.unwrap-explicit}).
func Unwrap(v any) (any, error) {
	t, ok := v.(*Tainted)
	if !ok {
		return nil, protocol.Fail(codeNotTainted, "message", "unwrap of a value that is not tainted")
	}
	return t.Value, nil
}

// decodeTainted reads a vector's JSON value, turning each {"$tainted": {"value", "origin"}}
// into a *Tainted ({#taint.vector-encoding}). The whole value is decoded before anything
// walks it, so a malformed encoding anywhere is argument.invalid.
func decodeTainted(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if inner, ok := x["$tainted"]; ok {
			if len(x) != 1 {
				return nil, invalid(`an object with "$tainted" must have no other member`)
			}
			rec, ok := inner.(map[string]any)
			if !ok || len(rec) != 2 {
				return nil, invalid(`"$tainted" must hold exactly "value" and "origin"`)
			}
			value, okV := rec["value"]
			originV, okO := rec["origin"]
			if !okV || !okO {
				return nil, invalid(`"$tainted" must hold exactly "value" and "origin"`)
			}
			origin, ok := originV.(string)
			if !ok {
				return nil, invalid("a tainted value's origin must be a string")
			}
			dv, err := decodeTainted(value)
			if err != nil {
				return nil, err
			}
			return Taint(dv, origin)
		}
		out := make(map[string]any, len(x))
		for k, mv := range x {
			dv, err := decodeTainted(mv)
			if err != nil {
				return nil, err
			}
			out[k] = dv
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			dv, err := decodeTainted(item)
			if err != nil {
				return nil, err
			}
			out[i] = dv
		}
		return out, nil
	default:
		return v, nil
	}
}

// encodeTainted is decodeTainted's inverse: the vector form of a value.
func encodeTainted(v any) any {
	switch x := v.(type) {
	case *Tainted:
		return map[string]any{"$tainted": map[string]any{"value": encodeTainted(x.Value), "origin": x.Origin}}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, mv := range x {
			out[k] = encodeTainted(mv)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = encodeTainted(item)
		}
		return out
	default:
		return v
	}
}

// pointerSegment escapes one JSON pointer segment (RFC 6901: "~" is "~0", "/" is "~1").
func pointerSegment(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// findTainted walks a decoded value in document order ({#taint.walk}: each member's key,
// then its value, members in code-point order of their names; list items in order) and
// returns the pointer and origin of the first tainted node. JSON values hold no cycles
// ({#taint.cycles} is not reachable from a vector).
func findTainted(v any, path string) (string, string, bool) {
	switch x := v.(type) {
	case *Tainted:
		return path, x.Origin, true
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if p, o, ok := findTainted(x[k], path+"/"+pointerSegment(k)); ok {
				return p, o, true
			}
		}
	case []any:
		for i, item := range x {
			if p, o, ok := findTainted(item, path+"/"+strconv.Itoa(i)); ok {
				return p, o, true
			}
		}
	}
	return "", "", false
}

// GuardRequest refuses a request holding a tainted value anywhere with
// governance.tainted-request, whose details carry the first tainted node's pointer and its
// origin, never the value ({#taint.guard-request}, {#taint.guard-details}).
func GuardRequest(request any) error {
	if path, origin, ok := findTainted(request, ""); ok {
		return protocol.Fail(codeTaintedRequest, "path", path, "origin", origin,
			"message", "the request holds a tainted value")
	}
	return nil
}
