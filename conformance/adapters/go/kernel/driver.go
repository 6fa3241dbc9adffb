package kernel

import (
	"fmt"
)

// halt stops a drive; no body catches it (see the package comment).
type halt struct {
	kind   int
	result *Result // haltPark
	err    error
}

const (
	haltPark    = iota // the execution parked: suspended or in doubt (result ready)
	haltEnd            // a read-only replay reached the end of the history (result ready)
	haltDiverge        // kernel.replay-compare
	haltCrash          // the process died (journal.crash-model)
	haltFatal          // an error for the caller (a journal that cannot be written, a broken case)
	haltCheck          // an always-replay check would run a decider
)

func (h *halt) Error() string {
	if h.err != nil {
		return h.err.Error()
	}
	return fmt.Sprintf("halt %d", h.kind)
}

// unhalt turns what an append returned into the error a call returns.
func unhalt(err error) error {
	if h, ok := err.(*halt); ok && h.err != nil {
		return h.err
	}
	return err
}

// record is one command as the journal holds it: a step (STEP_STARTED and its outcome),
// a decision, a gate (EXECUTION_SUSPENDED and its resume) or a stream append.
type record struct {
	command string // execute, decide, suspend, stream
	id      string
	toolID  string
	seq     int
	// a step
	input   any
	key     string
	outcome *Event
	inDoubt bool
	// a decision
	choice any
	// a gate: its resume received (RESUME_RECEIVED), and whether the execution was driven
	// again after it (EXECUTION_RESUMED)
	received bool
	resumed  bool
	payload  any
}

func buildRecords(events []Event) (records []*record, terminal *Event) {
	steps := map[string]*record{}
	var gate *record
	for i := range events {
		ev := &events[i]
		p := ev.Payload
		str := func(k string) string { s, _ := p[k].(string); return s }
		switch ev.Kind {
		case "STEP_STARTED":
			r := &record{command: "execute", id: str("stepId"), toolID: str("toolId"), seq: ev.Seq,
				input: p["input"], key: str("idempotencyKey")}
			steps[r.id] = r
			records = append(records, r)
		case "STEP_COMPLETED", "STEP_FAILED":
			if r, ok := steps[str("stepId")]; ok {
				r.outcome = ev
			}
		case "STEP_IN_DOUBT":
			if r, ok := steps[str("stepId")]; ok {
				r.inDoubt = true
			}
		case "DECISION_RECORDED":
			records = append(records, &record{command: "decide", id: str("decisionId"), seq: ev.Seq, choice: p["choice"]})
		case "STREAM_APPENDED":
			records = append(records, &record{command: "stream", id: str("streamId"), seq: ev.Seq})
		case "EXECUTION_SUSPENDED":
			gate = &record{command: "suspend", id: str("gateId"), seq: ev.Seq}
			records = append(records, gate)
		case "RESUME_RECEIVED":
			if gate != nil {
				gate.payload, gate.received = p["payload"], true
			}
		case "EXECUTION_RESUMED":
			if gate != nil {
				gate.resumed = true
			}
		case "EXECUTION_COMPLETED", "EXECUTION_FAILED":
			terminal = ev
		}
	}
	return records, terminal
}

// driver is one drive of a body against the journal (spec/kernel.md 2.3).
type driver struct {
	rt       *Runtime
	w        *writer // nil: read-only
	check    bool    // an always-replay check
	id       string
	events   []Event
	input    any
	records  []*record
	terminal *Event
	cursor   int
	retry    string // the in-doubt step a resolve retries (kernel.resolve)
	used     map[string]bool
	counters map[string]int
	streams  int
	served   []string
	ran      []string
}

func (rt *Runtime) newDriver(w *writer, events []Event, id, retry string) *driver {
	d := &driver{rt: rt, w: w, id: id, events: events, retry: retry, used: map[string]bool{},
		counters: map[string]int{}, served: []string{}, ran: []string{}}
	d.records, d.terminal = buildRecords(events)
	d.input = events[0].Payload["input"]
	return d
}

func (rt *Runtime) drive(w *writer, wf *Workflow, events []Event, id, retry string) (*Result, error) {
	d := rt.newDriver(w, events, id, retry)
	res, err := rt.run(d, wf)
	if res != nil && w != nil {
		res.Torn = w.torn
	}
	return res, err
}

