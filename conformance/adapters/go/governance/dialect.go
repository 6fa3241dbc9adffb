package governance

import (
	"unicode/utf8"

	"loomref/adapters/go/protocol"
)

// The portable pattern dialect portable-1 (spec/governance.md §4.2.1).
//
// checkPattern parses a pattern by the grammar of {#patterns.grammar}, applies the limits
// of {#patterns.limits} and refuses anything else with argument.pattern and a reason of
// {#patterns.reasons}. Matching is then left to Go's regexp, which {#patterns.semantics}
// names as an engine that compiles a portable-1 pattern unchanged and finds the same
// leftmost-first matches.

const (
	dialectName     = "portable-1"
	maxPatternRunes = 4096  // {#patterns.limits}: at most 4096 code points
	maxRepeat       = 1000  // counts, and their products along a path
	maxSize         = 10000 // the expanded size
	maxNesting      = 32    // groups nest at most 32 deep
)

// patternError is a PatternError: argument.pattern with reason, position (a code point
// index, informative) and dialect ({#patterns.reasons}).
type patternError struct {
	reason   string
	position int
}

func (e *patternError) Error() string { return e.reason }

func (e *patternError) protocolError() *protocol.Error {
	return protocol.Fail(codePattern, "reason", e.reason, "position", e.position,
		"dialect", dialectName, "message", "pattern outside portable-1: "+e.reason)
}

// shape is what the checker learns of a sub-pattern.
type shape struct {
	nullable bool  // it can match the empty string
	width    int   // its widest match in code points; unbounded is -1 ({#validators.width})
	size     int64 // its expanded size ({#patterns.limits})
	product  int64 // the largest product of counted quantifiers along a path in it
}

const unbounded = -1

// PatternInfo is a checked pattern: its widest match and whether it can match "".
type PatternInfo struct {
	Width    int // -1: unbounded
	Nullable bool
}

// CheckPattern checks that pattern is in portable-1 ({#patterns.dialect}).
func CheckPattern(pattern string) (PatternInfo, error) {
	if n := utf8.RuneCountInString(pattern); n > maxPatternRunes {
		return PatternInfo{}, &patternError{"length", maxPatternRunes}
	}
	p := &parser{src: []rune(pattern)}
	s, err := p.alternation()
	if err != nil {
		return PatternInfo{}, err
	}
	if p.pos < len(p.src) { // only an unbalanced ")" stops the top level early
		return PatternInfo{}, p.fail("syntax", p.pos)
	}
	if s.size > maxSize {
		return PatternInfo{}, p.fail("size", len(p.src))
	}
	return PatternInfo{Width: s.width, Nullable: s.nullable}, nil
}

type parser struct {
	src   []rune
	pos   int
	depth int
}

func (p *parser) fail(reason string, at int) error { return &patternError{reason, at} }

func (p *parser) more() bool { return p.pos < len(p.src) }

func (p *parser) peek(off int) rune {
	if p.pos+off < len(p.src) {
		return p.src[p.pos+off]
	}
	return -1
}

func isSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDFFF }

// alternation: pattern = branch *( "|" branch ).
func (p *parser) alternation() (shape, error) {
	out, err := p.branch()
	if err != nil {
		return out, err
	}
	for p.more() && p.peek(0) == '|' {
		p.pos++
		b, err := p.branch()
		if err != nil {
			return out, err
		}
		out.nullable = out.nullable || b.nullable
		if out.width == unbounded || b.width == unbounded {
			out.width = unbounded
		} else if b.width > out.width {
			out.width = b.width
		}
		out.size = satAdd(out.size, b.size)
		if b.product > out.product {
			out.product = b.product
		}
	}
	return out, nil
}

// branch = *piece, which may be empty.
func (p *parser) branch() (shape, error) {
	out := shape{nullable: true, product: 1}
	for p.more() && p.peek(0) != '|' && p.peek(0) != ')' {
		s, err := p.piece()
		if err != nil {
			return out, err
		}
		out.nullable = out.nullable && s.nullable
		if out.width == unbounded || s.width == unbounded {
			out.width = unbounded
		} else {
			out.width += s.width
		}
		out.size = satAdd(out.size, s.size)
		if s.product > out.product {
			out.product = s.product
		}
	}
	return out, nil
}

func isQuantifierStart(r rune) bool { return r == '*' || r == '+' || r == '?' || r == '{' }

