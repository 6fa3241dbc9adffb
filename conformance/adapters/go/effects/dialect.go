package effects

import "strings"

// The portable pattern dialect portable-1 (spec/governance.md §4.2.1, {#patterns.grammar},
// {#patterns.limits}, {#patterns.reasons}): a checker that refuses every pattern outside it
// with argument.pattern and its reason, and computes the minimum and maximum match widths
// ({#validators.width}) that the tail scan and hold-back need.

const unbounded = -1

type patNode struct {
	minW, maxW int // maxW == unbounded: no bound
	size       int // expanded size ({#patterns.limits})
	rep        int // the largest product of nested counts along a path
}

type dialectParser struct {
	r     []rune
	i     int
	depth int
}

type patternErr struct{ reason string }

func patternError(reason string, pos int) *LoomError {
	return &LoomError{Code: "argument.pattern", Message: "pattern outside portable-1: " + reason,
		Kind: kindInvalid, Details: map[string]any{"reason": reason, "position": pos, "dialect": "portable-1"}}
}

// checkPortable checks p against portable-1 and returns its widths.
func checkPortable(p string) (minW, maxW int, err *LoomError) {
	r := []rune(p)
	if len(r) > 4096 {
		return 0, 0, patternError("length", 4096)
	}
	for i, c := range r {
		if c >= 0xD800 && c <= 0xDFFF { // unreachable from Go's JSON reader (U+FFFD), kept for the rule
			return 0, 0, patternError("surrogate", i)
		}
	}
	dp := &dialectParser{r: r}
	var n patNode
	func() {
		defer func() {
			if x := recover(); x != nil {
				if pe, ok := x.(patternErr); ok {
					err = patternError(pe.reason, dp.i)
					return
				}
				panic(x)
			}
		}()
		n = dp.pattern()
		if dp.i < len(dp.r) { // a stray ")"
			panic(patternErr{"syntax"})
		}
	}()
	if err != nil {
		return 0, 0, err
	}
	if n.size > 10000 {
		return 0, 0, patternError("size", 0)
	}
	return n.minW, n.maxW, nil
}

func (d *dialectParser) peek() (rune, bool) {
	if d.i < len(d.r) {
		return d.r[d.i], true
	}
	return 0, false
}

func (d *dialectParser) fail(reason string) { panic(patternErr{reason}) }

func addW(a, b int) int {
	if a == unbounded || b == unbounded {
		return unbounded
	}
	return a + b
}

func (d *dialectParser) pattern() patNode {
	n := d.branch()
	for {
		c, ok := d.peek()
		if !ok || c != '|' {
			return n
		}
		d.i++
		b := d.branch()
		if b.minW < n.minW {
			n.minW = b.minW
		}
		if n.maxW != unbounded && (b.maxW == unbounded || b.maxW > n.maxW) {
			n.maxW = b.maxW
		}
		n.size += b.size
		if b.rep > n.rep {
			n.rep = b.rep
		}
	}
}

func (d *dialectParser) branch() patNode {
	n := patNode{rep: 1}
	for {
		c, ok := d.peek()
		if !ok || c == '|' || c == ')' {
			return n
		}
		p := d.piece()
		n.minW += p.minW
		n.maxW = addW(n.maxW, p.maxW)
		n.size += p.size
		if p.rep > n.rep {
			n.rep = p.rep
		}
	}
}

func isQuantStart(c rune) bool { return c == '*' || c == '+' || c == '?' || c == '{' }

func (d *dialectParser) piece() patNode {
	a := d.atom()
	c, ok := d.peek()
	if !ok || !isQuantStart(c) {
		return a
	}
	lo, hi, counted := d.quantifier()
	if c2, ok := d.peek(); ok && isQuantStart(c2) {
		d.fail("quantifier")
	}
	if a.minW == 0 {
		d.fail("empty-repeat")
	}
	q := patNode{minW: a.minW * lo, rep: a.rep}
	if hi == unbounded {
		q.maxW = unbounded
		if a.maxW == 0 {
			q.maxW = 0
		}
	} else if a.maxW == unbounded {
		q.maxW = unbounded
		if hi == 0 {
			q.maxW = 0
		}
	} else {
		q.maxW = a.maxW * hi
	}
	count := 1
	if counted {
		count = hi
		if hi == unbounded {
			count = lo
		}
		if count > 1000 {
			d.fail("repeat")
		}
		if count == 0 {
			count = 1
		}
		q.rep = a.rep * count
		if q.rep > 1000 {
			d.fail("repeat")
		}
	}
	q.size = a.size * count
	if q.size > 10000 {
		d.fail("size")
	}
	return q
}

// quantifier reads a quantifier: (min, max or unbounded, whether it is a {..} count).
func (d *dialectParser) quantifier() (int, int, bool) {
	c := d.r[d.i]
	d.i++
	switch c {
	case '*':
		return 0, unbounded, false
	case '+':
		return 1, unbounded, false
	case '?':
		return 0, 1, false
	}
	lo, ok := d.count()
	if !ok {
		d.fail("quantifier")
	}
	hi := lo
	if c, ok := d.peek(); ok && c == ',' {
		d.i++
		if c, ok := d.peek(); ok && c == '}' {
			hi = unbounded
		} else {
			h, ok := d.count()
			if !ok {
				d.fail("quantifier")
			}
			hi = h
		}
	}
	if c, ok := d.peek(); !ok || c != '}' {
		d.fail("quantifier")
	}
	d.i++
	if hi != unbounded && hi < lo {
		d.fail("syntax")
	}
	return lo, hi, true
}

