// Go's regexp (RE2 semantics) as a dialect oracle: {"pattern", "ignoreCase", "texts"} per line
// -> {"spans": [[[start, end] | null per code point offset] per text]}, as
// tests/governance/regex_oracle.mjs answers its "match" requests. See ../README.md.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"unicode/utf8"
)

type req struct {
	Pattern    string   `json:"pattern"`
	IgnoreCase bool     `json:"ignoreCase"`
	Texts      []string `json:"texts"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var r req
		json.Unmarshal(in.Bytes(), &r)
		p := r.Pattern
		if r.IgnoreCase {
			p = "(?i)" + p
		}
		re, err := regexp.Compile(p)
		if err != nil {
			b, _ := json.Marshal(map[string]string{"error": err.Error()})
			out.Write(append(b, '\n'))
			out.Flush()
			continue
		}
		all := [][]interface{}{}
		for _, t := range r.Texts {
			spans := []interface{}{}
			// byte offset of each code point
			offs := []int{}
			for i := range t {
				offs = append(offs, i)
			}
			offs = append(offs, len(t))
			for _, b := range offs {
				loc := re.FindStringIndex(t[b:])
				if loc == nil {
					spans = append(spans, nil)
					continue
				}
				s := utf8.RuneCountInString(t[:b+loc[0]])
				e := s + utf8.RuneCountInString(t[b+loc[0]:b+loc[1]])
				spans = append(spans, []int{s, e})
			}
			all = append(all, spans)
		}
		b, _ := json.Marshal(map[string]interface{}{"spans": all})
		out.Write(append(b, '\n'))
		out.Flush()
	}
}
