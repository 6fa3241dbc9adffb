package journal

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// RequiredFields is the twelve event kinds and the payload fields each requires
// (journal.event-kinds, journal.payload-shape, spec/journal.md §1.2); the kernel's writer
// checks its events against the same table.
var RequiredFields = map[string][]string{
	"EXECUTION_STARTED":   {"executionId", "workflow", "input"},
	"STEP_STARTED":        {"stepId", "toolId", "input", "idempotencyKey"},
	"STEP_COMPLETED":      {"stepId", "output"},
	"STEP_FAILED":         {"stepId", "error"},
	"STEP_IN_DOUBT":       {"stepId"},
	"DECISION_RECORDED":   {"decisionId", "choice"},
	"STREAM_APPENDED":     {"streamId", "data"},
	"EXECUTION_SUSPENDED": {"gateId", "on", "correlationKey"},
	"RESUME_RECEIVED":     {"gateId", "payload"},
	"EXECUTION_RESUMED":   {"gateId"},
	"EXECUTION_COMPLETED": {"output"},
	"EXECUTION_FAILED":    {"error"},
}

// checkEvent reports whether kind names one of the twelve kinds and payload carries its
// required fields; false is journal.bad-payload. The required fields have no type
// (journal.fold-vector: "give these fields no type"; notes point 12), but a `resumeSchema` must
// be a schema of the kernel's subset (notes point 13).
func checkEvent(kind, payload any) bool {
	k, ok := kind.(string)
	if !ok {
		return false
	}
	fields, ok := RequiredFields[k]
	if !ok {
		return false
	}
	p, ok := payload.(map[string]any)
	if !ok {
		return false
	}
	for _, f := range fields {
		if _, ok := p[f]; !ok {
			return false
		}
	}
	if s, ok := p["resumeSchema"]; ok && k == "EXECUTION_SUSPENDED" && !IsSchema(s) {
		return false
	}
	return true
}

// IsSchema reports whether v is a schema of the kernel's resume-schema subset, the whole of it
// (journal.required-fields: `$ref`, `$defs` and the cycle rule of kernel.schema-refs included).
// The kernel package, which imports this one, sets it to its own schema compiler when it is
// loaded; isSchema, a reading of the keywords alone, stands in until then.
var IsSchema = isSchema

var schemaTypes = map[string]bool{"object": true, "array": true, "string": true,
	"number": true, "integer": true, "boolean": true, "null": true}

// isSchema is this implementation's reading of the kernel's JSON Schema subset
// (spec/kernel.md §2.4, kernel.resume-schema), which the spec text does not list: a boolean,
// or an object of these keywords only (notes point 13, aligned with the reference's answers
// found by probing it). A `pattern` is checked by Go's regexp, not by the portable-1 checker
// that spec/governance.md §4.2.1 asks for (notes point 13).
func isSchema(v any) bool {
	if _, ok := v.(bool); ok {
		return true
	}
	s, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, x := range s {
		if !schemaKeyword(k, x) {
			return false
		}
	}
	return true
}

func schemaKeyword(k string, x any) bool {
	switch k {
	case "type":
		switch t := x.(type) {
		case string:
			return schemaTypes[t]
		case []any:
			for _, e := range t {
				if n, ok := e.(string); !ok || !schemaTypes[n] {
					return false
				}
			}
			return len(t) > 0
		}
		return false
	case "properties":
		props, ok := x.(map[string]any)
		if !ok {
			return false
		}
		for _, p := range props {
			if !isSchema(p) {
				return false
			}
		}
		return true
	case "required":
		list, ok := x.([]any)
		if !ok {
			return false
		}
		for _, e := range list {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return true
	case "additionalProperties", "items":
		return isSchema(x)
	case "oneOf", "anyOf":
		list, ok := x.([]any)
		if !ok || len(list) == 0 {
			return false
		}
		for _, e := range list {
			if !isSchema(e) {
				return false
			}
		}
		return true
	case "enum":
		_, ok := x.([]any)
		return ok
	case "minLength", "maxLength", "minItems", "maxItems":
		return isCount(x)
	case "minimum", "maximum":
		_, ok := x.(json.Number)
		return ok
	case "pattern":
		p, ok := x.(string)
		if !ok {
			return false
		}
		_, err := regexp.Compile(p)
		return err == nil
	case "$ref":
		_, ok := x.(string)
		return ok
	case "const", "title", "description", "default", "examples", "$id", "$schema", "$defs":
		return true // values, or annotations the check ignores
	}
	return false
}

// isCount: a JSON integer literal (no fraction, no exponent) that is not negative.
func isCount(x any) bool {
	n, ok := x.(json.Number)
	return ok && isIntLiteral(string(n)) && !strings.HasPrefix(string(n), "-")
}

// isIntLiteral: a number written as an integer, as the journal's `version` and `seq` must be
// (1.0 is not 1 there: notes point 6, the reference's reading).
func isIntLiteral(n string) bool {
	return !strings.ContainsAny(n, ".eE")
}

// intValue reads a JSON integer literal (never a boolean, never 1.0).
func intValue(x any) (int64, bool) {
	n, ok := x.(json.Number)
	if !ok || !isIntLiteral(string(n)) {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}