// count reads "0" / %x31-39 *DIGIT; counts above 1000 are clamped (and refused by the caller).
func (d *dialectParser) count() (int, bool) {
	c, ok := d.peek()
	if !ok || c < '0' || c > '9' {
		return 0, false
	}
	if c == '0' {
		d.i++
		if c2, ok := d.peek(); ok && c2 >= '0' && c2 <= '9' {
			return 0, false // a leading zero
		}
		return 0, true
	}
	n := 0
	for {
		c, ok := d.peek()
		if !ok || c < '0' || c > '9' {
			return n, true
		}
		if n <= 100000 {
			n = n*10 + int(c-'0')
		}
		d.i++
	}
}

// wellFormedCount reports whether the text at i is "{" count ["," [count]] "}".
func (d *dialectParser) wellFormedCount() bool {
	save := d.i
	defer func() { d.i = save }()
	defer func() { recover() }()
	d.quantifier()
	return true
}

func isSyntaxChar(c rune) bool { return strings.ContainsRune(`^$\.*+?()[]{}|`, c) }

func (d *dialectParser) escape(inClass bool) {
	d.i++ // the backslash
	c, ok := d.peek()
	if !ok {
		d.fail("syntax")
	}
	d.i++
	switch {
	case isSyntaxChar(c) || c == 'n' || c == 'r' || c == 't':
		return
	case inClass && c == '-':
		return
	case strings.ContainsRune("dDwWsSpPhHvVRXN", c):
		d.fail("class-escape")
	case !inClass && strings.ContainsRune("bBAZzG", c):
		d.fail("anchor")
	case !inClass && (c >= '1' && c <= '9' || c == 'k'):
		d.fail("backreference")
	}
	d.fail("escape")
}

func (d *dialectParser) atom() patNode {
	c := d.r[d.i]
	one := patNode{minW: 1, maxW: 1, size: 1, rep: 1}
	switch c {
	case '(':
		rest := string(d.r[d.i:])
		switch {
		case strings.HasPrefix(rest, "(?:"):
			d.i += 3
		case strings.HasPrefix(rest, "(?=") || strings.HasPrefix(rest, "(?!") ||
			strings.HasPrefix(rest, "(?<=") || strings.HasPrefix(rest, "(?<!"):
			d.fail("lookaround")
		case strings.HasPrefix(rest, "(?P="):
			d.fail("backreference")
		case strings.HasPrefix(rest, "(?"):
			d.fail("group")
		default:
			d.i++
		}
		d.depth++
		if d.depth > 32 {
			d.fail("nesting")
		}
		n := d.pattern()
		if c, ok := d.peek(); !ok || c != ')' {
			d.fail("syntax")
		}
		d.i++
		d.depth--
		return n
	case ')':
		d.fail("syntax")
	case '*', '+', '?':
		d.fail("syntax")
	case '{':
		if d.wellFormedCount() {
			d.fail("syntax")
		}
		d.fail("escape")
	case '}', ']':
		d.fail("escape")
	case '.':
		d.fail("dot")
	case '^', '$':
		d.fail("anchor")
	case '[':
		d.class()
		return one
	case '\\':
		d.escape(false)
		return one
	}
	d.i++
	return one
}

// classChar reads one cchar and returns it (escapes resolved) and whether it was escaped.
func (d *dialectParser) classChar() (rune, bool) {
	c, ok := d.peek()
	if !ok {
		d.fail("syntax")
	}
	switch c {
	case '\\':
		d.escape(true)
		e := d.r[d.i-1]
		switch e {
		case 'n':
			return '\n', true
		case 'r':
			return '\r', true
		case 't':
			return '\t', true
		}
		return e, true
	case '[':
		d.fail("class")
	case '-':
		d.fail("class")
	}
	d.i++
	return c, false
}

func (d *dialectParser) class() {
	d.i++ // "["
	if c, ok := d.peek(); ok && c == '^' {
		d.i++
	}
	c, ok := d.peek()
	if !ok {
		d.fail("syntax")
	}
	if c == ']' {
		d.fail("class") // [] or [^]
	}
	if c == '-' {
		d.i++
		if c, ok := d.peek(); ok && c == ']' {
			d.i++
			return // [-]
		}
		if c, ok := d.peek(); ok && c == '-' {
			d.fail("class") // [--
		}
	}
	items := 0
	var prev rune
	prevPlain := false
	for {
		c, ok := d.peek()
		if !ok {
			d.fail("syntax")
		}
		if c == ']' {
			if items == 0 {
				d.fail("class")
			}
			d.i++
			return
		}
		if c == '-' {
			// a trailing "-" only
			if d.i+1 < len(d.r) && d.r[d.i+1] == ']' && items > 0 {
				d.i += 2
				return
			}
			d.fail("class")
		}
		first, esc := d.classChar()
		if !esc && prevPlain && first == prev && strings.ContainsRune("&~|", first) {
			d.fail("class")
		}
		prev, prevPlain = first, !esc
		if c, ok := d.peek(); ok && c == '-' && d.i+1 < len(d.r) && d.r[d.i+1] != ']' {
			d.i++
			last, esc2 := d.classChar()
			if last < first {
				d.fail("syntax")
			}
			prev, prevPlain = last, !esc2
		}
		items++
	}
}
