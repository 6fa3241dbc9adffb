package agent

import (
	"fmt"
	"sort"

	"loomref/adapters/go/protocol"
)

// Scenario runs a scenario case whose body uses `agent_loop` (INTERPRETING.md sections 5,
// 5a, 6): each action on a fresh runtime over one in-memory store and the case's world.

type workflow struct {
	name          string
	body          []any
	resumeSchemas map[string]any
}

func parseWorkflow(v any) (*workflow, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("workflow is not an object")
	}
	wf := &workflow{name: str(m["name"]), resumeSchemas: map[string]any{}}
	wf.body, ok = m["body"].([]any)
	if !ok {
		return nil, fmt.Errorf("workflow body is not a list")
	}
	if rs, ok := m["resumeSchemas"].(map[string]any); ok {
		wf.resumeSchemas = rs
	}
	return wf, nil
}

func parseWorld(c map[string]any) *world {
	w := &world{effects: map[string]*scriptedEffect{}, deciders: map[string]*scriptedDecider{}}
	if effs, ok := c["effects"].(map[string]any); ok {
		for tool, v := range effs {
			m, _ := v.(map[string]any)
			e := &scriptedEffect{}
			e.idempotent, _ = m["idempotent"].(bool)
			e.script, _ = m["script"].([]any)
			if modes, ok := m["modes"].([]any); ok {
				e.modes = map[string]bool{}
				for _, md := range modes {
					e.modes[str(md)] = true
				}
			}
			w.effects[tool] = e
		}
	}
	if decs, ok := c["deciders"].(map[string]any); ok {
		for name, v := range decs {
			m, _ := v.(map[string]any)
			d := &scriptedDecider{}
			d.script, _ = m["script"].([]any)
			w.deciders[name] = d
		}
	}
	return w
}

// RunScenario is the protocol's scenario handler.
func RunScenario(c map[string]any) (any, error) {
	wf, err := parseWorkflow(c["workflow"])
	if err != nil {
		return nil, err
	}
	alwaysReplay := false
	if opts, ok := c["options"].(map[string]any); ok {
		for k, v := range opts {
			if k != "alwaysReplay" {
				return nil, &protocol.Skip{Reason: "option not supported: " + k}
			}
			alwaysReplay = v == true
		}
	}
	var unsupported error
	walkBody(wf.body, func(ins map[string]any) {
		switch str(ins["op"]) {
		case "agent_loop", "execute", "try", "return", "set", "raise":
		default:
			// Only the instructions the agent cases use are interpreted; any other case is
			// an unsupported construct (INTERPRETING.md section 4: errored).
			if unsupported == nil {
				unsupported = fmt.Errorf("unsupported body instruction %v", ins["op"])
			}
		}
	})
	if unsupported != nil {
		return nil, unsupported
	}
	if err := opaqueCaseCheck(wf); err != nil {
		return nil, err
	}
	w := parseWorld(c)
	installAgentStep(w, wf)
	execID := "e1"
	if s, ok := c["executionId"].(string); ok {
		execID = s
	}
	var store []event
	torn := false
	exists := false
	actions, _ := c["actions"].([]any)
	obs := []any{}
	for _, a := range actions {
		am, _ := a.(map[string]any)
		rt := &runtime{store: &store, world: w, wf: wf, execID: execID, torn: &torn, alwaysReplay: alwaysReplay}
		if torn {
			// Opening the journal finds the torn tail, warns and drops it (journal.torn-tail).
			rt.warn("journal.torn-tail")
			torn = false
		}
		if cr, ok := am["crash"].(map[string]any); ok {
			rt.crashTorn = cr["torn"] == true
			k, _ := asInt(cr["afterEvent"])
			rt.crashAfter = int(k)
		}
		o := runAction(rt, am, &exists)
		o["trace"] = nonNil(rt.trace)
		o["warnings"] = stringsAny(rt.warnings)
		obs = append(obs, o)
	}
	var journal any
	if exists {
		evs := []any{}
		for _, e := range store {
			evs = append(evs, e.json())
		}
		journal = map[string]any{"events": evs, "tornTail": torn}
	}
	return map[string]any{"actions": obs, "journal": journal}, nil
}

func stringsAny(s []string) []any {
	out := []any{}
	for _, x := range s {
		out = append(out, x)
	}
	return out
}

func raised(e *kErr) map[string]any {
	return map[string]any{"raised": map[string]any{"code": e.Code, "message": e.Message}}
}

