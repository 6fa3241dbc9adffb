package kernel

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// Schema is a resume schema of the kernel's JSON Schema subset (kernel.resume-schema).
// The subset is defined by loom-ref's source, not its text (notes A1); this one holds
// boolean schemas and the keywords below, and refuses any other with argument.schema.
type Schema struct {
	raw      any
	always   *bool
	types    []string
	props    map[string]*Schema
	required []string
	addl     *Schema // nil: anything
	items    *Schema
	enum     []any
	hasConst bool
	konst    any
	minLen   *int
	maxLen   *int
	minItems *int
	maxItems *int
	min, max *big.Rat
	exMin    *big.Rat
	exMax    *big.Rat
	pattern  *regexp.Regexp
}

var schemaTypes = map[string]bool{"object": true, "array": true, "string": true,
	"number": true, "integer": true, "boolean": true, "null": true}

func schemaErr(format string, a ...any) *Error {
	return NewError("argument.schema", fmt.Sprintf(format, a...))
}

// CompileSchema checks a schema and prepares it; a schema outside the subset, or a keyword
// whose value is not of its kind, is argument.schema (fail closed).
func CompileSchema(v any) (*Schema, error) {
	s := &Schema{raw: v}
	if b, ok := v.(bool); ok {
		s.always = &b
		return s, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, schemaErr("a schema is an object or a boolean")
	}
	count := func(k string) (*int, error) {
		n, ok := m[k].(json.Number)
		if !ok {
			return nil, schemaErr("%s is not a count", k)
		}
		i, err := strconv.Atoi(string(n))
		if err != nil || i < 0 {
			return nil, schemaErr("%s is not a count", k)
		}
		return &i, nil
	}
	number := func(k string) (*big.Rat, error) {
		r, ok := numberRat(m[k])
		if !ok {
			return nil, schemaErr("%s is not a number", k)
		}
		return r, nil
	}
	var err error
	for _, k := range sortedKeys(m) {
		val := m[k]
		switch k {
		case "title", "description":
			if _, ok := val.(string); !ok {
				return nil, schemaErr("%s is not a string", k)
			}
		case "$schema", "default", "examples":
			// annotations the reference accepts (notes C-probes); they check nothing
		case "type":
			switch t := val.(type) {
			case string:
				if !schemaTypes[t] {
					return nil, schemaErr("unknown type %q", t)
				}
				s.types = []string{t}
			case []any:
				if len(t) == 0 {
					return nil, schemaErr("type is an empty list")
				}
				for _, it := range t {
					name, ok := it.(string)
					if !ok || !schemaTypes[name] {
						return nil, schemaErr("unknown type %v", it)
					}
					s.types = append(s.types, name)
				}
			default:
				return nil, schemaErr("type is not a name or a list of names")
			}
		case "properties":
			pm, ok := val.(map[string]any)
			if !ok {
				return nil, schemaErr("properties is not an object")
			}
			s.props = map[string]*Schema{}
			for name, sub := range pm {
				c, err := CompileSchema(sub)
				if err != nil {
					return nil, err
				}
				s.props[name] = c
			}
		case "required":
			list, ok := val.([]any)
			if !ok {
				return nil, schemaErr("required is not a list")
			}
			for _, it := range list {
				name, ok := it.(string)
				if !ok {
					return nil, schemaErr("required holds a non-string")
				}
				s.required = append(s.required, name)
			}
		case "additionalProperties":
			if s.addl, err = CompileSchema(val); err != nil {
				return nil, err
			}
		case "items":
			if s.items, err = CompileSchema(val); err != nil {
				return nil, err
			}
		case "enum":
			list, ok := val.([]any)
			if !ok {
				return nil, schemaErr("enum is not a list")
			}
			s.enum = list
			if s.enum == nil {
				s.enum = []any{}
			}
		case "const":
			s.hasConst, s.konst = true, val
		case "minLength":
			if s.minLen, err = count(k); err != nil {
				return nil, err
			}
		case "maxLength":
			if s.maxLen, err = count(k); err != nil {
				return nil, err
			}
		case "minItems":
			if s.minItems, err = count(k); err != nil {
				return nil, err
			}
		case "maxItems":
			if s.maxItems, err = count(k); err != nil {
				return nil, err
			}
		case "minimum":
			if s.min, err = number(k); err != nil {
				return nil, err
			}
		case "maximum":
			if s.max, err = number(k); err != nil {
				return nil, err
			}
		case "exclusiveMinimum":
			if s.exMin, err = number(k); err != nil {
				return nil, err
			}
		case "exclusiveMaximum":
			if s.exMax, err = number(k); err != nil {
				return nil, err
			}
		case "pattern":
			p, ok := val.(string)
			if !ok {
				return nil, schemaErr("pattern is not a string")
			}
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, schemaErr("pattern does not compile: %v", err)
			}
			s.pattern = re
		default:
			return nil, schemaErr("keyword %q is not in the subset", k)
		}
	}
	return s, nil
}

