package kernel

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"loomref/adapters/go/journal"
)

// Schema is a compiled resume schema of the subset of spec/kernel.md §2.4.1
// (kernel.schema-subset, kernel.schema-keywords, kernel.schema-annotations,
// kernel.schema-refs): a boolean, or an object of the listed keywords. Anything else is
// refused with argument.schema when the schema is built.
type Schema struct {
	always   *bool
	types    []string
	enum     []any
	hasConst bool
	konst    any
	minLen   *int
	maxLen   *int
	pattern  *regexp.Regexp
	min, max *big.Rat
	minItems *int
	maxItems *int
	items    *Schema
	props    map[string]*Schema
	required []string
	addl     *Schema // nil: any member
	anyOf    []*Schema
	oneOf    []*Schema
	ref      string // a $defs name of the root, "" for none
	root     *compiler
}

// compiler holds the root's $defs while a schema is built, and resolves $ref by name.
type compiler struct {
	defs  map[string]*Schema
	nodes []*Schema
}

var schemaTypes = map[string]bool{"object": true, "array": true, "string": true,
	"number": true, "integer": true, "boolean": true, "null": true}

// annotations are accepted anywhere, their values unchecked (kernel.schema-annotations).
var annotations = map[string]bool{"title": true, "description": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"$comment": true, "$schema": true}

var refForm = regexp.MustCompile(`^#/\$defs/([A-Za-z0-9_.-]+)$`)

// The journal's reader and fold check an EXECUTION_SUSPENDED's resumeSchema against this very
// subset (journal.required-fields).
func init() {
	journal.IsSchema = func(v any) bool {
		_, err := CompileSchema(v)
		return err == nil
	}
}

func schemaErr(format string, a ...any) *Error {
	return NewError("argument.schema", fmt.Sprintf(format, a...))
}

// CompileSchema checks a resume schema and prepares it.
func CompileSchema(v any) (*Schema, error) {
	c := &compiler{defs: map[string]*Schema{}}
	if m, ok := v.(map[string]any); ok {
		if raw, has := m["$defs"]; has {
			defs, ok := raw.(map[string]any)
			if !ok {
				return nil, schemaErr("$defs at the root is not an object of schemas")
			}
			for _, name := range sortedKeys(defs) {
				s, err := c.compile(defs[name], "/$defs/"+name, false)
				if err != nil {
					return nil, err
				}
				c.defs[name] = s
			}
		}
	}
	s, err := c.compile(v, "", true)
	if err != nil {
		return nil, err
	}
	for _, n := range c.nodes {
		if n.ref != "" && c.defs[n.ref] == nil {
			return nil, schemaErr("$ref names no member of the root's $defs: %s", n.ref)
		}
	}
	if c.loops() {
		return nil, schemaErr("$ref leads from a schema back to itself without reading into the value")
	}
	return s, nil
}

func (c *compiler) count(m map[string]any, k, at string) (*int, error) {
	n, ok := m[k].(json.Number)
	if ok {
		if i, err := strconv.Atoi(string(n)); err == nil && i >= 0 {
			return &i, nil
		}
	}
	return nil, schemaErr("%s: %s is not a non-negative integer", at, k)
}

