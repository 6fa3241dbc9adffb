package governance

import (
	"loomref/adapters/go/protocol"
)

// The conformance vector functions of the chapter (spec/governance.md §4.5,
// {#guards.vector-run}). Every failure is a coded error, never an internal one.

// Functions maps each case function to its implementation.
var Functions = map[string]protocol.Function{
	"taint.guard_request":     guardRequestVector,
	"taint.unwrap":            unwrapVector,
	"validators.check_output": checkOutputVector,
	"validators.check":        checkVector,
	"guards.run":              runVector,
	"guards.steps":            stepsVector,
}

// taint.guard_request: {"request"} → {"ok": true} or {"ok": false, code, path, origin}.
func guardRequestVector(input any) (any, error) {
	in, err := object(input, "input", []string{"request"}, nil)
	if err != nil {
		return nil, err
	}
	request, err := decodeTainted(in["request"])
	if err != nil {
		return nil, err
	}
	if err := GuardRequest(request); err != nil {
		e := err.(*protocol.Error)
		return map[string]any{"ok": false, "code": e.Code,
			"path": e.Details["path"], "origin": e.Details["origin"]}, nil
	}
	return map[string]any{"ok": true}, nil
}

// taint.unwrap: {"value"} → {"value": <the content, encoded>}.
func unwrapVector(input any) (any, error) {
	in, err := object(input, "input", []string{"value"}, nil)
	if err != nil {
		return nil, err
	}
	value, err := decodeTainted(in["value"])
	if err != nil {
		return nil, err
	}
	content, err := Unwrap(value)
	if err != nil {
		return nil, err
	}
	return map[string]any{"value": encodeTainted(content)}, nil
}

// validatorSpec is a validator as a vector writes it, its shape read but its patterns not
// yet compiled: {"kind": "pii", "delta"?, "phases"?} or {"kind": "deny", "patterns",
// "flags"?, "delta"?, "maxWidth"?, "dialect"?, "phases"?} (§4.5).
type validatorSpec struct {
	kind     string
	rules    []denyEntry // deny: the rules in the order they are tried
	flags    Flags
	maxWidth int // 0: absent
	keep     map[string]bool
}

// readValidator reads a validator's shape; every member of the wrong type, at any depth,
// is argument.invalid ({#guards.vector-run}).
func readValidator(v any) (*validatorSpec, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("a validator must be an object")
	}
	kind, ok := m["kind"].(string)
	if !ok {
		return nil, invalid("a validator needs a string kind")
	}
	spec := &validatorSpec{kind: kind}
	switch kind {
	case "pii":
		if _, err := object(v, "pii validator", []string{"kind"}, []string{"delta", "phases"}); err != nil {
			return nil, err
		}
	case "deny":
		if _, err := object(v, "deny validator", []string{"kind", "patterns"},
			[]string{"flags", "delta", "maxWidth", "dialect", "phases"}); err != nil {
			return nil, err
		}
		if err := spec.readDeny(m); err != nil {
			return nil, err
		}
	default:
		return nil, invalid("unknown validator kind %q", kind)
	}
	spec.keep = map[string]bool{PhaseInput: true, PhaseOutput: true, PhaseDelta: true}
	if raw, ok := m["phases"]; ok {
		list, ok := raw.([]any)
		if !ok {
			return nil, invalid("phases must be an array")
		}
		spec.keep = map[string]bool{}
		for _, item := range list {
			ph, ok := item.(string)
			if !ok || (ph != PhaseInput && ph != PhaseOutput && ph != PhaseDelta) {
				return nil, invalid("phases lists input, output or delta")
			}
			spec.keep[ph] = true
		}
	}
	if raw, ok := m["delta"]; ok {
		withDelta, err := boolean(raw, "delta")
		if err != nil {
			return nil, err
		}
		if !withDelta {
			spec.keep[PhaseDelta] = false // "delta": false drops the delta form
		}
	}
	return spec, nil
}