// Problem is one thing a schema refuses, by JSON path.
type Problem struct {
	Path    string
	Message string
}

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// Validate lists every problem of v against the schema.
func (s *Schema) Validate(v any) []Problem {
	var out []Problem
	s.check(v, "$", &out)
	return out
}

func (s *Schema) check(v any, path string, out *[]Problem) {
	add := func(format string, a ...any) {
		*out = append(*out, Problem{Path: path, Message: fmt.Sprintf(format, a...)})
	}
	if s.always != nil {
		if !*s.always {
			add("no value is allowed here")
		}
		return
	}
	t := typeOf(v)
	if len(s.types) > 0 {
		ok := false
		for _, want := range s.types {
			if want == t || want == "number" && t == "integer" {
				ok = true
			}
		}
		if !ok {
			add("expected %v, got %s", joinTypes(s.types), t)
			return
		}
	}
	if s.enum != nil {
		found := false
		for _, e := range s.enum {
			if jsonEqual(e, v) {
				found = true
			}
		}
		if !found {
			add("not one of the allowed values")
		}
	}
	if s.hasConst && !jsonEqual(s.konst, v) {
		add("not the constant value")
	}
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if s.minLen != nil && n < *s.minLen {
			add("shorter than %d characters", *s.minLen)
		}
		if s.maxLen != nil && n > *s.maxLen {
			add("longer than %d characters", *s.maxLen)
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			add("does not match the pattern %q", s.pattern.String())
		}
	case json.Number:
		r, _ := new(big.Rat).SetString(string(x))
		if r != nil {
			if s.min != nil && r.Cmp(s.min) < 0 {
				add("below the minimum")
			}
			if s.max != nil && r.Cmp(s.max) > 0 {
				add("above the maximum")
			}
			if s.exMin != nil && r.Cmp(s.exMin) <= 0 {
				add("not above the exclusive minimum")
			}
			if s.exMax != nil && r.Cmp(s.exMax) >= 0 {
				add("not below the exclusive maximum")
			}
		}
	case []any:
		if s.minItems != nil && len(x) < *s.minItems {
			add("fewer than %d items", *s.minItems)
		}
		if s.maxItems != nil && len(x) > *s.maxItems {
			add("more than %d items", *s.maxItems)
		}
		if s.items != nil {
			for i, it := range x {
				s.items.check(it, fmt.Sprintf("%s[%d]", path, i), out)
			}
		}
	case map[string]any:
		for _, name := range s.required {
			if _, ok := x[name]; !ok {
				*out = append(*out, Problem{Path: path + "." + name, Message: "required member missing"})
			}
		}
		for _, name := range sortedKeys(x) {
			sub := path + "." + name
			if ps, ok := s.props[name]; ok {
				ps.check(x[name], sub, out)
			} else if s.addl != nil {
				if s.addl.always != nil && !*s.addl.always {
					*out = append(*out, Problem{Path: sub, Message: "member not allowed"})
				} else {
					s.addl.check(x[name], sub, out)
				}
			}
		}
	}
}

func joinTypes(ts []string) string {
	if len(ts) == 1 {
		return ts[0]
	}
	return fmt.Sprint(ts)
}
