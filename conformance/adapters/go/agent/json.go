package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"loomref/adapters/go/protocol"
)

// Values are the protocol's decoded JSON (json.Decoder.UseNumber): nil, bool, json.Number,
// string, []any, map[string]any; after the $tainted decoding (taint.go) also *Tainted.

func invalid(why string) *protocol.Error {
	return protocol.Fail("argument.invalid", "message", why)
}

// isIntText reports whether a JSON number's text is an int: written without fraction or
// exponent (agent.vector-input: "`true` and `2.0` are not ints"; agent.canonical-json).
func isIntText(n json.Number) bool {
	return !strings.ContainsAny(string(n), ".eE")
}

// asInt reads an int member (a json.Number without fraction or exponent). Integers beyond
// int64 are clamped: no rule here can tell them apart, and the suite holds none (lint, 2^53).
func asInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || !isIntText(n) {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		b, ok := new(big.Int).SetString(string(n), 10)
		if !ok {
			return 0, false
		}
		if b.Sign() < 0 {
			return math.MinInt64 / 4, true
		}
		return math.MaxInt64 / 4, true
	}
	return i, true
}

// asFiniteNumber reads any JSON number as a finite float64.
func asFiniteNumber(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// readObject checks a vector input object strictly (agent.vector-input, errors.vector-null):
// not an object, an unknown member or a missing required member is argument.invalid.
func readObject(v any, required, optional []string) (map[string]any, *protocol.Error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("input is not an object")
	}
	known := map[string]bool{}
	for _, k := range required {
		known[k] = true
		if _, ok := m[k]; !ok {
			return nil, invalid("missing member " + k)
		}
	}
	for _, k := range optional {
		known[k] = true
	}
	for k := range m {
		if !known[k] {
			return nil, invalid("unknown member " + k)
		}
	}
	return m, nil
}

// Canonical returns the canonical JSON text of a value (agent.canonical-json): Python's
// json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True,
// allow_nan=False). A tainted value is written in its vector encoding
// {"$tainted": {"origin", "value"}} (agent.claim-check-ref, taint.vector-encoding).
func Canonical(v any) (string, error) {
	var b strings.Builder
	if err := writeCanonical(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeCanonical(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		s, err := canonicalNumber(x)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case string:
		writeCanonicalString(b, x)
	case []any:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, item); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		// Go compares strings by their UTF-8 bytes, which orders them by code point
		// (U+1F600 after U+E000), as agent.canonical-json requires.
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonicalString(b, k)
			b.WriteByte(':')
			if err := writeCanonical(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case *Tainted:
		return writeCanonical(b, map[string]any{"$tainted": map[string]any{"value": x.Value, "origin": x.Origin}})
	default:
		return invalid("not a JSON value")
	}
	return nil
}

// writeCanonicalString escapes `"`, `\` and U+0000-U+001F only (\b \f \n \r \t, the others
// \u00xx in lower-case hex); every other character is written as itself.
func writeCanonicalString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
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

// canonicalNumber writes an int as its decimal text (any size; `-0` is the int 0) and a float
// as Python's repr: shortest round-trip digits, positional for 1e-4 <= |x| < 1e16 (with `.0`
// when integral), else <digits>e<sign><two or more digits>. A float that is not finite has no
// canonical JSON (allow_nan=False): argument.invalid.
func canonicalNumber(n json.Number) (string, error) {
	s := string(n)
	if isIntText(n) {
		b, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return "", invalid("bad number")
		}
		return b.String(), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		// Underflow is not an error for ParseFloat; a syntax error is.
		return "", invalid("bad number")
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", invalid("a float that is not finite has no canonical JSON")
	}
	return pyFloatRepr(f), nil
}

func pyFloatRepr(f float64) string {
	e := strconv.FormatFloat(f, 'e', -1, 64) // e.g. -1.2345e+17
	sign := ""
	if e[0] == '-' {
		sign = "-"
		e = e[1:]
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		es := strconv.Itoa(abs(exp))
		if len(es) < 2 {
			es = "0" + es
		}
		if exp < 0 {
			es = "-" + es
		} else {
			es = "+" + es
		}
		return sign + mant + "e" + es
	}
	if exp >= 0 {
		if len(digits) <= exp+1 {
			return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		}
		return sign + digits[:exp+1] + "." + digits[exp+1:]
	}
	return sign + "0." + strings.Repeat("0", -exp-1) + digits
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// contentRef is the claim-check reference of canonical bytes (agent.claim-check-ref).
func contentRef(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// runeLen counts code points (INTERPRETING.md section 15: a character is a code point).
func runeLen(s string) int { return len([]rune(s)) }

// decodeJSON reads JSON text with numbers kept as json.Number.
func decodeJSON(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, invalid("not JSON: " + err.Error())
	}
	return v, nil
}
