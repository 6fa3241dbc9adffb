package kernel

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// brokenCase is a case the interpreter cannot run as written (INTERPRETING.md section 5:
// an unknown operator or an unbound variable): the reply is errored.
type brokenCase struct{ msg string }

func broken(format string, a ...any) { panic(brokenCase{fmt.Sprintf(format, a...)}) }

// world is the scenario's scripted world (INTERPRETING.md section 6): its counts belong to
// the whole case, whatever process, action, crash or recovery a call happens in.
type world struct {
	effects  map[string]map[string]any
	deciders map[string][]any
	effCount map[string]int
	decCount map[string]int
	drift    map[string]int
}

func nextEntry(script []any, counts map[string]int, name string) map[string]any {
	n := counts[name]
	counts[name] = n + 1
	if n >= len(script) {
		n = len(script) - 1
	}
	entry, ok := script[n].(map[string]any)
	if !ok {
		broken("script entry %d of %s is not an object", n, name)
	}
	return entry
}

// obs is what one action let a caller observe.
type obs struct {
	trace    []any
	warnings []string
}

func (o *obs) add(kind string, v map[string]any) { o.trace = append(o.trace, map[string]any{kind: v}) }

func scriptedRaise(v any) error {
	m, _ := v.(map[string]any)
	msg, _ := m["message"].(string)
	if code, ok := m["code"].(string); ok {
		return NewError(code, msg)
	}
	return Uncoded(msg)
}

// host builds the scripted effects as one registry, fresh for each action; a replay's
// effects fail if called, and the call shows in the trace.
func (w *world) host(o *obs, failing bool) *Registry {
	reg, _ := NewRegistry()
	for _, tool := range sortedKeys(toAnyMap(w.effects)) {
		spec := w.effects[tool]
		tool := tool
		e := &Effect{ToolID: tool}
		e.Idempotent, _ = spec["idempotent"].(bool)
		if modes, ok := spec["modes"].([]any); ok {
			for _, m := range modes {
				s, _ := m.(string)
				e.Modes = append(e.Modes, s)
			}
		}
		script, _ := spec["script"].([]any)
		if len(script) == 0 {
			broken("effect %s has no script", tool)
		}
		e.Execute = func(ctx *EffectContext, input any) (any, error) {
			if ctx.Call.Mode == "durable" {
				o.add("call", map[string]any{"tool": tool, "stepId": ctx.Call.StepID,
					"idempotencyKey": ctx.Call.IdempotencyKey, "input": input})
			} else {
				o.add("transient", map[string]any{"tool": tool, "input": input})
			}
			if failing {
				return nil, NewError("conformance.replay-called", "a read-only replay called "+tool)
			}
			entry := nextEntry(script, w.effCount, tool)
			switch {
			case has(entry, "return"):
				return entry["return"], nil
			case has(entry, "raise"):
				return nil, scriptedRaise(entry["raise"])
			case has(entry, "echo"):
				return input, nil
			case has(entry, "attempt"):
				return json.Number(strconv.Itoa(ctx.Attempt)), nil
			}
			broken("unknown effect script entry %v", entry)
			return nil, nil
		}
		if err := reg.Register(e); err != nil {
			broken("%v", err)
		}
	}
	return reg
}

// replayHost is a read-only replay's effect host (INTERPRETING.md section 6, replay): it
// takes every call, whatever the tool (registered or not, whatever its modes), traces it
// and refuses it with conformance.called-on-replay; no host refusal comes first.
type replayHost struct{ o *obs }

func (h replayHost) Invoke(call EffectCall) (any, error) {
	h.o.add("call", map[string]any{"tool": call.ToolID, "stepId": call.StepID,
		"idempotencyKey": call.IdempotencyKey, "input": call.Input})
	return nil, NewError("conformance.called-on-replay", "a read-only replay called "+call.ToolID)
}

func (h replayHost) InvokeTransientCall(call EffectCall) (any, error) {
	h.o.add("transient", map[string]any{"tool": call.ToolID, "input": call.Input})
	return nil, NewError("conformance.called-on-replay", "a read-only replay called "+call.ToolID)
}

func (h replayHost) IsIdempotent(string) bool { return false }