// run drives the body from its start and settles what it did.
func (rt *Runtime) run(d *driver, wf *Workflow) (*Result, error) {
	input, err := roundTrip(d.input)
	if err != nil {
		return nil, err
	}
	out, berr := wf.Body(&Context{d: d}, input)
	if h, ok := berr.(*halt); ok {
		return d.settle(h)
	}
	// The body returned or raised: a divergence while recorded commands remain
	// (kernel.replay-compare).
	actual := "return"
	if berr != nil {
		actual = "raise"
	}
	if d.cursor < len(d.records) {
		return d.settle(d.diverge(d.expectedAt(), map[string]any{"command": actual, "id": nil, "toolId": nil}))
	}
	if berr == nil {
		berr = outputRefusal(out)
	}
	if d.w == nil {
		// A read-only replay reports where the history ends (kernel.replay-readonly): a
		// history without an end is running; a finished one must end as the body did:
		// another output, another error, or a return where it failed is a divergence
		// (decided by kernel.replay/readonly-other-output, readonly-other-error,
		// readonly-completes-differently; notes A9, B1).
		if d.terminal == nil {
			return d.report(&Result{Status: "running"}), nil
		}
		if !sameEnd(d.terminal, out, berr) {
			return d.settle(d.diverge(d.expectedAt(), map[string]any{"command": actual, "id": nil, "toolId": nil}))
		}
		return d.historyResult()
	}
	if berr == nil {
		if err := d.append("EXECUTION_COMPLETED", map[string]any{"output": out}); err != nil {
			return nil, unhalt(err)
		}
		o, _ := roundTrip(out)
		return d.report(&Result{Status: "completed", Output: o}), nil
	}
	// kernel.body-failure: a LoomError keeps its code, an uncaught StepFailedError carries
	// the step's error, anything else is kernel.body-error.
	ej := journalForm(berr, "kernel.body-error")
	if err := d.append("EXECUTION_FAILED", map[string]any{"error": ej}); err != nil {
		return nil, unhalt(err)
	}
	return d.report(&Result{Status: "failed", Error: ej}), nil
}

// outputRefusal is the error the writer would refuse the body's EXECUTION_COMPLETED with
// (not JSON, or past the nesting limit), or nil: such an output fails the execution with
// it, and a read-only replay meets the same refusal (kernel.unwritable-event).
func outputRefusal(out any) error {
	if err := checkJSON(out); err != nil {
		return NewError("journal.bad-payload", "the body's output is not a JSON value: "+err.Error())
	}
	_, err := eventLine(Event{Seq: 1, Kind: "EXECUTION_COMPLETED", Payload: map[string]any{"output": out}})
	if e, ok := err.(*Error); ok && e.Code == "journal.bad-payload" {
		return e
	}
	return nil
}

func (d *driver) settle(h *halt) (*Result, error) {
	switch h.kind {
	case haltPark, haltEnd:
		return d.report(h.result), nil
	case haltDiverge:
		// The runtime never continues past a divergence; writing, it journals
		// EXECUTION_FAILED with that error first (kernel.replay-compare).
		if d.w != nil {
			e := h.err.(*Error)
			if err := d.append("EXECUTION_FAILED", map[string]any{"error": e.Fields()}); err != nil {
				return nil, unhalt(err)
			}
		}
		return nil, h.err
	case haltCheck:
		return nil, NewError("conformance.always-replay-diverged", "the replay would run a decider")
	}
	return nil, h.err
}

// running is where a read-only replay stops at a command the history does not hold yet:
// the history ends running (notes A9, A24: what the reference reports).
func running() *halt {
	return &halt{kind: haltEnd, result: &Result{Status: "running"}}
}

// historyResult is the result of a finished history: the fold of the journal.
func (d *driver) historyResult() (*Result, error) {
	st, err := Fold(d.events)
	if err != nil {
		return nil, err
	}
	res, err := stateResult(st)
	if err != nil {
		return nil, err
	}
	return d.report(res), nil
}

func (d *driver) report(res *Result) *Result {
	res.Served, res.Ran = d.served, d.ran
	return res
}

// append writes an event; any failure stops the drive (a crash stays a crash).
func (d *driver) append(kind string, payload map[string]any) error {
	err := d.w.append(kind, payload)
	if err == nil {
		return nil
	}
	if h, ok := err.(*halt); ok {
		return h
	}
	if e, ok := err.(*Error); ok && e.Code == "journal.bad-payload" {
		// kernel.unwritable-event: a command's event the writer refuses is raised into the
		// body, nothing written for it
		return e
	}
	return &halt{kind: haltFatal, err: err}
}