// readDeny reads a deny validator's members ({#validators.deny}).
func (spec *validatorSpec) readDeny(m map[string]any) error {
	if raw, ok := m["dialect"]; ok {
		d, ok := raw.(string)
		switch {
		case !ok:
			return invalid("dialect must be a string")
		case d == "python-re":
			return &protocol.Skip{Reason: "patterns.python-re is not implemented (no Python re)"}
		default: // only "python-re" is listed (§4.5); portable-1 is spelled by its absence
			return invalid("unknown dialect %q", d)
		}
	}
	if raw, ok := m["flags"]; ok {
		list, ok := raw.([]any)
		if !ok {
			return invalid("flags must be an array")
		}
		for _, item := range list {
			switch item {
			case "IGNORECASE":
				spec.flags.IgnoreCase = true
			case "MULTILINE", "DOTALL": // they change nothing ({#patterns.flags})
			default:
				return invalid("flags lists IGNORECASE, MULTILINE or DOTALL")
			}
		}
	}
	if raw, ok := m["maxWidth"]; ok && raw != nil { // null reads as absent
		n, err := integer(raw, "maxWidth")
		if err != nil {
			return err
		}
		if n <= 0 {
			return invalid("maxWidth must be a positive integer")
		}
		spec.maxWidth = clampInt(n)
	}
	switch p := m["patterns"].(type) {
	case map[string]any: // rules tried in name order
		for _, name := range sortedKeys(p) {
			spec.rules = append(spec.rules, denyEntry{name, p[name]})
		}
	case []any: // rules tried in list order, each named by its regex
		for _, item := range p {
			name, _ := item.(string)
			spec.rules = append(spec.rules, denyEntry{name, item})
		}
	default:
		return invalid("patterns must be an object or an array")
	}
	return nil
}

// build compiles the validator.
func (spec *validatorSpec) build() (*Validator, error) {
	var val *Validator
	if spec.kind == "pii" {
		val = PIIValidator()
	} else {
		var err error
		val, err = denyPatterns(spec.rules, spec.flags, spec.maxWidth)
		if pe, ok := err.(*patternError); ok {
			return nil, pe.protocolError()
		}
		if err != nil {
			return nil, err
		}
	}
	val.keepPhases(spec.keep)
	return val, nil
}

// parseValidator reads and builds one validator.
func parseValidator(v any) (*Validator, error) {
	spec, err := readValidator(v)
	if err != nil {
		return nil, err
	}
	return spec.build()
}

