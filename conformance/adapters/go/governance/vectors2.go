package governance

// Continued from vectors.go.

import (
	"loomref/adapters/go/protocol"
)

func parseSteps(raw any, holdBack bool) ([]step, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, invalid("steps must be an array")
	}
	out := make([]step, 0, len(list))
	for _, item := range list {
		switch x := item.(type) {
		case string:
			out = append(out, step{delta: x})
		case map[string]any:
			if len(x) != 1 {
				return nil, invalid("a step object has one member")
			}
			if v, ok := x["reset"]; ok && v == true {
				out = append(out, step{reset: true})
			} else if v, ok := x["flush"]; ok && v == true && holdBack {
				out = append(out, step{flush: true})
			} else {
				return nil, invalid(`a step is a delta, {"reset": true} or, with hold-back, {"flush": true}`)
			}
		default:
			return nil, invalid("a step is a string or an object")
		}
	}
	return out, nil
}

// severOutcome is {"severed": {code, rule, deltaIndex, repeated, span}}: span is the
// sever's span in the attempt's text, null for a budget sever ({#guards.running-text}).
func severOutcome(sv *Sever, repeated bool) map[string]any {
	span, ok := sv.Details["span"]
	if !ok {
		span = nil
	}
	return map[string]any{"severed": map[string]any{"code": sv.Code, "rule": rulePtr(sv.Rule),
		"deltaIndex": sv.DeltaIndex, "repeated": repeated, "span": span}}
}

// guards.steps: the guards of guards.run driven step by step → {"outcomes": [...]}.
func stepsVector(input any) (any, error) {
	in, err := object(input, "input", []string{"steps"},
		[]string{"validators", "window", "holdBack", "maxTokens"})
	if err != nil {
		return nil, err
	}
	holdBack, err := readHoldBack(in)
	if err != nil {
		return nil, err
	}
	steps, err := parseSteps(in["steps"], holdBack)
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
	outcomes := make([]any, 0, len(steps))
	for _, s := range steps {
		var piece string
		var sv *Sever
		var repeated bool
		var err error
		switch {
		case s.reset:
			g.Reset()
			outcomes = append(outcomes, map[string]any{"reset": true})
			continue
		case s.flush:
			piece, sv, repeated, err = g.Flush()
		default:
			piece, sv, repeated, err = g.Feed(s.delta)
		}
		switch {
		case err != nil:
			e, ok := err.(*protocol.Error)
			if !ok || e.Code != codeGuardState {
				return nil, err
			}
			outcomes = append(outcomes, map[string]any{"error": map[string]any{"code": e.Code}})
		case sv != nil:
			outcomes = append(outcomes, severOutcome(sv, repeated))
		case s.flush:
			outcomes = append(outcomes, map[string]any{"flushed": piece})
		default:
			outcomes = append(outcomes, map[string]any{"delivered": piece})
		}
	}
	return map[string]any{"outcomes": outcomes}, nil
}
