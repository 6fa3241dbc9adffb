package agent

import (
	"fmt"
)

// A minimal kernel, written from spec/kernel.md, spec/journal.md 1.2-1.3 and
// conformance/INTERPRETING.md sections 5, 6 and 8, just enough to run the body instruction
// `agent_loop` (section 5a): an in-memory journal, replay by a cursor over the recorded
// commands, gates, in-doubt steps, crash injection, and the scripted world.

// kErr is an error with a stable code, raised into a body or by the runtime.
type kErr struct {
	Code    string // "" for a scripted error without a code
	Message string
	Step    bool           // a StepFailedError (a durable step's journaled failure)
	Extra   map[string]any // expected / actual of a divergence
}

func (e *kErr) Error() string { return e.Code + ": " + e.Message }

func kfail(code, format string, a ...any) *kErr {
	return &kErr{Code: code, Message: fmt.Sprintf(format, a...)}
}

// errorJSON is the {code, message} the kernel journals (kernel.step-failure).
func (e *kErr) errorJSON() map[string]any {
	m := map[string]any{"code": e.Code, "message": e.Message}
	for k, v := range e.Extra {
		m[k] = v
	}
	return m
}

type event struct {
	Kind    string
	Payload map[string]any
}

func (e event) json() map[string]any { return map[string]any{"kind": e.Kind, "payload": e.Payload} }

// --- the scripted world (INTERPRETING.md section 6): invocation counts belong to the case.

type scriptedEffect struct {
	idempotent bool
	modes      map[string]bool // nil: both
	script     []any
	n          int
	builtin    func(rt *runtime, input any) (any, *kErr) // the agent_step effect
}

type scriptedDecider struct {
	script []any
	n      int
}

type world struct {
	effects  map[string]*scriptedEffect
	deciders map[string]*scriptedDecider
}

func nextEntry(script []any, n *int) map[string]any {
	if len(script) == 0 {
		return map[string]any{}
	}
	i := *n
	if i >= len(script) {
		i = len(script) - 1
	}
	*n++
	m, _ := script[i].(map[string]any)
	return m
}

// raiseEntry is a script's {"raise": {code?, message}}: without a code it is a plain
// exception (in Python an Exception).
func raiseEntry(r any) *kErr {
	m, _ := r.(map[string]any)
	msg, _ := m["message"].(string)
	if code, ok := m["code"].(string); ok {
		return &kErr{Code: code, Message: msg}
	}
	return &kErr{Code: "", Message: msg}
}

// --- signals that unwind a drive

type parkSignal struct{ result map[string]any } // suspended, in doubt, or a replay that stopped
type crashSignal struct{}
type divergeSignal struct{ err *kErr }

// runtime is one action's fresh runtime over the shared store and world.
type runtime struct {
	store        *[]event
	world        *world
	wf           *workflow
	execID       string
	trace        []any
	warnings     []string
	appends      int
	crashAfter   int
	crashTorn    bool
	alwaysReplay bool
	torn         *bool // the stored journal ends in a torn line
	readOnly     bool
}

func (rt *runtime) events() []event { return *rt.store }

func (rt *runtime) append(kind string, payload map[string]any) {
	if rt.readOnly {
		panic("append during a read-only replay")
	}
	ev := event{kind, payload}
	if rt.crashTorn && rt.crashAfter > 0 && rt.appends+1 == rt.crashAfter {
		// A torn write: a strict prefix of the line, without its newline, and then the
		// crash (journal.crash-model); the append never returned, so it is not traced.
		*rt.torn = true
		panic(crashSignal{})
	}
	*rt.store = append(*rt.store, ev)
	rt.trace = append(rt.trace, map[string]any{"event": ev.json()})
	rt.appends++
	if rt.crashAfter > 0 && rt.appends == rt.crashAfter {
		panic(crashSignal{})
	}
	if rt.alwaysReplay {
		switch kind {
		case "STEP_COMPLETED", "STEP_FAILED", "DECISION_RECORDED", "STREAM_APPENDED", "EXECUTION_RESUMED":
			rt.replayCheck()
		}
	}
}

