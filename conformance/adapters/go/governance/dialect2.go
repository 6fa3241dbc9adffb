package governance

// Continued from dialect.go.

import (
	"regexp"
)

func satMul(a, b int64) int64 {
	if a != 0 && b > (1<<40)/a {
		return 1 << 40
	}
	return a * b
}

// Flags of a deny validator ({#patterns.flags}). MULTILINE and DOTALL change nothing: the
// dialect has no anchors and no ".". IGNORECASE is simple case folding, which Go's (?i)
// implements (a flag Go can only spell inside the pattern).
type Flags struct{ IgnoreCase bool }

// CompilePattern checks a pattern and compiles it with Go's regexp.
func CompilePattern(pattern string, flags Flags) (*regexp.Regexp, PatternInfo, error) {
	info, err := CheckPattern(pattern)
	if err != nil {
		return nil, info, err
	}
	src := pattern
	if flags.IgnoreCase {
		src = "(?i)" + withUnicode14Folds(pattern)
	}
	re, cerr := regexp.Compile(src)
	if cerr != nil {
		// Not expected for a portable-1 pattern; refused rather than crashing.
		return nil, info, &patternError{"syntax", 0}
	}
	return re, info, nil
}