// piece = atom [ quantifier ].
func (p *parser) piece() (shape, error) {
	start := p.pos
	a, err := p.atom()
	if err != nil {
		return a, err
	}
	if !p.more() || !isQuantifierStart(p.peek(0)) {
		return a, nil
	}
	qpos := p.pos
	min, max, counted, err := p.quantifier()
	if err != nil {
		return a, err
	}
	// A quantifier right after a quantifier: lazy, possessive, doubled ({#patterns.reasons}).
	if p.more() && isQuantifierStart(p.peek(0)) {
		return a, p.fail("quantifier", p.pos)
	}
	// The operand must not match the empty string ({#patterns.limits}).
	if a.nullable {
		return a, p.fail("empty-repeat", qpos)
	}
	out := shape{product: a.product}
	// count: the maximum, or the minimum of {n,}; * + ? count 1; 0 counts 1.
	count := int64(1)
	if counted {
		if max >= 0 {
			count = max
		} else {
			count = min
		}
		if count == 0 {
			count = 1
		}
		out.product = a.product * count
		if out.product > maxRepeat {
			return a, p.fail("repeat", start)
		}
	}
	out.size = satMul(a.size, count)
	out.nullable = min == 0
	switch {
	case max == 0:
		out.width = 0
	case max < 0 || a.width == unbounded:
		out.width = unbounded
	default:
		out.width = a.width * int(max)
	}
	return out, nil
}

// quantifier = "*" / "+" / "?" / "{" count [ "," [ count ] ] "}". It returns min and max
// (max -1: unbounded) and whether it is a counted quantifier.
func (p *parser) quantifier() (int64, int64, bool, error) {
	switch p.peek(0) {
	case '*':
		p.pos++
		return 0, -1, false, nil
	case '+':
		p.pos++
		return 1, -1, false, nil
	case '?':
		p.pos++
		return 0, 1, false, nil
	}
	open := p.pos
	min, max, end, ok := countAt(p.src, open)
	if !ok {
		return 0, 0, false, p.fail("quantifier", open)
	}
	if max >= 0 && min > max {
		return 0, 0, false, p.fail("syntax", open)
	}
	if min > maxRepeat || max > maxRepeat {
		return 0, 0, false, p.fail("repeat", open)
	}
	p.pos = end
	return min, max, true, nil
}

// countAt reads a well-formed "{" count [ "," [ count ] ] "}" at i; counts have no leading
// zero and no space. It returns the counts (saturated), max -1 for "{n,}", and the index
// after "}".
func countAt(src []rune, i int) (min, max int64, end int, ok bool) {
	if i >= len(src) || src[i] != '{' {
		return 0, 0, 0, false
	}
	i++
	readCount := func() (int64, bool) {
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			return 0, false
		}
		if src[i] == '0' {
			i++
			return 0, true
		}
		var n int64
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			if n <= maxRepeat*10 {
				n = n*10 + int64(src[i]-'0')
			}
			i++
		}
		return n, true
	}
	min, ok = readCount()
	if !ok {
		return 0, 0, 0, false
	}
	max = min
	if i < len(src) && src[i] == ',' {
		i++
		max = -1
		if i < len(src) && src[i] != '}' {
			if max, ok = readCount(); !ok {
				return 0, 0, 0, false
			}
		}
	}
	if i >= len(src) || src[i] != '}' {
		return 0, 0, 0, false
	}
	return min, max, i + 1, true
}

// atom = char / escape / class / "(" pattern ")" / "(?:" pattern ")".
func (p *parser) atom() (shape, error) {
	one := shape{width: 1, size: 1, product: 1}
	at := p.pos
	r := p.peek(0)
	switch {
	case r == '(':
		return p.group()
	case r == '[':
		if err := p.class(); err != nil {
			return one, err
		}
		return one, nil
	case r == '\\':
		if _, err := p.escape(false); err != nil {
			return one, err
		}
		return one, nil
	case r == '*' || r == '+' || r == '?':
		return one, p.fail("syntax", at) // a quantifier with nothing to repeat
	case r == '{':
		if _, _, _, ok := countAt(p.src, at); ok {
			return one, p.fail("syntax", at) // a well-formed count with nothing to repeat
		}
		return one, p.fail("escape", at) // an unescaped "{"
	case r == '}' || r == ']':
		return one, p.fail("escape", at)
	case r == '.':
		return one, p.fail("dot", at)
	case r == '^' || r == '$':
		return one, p.fail("anchor", at)
	case isSurrogate(r):
		return one, p.fail("surrogate", at)
	}
	p.pos++
	return one, nil
}

