package governance

import (
	"regexp"
	"sort"
	"strconv"

	"loomref/adapters/go/protocol"
)

// Safety validators (spec/governance.md §4.2).

// Phases of a validator's forms ({#validators.phases}).
const (
	PhaseInput  = "input"
	PhaseOutput = "output"
	PhaseDelta  = "delta"
)

// text is a string with its code points, so that spans and windows count code points
// while Go's regexp works on the UTF-8 bytes ({#patterns.semantics}: "Go and Rust report
// byte offsets: convert").
type text struct {
	s     string
	runes []rune
	off   []int // off[i]: the byte offset of code point i; off[len(runes)] = len(s)
}

func newText(s string) *text {
	t := &text{s: s, runes: make([]rune, 0, len(s)), off: make([]int, 0, len(s)+1)}
	for i, r := range s {
		t.runes = append(t.runes, r)
		t.off = append(t.off, i)
	}
	t.off = append(t.off, len(s))
	return t
}

func (t *text) len() int { return len(t.runes) }

// runeAt converts a byte offset that starts a code point to a code point index.
func (t *text) runeAt(b int) int { return sort.SearchInts(t.off, b) }

// Rule is a PatternRule: a portable-1 regex with its widest match and optional conditions
// checked in code instead of look-around ({#validators.rule-conditions}).
type Rule struct {
	Name  string
	re    *regexp.Regexp
	Width int // -1: unbounded ({#validators.width})
	// Accept sees the matched text; Boundary the whole text handed to the form and the
	// match's code point span.
	Accept   func(match []rune) bool
	Boundary func(text []rune, start, end int) bool
}

// CompileRule builds a rule from a portable-1 regex. maxWidth (> 0) bounds an unbounded
// regex only. A regex that can match the empty string is argument.invalid
// ({#validators.rule-nonempty}); the dialect is checked first ({#patterns.reasons}).
func CompileRule(name, regex string, flags Flags, maxWidth int) (*Rule, error) {
	re, info, err := CompilePattern(regex, flags)
	if err != nil {
		return nil, err
	}
	if info.Nullable {
		return nil, invalid("rule %q can match the empty string", name)
	}
	width := info.Width
	if width == unbounded && maxWidth > 0 {
		width = maxWidth
	}
	return &Rule{Name: name, re: re, Width: width}, nil
}

// search finds the rule's first accepted match whose start is at or after from and whose
// end is after minEnd ({#validators.rule-conditions}): a refused candidate, or one lying
// wholly at or before minEnd ({#guards.tail-scan}), resumes the scan one code point after
// the candidate's start.
func (r *Rule) search(t *text, from, minEnd int) (int, int, bool) {
	for p := from; p <= t.len(); {
		loc := r.re.FindStringIndex(t.s[t.off[p]:])
		if loc == nil {
			return 0, 0, false
		}
		start := t.runeAt(t.off[p] + loc[0])
		end := t.runeAt(t.off[p] + loc[1])
		if end > minEnd && r.accepts(t, start, end) {
			return start, end, true
		}
		p = start + 1
	}
	return 0, 0, false
}

func (r *Rule) accepts(t *text, start, end int) bool {
	if r.Boundary != nil && !r.Boundary(t.runes, start, end) {
		return false
	}
	if r.Accept != nil && !r.Accept(t.runes[start:end]) {
		return false
	}
	return true
}

// Validator is a pattern validator: a name, its rules in declaration order, and the phases
// whose forms it has ({#validators.phases}).
type Validator struct {
	Name   string
	Rules  []*Rule
	phases map[string]bool
}

// NewPatternValidator builds a validator with all three forms.
func NewPatternValidator(name string, rules []*Rule) *Validator {
	return &Validator{Name: name, Rules: rules,
		phases: map[string]bool{PhaseInput: true, PhaseOutput: true, PhaseDelta: true}}
}

// HasForm reports whether the validator has the form of a phase; HasDeltaForm is
// has_delta_form ({#validators.fail-closed}).
func (v *Validator) HasForm(phase string) bool { return v.phases[phase] }

func (v *Validator) HasDeltaForm() bool { return v.phases[PhaseDelta] }

// keepPhases drops the forms not listed.
func (v *Validator) keepPhases(keep map[string]bool) {
	for ph := range v.phases {
		if !keep[ph] {
			delete(v.phases, ph)
		}
	}
}

// violation is a SafetyViolation's details ({#validators.violation}); it never holds the
// matched text ({#validators.no-echo}).
type violation struct {
	validator, phase, rule string
	start, end             int
	path                   *string // the input phase only
}

func (v *violation) error() *protocol.Error {
	e := protocol.Fail(codeSafetyViolation, "validator", v.validator, "phase", v.phase,
		"rule", v.rule, "span", []int{v.start, v.end},
		"message", "validator "+v.validator+" rejected the "+v.phase+" (rule "+v.rule+")")
	if v.path != nil {
		e.Details["path"] = *v.path
	}
	return e
}

