package governance

import "testing"

// The reasons of {#patterns.reasons}, one problem per pattern.
func TestPatternReasons(t *testing.T) {
	cases := map[string]string{
		"(": "syntax", "a)": "syntax", "[a": "syntax", `a\`: "syntax", "*a": "syntax",
		"[z-a]": "syntax", "a{3,2}": "syntax", "{2}": "syntax",
		`\x41`: "escape", `\/`: "escape", `\-`: "escape", "{": "escape", "}": "escape", "]": "escape",
		`[\b]`: "escape", `[\1]`: "escape",
		`\d`: "class-escape", `[\w]`: "class-escape",
		".": "dot", "^a": "anchor", "a$": "anchor", `\b`: "anchor",
		"(?=a)": "lookaround", "(?<!a)b": "lookaround",
		`(a)\1`: "backreference", `\k<n>`: "backreference", "(?P=n)": "backreference",
		"(?P<n>a)": "group", "(?i)a": "group", "(?#c)": "group", "(?>a)": "group",
		"a*?": "quantifier", "a++": "quantifier", "a{,3}": "quantifier", "a{01}": "quantifier", "a{": "quantifier",
		"x(?:|a)*": "empty-repeat", "(?:)?": "empty-repeat",
		"a{1001}": "repeat", "(?:a{10}){101}": "repeat",
		"[]": "class", "[^]": "class", "[--]": "class", "[a&&b]": "class", "[[]": "class", "[a-b-c]": "class",
	}
	for pattern, want := range cases {
		_, err := CheckPattern(pattern)
		pe, ok := err.(*patternError)
		if !ok || pe.reason != want {
			t.Errorf("%q: got %v, want %s", pattern, err, want)
		}
	}
	for _, pattern := range []string{"(?:a{10}){100}", `x(?:)\{2\}[\^\-]`, "[-^a]{3}", "[^-]", "[a-]", "ab|abcdef"} {
		if _, err := CheckPattern(pattern); err != nil {
			t.Errorf("%q refused: %v", pattern, err)
		}
	}
}

func TestWidths(t *testing.T) {
	cases := map[string]int{"ab|abcdef": 6, "KEY-?[0-9]{3}": 7, "a+": unbounded, "(?:a+){0}b": 1, "a{2,5}": 5}
	for pattern, want := range cases {
		info, err := CheckPattern(pattern)
		if err != nil || info.Width != want {
			t.Errorf("%q: width %d (%v), want %d", pattern, info.Width, err, want)
		}
	}
}

// Go 1.19 knows Unicode 13.0: the 14.0 case pairs are added for IGNORECASE.
func TestUnicode14Folds(t *testing.T) {
	cases := []struct{ pattern, text string }{
		{"\u2c2f", "\u2c5f"}, {"[\u2c00-\u2c2f]", "\u2c5f"}, {"[-\ua7d8]", "\ua7d9"}, {"\U00010570", "\U00010597"},
	}
	for _, c := range cases {
		re, _, err := CompilePattern(c.pattern, Flags{IgnoreCase: true})
		if err != nil || !re.MatchString(c.text) {
			t.Errorf("%q does not match %q (%v)", c.pattern, c.text, err)
		}
	}
	if re, _, _ := CompilePattern("[^\u2c2f]", Flags{IgnoreCase: true}); re.MatchString("\u2c5f") {
		t.Errorf("a negated class matches a fold of its member")
	}
}
