package journal

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// errJSON is any way a line fails to be the strict JSON the journal holds
// (journal.json-values, spec/journal.md §1.2): not JSON, NaN or Infinity, a number too large to
// be finite, a string with a lone surrogate escape, or (this implementation's reading of
// I-JSON) a duplicate member name.
var errJSON = errors.New("not a JSON value of the journal")

// readJSON decodes one JSON text strictly. Objects are map[string]any, arrays []any, numbers
// json.Number (their literal, so a number is written back as it was read).
func readJSON(s string) (any, error) {
	r := &jsonReader{s: s}
	r.space()
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	r.space()
	if r.i != len(r.s) {
		return nil, errJSON
	}
	return v, nil
}

type jsonReader struct {
	s string
	i int
}

// maxNesting is the nesting limit (journal.nesting-limit): a line nests at most 128 arrays
// and objects, its own object being the first.
const maxNesting = 128

const maxDepth = 10000 // a guard only: tooDeep has refused a deeper line first

// tooDeep counts the levels of arrays and objects in a line's bytes, strings left out, before
// the line is decoded (journal.nesting-limit), and says whether they pass the limit.
func tooDeep(s string) bool {
	depth, inString := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxNesting {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

func (r *jsonReader) space() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *jsonReader) value(depth int) (any, error) {
	if depth > maxDepth || r.i >= len(r.s) {
		return nil, errJSON
	}
	switch c := r.s[r.i]; {
	case c == '{':
		return r.object(depth)
	case c == '[':
		return r.array(depth)
	case c == '"':
		return r.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number()
	case r.literal("true"):
		return true, nil
	case r.literal("false"):
		return false, nil
	case r.literal("null"):
		return nil, nil
	default:
		return nil, errJSON
	}
}

// literal consumes lit if the text continues with it.
func (r *jsonReader) literal(lit string) bool {
	if len(r.s)-r.i >= len(lit) && r.s[r.i:r.i+len(lit)] == lit {
		r.i += len(lit)
		return true
	}
	return false
}

func (r *jsonReader) object(depth int) (any, error) {
	r.i++ // '{'
	obj := map[string]any{}
	r.space()
	if r.i < len(r.s) && r.s[r.i] == '}' {
		r.i++
		return obj, nil
	}
	for {
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != '"' {
			return nil, errJSON
		}
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != ':' {
			return nil, errJSON
		}
		r.i++
		r.space()
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if _, dup := obj[k]; dup {
			// journal.duplicate-names: no object of a line has two members with one name
			// (compared after escapes).
			return nil, errJSON
		}
		obj[k] = v
		r.space()
		if r.i >= len(r.s) {
			return nil, errJSON
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			return obj, nil
		default:
			return nil, errJSON
		}
	}
}

func (r *jsonReader) array(depth int) (any, error) {
	r.i++ // '['
	arr := []any{}
	r.space()
	if r.i < len(r.s) && r.s[r.i] == ']' {
		r.i++
		return arr, nil
	}
	for {
		r.space()
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		r.space()
		if r.i >= len(r.s) {
			return nil, errJSON
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case ']':
			r.i++
			return arr, nil
		default:
			return nil, errJSON
		}
	}
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(s[:4], 16, 32)
	return rune(n), err == nil
}

// str reads a string; a lone surrogate escape is refused (journal.json-values: I-JSON, RFC
// 7493 §2.1), a surrogate pair written as two escapes is one character.
func (r *jsonReader) str() (string, error) {
	r.i++ // '"'
	var out []byte
	for {
		if r.i >= len(r.s) {
			return "", errJSON
		}
		c := r.s[r.i]
		switch {
		case c == '"':
			r.i++
			return string(out), nil
		case c < 0x20:
			return "", errJSON
		case c == '\\':
			if r.i+1 >= len(r.s) {
				return "", errJSON
			}
			e := r.s[r.i+1]
			r.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				u, ok := hex4(r.s[r.i:])
				if !ok {
					return "", errJSON
				}
				r.i += 4
				if utf16.IsSurrogate(u) {
					if u >= 0xDC00 || len(r.s)-r.i < 6 || r.s[r.i] != '\\' || r.s[r.i+1] != 'u' {
						return "", errJSON
					}
					lo, ok := hex4(r.s[r.i+2:])
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return "", errJSON
					}
					r.i += 6
					u = utf16.DecodeRune(u, lo)
				}
				out = utf8.AppendRune(out, u)
			default:
				return "", errJSON
			}
		default:
			_, size := utf8.DecodeRuneInString(r.s[r.i:])
			out = append(out, r.s[r.i:r.i+size]...)
			r.i += size
		}
	}
}

// number reads a JSON number. A literal whose double is infinite, integer or not, is "a
// number too large to be finite" (journal.json-values).
func (r *jsonReader) number() (any, error) {
	start := r.i
	digits := func() int {
		n := 0
		for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
			r.i++
			n++
		}
		return n
	}
	if r.s[r.i] == '-' {
		r.i++
	}
	if r.i < len(r.s) && r.s[r.i] == '0' {
		r.i++
	} else if digits() == 0 {
		return nil, errJSON
	}
	if r.i < len(r.s) && r.s[r.i] == '.' {
		r.i++
		if digits() == 0 {
			return nil, errJSON
		}
	}
	if r.i < len(r.s) && (r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
		if r.i < len(r.s) && (r.s[r.i] == '+' || r.s[r.i] == '-') {
			r.i++
		}
		if digits() == 0 {
			return nil, errJSON
		}
	}
	lit := r.s[start:r.i]
	// journal.json-values: a number too large to be finite as a double is refused, an
	// integer literal of that size too (a 400-digit integer as 1e400 is).
	f, _ := strconv.ParseFloat(lit, 64)
	if math.IsInf(f, 0) {
		return nil, errJSON
	}
	return json.Number(lit), nil
}