// parseValidators reads and builds an array of validators, one after the other.
func parseValidators(raw any) ([]*Validator, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, invalid("validators must be an array")
	}
	out := make([]*Validator, 0, len(list))
	for _, item := range list {
		v, err := parseValidator(item)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// violationResult turns a safety violation into a vector result, keeping the members
// listed (the validator's violation details, never the matched text).
func violationResult(err error, members ...string) (any, error) {
	if err == nil {
		return map[string]any{"ok": true}, nil
	}
	e, ok := err.(*protocol.Error)
	if !ok || e.Code != codeSafetyViolation {
		return nil, err
	}
	out := map[string]any{"ok": false, "code": e.Code}
	for _, k := range members {
		if v, ok := e.Details[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

// validators.check_output: {"validator", "text"} → {"ok": true} or {"ok": false, code,
// validator, rule, span}.
func checkOutputVector(input any) (any, error) {
	in, err := object(input, "input", []string{"validator", "text"}, nil)
	if err != nil {
		return nil, err
	}
	v, err := parseValidator(in["validator"])
	if err != nil {
		return nil, err
	}
	text, ok := in["text"].(string)
	if !ok {
		return nil, invalid("text must be a string")
	}
	return violationResult(v.CheckOutput(text), "validator", "rule", "span")
}

// validators.check: {"validator", "phase", "value"} → the form of that phase on the value.
func checkVector(input any) (any, error) {
	in, err := object(input, "input", []string{"validator", "phase", "value"}, nil)
	if err != nil {
		return nil, err
	}
	v, err := parseValidator(in["validator"])
	if err != nil {
		return nil, err
	}
	phase, _ := in["phase"].(string)
	var value any
	switch phase {
	case PhaseInput:
		if value, err = decodeTainted(in["value"]); err != nil {
			return nil, err
		}
	case PhaseOutput, PhaseDelta:
		text, ok := in["value"].(string)
		if !ok {
			return nil, invalid("the %s form takes a string", phase)
		}
		value = text
	default:
		return nil, invalid("phase must be input, output or delta")
	}
	var verr error
	switch phase {
	case PhaseInput:
		verr = v.CheckInput(value)
	case PhaseOutput:
		verr = v.CheckOutput(value.(string))
	default:
		verr = v.CheckDelta(value.(string))
	}
	return violationResult(verr, "validator", "phase", "rule", "span", "path")
}

// guard is what guards.run and guards.steps drive: a chain, or a hold-back guard.
type guard interface {
	Feed(delta string) (released string, sv *Sever, repeated bool, err error)
	Flush() (string, *Sever, bool, error)
	Reset()
}

// chainGuard adapts a GuardChain: an accepted delta is delivered whole.
type chainGuard struct{ *GuardChain }

func (c chainGuard) Feed(delta string) (string, *Sever, bool, error) {
	sv, repeated, err := c.Check(delta)
	return delta, sv, repeated, err
}

func (c chainGuard) Flush() (string, *Sever, bool, error) {
	return "", nil, false, invalid("flush needs hold-back")
}

// guardConfig is the guards' members shared by guards.run and guards.steps.
type guardConfig struct {
	validators []*Validator
	window     int
	holdBack   bool
	maxTokens  *int64
}

// readGuardConfig reads validators (compiling their patterns), window, holdBack and
// maxTokens, in that order. The text does not order the refusals of an input with several
// problems; this is the reference's order (notes/governance.md, Part C).
func readGuardConfig(in map[string]any) (*guardConfig, error) {
	c := &guardConfig{window: DefaultWindow}
	if raw, ok := in["validators"]; ok {
		var err error
		if c.validators, err = parseValidators(raw); err != nil {
			return nil, err
		}
	}
	if raw, ok := in["window"]; ok {
		n, err := integer(raw, "window")
		if err != nil {
			return nil, err
		}
		if n < 1 {
			// Not in the text; guards.delta/window-zero refuses a window of 0.
			return nil, invalid("window must be a positive integer")
		}
		c.window = clampInt(n)
	}
	var err error
	if c.holdBack, err = readHoldBack(in); err != nil {
		return nil, err
	}
	if raw, ok := in["maxTokens"]; ok && raw != nil { // null reads as absent
		n, err := integer(raw, "maxTokens")
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, invalid("maxTokens must be >= 0")
		}
		c.maxTokens = &n
	}
	return c, nil
}

func readHoldBack(in map[string]any) (bool, error) {
	raw, ok := in["holdBack"]
	if !ok {
		return false, nil
	}
	return boolean(raw, "holdBack")
}

// buildGuard builds GuardChain([RunningTextGuard(validators, window), budget]) or
// HoldBackGuard(validators, window, after=[budget]) (§4.5, guards.run); the budget only
// when maxTokens is given.
func (c *guardConfig) buildGuard() (guard, error) {
	var after []stager
	if c.maxTokens != nil {
		budget, err := NewTokenBudget(*c.maxTokens)
		if err != nil {
			return nil, err
		}
		after = append(after, budget)
	}
	if c.holdBack {
		return NewHoldBackGuard(c.validators, c.window, after...)
	}
	rtg, err := NewRunningTextGuard(c.validators, c.window)
	if err != nil {
		return nil, err
	}
	return chainGuard{NewGuardChain(append([]stager{rtg}, after...)...)}, nil
}

// rulePtr is a sever's rule as JSON: null for the budget.
func rulePtr(r *string) any {
	if r == nil {
		return nil
	}
	return *r
}

// guards.run: {"validators"?, "window"?, "deltas", "holdBack"?, "maxTokens"?} →
// {delivered, flushed, severedAt, code, rule}.
func runVector(input any) (any, error) {
	// "validators" is listed as required by §4.5, but the guards.budget cases omit it:
	// optional, default [] (as in guards.steps).
	in, err := object(input, "input", []string{"deltas"},
		[]string{"validators", "window", "holdBack", "maxTokens"})
	if err != nil {
		return nil, err
	}
	deltas, err := stringList(in["deltas"], "deltas")
	if err != nil {
		return nil, err
	}
	cfg, err := readGuardConfig(in)
	if err != nil {
		return nil, err
	}
	g, err := cfg.buildGuard()
	if err != nil {
		return nil, err
	}
	delivered := []string{}
	result := map[string]any{"flushed": nil, "severedAt": nil, "code": nil, "rule": nil}
	for i, d := range deltas {
		piece, sv, _, err := g.Feed(d)
		if err != nil {
			return nil, err
		}
		if sv != nil {
			result["severedAt"], result["code"], result["rule"] = i, sv.Code, rulePtr(sv.Rule)
			result["delivered"] = delivered
			return result, nil
		}
		delivered = append(delivered, piece)
	}
	result["delivered"] = delivered
	if cfg.holdBack {
		rest, _, _, err := g.Flush()
		if err != nil {
			return nil, err
		}
		result["flushed"] = rest
	}
	return result, nil
}

func stringList(raw any, what string) ([]string, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, invalid("%s must be an array", what)
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, invalid("%s holds strings", what)
		}
		out = append(out, s)
	}
	return out, nil
}

// A step of guards.steps: a delta, {"reset": true} or, with hold-back, {"flush": true}.
type step struct {
	delta        string
	reset, flush bool
}
