package governance

import "strings"

// IGNORECASE is simple case folding ({#patterns.flags}); only characters assigned after
// Unicode 14.0 may fold differently between engines. Go 1.19's unicode tables are Unicode
// 13.0.0, so the case pairs Unicode 14.0 added are missing from its (?i). foldPairs lists
// them (capital, small; CaseFolding.txt status C), and withUnicode14Folds spells each such
// character of a pattern as a class holding both, so that Go's regexp folds them too.
// A Go whose unicode.Version is 14.0 or later does not need it (and is not hurt by it).
var foldPairs = func() [][2]rune {
	pairs := [][2]rune{
		{0x2C2F, 0x2C5F}, // GLAGOLITIC CAPITAL LETTER CAUDATE CHRIVI
		{0xA7C0, 0xA7C1}, // LATIN CAPITAL LETTER OLD POLISH O
		{0xA7D0, 0xA7D1}, // LATIN CAPITAL LETTER CLOSED INSULAR G
		{0xA7D6, 0xA7D7}, // LATIN CAPITAL LETTER MIDDLE SCOTS S
		{0xA7D8, 0xA7D9}, // LATIN CAPITAL LETTER SIGMOID S
	}
	// Vithkuqi: capitals U+10570-U+10595 (with gaps), smalls 0x27 above.
	for _, span := range [][2]rune{{0x10570, 0x1057A}, {0x1057C, 0x1058A}, {0x1058C, 0x10592}, {0x10594, 0x10595}} {
		for r := span[0]; r <= span[1]; r++ {
			pairs = append(pairs, [2]rune{r, r + 0x27})
		}
	}
	return pairs
}()

// foldPartner returns the other member of a Unicode 14.0 case pair.
func foldPartner(r rune) (rune, bool) {
	for _, p := range foldPairs {
		switch r {
		case p[0]:
			return p[1], true
		case p[1]:
			return p[0], true
		}
	}
	return 0, false
}

// withUnicode14Folds rewrites a portable-1 pattern (already checked) for Go's (?i): a
// literal with a Unicode 14.0 partner becomes the class [literal partner], and a class
// gains the partners of the pair members it holds. Positions are unchanged for matching:
// each class still matches one code point.
func withUnicode14Folds(pattern string) string {
	src := []rune(pattern)
	var out strings.Builder
	for i := 0; i < len(src); {
		switch r := src[i]; {
		case r == '\\':
			out.WriteString(string(src[i : i+2]))
			i += 2
		case r == '[':
			i = rewriteClass(src, i, &out)
		default:
			if p, ok := foldPartner(r); ok {
				out.WriteString("[" + string(r) + string(p) + "]")
			} else {
				out.WriteRune(r)
			}
			i++
		}
	}
	return out.String()
}

// rewriteClass copies the class starting at src[open] ("[") to out, adding the partners
// of its members right after "[", "^" and a leading "-" (where a character cannot start
// a range), and returns the index after its "]".
func rewriteClass(src []rune, open int, out *strings.Builder) int {
	i := open + 1
	head := "["
	if src[i] == '^' {
		head += "^"
		i++
	}
	if src[i] == '-' {
		head += "-"
		i++
	}
	bodyStart := i
	// Read the members: a character (escaped or not), optionally "-" and a last character.
	var members [][2]rune
	readChar := func() rune {
		if src[i] == '\\' {
			i += 2
			switch c := src[i-1]; c {
			case 'n':
				return '\n'
			case 'r':
				return '\r'
			case 't':
				return '\t'
			default:
				return c
			}
		}
		i++
		return src[i-1]
	}
	for src[i] != ']' {
		if src[i] == '-' { // the trailing "-"
			i++
			continue
		}
		lo := readChar()
		hi := lo
		if src[i] == '-' && src[i+1] != ']' {
			i++
			hi = readChar()
		}
		members = append(members, [2]rune{lo, hi})
	}
	var extra []rune
	for _, p := range foldPairs {
		has := [2]bool{}
		for _, m := range members {
			for k := 0; k < 2; k++ {
				if p[k] >= m[0] && p[k] <= m[1] {
					has[k] = true
				}
			}
		}
		if has[0] != has[1] {
			extra = append(extra, p[0], p[1])
		}
	}
	out.WriteString(head + string(extra) + string(src[bodyStart:i]) + "]")
	return i + 1
}