// runAction runs one action and returns its observation (without trace and warnings).
func runAction(rt *runtime, a map[string]any, exists *bool) (obs map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crashSignal); ok {
				obs = map[string]any{"crashed": true}
				return
			}
			panic(r)
		}
	}()
	f := fold(rt.events())
	switch str(a["do"]) {
	case "start":
		if w, ok := a["workflow"]; ok {
			wf, err := parseWorkflow(w)
			if err == nil {
				rt.wf = wf
			}
		}
		if f.started {
			return raised(kfail("kernel.execution-exists", "execution %s exists", rt.execID))
		}
		*exists = true
		rt.append("EXECUTION_STARTED", map[string]any{"executionId": rt.execID, "workflow": rt.wf.name, "input": a["input"]})
		return runDrive(rt)
	case "resume":
		if !f.started {
			return raised(kfail("kernel.not-started", "execution %s has not started", rt.execID))
		}
		gate := str(a["gate"])
		if f.status != "suspended" || f.waitingOn != gate || f.pendingResume {
			return raised(kfail("kernel.gate-not-waiting", "the execution is not waiting on %q", gate))
		}
		payload := a["payload"]
		var problems []schemaProblem
		if s, ok := f.gateSchema[gate]; ok { // the gate's own schema first (kernel.schema-problems)
			problems = append(problems, validateSchema(s, payload, "")...)
		}
		if s, ok := rt.wf.resumeSchemas[gate]; ok {
			problems = append(problems, validateSchema(s, payload, "")...)
		}
		if len(problems) > 0 {
			e := kfail("kernel.invalid-resume", "the resume payload is refused")
			o := raised(e)
			texts, seen, paths := []string{}, map[string]bool{}, []string{}
			for _, p := range problems {
				texts = append(texts, p.path+": "+p.message)
				if !seen[p.path] {
					seen[p.path] = true
					paths = append(paths, p.path)
				}
			}
			sort.Strings(paths) // the distinct paths, by code point (INTERPRETING.md section 6)
			o["raised"].(map[string]any)["problems"] = stringsAny(texts)
			o["raised"].(map[string]any)["paths"] = stringsAny(paths)
			return o
		}
		rt.append("RESUME_RECEIVED", map[string]any{"gateId": gate, "payload": payload})
		rt.append("EXECUTION_RESUMED", map[string]any{"gateId": gate})
		return runDrive(rt)
	case "recover":
		if !f.started {
			return raised(kfail("kernel.not-started", "execution %s has not started", rt.execID))
		}
		switch f.status {
		case "completed", "failed", "in-doubt":
			return map[string]any{"result": f.result()}
		case "suspended":
			if !f.pendingResume {
				return map[string]any{"result": f.result()}
			}
			rt.append("EXECUTION_RESUMED", map[string]any{"gateId": f.waitingOn})
		}
		return runDrive(rt)
	case "resolve":
		step := str(a["step"])
		if f.status != "in-doubt" || f.inDoubtStep != step {
			return raised(kfail("kernel.not-in-doubt", "step %q is not in doubt", step))
		}
		switch {
		case has(a, "output"):
			rt.append("STEP_COMPLETED", map[string]any{"stepId": step, "output": a["output"]})
		case has(a, "error"):
			rt.append("STEP_FAILED", map[string]any{"stepId": step, "error": a["error"]})
		default:
			var started event
			for _, e := range rt.events() {
				if e.Kind == "STEP_STARTED" && str(e.Payload["stepId"]) == step {
					started = e
				}
			}
			tool := str(started.Payload["toolId"])
			out, err := rt.invoke(tool, started.Payload["input"], true, step, str(started.Payload["idempotencyKey"]))
			if err != nil {
				fe := stepFailure(err)
				rt.append("STEP_FAILED", map[string]any{"stepId": step, "error": map[string]any{"code": fe.Code, "message": fe.Message}})
			} else {
				rt.append("STEP_COMPLETED", map[string]any{"stepId": step, "output": out})
			}
		}
		return runDrive(rt)
	case "replay":
		if !f.started {
			return raised(kfail("kernel.not-started", "execution %s has not started", rt.execID))
		}
		rt.readOnly = true
		return runDrive(rt)
	}
	return raised(kfail("conformance.bad-case-file", "unknown action %v", a["do"]))
}

// runDrive drives the body and turns its end into the action's observation.
func runDrive(rt *runtime) (obs map[string]any) {
	d := newDrive(rt)
	defer func() {
		if r := recover(); r != nil {
			switch s := r.(type) {
			case parkSignal:
				obs = map[string]any{"result": s.result}
			case divergeSignal:
				obs = raised(s.err)
			default:
				panic(r)
			}
		}
	}()
	out, err := d.runBody(rt.wf.body)
	if d.cursor < len(d.cmds) {
		pos := d.cmds[d.cursor]
		ek, eid, etool := commandOf(rt.events()[pos])
		d.diverge(map[string]any{"seq": pos + 1, "command": ek, "id": eid, "toolId": nilIfEmpty(etool)}, nil)
	}
	if rt.readOnly {
		return map[string]any{"result": fold(rt.events()).result()}
	}
	if err != nil {
		ke, ok := err.(*kErr)
		if !ok {
			ke = kfail("kernel.body-error", "%v", err)
		}
		code := ke.Code
		if code == "" {
			code = "kernel.body-error"
		}
		ej := map[string]any{"code": code, "message": ke.Message}
		rt.append("EXECUTION_FAILED", map[string]any{"error": ej})
		return map[string]any{"result": map[string]any{"status": "failed", "error": ej}}
	}
	rt.append("EXECUTION_COMPLETED", map[string]any{"output": out})
	return map[string]any{"result": map[string]any{"status": "completed", "output": out}}
}

