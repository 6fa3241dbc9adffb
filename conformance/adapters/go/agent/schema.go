package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// A JSON Schema subset for resume payloads (kernel.resume-schema). The subset itself lives in
// loom_ref/schema.py, which no chapter spells out; this is my reading of the usual keywords
// (notes/agent.md K5): anything else is refused with argument.schema.

var schemaKeywords = map[string]bool{"type": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "enum": true, "const": true, "minLength": true,
	"maxLength": true, "pattern": true, "minimum": true, "maximum": true, "minItems": true,
	"maxItems": true, "description": true, "title": true}

// checkSchema refuses a schema outside the subset (argument.schema).
func checkSchema(s any) *kErr {
	m, ok := s.(map[string]any)
	if !ok {
		return kfail("argument.schema", "a schema is an object")
	}
	for k, v := range m {
		if !schemaKeywords[k] {
			return kfail("argument.schema", "unsupported schema keyword %q", k)
		}
		switch k {
		case "properties":
			pm, ok := v.(map[string]any)
			if !ok {
				return kfail("argument.schema", "properties is not an object")
			}
			for _, sub := range pm {
				if err := checkSchema(sub); err != nil {
					return err
				}
			}
		case "items":
			if err := checkSchema(v); err != nil {
				return err
			}
		case "additionalProperties":
			if _, ok := v.(bool); !ok {
				if err := checkSchema(v); err != nil {
					return err
				}
			}
		case "required", "enum":
			if _, ok := v.([]any); !ok {
				return kfail("argument.schema", "%s is not a list", k)
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			if n, ok := asInt(v); !ok || n < 0 {
				return kfail("argument.schema", "%s is not a count", k)
			}
		case "minimum", "maximum":
			if _, ok := v.(json.Number); !ok {
				return kfail("argument.schema", "%s is not a number", k)
			}
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return kfail("argument.schema", "pattern is not a string")
			}
			if _, err := regexp.Compile(p); err != nil {
				return kfail("argument.schema", "pattern does not compile")
			}
		case "type":
			switch t := v.(type) {
			case string:
			case []any:
				_ = t
			default:
				return kfail("argument.schema", "type is not a name")
			}
		}
	}
	return nil
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if isIntText(x) {
			return "integer"
		}
		return "number"
	case int, int64:
		return "integer"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func typeMatches(want string, v any) bool {
	got := jsonType(v)
	return want == got || (want == "number" && got == "integer")
}

// schemaProblem is one problem of a resume payload: where (a JSON Pointer) and what.
type schemaProblem struct{ path, message string }

// pointerTo is the JSON Pointer of member k of the value at path (RFC 6901 escapes).
func pointerTo(path, k string) string {
	return path + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// validateSchema lists the problems of a value, each at its JSON Pointer (spec/kernel.md
// kernel.schema-problems: a missing required member at the object, an extra member at itself).
func validateSchema(s any, v any, path string) []schemaProblem {
	m, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	var out []schemaProblem
	if t, ok := m["type"]; ok {
		match := false
		switch x := t.(type) {
		case string:
			match = typeMatches(x, v)
		case []any:
			for _, n := range x {
				match = match || typeMatches(str(n), v)
			}
		}
		if !match {
			return []schemaProblem{{path, fmt.Sprintf("not of type %v", t)}}
		}
	}
	if e, ok := m["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || jsonEqual(x, v)
		}
		if !found {
			out = append(out, schemaProblem{path, "not one of the enum"})
		}
	}
	if c, ok := m["const"]; ok && !jsonEqual(c, v) {
		out = append(out, schemaProblem{path, "not the const"})
	}
	switch x := v.(type) {
	case string:
		n := int64(runeLen(x))
		if lim, ok := asInt(m["minLength"]); ok && n < lim {
			out = append(out, schemaProblem{path, "too short"})
		}
		if lim, ok := asInt(m["maxLength"]); ok && n > lim {
			out = append(out, schemaProblem{path, "too long"})
		}
		if p, ok := m["pattern"].(string); ok {
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(x) {
				out = append(out, schemaProblem{path, "does not match the pattern"})
			}
		}
	case json.Number:
		f, _ := asFiniteNumber(x)
		if lim, ok := asFiniteNumber(m["minimum"]); ok && f < lim {
			out = append(out, schemaProblem{path, "below the minimum"})
		}
		if lim, ok := asFiniteNumber(m["maximum"]); ok && f > lim {
			out = append(out, schemaProblem{path, "above the maximum"})
		}
	case []any:
		if lim, ok := asInt(m["minItems"]); ok && int64(len(x)) < lim {
			out = append(out, schemaProblem{path, "too few items"})
		}
		if lim, ok := asInt(m["maxItems"]); ok && int64(len(x)) > lim {
			out = append(out, schemaProblem{path, "too many items"})
		}
		if it, ok := m["items"]; ok {
			for i, item := range x {
				out = append(out, validateSchema(it, item, fmt.Sprintf("%s/%d", path, i))...)
			}
		}
	case map[string]any:
		props, _ := m["properties"].(map[string]any)
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if _, ok := x[str(r)]; !ok {
					out = append(out, schemaProblem{path, str(r) + " is required"})
				}
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k]; ok {
				out = append(out, validateSchema(ps, x[k], pointerTo(path, k))...)
				continue
			}
			switch ap := m["additionalProperties"].(type) {
			case bool:
				if !ap {
					out = append(out, schemaProblem{pointerTo(path, k), "not allowed"})
				}
			case map[string]any:
				out = append(out, validateSchema(ap, x[k], pointerTo(path, k))...)
			}
		}
	}
	return out
}

// jsonEqual compares JSON values (numbers by value).
func jsonEqual(a, b any) bool {
	ca, err1 := Canonical(a)
	cb, err2 := Canonical(b)
	if err1 != nil || err2 != nil {
		return false
	}
	if ca == cb {
		return true
	}
	fa, ok1 := asFiniteNumber(a)
	fb, ok2 := asFiniteNumber(b)
	return ok1 && ok2 && fa == fb
}