// group reads "(" pattern ")" or "(?:" pattern ")"; any other "(?" form is refused.
func (p *parser) group() (shape, error) {
	open := p.pos
	p.pos++
	if p.peek(0) == '?' {
		switch a, b := p.peek(1), p.peek(2); {
		case a == ':':
			p.pos += 2
		case a == '=' || a == '!' || (a == '<' && (b == '=' || b == '!')):
			return shape{}, p.fail("lookaround", open)
		case a == 'P' && b == '=':
			return shape{}, p.fail("backreference", open)
		default:
			return shape{}, p.fail("group", open)
		}
	}
	p.depth++
	if p.depth > maxNesting {
		return shape{}, p.fail("nesting", open)
	}
	s, err := p.alternation()
	if err != nil {
		return s, err
	}
	if !p.more() || p.peek(0) != ')' {
		return s, p.fail("syntax", open) // an unbalanced "("
	}
	p.pos++
	p.depth--
	return s, nil
}

// The escapes outside the grammar that have a reason of their own ({#patterns.reasons}).
func escapeReason(r rune) string {
	switch r {
	case 'd', 'D', 'w', 'W', 's', 'S', 'p', 'P', 'h', 'H', 'v', 'V', 'R', 'X', 'N':
		return "class-escape"
	case 'b', 'B', 'A', 'Z', 'z', 'G':
		return "anchor"
	case '1', '2', '3', '4', '5', '6', '7', '8', '9', 'k':
		return "backreference"
	}
	if isSurrogate(r) {
		return "surrogate"
	}
	return "escape"
}

func isSyntaxChar(r rune) bool {
	switch r {
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|':
		return true
	}
	return false
}

// escape reads "\" ( syntax / "n" / "r" / "t" ), and in a class also "\-"; it returns the
// character the escape stands for.
func (p *parser) escape(inClass bool) (rune, error) {
	at := p.pos
	if at+1 >= len(p.src) {
		return 0, p.fail("syntax", at) // a trailing "\"
	}
	r := p.src[at+1]
	p.pos += 2
	switch {
	case isSyntaxChar(r):
		return r, nil
	case r == 'n':
		return '\n', nil
	case r == 'r':
		return '\r', nil
	case r == 't':
		return '\t', nil
	case r == '-' && inClass:
		return '-', nil
	}
	reason := escapeReason(r)
	if inClass && (reason == "anchor" || reason == "backreference") {
		// In a class \b, \B, \1 are no anchor and no backreference (Python reads [\b] as
		// a backspace): an escape outside the grammar. The text does not say; this is the
		// reference's reason (notes/governance.md, Part C).
		reason = "escape"
	}
	return 0, p.fail(reason, at)
}

// class = "[" [ "^" ] ( "-" / ( [ "-" ] 1*item [ "-" ] ) ) "]", item = cchar [ "-" cchar ].
func (p *parser) class() error {
	open := p.pos
	p.pos++
	if p.peek(0) == '^' {
		p.pos++
	}
	type token struct {
		r    rune
		dash bool // an unescaped "-"
		at   int
	}
	var toks []token
	var prev rune = -1 // the previous unescaped character of the class text
	for {
		if !p.more() {
			return p.fail("syntax", open) // an unterminated class
		}
		at := p.pos
		r := p.src[at]
		if r == ']' {
			p.pos++
			break
		}
		switch {
		case r == '[':
			return p.fail("class", at)
		case r == '\\':
			c, err := p.escape(true)
			if err != nil {
				return err
			}
			toks = append(toks, token{r: c, at: at})
			prev = -1
			continue
		case isSurrogate(r):
			return p.fail("surrogate", at)
		case (r == '&' || r == '~' || r == '|') && r == prev:
			return p.fail("class", at) // Rust's set operators, reserved by Python
		}
		toks = append(toks, token{r: r, dash: r == '-', at: at})
		prev = r
		p.pos++
	}
	if len(toks) == 0 {
		return p.fail("class", open) // [] and [^]
	}
	if len(toks) == 1 && toks[0].dash {
		return nil // [-] and [^-]
	}
	i := 0
	if toks[0].dash {
		i++
	}
	items := 0
	for i < len(toks) {
		t := toks[i]
		if t.dash {
			if i == len(toks)-1 && items > 0 {
				break // a trailing "-"
			}
			return p.fail("class", t.at) // [--], a misplaced "-"
		}
		if i+2 < len(toks) && toks[i+1].dash && !toks[i+2].dash {
			if t.r > toks[i+2].r {
				return p.fail("syntax", t.at) // a reversed range
			}
			i += 3
		} else {
			i++
		}
		items++
	}
	return nil
}

func satAdd(a, b int64) int64 {
	if a+b > 1<<40 {
		return 1 << 40
	}
	return a + b
}
