package effects

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Governance pieces (spec/governance.md, chapter 4) that the runtime wires into a call: taint,
// pattern validators (pii, deny), the running-text guard, the token budget and hold-back.
// Written from the chapter's text for this package (the exercise forbids reading the other
// Go packages).

// Tainted is a TaintedValue ({#taint.tainted-value}).
type Tainted struct {
	Value  any
	Origin string
}

// guardRequest raises governance.tainted-request when a tainted value appears anywhere in a
// request ({#taint.guard-request}); it is the fence, whose refusal is never retried.
func guardRequest(v any) error {
	if path, origin, found := findTainted(v, ""); found {
		return &LoomError{Code: "governance.tainted-request", Message: "request holds a tainted value",
			Kind: kindFence, Details: map[string]any{"path": path, "origin": origin}}
	}
	return nil
}

func pointerSeg(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func findTainted(v any, path string) (string, string, bool) {
	switch x := v.(type) {
	case Tainted:
		return path, x.Origin, true
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if p, o, ok := findTainted(x[k], path+"/"+pointerSeg(k)); ok {
				return p, o, true
			}
		}
	case []any:
		for i, e := range x {
			if p, o, ok := findTainted(e, fmt.Sprintf("%s/%d", path, i)); ok {
				return p, o, true
			}
		}
	}
	return "", "", false
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks) // byte order of UTF-8 is code-point order
	return ks
}

// walkStrings visits every string of a value in document order, as taint.walk does: each
// mapping key then its value, list items, a tainted value's value then its origin
// ({#taint.walk}, {#validators.input-walk}).
func walkStrings(v any, visit func(string) bool) bool {
	switch x := v.(type) {
	case string:
		return visit(x)
	case Tainted:
		return walkStrings(x.Value, visit) && visit(x.Origin)
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if !visit(k) || !walkStrings(x[k], visit) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !walkStrings(e, visit) {
				return false
			}
		}
	}
	return true
}

// Rule is a PatternRule: a portable-1 regex and its conditions ({#validators.rule-conditions}).
type Rule struct {
	Name     string
	re       *regexp.Regexp
	MaxWidth int // unbounded: no bound ({#validators.width})
	accept   func(match []rune) bool
	boundary func(text []rune, start, end int) bool
}

// runeText is a text with its code-point offsets, for searching with Go's byte-offset regexp.
type runeText struct {
	s       string
	r       []rune
	byteOf  []int // code point index -> byte offset (len(r)+1 entries)
	runeOfB map[int]int
}

func newRuneText(r []rune) *runeText {
	t := &runeText{r: r, byteOf: make([]int, len(r)+1), runeOfB: make(map[int]int, len(r)+1)}
	var b strings.Builder
	for i, c := range r {
		t.byteOf[i] = b.Len()
		t.runeOfB[b.Len()] = i
		b.WriteRune(c)
	}
	t.byteOf[len(r)] = b.Len()
	t.runeOfB[b.Len()] = len(r)
	t.s = b.String()
	return t
}

// find returns the rule's first accepted match starting at or after code point from whose end
// is after minEnd (a scan resumes one character after a rejected candidate's start).
func (rl *Rule) find(t *runeText, from, minEnd int) (int, int, bool) {
	p := from
	for p <= len(t.r) {
		loc := rl.re.FindStringIndex(t.s[t.byteOf[p]:])
		if loc == nil {
			return 0, 0, false
		}
		s := t.runeOfB[t.byteOf[p]+loc[0]]
		e := t.runeOfB[t.byteOf[p]+loc[1]]
		ok := e > minEnd
		if ok && rl.boundary != nil && !rl.boundary(t.r, s, e) {
			ok = false
		}
		if ok && rl.accept != nil && !rl.accept(t.r[s:e]) {
			ok = false
		}
		if ok {
			return s, e, true
		}
		p = s + 1
	}
	return 0, 0, false
}

// Validator is a pattern SafetyValidator with its phases ({#validators.phases}).
type Validator struct {
	Name                          string
	Rules                         []*Rule
	HasInput, HasOutput, HasDelta bool
}

func violation(v *Validator, phase string, rl *Rule) error {
	return &LoomError{Code: "governance.safety-violation", Message: "safety violation",
		Details: map[string]any{"validator": v.Name, "phase": phase, "rule": rl.Name}}
}

// checkText is a pattern form over a whole text: the first rule (in order) with an accepted
// match rejects ({#validators.rule-order}).
func (v *Validator) checkText(text string, phase string) error {
	t := newRuneText([]rune(text))
	for _, rl := range v.Rules {
		if _, _, ok := rl.find(t, 0, -1); ok {
			return violation(v, phase, rl)
		}
	}
	return nil
}