func toAnyMap(m map[string]map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// decider is the scripted decider `name` deciding `id`.
func (w *world) decider(o *obs, name, id string) Decider {
	script, ok := w.deciders[name]
	if !ok || len(script) == 0 {
		broken("decider %s is not scripted", name)
	}
	return func(scope *DecideScope) (Decision, error) {
		o.add("decider", map[string]any{"decisionId": id})
		entry := nextEntry(script, w.decCount, name)
		switch {
		case has(entry, "return"):
			return Decision{Choice: entry["return"]}, nil
		case has(entry, "raise"):
			return Decision{}, scriptedRaise(entry["raise"])
		case has(entry, "choice"):
			policy := map[string]any{"id": entry["policy"], "propensity": entry["propensity"]}
			return Decision{Choice: entry["choice"], Policy: policy}, nil
		case has(entry, "invokeTransient"):
			call, _ := entry["invokeTransient"].(map[string]any)
			tool, _ := call["tool"].(string)
			out, err := scope.InvokeTransient(tool, call["input"])
			return Decision{Choice: out}, err
		}
		broken("unknown decider script entry %v", entry)
		return Decision{}, nil
	}
}

// ---------------------------------------------------------------------------------------
// The body language (INTERPRETING.md section 5).

type interp struct {
	ctx   *Context
	w     *world
	o     *obs
	vars  map[string]any
	input any
}

type flow struct {
	returned bool
	value    any
}

func (w *world) body(o *obs, instrs []any) Body {
	return func(ctx *Context, input any) (any, error) {
		in := &interp{ctx: ctx, w: w, o: o, vars: map[string]any{}, input: input}
		f, err := in.block(instrs)
		if err != nil {
			return nil, err
		}
		return f.value, nil
	}
}

func (in *interp) block(instrs []any) (flow, error) {
	for _, raw := range instrs {
		ins, ok := raw.(map[string]any)
		if !ok {
			broken("an instruction is not an object: %v", raw)
		}
		f, err := in.exec(ins)
		if err != nil || f.returned {
			return f, err
		}
	}
	return flow{}, nil
}

func str(m map[string]any, k string) string {
	v, ok := m[k]
	if !ok {
		broken("%v lacks %s", m["op"], k)
	}
	s, ok := v.(string)
	if !ok {
		broken("%v: %s is not a string", m["op"], k)
	}
	return s
}

func (in *interp) evalOpt(m map[string]any, k string) any {
	v, ok := m[k]
	if !ok {
		return nil
	}
	return in.eval(v)
}

func (in *interp) bind(ins map[string]any, v any) {
	if name, ok := ins["as"].(string); ok {
		in.vars[name] = v
	}
}

func body(ins map[string]any, k string) []any {
	v, ok := ins[k]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		broken("%v: %s is not a list", ins["op"], k)
	}
	return list
}

func (in *interp) exec(ins map[string]any) (flow, error) {
	switch op, _ := ins["op"].(string); op {
	case "execute":
		tool := str(ins, "tool")
		var stepID *string
		if has(ins, "stepId") {
			s := str(ins, "stepId")
			stepID = &s
		}
		out, err := in.ctx.Execute(tool, in.evalOpt(ins, "input"), stepID)
		if err != nil {
			return flow{}, err
		}
		in.bind(ins, out)
	case "decide":
		id := str(ins, "id")
		name := id
		if has(ins, "decider") {
			name = str(ins, "decider")
		}
		out, err := in.ctx.Decide(id, in.w.decider(in.o, name, id), in.evalOpt(ins, "context"), in.evalOpt(ins, "alternatives"))
		if err != nil {
			return flow{}, err
		}
		in.bind(ins, out)
	case "suspend":
		opts := SuspendOptions{On: ins["on"], CorrelationKey: ins["correlationKey"]}
		if s, ok := ins["resumeSchema"]; ok && s != nil { // null: no schema (kernel.gate-record)
			opts.ResumeSchema, opts.HasSchema = s, true
		}
		out, err := in.ctx.Suspend(str(ins, "gate"), opts)
		if err != nil {
			return flow{}, err
		}
		in.bind(ins, out)
	case "stream":
		if err := in.ctx.Stream(in.evalOpt(ins, "data")); err != nil {
			return flow{}, err
		}
	case "set":
		in.vars[str(ins, "var")] = in.evalOpt(ins, "value")
	case "if":
		if truthy(in.eval(ins["cond"])) {
			return in.block(body(ins, "then"))
		}
		return in.block(body(ins, "else"))
	case "repeat":
		n, ok := ins["times"].(json.Number)
		times, err := strconv.Atoi(string(n))
		if !ok || err != nil || times < 0 {
			broken("repeat: times is not a count")
		}
		for i := 0; i < times; i++ {
			in.bind(ins, json.Number(strconv.Itoa(i)))
			f, err := in.block(body(ins, "body"))
			if err != nil || f.returned {
				return f, err
			}
		}
	case "try":
		f, err := in.block(body(ins, "body"))
		if err == nil || IsHalt(err) {
			return f, err
		}
		e, ok := err.(*Error)
		if !ok {
			return f, err
		}
		catch, _ := ins["catch"].(map[string]any)
		if catch == nil {
			broken("try without catch")
		}
		if name, ok := catch["as"].(string); ok {
			var code any = e.Code
			if e.Code == "" {
				code = nil
			}
			in.vars[name] = map[string]any{"code": code}
		}
		return in.block(body(catch, "body"))
	case "return":
		return flow{returned: true, value: in.evalOpt(ins, "value")}, nil
	case "raise":
		msg, _ := ins["message"].(string)
		return flow{}, NewError(str(ins, "code"), msg)
	case "yield":
		return flow{}, in.ctx.Yield(in.evalOpt(ins, "value"))
	default:
		broken("unknown instruction %q", op)
	}
	return flow{}, nil
}