func (c *compiler) subs(v any, k, at string) ([]*Schema, error) {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil, schemaErr("%s: %s is not a non-empty array of schemas", at, k)
	}
	out := make([]*Schema, len(l))
	for i, x := range l {
		s, err := c.compile(x, at+"/"+k+"/"+strconv.Itoa(i), false)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// compile builds one schema; at is where it stands in the whole (for the message).
func (c *compiler) compile(v any, at string, isRoot bool) (*Schema, error) {
	s := &Schema{root: c}
	c.nodes = append(c.nodes, s)
	if b, ok := v.(bool); ok {
		s.always = &b
		return s, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, schemaErr("%s: a schema is an object or a boolean", at)
	}
	var err error
	for _, k := range sortedKeys(m) {
		x := m[k]
		switch {
		case annotations[k]:
		case k == "$id":
			if !isRoot {
				return nil, schemaErr("%s: $id is allowed at the root only", at)
			}
		case k == "$defs":
			if _, ok := x.(map[string]any); !ok || !isRoot {
				// below the root, $defs is still an object of schemas (never referred to)
				if dm, ok := x.(map[string]any); ok {
					for _, name := range sortedKeys(dm) {
						if _, err := c.compile(dm[name], at+"/$defs/"+name, false); err != nil {
							return nil, err
						}
					}
				} else {
					return nil, schemaErr("%s: $defs is not an object of schemas", at)
				}
			}
		case k == "$ref":
			r, _ := x.(string)
			mm := refForm.FindStringSubmatch(r)
			if mm == nil {
				return nil, schemaErr("%s: $ref is not #/$defs/<name>", at)
			}
			s.ref = mm[1]
		case k == "type":
			err = s.setTypes(x, at)
		case k == "enum":
			l, ok := x.([]any)
			if !ok {
				return nil, schemaErr("%s: enum is not an array", at)
			}
			s.enum = l
		case k == "const":
			s.hasConst, s.konst = true, x
		case k == "minLength":
			s.minLen, err = c.count(m, k, at)
		case k == "maxLength":
			s.maxLen, err = c.count(m, k, at)
		case k == "minItems":
			s.minItems, err = c.count(m, k, at)
		case k == "maxItems":
			s.maxItems, err = c.count(m, k, at)
		case k == "pattern":
			p, ok := x.(string)
			if !ok {
				return nil, schemaErr("%s: pattern is not a string", at)
			}
			if s.pattern, err = regexp.Compile(p); err != nil {
				return nil, schemaErr("%s: pattern does not compile", at)
			}
		case k == "minimum", k == "maximum":
			n, ok := x.(json.Number)
			r, okr := new(big.Rat).SetString(string(n))
			if !ok || !okr {
				return nil, schemaErr("%s: %s is not a number", at, k)
			}
			if k == "minimum" {
				s.min = r
			} else {
				s.max = r
			}
		case k == "items":
			s.items, err = c.compile(x, at+"/items", false)
		case k == "additionalProperties":
			s.addl, err = c.compile(x, at+"/additionalProperties", false)
		case k == "properties":
			pm, ok := x.(map[string]any)
			if !ok {
				return nil, schemaErr("%s: properties is not an object of schemas", at)
			}
			s.props = map[string]*Schema{}
			for _, name := range sortedKeys(pm) {
				if s.props[name], err = c.compile(pm[name], at+"/properties/"+name, false); err != nil {
					return nil, err
				}
			}
		case k == "required":
			err = s.setRequired(x, at)
		case k == "anyOf":
			s.anyOf, err = c.subs(x, k, at)
		case k == "oneOf":
			s.oneOf, err = c.subs(x, k, at)
		default:
			return nil, schemaErr("%s: keyword %s is not in the resume-schema subset", at, k)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Schema) setTypes(x any, at string) error {
	switch t := x.(type) {
	case string:
		if schemaTypes[t] {
			s.types = []string{t}
			return nil
		}
	case []any:
		seen := map[string]bool{}
		for _, e := range t {
			name, ok := e.(string)
			if !ok || !schemaTypes[name] || seen[name] {
				return schemaErr("%s: type is not a type or an array of distinct types", at)
			}
			seen[name] = true
			s.types = append(s.types, name)
		}
		if len(s.types) > 0 {
			return nil
		}
	}
	return schemaErr("%s: type is not a type or an array of distinct types", at)
}

func (s *Schema) setRequired(x any, at string) error {
	l, ok := x.([]any)
	if !ok {
		return schemaErr("%s: required is not an array of distinct strings", at)
	}
	seen := map[string]bool{}
	for _, e := range l {
		name, ok := e.(string)
		if !ok || seen[name] {
			return schemaErr("%s: required is not an array of distinct strings", at)
		}
		seen[name] = true
		s.required = append(s.required, name)
	}
	return nil
}

// loops says whether $ref, anyOf and oneOf lead from a schema back to itself without
// reading into a part of the value (kernel.schema-refs).
func (c *compiler) loops() bool {
	const (
		unseen = iota
		active
		done
	)
	state := map[*Schema]int{}
	var visit func(s *Schema) bool
	visit = func(s *Schema) bool {
		switch state[s] {
		case active:
			return true
		case done:
			return false
		}
		state[s] = active
		next := append(append([]*Schema{}, s.anyOf...), s.oneOf...)
		if s.ref != "" {
			next = append(next, c.defs[s.ref])
		}
		for _, n := range next {
			if visit(n) {
				return true
			}
		}
		state[s] = done
		return false
	}
	for _, n := range c.nodes {
		if visit(n) {
			return true
		}
	}
	return false
}

// pointerToken escapes one JSON Pointer token (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Problem is one failing keyword, at the RFC 6901 pointer of the value it checked.
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

// Validate lists every problem of v against the schema (kernel.schema-problems).
func (s *Schema) Validate(v any) []Problem {
	var out []Problem
	s.check(v, "", &out)
	return out
}

func (s *Schema) valid(v any) bool {
	var out []Problem
	s.check(v, "", &out)
	return len(out) == 0
}