// CheckInput is the input form: every string of the value ({#validators.input-walk}).
func (v *Validator) CheckInput(value any) error {
	if !v.HasInput {
		return nil
	}
	var err error
	walkStrings(value, func(s string) bool {
		err = v.checkText(s, "input")
		return err == nil
	})
	return err
}

// CheckOutput is the output form over a text.
func (v *Validator) CheckOutput(text string) error {
	if !v.HasOutput {
		return nil
	}
	return v.checkText(text, "output")
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }
func isSep(c rune) bool   { return c == ' ' || c == '-' }

func at(t []rune, i int) rune {
	if i < 0 || i >= len(t) {
		return 0 // no character
	}
	return t[i]
}

func luhn(m []rune) bool {
	var ds []int
	for _, c := range m {
		if isDigit(c) {
			ds = append(ds, int(c-'0'))
		}
	}
	sum := 0
	for i := 0; i < len(ds); i++ {
		d := ds[len(ds)-1-i]
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// piiRules are pii_validator()'s rules in checking order ({#validators.pii-card},
// {#validators.pii-email}, {#validators.pii-ssn}).
func piiRules() []*Rule {
	card := &Rule{Name: "card", re: regexp.MustCompile(`[0-9](?:[ -]?[0-9]){12,18}`), MaxWidth: 37,
		accept: luhn,
		boundary: func(t []rune, s, e int) bool {
			if isDigit(at(t, s-1)) || (isDigit(at(t, s-2)) && isSep(at(t, s-1))) {
				return false
			}
			if isDigit(at(t, e)) || (isSep(at(t, e)) && isDigit(at(t, e+1))) {
				return false
			}
			return true
		}}
	email := &Rule{Name: "email",
		re:       regexp.MustCompile(`[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,3}\.[A-Za-z]{2,24}`),
		MaxWidth: 345}
	ssn := &Rule{Name: "ssn", re: regexp.MustCompile(`[0-9]{3}-[0-9]{2}-[0-9]{4}`), MaxWidth: 11,
		boundary: func(t []rune, s, e int) bool { return !isDigit(at(t, s-1)) && !isDigit(at(t, e)) }}
	return []*Rule{card, email, ssn}
}

// compileRule compiles a portable-1 regex with flags ({#patterns.dialect}, {#patterns.flags},
// {#validators.rule-nonempty}, {#validators.width}).
func compileRule(name, pattern string, flags []string, maxWidth int) *Rule {
	minW, maxW, perr := checkPortable(pattern)
	if perr != nil {
		panic(malformed{perr})
	}
	if minW == 0 {
		bad("rule %q can match the empty string", name)
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case "IGNORECASE":
			prefix += "i"
		case "MULTILINE":
			prefix += "m"
		case "DOTALL":
			prefix += "s"
		}
	}
	src := pattern
	if prefix != "" {
		src = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(src)
	if err != nil {
		panic(malformed{patternError("syntax", 0)})
	}
	w := maxW
	if w == unbounded && maxWidth > 0 {
		w = maxWidth
	}
	return &Rule{Name: name, re: re, MaxWidth: w}
}

// parseValidator reads a <validator> of governance §4.5.
func parseValidator(v any) *Validator {
	m, ok := v.(map[string]any)
	if !ok {
		bad("validator: not an object")
	}
	kind, _ := m["kind"].(string)
	var val *Validator
	switch kind {
	case "pii":
		object(m, "validator", "kind", "delta", "phases")
		val = &Validator{Name: "pii", Rules: piiRules()}
	case "deny":
		object(m, "validator", "kind", "patterns", "flags", "delta", "maxWidth", "dialect", "phases")
		if d, ok := m["dialect"]; ok {
			if d != "python-re" {
				bad("validator: unknown dialect")
			}
			panic(malformed{&LoomError{Code: "skip", Message: "the python-re pattern extension is not implemented"}})
		}
		var flags []string
		if f, ok := m["flags"]; ok {
			for _, x := range list(f, "flags") {
				s, ok := x.(string)
				if !ok {
					bad("flags: not a string")
				}
				if s != "IGNORECASE" && s != "MULTILINE" && s != "DOTALL" {
					// a member value the encoding does not list: argument.invalid, as loom-ref
					// answers (probe d21, notes D21), not argument.pattern's reason flag
					bad("flags: unknown flag %q", s)
				}
				flags = append(flags, s)
			}
		}
		maxWidth := 0
		if mw, ok := m["maxWidth"]; ok && mw != nil {
			i, ok := isInt(mw)
			if !ok || i < 1 {
				bad("maxWidth: not a positive integer")
			}
			maxWidth = int(i)
		}
		val = &Validator{Name: "deny-patterns"}
		switch p := m["patterns"].(type) {
		case map[string]any:
			if len(p) == 0 {
				bad("patterns: empty")
			}
			for _, name := range sortedKeys(p) {
				re, ok := p[name].(string)
				if !ok || name == "" {
					bad("patterns: bad rule")
				}
				val.Rules = append(val.Rules, compileRule(name, re, flags, maxWidth))
			}
		case []any:
			if len(p) == 0 {
				bad("patterns: empty")
			}
			seen := map[string]bool{}
			for _, x := range p {
				re, ok := x.(string)
				if !ok || seen[re] {
					bad("patterns: bad or repeated regex")
				}
				seen[re] = true
				val.Rules = append(val.Rules, compileRule(re, re, flags, maxWidth))
			}
		default:
			bad("patterns: not an object or a list")
		}
	default:
		bad("validator: unknown kind")
	}
	val.HasInput, val.HasOutput, val.HasDelta = true, true, true
	if ph, ok := m["phases"]; ok {
		val.HasInput, val.HasOutput, val.HasDelta = false, false, false
		for _, x := range list(ph, "phases") {
			switch x {
			case "input":
				val.HasInput = true
			case "output":
				val.HasOutput = true
			case "delta":
				val.HasDelta = true
			default:
				bad("phases: unknown phase")
			}
		}
	}
	if d, ok := m["delta"]; ok {
		b, ok := d.(bool)
		if !ok {
			bad("delta: not a boolean")
		}
		if !b {
			val.HasDelta = false
		}
	}
	return val
}

func parseValidators(v any, what string) []*Validator {
	var out []*Validator
	for _, x := range list(v, what) {
		out = append(out, parseValidator(x))
	}
	return out
}

// --- delta guards (§4.3) ---

// deltaGuard is a guard that stages a delta: it checks it and returns the commit that takes
// it into its state ({#guards.chain-sever}).
type deltaGuard interface {
	stage(delta string) (func(), error)
}

// holdGuard is a hold-back guard ({#deltas.hold-back}).
type holdGuard interface {
	feed(delta string) (string, error)
	flush() string
}

func severed(code, msg string) *LoomError { return &LoomError{Code: code, Message: msg} }

// runningTextGuard is RunningTextGuard(validators, window) ({#guards.running-text},
// {#guards.tail-scan}).
type runningTextGuard struct {
	validators []*Validator
	window     int
	text       []rune // the last `window` characters accepted
	index      int
}

func newRunningTextGuard(vs []*Validator, window int) *runningTextGuard {
	var ds []*Validator
	for _, v := range vs {
		if v.HasDelta {
			ds = append(ds, v)
		}
	}
	return &runningTextGuard{validators: ds, window: window}
}

// scan hands each validator's delta form the running text and returns the first sever.
func (g *runningTextGuard) scan(delta string) error {
	d := []rune(delta)
	running := append(append([]rune{}, g.text...), d...)
	fresh := len(g.text)
	t := newRuneText(running)
	for _, v := range g.validators {
		for _, rl := range v.Rules {
			from, minEnd := 0, -1
			if rl.MaxWidth != unbounded {
				from = fresh - (rl.MaxWidth - 1)
				if from < 0 {
					from = 0
				}
				minEnd = fresh // a match wholly before the delta is not reported
			}
			if _, _, ok := rl.find(t, from, minEnd); ok {
				e := severed("governance.delta-severed", "delta severed")
				e.Details = map[string]any{"validator": v.Name, "rule": rl.Name, "delta_index": g.index,
					"cause": "governance.safety-violation"}
				return e
			}
		}
	}
	return nil
}

func (g *runningTextGuard) stage(delta string) (func(), error) {
	if err := g.scan(delta); err != nil {
		return nil, err
	}
	return func() {
		all := append(g.text, []rune(delta)...)
		if len(all) > g.window {
			all = all[len(all)-g.window:]
		}
		g.text = append([]rune{}, all...)
		g.index++
	}, nil
}

// budgetGuard is stream_token_budget(max_tokens) with approx_token_count
// ({#guards.token-budget}, {#guards.token-count}).
type budgetGuard struct {
	max, used int
}

func approxTokens(s string) int { return (len([]rune(s)) + 3) / 4 }
