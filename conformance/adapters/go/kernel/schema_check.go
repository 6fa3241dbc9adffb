package kernel

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// check validates v, standing at path within the payload, and appends one problem per
// failing keyword (kernel.schema-keywords, kernel.schema-problems). When type fails, it is
// the only problem this schema reports at this value.
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
			add("expected %v, got %s", s.types, t)
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
		n := utf8.RuneCountInString(x) // code points
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
		if r, ok := new(big.Rat).SetString(string(x)); ok {
			if s.min != nil && r.Cmp(s.min) < 0 {
				add("below the minimum")
			}
			if s.max != nil && r.Cmp(s.max) > 0 {
				add("above the maximum")
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
				s.items.check(it, path+"/"+strconv.Itoa(i), out)
			}
		}
	case map[string]any:
		for _, name := range s.required {
			if _, ok := x[name]; !ok {
				add("required member %q missing", name)
			}
		}
		for _, name := range sortedKeys(x) {
			sub := path + "/" + pointerToken(name)
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
	if s.anyOf != nil {
		n := 0
		for _, alt := range s.anyOf {
			if alt.valid(v) {
				n++
			}
		}
		if n == 0 {
			add("valid against none of anyOf")
		}
	}
	if s.oneOf != nil {
		n := 0
		for _, alt := range s.oneOf {
			if alt.valid(v) {
				n++
			}
		}
		if n != 1 {
			add("valid against %d of oneOf, not exactly one", n)
		}
	}
	if s.ref != "" {
		s.root.defs[s.ref].check(v, path, out)
	}
}