// eval evaluates an expression: an object with exactly one member named `$...` is an
// operator, any other object a literal object of expressions.
func (in *interp) eval(e any) any {
	switch x := e.(type) {
	case map[string]any:
		if len(x) == 1 {
			for k, v := range x {
				if strings.HasPrefix(k, "$") {
					return in.op(k, v)
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = in.eval(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = in.eval(v)
		}
		return out
	}
	return e
}

func list(v any, op string) []any {
	l, ok := v.([]any)
	if !ok {
		broken("%s takes a list", op)
	}
	return l
}

func walk(v any, keys []any) any {
	for _, k := range keys {
		switch key := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			if v, ok = m[key]; !ok {
				return nil
			}
		case json.Number:
			l, ok := v.([]any)
			i, err := strconv.Atoi(string(key))
			if ok && err == nil && i < 0 {
				i += len(l) // a negative index counts from the end (INTERPRETING.md 5)
			}
			if !ok || err != nil || i < 0 || i >= len(l) {
				return nil
			}
			v = l[i]
		default:
			return nil
		}
	}
	return v
}

func (in *interp) op(name string, arg any) any {
	switch name {
	case "$var":
		s, _ := arg.(string)
		v, ok := in.vars[s]
		if !ok {
			broken("unbound variable %v", arg)
		}
		return v
	case "$input":
		if arg == nil {
			return in.input
		}
		return walk(in.input, in.eval(list(arg, name)).([]any))
	case "$get":
		l := in.eval(list(arg, name)).([]any)
		if len(l) == 0 {
			broken("$get of nothing")
		}
		return walk(l[0], l[1:])
	case "$eq":
		l := in.eval(list(arg, name)).([]any)
		if len(l) != 2 {
			broken("$eq takes two operands")
		}
		return jsonEqual(l[0], l[1])
	case "$not":
		return !truthy(in.eval(arg))
	case "$add":
		n, err := addNumbers(in.eval(list(arg, name)).([]any))
		if err != nil {
			broken("%v", err)
		}
		return n
	case "$concat":
		var b strings.Builder
		for _, it := range in.eval(list(arg, name)).([]any) {
			s, ok := it.(string)
			if !ok {
				broken("$concat of a non-string %v", it)
			}
			b.WriteString(s)
		}
		return b.String()
	case "$literal":
		return arg
	case "$drift":
		m, _ := arg.(map[string]any)
		dn, _ := m["name"].(string)
		values, _ := m["values"].([]any)
		if len(values) == 0 {
			broken("$drift without values")
		}
		k := in.w.drift[dn]
		in.w.drift[dn] = k + 1
		if k >= len(values) {
			k = len(values) - 1
		}
		return values[k]
	}
	broken("unknown operator %s", name)
	return nil
}

// ---------------------------------------------------------------------------------------
// Scenarios (INTERPRETING.md section 6).