// scan runs every rule from the start of the text, in declaration order; the first rule
// with an accepted match is reported at its leftmost accepted match
// ({#validators.rule-order}).
func (v *Validator) scan(t *text, phase string) *violation {
	return v.scanTail(t, phase, 0)
}

// scanTail is the delta form over a running text whose delta begins at fresh
// ({#guards.tail-scan}): a rule of bounded width w scans from fresh-(w-1) and reports only
// matches ending inside the delta; an unbounded rule scans the whole running text.
func (v *Validator) scanTail(t *text, phase string, fresh int) *violation {
	for _, r := range v.Rules {
		from, minEnd := 0, 0
		if r.Width != unbounded && fresh > 0 {
			from, minEnd = fresh-(r.Width-1), fresh
			if from < 0 {
				from = 0
			}
		}
		if s, e, ok := r.search(t, from, minEnd); ok {
			return &violation{validator: v.Name, phase: phase, rule: r.Name, start: s, end: e}
		}
	}
	return nil
}

// CheckOutput is check_output: the output form, or an accept without one.
func (v *Validator) CheckOutput(s string) error {
	if !v.HasForm(PhaseOutput) {
		return nil
	}
	if vi := v.scan(newText(s), PhaseOutput); vi != nil {
		return vi.error()
	}
	return nil
}

// CheckDelta is check_delta on a running text; a validator without a delta form is
// argument.invalid ({#validators.phases}).
func (v *Validator) CheckDelta(s string) error {
	if !v.HasDeltaForm() {
		return invalid("validator %s has no delta form", v.Name)
	}
	if vi := v.scan(newText(s), PhaseDelta); vi != nil {
		return vi.error()
	}
	return nil
}

// CheckInput is check_input: every string of the value, mapping keys and the fields of
// tainted values included, in document order; the first violating string is reported
// with its path ({#validators.input-walk}).
func (v *Validator) CheckInput(value any) error {
	if !v.HasForm(PhaseInput) {
		return nil
	}
	if vi := v.walkInput(value, ""); vi != nil {
		return vi.error()
	}
	return nil
}

func (v *Validator) walkInput(value any, path string) *violation {
	check := func(s, path string) *violation {
		if vi := v.scan(newText(s), PhaseInput); vi != nil {
			p := path
			vi.path = &p
			return vi
		}
		return nil
	}
	switch x := value.(type) {
	case string:
		return check(x, path)
	case *Tainted: // a record: value, then origin
		if vi := v.walkInput(x.Value, path+"/value"); vi != nil {
			return vi
		}
		return check(x.Origin, path+"/origin")
	case map[string]any:
		for _, k := range sortedKeys(x) {
			member := path + "/" + pointerSegment(k)
			if vi := check(k, member); vi != nil { // a key is reported at its member's pointer
				return vi
			}
			if vi := v.walkInput(x[k], member); vi != nil {
				return vi
			}
		}
	case []any:
		for i, item := range x {
			if vi := v.walkInput(item, path+"/"+strconv.Itoa(i)); vi != nil {
				return vi
			}
		}
	}
	return nil
}

// DenyPatterns builds deny_patterns ({#validators.deny}): rules in the given order, each
// named by its name (or, from a list, by its regex text).
func DenyPatterns(names, regexes []string, flags Flags, maxWidth int) (*Validator, error) {
	entries := make([]denyEntry, len(regexes))
	for i, rx := range regexes {
		entries[i] = denyEntry{names[i], rx}
	}
	return denyPatterns(entries, flags, maxWidth)
}

// denyEntry is one rule as given: its name and its regex, a value that must be a string.
type denyEntry struct {
	name  string
	regex any
}

// denyPatterns checks and compiles the rules one after the other (a regex that is not a
// string, an empty name, a pattern outside the dialect: the first met is reported), then
// refuses duplicate names. The text orders none of these checks; this is the reference's
// order (notes/governance.md, Part C).
func denyPatterns(entries []denyEntry, flags Flags, maxWidth int) (*Validator, error) {
	if len(entries) == 0 {
		return nil, invalid("deny patterns must not be empty")
	}
	rules := make([]*Rule, 0, len(entries))
	for _, e := range entries {
		rx, ok := e.regex.(string)
		if !ok {
			return nil, invalid("a regex must be a string")
		}
		if e.name == "" {
			return nil, invalid("a rule name must be a non-empty string")
		}
		r, err := CompileRule(e.name, rx, flags, maxWidth)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	// Names are unique: a list holding one regex twice is refused, not deduplicated.
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.Name] {
			return nil, invalid("rule names must be unique")
		}
		seen[r.Name] = true
	}
	return NewPatternValidator("deny-patterns", rules), nil
}