// walkBody calls visit on every instruction of body, those nested in a try included.
func walkBody(body []any, visit func(ins map[string]any)) {
	for _, item := range body {
		ins, _ := item.(map[string]any)
		visit(ins)
		if str(ins["op"]) == "try" {
			inner, _ := ins["body"].([]any)
			walkBody(inner, visit)
			catch, _ := ins["catch"].(map[string]any)
			handler, _ := catch["body"].([]any)
			walkBody(handler, visit)
		}
	}
}

// runBody interprets the body instructions the agent cases use (INTERPRETING.md section 5).
func (d *drive) runBody(body []any) (out any, err error) {
	out, _, err = d.block(body)
	return out, err
}

// block runs a list of instructions; returned is true when a `return` ended it.
func (d *drive) block(body []any) (out any, returned bool, err error) {
	for _, item := range body {
		ins, _ := item.(map[string]any)
		switch str(ins["op"]) {
		case "return":
			return d.eval(ins["value"]), true, nil
		case "set":
			d.vars[str(ins["var"])] = d.eval(ins["value"])
		case "raise":
			return nil, false, &kErr{Code: str(ins["code"]), Message: str(ins["message"])}
		case "execute":
			out, err := d.Execute(str(ins["tool"]), d.eval(ins["input"]), str(ins["stepId"]))
			if err != nil {
				return nil, false, err
			}
			if as, ok := ins["as"].(string); ok {
				d.vars[as] = out
			}
		case "try":
			// An error raised into the body runs the catch body with `as` bound to
			// {"code": <its code>} (null for a scripted error without one); a divergence
			// or a park unwinds the drive as a panic, so it is never caught here.
			inner, _ := ins["body"].([]any)
			out, returned, err := d.block(inner)
			ke, caught := err.(*kErr)
			if !caught {
				if err != nil || returned {
					return out, returned, err
				}
				continue
			}
			catch, _ := ins["catch"].(map[string]any)
			if as, ok := catch["as"].(string); ok {
				var code any = ke.Code
				if ke.Code == "" {
					code = nil
				}
				d.vars[as] = map[string]any{"code": code}
			}
			handler, _ := catch["body"].([]any)
			if out, returned, err := d.block(handler); err != nil || returned {
				return out, returned, err
			}
		case "agent_loop":
			cfg, _ := ins["config"].(map[string]any)
			opaque, _ := ins["opaque"].(bool)
			answer, err := agentInstruction(d, cfg, d.eval(ins["input"]), opaque)
			if err != nil {
				return nil, false, err
			}
			if as, ok := ins["as"].(string); ok {
				d.vars[as] = answer
			}
		default:
			return nil, false, kfail("conformance.bad-case-file", "instruction %v is not supported", ins["op"])
		}
	}
	return nil, false, nil
}

// eval evaluates the expressions the agent cases use: $var, $input, $get, $literal.
func (d *drive) eval(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for k, arg := range x {
				switch k {
				case "$var":
					return d.vars[str(arg)]
				case "$input":
					path, _ := arg.([]any)
					return getPath(d.input, path)
				case "$literal":
					return arg
				case "$get":
					list, _ := arg.([]any)
					if len(list) == 0 {
						return nil
					}
					return getPath(d.eval(list[0]), list[1:])
				}
			}
		}
		out := map[string]any{}
		for k, item := range x {
			out[k] = d.eval(item)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = d.eval(item)
		}
		return out
	}
	return v
}

func getPath(v any, path []any) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[str(p)]
		case []any:
			i, ok := asInt(p)
			if !ok || i < 0 || int(i) >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// opaqueCaseCheck refuses a case the body language does not define: an opaque agent_loop
// "takes no skills, recall or router" (INTERPRETING.md section 5a), so such a case is not
// interpretable (errored), as the reference answers it.
func opaqueCaseCheck(wf *workflow) error {
	var refused error
	walkBody(wf.body, func(ins map[string]any) {
		if str(ins["op"]) != "agent_loop" || ins["opaque"] != true {
			return
		}
		cfg, _ := ins["config"].(map[string]any)
		for _, k := range []string{"skills", "recall", "router"} {
			if _, ok := cfg[k]; ok {
				refused = fmt.Errorf("cannot interpret the case: an opaque agent_loop takes no skills, recall or router")
			}
		}
	})
	return refused
}