func expectedOf(r *record) map[string]any {
	e := map[string]any{"seq": r.seq, "command": r.command, "id": r.id, "toolId": nil}
	if r.command == "execute" {
		e["toolId"] = r.toolID
	}
	return e
}

// expectedAt is what the journal holds at the cursor: a command, or the execution's end
// (notes A8).
func (d *driver) expectedAt() map[string]any {
	if d.cursor < len(d.records) {
		return expectedOf(d.records[d.cursor])
	}
	if d.terminal != nil {
		cmd := "return"
		if d.terminal.Kind == "EXECUTION_FAILED" {
			cmd = "raise"
		}
		return map[string]any{"seq": d.terminal.Seq, "command": cmd, "id": nil, "toolId": nil}
	}
	return nil
}

func (d *driver) diverge(expected, actual map[string]any) *halt {
	msg := fmt.Sprintf("non-determinism: the journal holds %v %v at seq %v, the body did %v %v",
		expected["command"], orNone(expected["id"]), expected["seq"], actual["command"], orNone(actual["id"]))
	return &halt{kind: haltDiverge, err: NewError("kernel.nondeterminism", msg, "expected", expected, "actual", actual)}
}

func orNone(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// use claims an id for this execution (kernel.duplicate-id).
func (d *driver) use(id string) error {
	if d.used[id] {
		return NewError("kernel.duplicate-id", "id "+id+" is used twice in this execution", "id", id)
	}
	d.used[id] = true
	return nil
}

func badID(what string) error {
	return NewError("argument.id", what+" is not a non-empty string")
}

// invoke runs a durable step's effect and journals its outcome (kernel.step-failure).
func (d *driver) invoke(stepID, toolID string, input any, key string) (any, error) {
	d.ran = append(d.ran, stepID)
	out, err := d.rt.Host.Invoke(EffectCall{ToolID: toolID, Input: input, Mode: "durable",
		Principal: d.id, ExecutionID: d.id, StepID: stepID, IdempotencyKey: key})
	if err == nil {
		if jerr := checkJSON(out); jerr != nil {
			err = NewError("journal.bad-payload", "the effect's output is not a JSON value: "+jerr.Error())
		}
	}
	if err != nil {
		ej := journalForm(err, "effect.failed")
		if aerr := d.append("STEP_FAILED", map[string]any{"stepId": stepID, "error": ej}); aerr != nil {
			return nil, aerr
		}
		return nil, stepFailed(ej)
	}
	if aerr := d.append("STEP_COMPLETED", map[string]any{"stepId": stepID, "output": out}); aerr != nil {
		return nil, aerr
	}
	return roundTrip(out)
}

func stepFailed(ej map[string]any) *Error {
	code, _ := ej["code"].(string)
	msg, _ := ej["message"].(string)
	return &Error{Code: code, Message: msg, Step: true}
}

// Context is what a body issues its commands through (kernel.commands).
type Context struct{ d *driver }

// ExecutionID is the execution's id.
func (c *Context) ExecutionID() string { return c.d.id }

// Execute is ctx.execute: a durable step (kernel.step-identity, kernel.idempotency-key,
// kernel.replay-serve, kernel.in-doubt). stepID nil derives `<tool>#<n>`.
func (c *Context) Execute(tool string, input any, stepID *string) (any, error) {
	d := c.d
	if tool == "" {
		return nil, badID("a tool id")
	}
	var id string
	if stepID != nil {
		if *stepID == "" {
			return nil, badID("a step id")
		}
		id = *stepID
	} else {
		d.counters[tool]++
		id = fmt.Sprintf("%s#%d", tool, d.counters[tool])
	}
	if err := d.use(id); err != nil {
		return nil, err
	}
	actual := map[string]any{"command": "execute", "id": id, "toolId": tool}
	if d.cursor < len(d.records) {
		r := d.records[d.cursor]
		if r.command != "execute" || r.id != id || r.toolID != tool {
			return nil, d.refusedOrDiverge("STEP_STARTED", stepStarted(d.id, id, tool, input), expectedOf(r), actual)
		}
		d.cursor++
		if r.outcome != nil {
			d.served = append(d.served, id)
			if r.outcome.Kind == "STEP_FAILED" {
				ej, _ := r.outcome.Payload["error"].(map[string]any)
				return nil, stepFailed(ej)
			}
			return roundTrip(r.outcome.Payload["output"])
		}
		// STEP_STARTED with no outcome (kernel.in-doubt).
		if d.w == nil {
			if r.inDoubt {
				return nil, &halt{kind: haltEnd, result: &Result{Status: "in-doubt", InDoubtStep: id}}
			}
			return nil, running()
		}
		in, err := roundTrip(r.input)
		if err != nil {
			return nil, err
		}
		if r.inDoubt {
			if d.retry == id {
				return d.invoke(id, tool, in, r.key)
			}
			return nil, &halt{kind: haltPark, result: &Result{Status: "in-doubt", InDoubtStep: id}}
		}
		if d.rt.Host.IsIdempotent(tool) {
			return d.invoke(id, tool, in, r.key)
		}
		if err := d.append("STEP_IN_DOUBT", map[string]any{"stepId": id}); err != nil {
			return nil, err
		}
		d.rt.warn("kernel.in-doubt", "step "+id+" may or may not have run")
		return nil, &halt{kind: haltPark, result: &Result{Status: "in-doubt", InDoubtStep: id}}
	}
	if d.terminal != nil {
		return nil, d.refusedOrDiverge("STEP_STARTED", stepStarted(d.id, id, tool, input), d.expectedAt(), actual)
	}
	if d.w == nil {
		return nil, running()
	}
	if err := checkJSON(input); err != nil {
		return nil, NewError("argument.invalid", "a step's input is not a JSON value: "+err.Error())
	}
	key := d.id + "/" + id
	if err := d.append("STEP_STARTED", map[string]any{"stepId": id, "toolId": tool, "input": input, "idempotencyKey": key}); err != nil {
		return nil, err
	}
	in, err := roundTrip(input)
	if err != nil {
		return nil, err
	}
	return d.invoke(id, tool, in, key)
}

// Decide is ctx.decide: a recorded decision (kernel.replay-serve, kernel.decider-throws).
// context and alternatives are journaled unless nil.
func (c *Context) Decide(id string, decider Decider, context, alternatives any) (any, error) {
	d := c.d
	if id == "" {
		return nil, badID("a decision id")
	}
	if err := d.use(id); err != nil {
		return nil, err
	}
	if d.cursor < len(d.records) {
		r := d.records[d.cursor]
		if r.command == "decide" && r.id == id {
			d.cursor++
			d.served = append(d.served, id)
			return roundTrip(r.choice)
		}
		return nil, d.hole(id, decider, context, alternatives, expectedOf(r))
	}
	if d.terminal != nil {
		return nil, d.hole(id, decider, context, alternatives, d.expectedAt())
	}
	if d.w == nil {
		return nil, running()
	}
	dec, err := d.runDecider(decider)
	if err != nil {
		return nil, err
	}
	if err := d.append("DECISION_RECORDED", decisionRecorded(id, dec, context, alternatives)); err != nil {
		return nil, err
	}
	d.ran = append(d.ran, id)
	return roundTrip(dec.Choice)
}

// hole is a decision met with no record where recorded commands remain: the decider runs
// again; raising again keeps the history consistent, returning is a divergence
// (kernel.decider-throws, notes A7).
func (d *driver) hole(id string, decider Decider, context, alternatives any, expected map[string]any) error {
	if d.check {
		return &halt{kind: haltCheck}
	}
	dec, err := d.runDecider(decider)
	if err != nil {
		return err
	}
	return d.refusedOrDiverge("DECISION_RECORDED", decisionRecorded(id, dec, context, alternatives),
		expected, map[string]any{"command": "decide", "id": id, "toolId": nil})
}

// refusedOrDiverge is a command with no record where the journal holds another or has
// ended: if the writer would refuse its event (the nesting limit), it is refused again into
// the body, as when it ran live; else it diverges (kernel.unwritable-event).
func (d *driver) refusedOrDiverge(kind string, payload map[string]any, expected, actual map[string]any) error {
	if _, err := eventLine(Event{Seq: 1, Kind: kind, Payload: payload}); err != nil {
		if e, ok := err.(*Error); ok && e.Code == "journal.bad-payload" {
			return e
		}
	}
	return d.diverge(expected, actual)
}

func stepStarted(execID, id, tool string, input any) map[string]any {
	return map[string]any{"stepId": id, "toolId": tool, "input": input, "idempotencyKey": execID + "/" + id}
}

func decisionRecorded(id string, dec Decision, context, alternatives any) map[string]any {
	payload := map[string]any{"decisionId": id, "choice": dec.Choice}
	if context != nil {
		payload["context"] = context
	}
	if alternatives != nil {
		payload["alternatives"] = alternatives
	}
	if dec.Policy != nil {
		payload["policy"] = dec.Policy
	}
	return payload
}