// replayCheck is options.alwaysReplay (INTERPRETING.md section 8): a read-only replay of the
// journal after the append; one that raises, calls an effect or runs a decider is reported
// as conformance.always-replay-diverged. What it does is not traced.
func (rt *runtime) replayCheck() {
	r := &runtime{store: rt.store, world: rt.world, wf: rt.wf, execID: rt.execID, torn: rt.torn, readOnly: true}
	obs := runDrive(r)
	diverged := has(obs, "raised")
	for _, t := range r.trace {
		if m, ok := t.(map[string]any); ok && (has(m, "call") || has(m, "transient") || has(m, "decider")) {
			diverged = true
		}
	}
	if diverged {
		rt.warn("conformance.always-replay-diverged")
	}
}

func (rt *runtime) warn(code string) { rt.warnings = append(rt.warnings, code) }

// invoke calls a tool of the world, durable (with its step id and key) or transient.
func (rt *runtime) invoke(tool string, input any, durable bool, stepID, key string) (any, *kErr) {
	eff, ok := rt.world.effects[tool]
	if !ok {
		return nil, kfail("effect.unknown-tool", "no effect is registered for %q", tool)
	}
	mode := "transient"
	if durable {
		mode = "durable"
	}
	if eff.modes != nil && !eff.modes[mode] {
		return nil, kfail("effect.mode-refused", "%s does not allow the %s mode", tool, mode)
	}
	if durable {
		rt.trace = append(rt.trace, map[string]any{"call": map[string]any{"tool": tool, "stepId": stepID,
			"idempotencyKey": key, "input": input}})
	} else {
		rt.trace = append(rt.trace, map[string]any{"transient": map[string]any{"tool": tool, "input": input}})
	}
	if rt.readOnly {
		return nil, kfail("conformance.replay-called", "replay called %s", tool)
	}
	if eff.builtin != nil {
		return eff.builtin(rt, input)
	}
	entry := nextEntry(eff.script, &eff.n)
	switch {
	case has(entry, "return"):
		return entry["return"], nil
	case has(entry, "raise"):
		return nil, raiseEntry(entry["raise"])
	case has(entry, "echo"):
		return input, nil
	case has(entry, "attempt"):
		return int64(1), nil
	}
	return nil, kfail("conformance.bad-case-file", "effect %s has no usable script entry", tool)
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// stepFailure is how the kernel journals an effect's exception (kernel.step-failure): a
// LoomError keeps its code; any other gets effect.failed and `<TypeName>: <text>`.
func stepFailure(e *kErr) *kErr {
	if e.Code == "" {
		return &kErr{Code: "effect.failed", Message: "Exception: " + e.Message, Step: true}
	}
	return &kErr{Code: e.Code, Message: e.Message, Step: true}
}

// --- the fold (journal.fold): the status an execution's events give.

type folded struct {
	started       bool
	status        string
	waitingOn     string
	pendingResume bool
	inDoubtStep   string
	output        any
	err           map[string]any
	gateSchema    map[string]any // gate id -> its journaled resumeSchema
	suspendedGate map[string]bool
}

func fold(evs []event) folded {
	f := folded{status: "not-started", gateSchema: map[string]any{}, suspendedGate: map[string]bool{}}
	for _, e := range evs {
		p := e.Payload
		switch e.Kind {
		case "EXECUTION_STARTED":
			f.started, f.status = true, "running"
		case "STEP_IN_DOUBT":
			f.status, f.inDoubtStep = "in-doubt", str(p["stepId"])
		case "STEP_COMPLETED", "STEP_FAILED":
			if f.status == "in-doubt" {
				f.status, f.inDoubtStep = "running", ""
			}
		case "EXECUTION_SUSPENDED":
			f.status, f.waitingOn, f.pendingResume = "suspended", str(p["gateId"]), false
			if s, ok := p["resumeSchema"]; ok {
				f.gateSchema[str(p["gateId"])] = s
			}
		case "RESUME_RECEIVED":
			f.pendingResume = true
		case "EXECUTION_RESUMED":
			f.status, f.waitingOn, f.pendingResume = "running", "", false
		case "EXECUTION_COMPLETED":
			f.status, f.output = "completed", p["output"]
		case "EXECUTION_FAILED":
			f.status = "failed"
			f.err, _ = p["error"].(map[string]any)
		}
	}
	return f
}

func str(v any) string { s, _ := v.(string); return s }

// resultOf is the ExecutionResult of a folded history.
func (f folded) result() map[string]any {
	r := map[string]any{"status": f.status}
	switch f.status {
	case "completed":
		r["output"] = f.output
	case "failed":
		r["error"] = f.err
	case "suspended":
		r["waitingOn"] = f.waitingOn
	case "in-doubt":
		r["inDoubtStep"] = f.inDoubtStep
	}
	return r
}

// --- a drive: the body run from its start against the journal (kernel.replay-serve).

type drive struct {
	rt       *runtime
	cmds     []int // positions of the recorded commands
	cursor   int
	ids      map[string]bool
	counters map[string]int
	vars     map[string]any
	input    any
}

func isCommand(kind string) bool {
	switch kind {
	case "STEP_STARTED", "DECISION_RECORDED", "STREAM_APPENDED", "EXECUTION_SUSPENDED":
		return true
	}
	return false
}

func newDrive(rt *runtime) *drive {
	d := &drive{rt: rt, ids: map[string]bool{}, counters: map[string]int{}, vars: map[string]any{}}
	for i, e := range rt.events() {
		if isCommand(e.Kind) {
			d.cmds = append(d.cmds, i)
		}
		if e.Kind == "EXECUTION_STARTED" {
			d.input = e.Payload["input"]
		}
	}
	return d
}

func commandOf(e event) (kind, id, tool string) {
	switch e.Kind {
	case "STEP_STARTED":
		return "execute", str(e.Payload["stepId"]), str(e.Payload["toolId"])
	case "DECISION_RECORDED":
		return "decide", str(e.Payload["decisionId"]), ""
	case "STREAM_APPENDED":
		return "stream", str(e.Payload["streamId"]), ""
	default:
		return "suspend", str(e.Payload["gateId"]), ""
	}
}

// recorded returns the next recorded command if the body's command matches it; it diverges
// otherwise (kernel.replay-compare); ok is false when the history has no more commands.
func (d *drive) recorded(kind, id, tool string) (int, bool) {
	if d.cursor >= len(d.cmds) {
		return 0, false
	}
	pos := d.cmds[d.cursor]
	ek, eid, etool := commandOf(d.rt.events()[pos])
	if ek != kind || eid != id || (kind == "execute" && etool != tool) {
		d.diverge(map[string]any{"seq": pos + 1, "command": ek, "id": eid, "toolId": nilIfEmpty(etool)},
			map[string]any{"command": kind, "id": id, "toolId": nilIfEmpty(tool)})
	}
	d.cursor++
	return pos, true
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (d *drive) diverge(expected, actual any) {
	err := &kErr{Code: "kernel.nondeterminism", Message: "the body diverged from its journal",
		Extra: map[string]any{"expected": expected, "actual": actual}}
	if !d.rt.readOnly {
		d.rt.append("EXECUTION_FAILED", map[string]any{"error": err.errorJSON()})
	}
	panic(divergeSignal{err})
}

// claim registers a command id (kernel.ids, kernel.duplicate-id).
func (d *drive) claim(id string) *kErr {
	if id == "" {
		return kfail("argument.id", "a command id must be a non-empty string")
	}
	if d.ids[id] {
		return kfail("kernel.duplicate-id", "the id %q is used twice", id)
	}
	d.ids[id] = true
	return nil
}

// stopReplay ends a read-only drive where the history ends.
func (d *drive) stopReplay() {
	panic(parkSignal{fold(d.rt.events()).result()})
}

// Execute is ctx.execute: a durable step (kernel.step-identity, replay-serve, in-doubt).
func (d *drive) Execute(tool string, input any, stepID string) (any, error) {
	if tool == "" {
		return nil, kfail("argument.id", "a tool id must be a non-empty string")
	}
	if stepID == "" {
		d.counters[tool]++
		stepID = fmt.Sprintf("%s#%d", tool, d.counters[tool])
	}
	if err := d.claim(stepID); err != nil {
		return nil, err
	}
	key := d.rt.execID + "/" + stepID
	if pos, ok := d.recorded("execute", stepID, tool); ok {
		evs := d.rt.events()
		for _, e := range evs[pos+1:] {
			if str(e.Payload["stepId"]) != stepID {
				continue
			}
			switch e.Kind {
			case "STEP_COMPLETED":
				return e.Payload["output"], nil
			case "STEP_FAILED":
				em, _ := e.Payload["error"].(map[string]any)
				return nil, &kErr{Code: str(em["code"]), Message: str(em["message"]), Step: true}
			}
		}
		if d.rt.readOnly {
			d.stopReplay()
		}
		// A started step with no outcome (kernel.in-doubt).
		if eff := d.rt.world.effects[tool]; eff != nil && eff.idempotent {
			return d.run(tool, evs[pos].Payload["input"], stepID, key)
		}
		d.rt.append("STEP_IN_DOUBT", map[string]any{"stepId": stepID})
		d.rt.warn("kernel.in-doubt")
		panic(parkSignal{map[string]any{"status": "in-doubt", "inDoubtStep": stepID}})
	}
	if d.rt.readOnly {
		d.stopReplay()
	}
	d.rt.append("STEP_STARTED", map[string]any{"stepId": stepID, "toolId": tool, "input": input, "idempotencyKey": key})
	return d.run(tool, input, stepID, key)
}

func (d *drive) run(tool string, input any, stepID, key string) (any, error) {
	out, err := d.rt.invoke(tool, input, true, stepID, key)
	if err != nil {
		f := stepFailure(err)
		d.rt.append("STEP_FAILED", map[string]any{"stepId": stepID, "error": map[string]any{"code": f.Code, "message": f.Message}})
		return nil, f
	}
	d.rt.append("STEP_COMPLETED", map[string]any{"stepId": stepID, "output": out})
	return out, nil
}

// Decide is ctx.decide: a recorded decision is served and its decider does not run; a
// decider that raises records nothing (kernel.decider-throws).
func (d *drive) Decide(id string, decider deciderFunc, context, alternatives any) (any, error) {
	if err := d.claim(id); err != nil {
		return nil, err
	}
	if pos, ok := d.recorded("decide", id, ""); ok {
		return d.rt.events()[pos].Payload["choice"], nil
	}
	if d.rt.readOnly && fold(d.rt.events()).status != "failed" {
		d.stopReplay()
	}
	d.rt.trace = append(d.rt.trace, map[string]any{"decider": map[string]any{"decisionId": id}})
	choice, policy, err := decider(d.rt)
	if err != nil {
		return nil, err
	}
	if d.rt.readOnly {
		d.stopReplay()
	}
	p := map[string]any{"decisionId": id, "choice": choice}
	if context != nil {
		p["context"] = context
	}
	if alternatives != nil {
		p["alternatives"] = alternatives
	}
	if policy != nil {
		p["policy"] = policy
	}
	d.rt.append("DECISION_RECORDED", p)
	return choice, nil
}

// Suspend is ctx.suspend: a gate with a journaled resume returns its payload; otherwise
// the execution parks on it.
func (d *drive) Suspend(gate, on, correlationKey string, schema any) (any, error) {
	if err := d.claim(gate); err != nil {
		return nil, err
	}
	if pos, ok := d.recorded("suspend", gate, ""); ok {
		for _, e := range d.rt.events()[pos+1:] {
			if e.Kind == "RESUME_RECEIVED" && str(e.Payload["gateId"]) == gate {
				return e.Payload["payload"], nil
			}
		}
		panic(parkSignal{map[string]any{"status": "suspended", "waitingOn": gate}})
	}
	if d.rt.readOnly {
		d.stopReplay()
	}
	p := map[string]any{"gateId": gate, "on": on, "correlationKey": correlationKey}
	if schema != nil {
		p["resumeSchema"] = schema
	}
	d.rt.append("EXECUTION_SUSPENDED", p)
	panic(parkSignal{map[string]any{"status": "suspended", "waitingOn": gate}})
}
