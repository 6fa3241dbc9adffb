package governance

import "fmt"

// pii_validator() (spec/governance.md §4.2, "pii_validator()"). A digit is an ASCII digit,
// a separator U+0020 or U+002D; a position outside the text holds no character.

func isDigit(r rune) bool     { return r >= '0' && r <= '9' }
func isSeparator(r rune) bool { return r == ' ' || r == '-' }

func at(t []rune, i int) rune {
	if i < 0 || i >= len(t) {
		return -1
	}
	return t[i]
}

// cardBoundary: the run is maximal ({#validators.pii-card}).
func cardBoundary(t []rune, start, end int) bool {
	if isDigit(at(t, start-1)) || (isDigit(at(t, start-2)) && isSeparator(at(t, start-1))) {
		return false
	}
	if isDigit(at(t, end)) || (isSeparator(at(t, end)) && isDigit(at(t, end+1))) {
		return false
	}
	return true
}

// luhn checks the match's digits.
func luhn(match []rune) bool {
	sum, double := 0, false
	for i := len(match) - 1; i >= 0; i-- {
		if !isDigit(match[i]) {
			continue
		}
		d := int(match[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// ssnBoundary: no digit right before or right after ({#validators.pii-ssn}).
func ssnBoundary(t []rune, start, end int) bool {
	return !isDigit(at(t, start-1)) && !isDigit(at(t, end))
}

var piiRules = []struct {
	name, regex string
	width       int
	accept      func([]rune) bool
	boundary    func([]rune, int, int) bool
}{
	{"card", `[0-9](?:[ -]?[0-9]){12,18}`, 37, luhn, cardBoundary},
	{"email", `[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,3}\.[A-Za-z]{2,24}`, 345, nil, nil},
	{"ssn", `[0-9]{3}-[0-9]{2}-[0-9]{4}`, 11, nil, ssnBoundary},
}

// PIIValidator is pii_validator(): rules card, email, ssn, in that order, with all three
// forms ({#validators.pii-delta-form}).
func PIIValidator() *Validator {
	rules := make([]*Rule, 0, len(piiRules))
	for _, pr := range piiRules {
		r, err := CompileRule(pr.name, pr.regex, Flags{}, 0)
		// The rules are portable-1 and their widths are the spec's: a failure here is a
		// bug of this package, not of an input.
		if err != nil {
			panic(fmt.Sprintf("pii rule %s: %v", pr.name, err))
		}
		if r.Width != pr.width {
			panic(fmt.Sprintf("pii rule %s: width %d, not %d", pr.name, r.Width, pr.width))
		}
		r.Accept, r.Boundary = pr.accept, pr.boundary
		rules = append(rules, r)
	}
	return NewPatternValidator("pii", rules)
}
