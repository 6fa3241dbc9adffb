package stream

// An ordered JSON reader and a compact writer for provider payloads.
//
// The protocol hands vector inputs over as encoding/json values, but the provider bodies
// that the mappings read (stream.openai.payload, stream.anthropic.events) are text inside
// those inputs, and a few rules depend on the order of an object's members: arguments handed
// back as a parsed object are re-stringified "members in the order received"
// (stream.anthropic.blocks, stream.openai.tool-call-identity). encoding/json's maps lose that
// order, so payloads are read here into Object, which keeps it.

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Object is a JSON object whose members keep the order they were received in. A repeated
// name keeps its first position and its last value (as Python's json module reads it).
type Object struct {
	Keys   []string
	Values map[string]any
}

// Get returns a member and whether it is present.
func (o *Object) Get(name string) (any, bool) {
	v, ok := o.Values[name]
	return v, ok
}

// MarshalJSON writes the object compactly, in member order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	writeCompact(&b, o)
	return []byte(b.String()), nil
}

// Number is a JSON number literal as received.
type Number string

// MarshalJSON writes the literal as it was received.
func (n Number) MarshalJSON() ([]byte, error) { return []byte(n), nil }

var errSyntax = errors.New("invalid JSON")

// parseJSON reads one JSON text (RFC 8259; surrounding JSON whitespace allowed).
func parseJSON(s string) (any, error) {
	p := &jparser{s: s}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, errSyntax
	}
	return v, nil
}

type jparser struct {
	s string
	i int
}

const maxDepth = 10000

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (any, error) {
	if depth > maxDepth || p.i >= len(p.s) {
		return nil, errSyntax
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		o := &Object{Values: map[string]any{}}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, errSyntax
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, errSyntax
			}
			p.i++
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if _, dup := o.Values[k]; !dup {
				o.Keys = append(o.Keys, k)
			}
			o.Values[k] = v
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return o, nil
			}
			return nil, errSyntax
		}
	case c == '[':
		p.i++
		a := []any{}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return a, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return a, nil
			}
			return nil, errSyntax
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.lit("true", true)
	case c == 'f':
		return p.lit("false", false)
	case c == 'n':
		return p.lit("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.num()
	}
	return nil, errSyntax
}

func (p *jparser) lit(word string, v any) (any, error) {
	if strings.HasPrefix(p.s[p.i:], word) {
		p.i += len(word)
		return v, nil
	}
	return nil, errSyntax
}

func (p *jparser) num() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, errSyntax
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, errSyntax
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, errSyntax
		}
	}
	// A number beyond the range of a double is refused (stream.openai.number-range, after
	// I-JSON): no reader holds its value.
	if f, _ := strconv.ParseFloat(p.s[start:p.i], 64); math.IsInf(f, 0) {
		return nil, errSyntax
	}
	return Number(p.s[start:p.i]), nil
}

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

func (p *jparser) str() (string, error) {
	p.i++ // the opening quote
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", errSyntax
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", errSyntax
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", errSyntax
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", errSyntax
				}
				if utf16.IsSurrogate(r) {
					// A pair joins; a lone surrogate has no UTF-8 form and reads as U+FFFD.
					if r < 0xDC00 && strings.HasPrefix(p.s[p.i:], `\u`) {
						save := p.i
						p.i += 2
						if r2, ok := p.hex4(); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
							r = utf16.DecodeRune(r, r2)
						} else {
							p.i = save
							r = utf8.RuneError
						}
					} else {
						r = utf8.RuneError
					}
				}
				b.WriteRune(r)
			default:
				return "", errSyntax
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

// writeCompact writes v as compact JSON: no whitespace, members in order, non-ASCII text as
// it is, only '"', '\\' and control characters escaped.
func writeCompact(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case Number:
		b.WriteString(respell(x))
	case string:
		writeString(b, x)
	case []any:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompact(b, item)
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCompact(b, x.Values[k])
		}
		b.WriteByte('}')
	}
}

func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[r>>4])
				b.WriteByte("0123456789abcdef"[r&15])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// respell writes a number as ECMAScript's JSON.stringify writes the double it denotes
// (stream.openai.restringify-form, RFC 8785 §3.2.2.3): the shortest digits that read back as
// the same double, in fixed notation from 1e-6 to below 1e21, else with an exponent; -0 is 0
// and an integer beyond ±2^53 is the double nearest it. A literal beyond the double range
// never gets here (parseJSON refused it, stream.openai.number-range).
func respell(n Number) string {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return string(n)
	}
	return ecmaNumber(f)
}

// ecmaNumber is ECMAScript's Number::toString of a finite double.
func ecmaNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX, shortest round-trip digits
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	k, n := len(digits), exp+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	m := digits[:1]
	if k > 1 {
		m += "." + digits[1:]
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	x := n - 1
	if x < 0 {
		x = -x
	}
	return sign + m + "e" + es + strconv.Itoa(x)
}

// compactJSON is writeCompact into a string.
func compactJSON(v any) string {
	var b strings.Builder
	writeCompact(&b, v)
	return b.String()
}

// isIntLiteral reports whether a number literal is written as an integer (no fraction, no
// exponent), the reading of "an integer" for provider payloads (notes O5, O10).
func isIntLiteral(n Number) bool {
	return !strings.ContainsAny(string(n), ".eE")
}

// nonNegInt returns the value of a non-negative integer literal.
func nonNegInt(v any) (*big.Int, bool) {
	n, ok := v.(Number)
	if !ok || !isIntLiteral(n) {
		return nil, false
	}
	z, ok := new(big.Int).SetString(string(n), 10)
	if !ok || z.Sign() < 0 {
		return nil, false
	}
	return z, true
}

// truthy is JSON truthiness: false, null, 0, "", [] and {} are false.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case Number:
		f, _, err := big.ParseFloat(string(x), 10, 64, big.ToNearestEven)
		return err != nil || f.Sign() != 0
	case []any:
		return len(x) > 0
	case *Object:
		return len(x.Keys) > 0
	}
	return true
}
