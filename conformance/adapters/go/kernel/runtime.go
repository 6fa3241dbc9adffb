// Package kernel is a Loom kernel (spec/kernel.md) over an in-memory journal store with
// the crash model of spec/journal.md 1.6, and the conformance suite's scenario interpreter
// (conformance/INTERPRETING.md sections 5-8).
//
// A body is a Go function over *Context rather than a generator (kernel.body-generator):
// each command is a Context method the runtime answers synchronously, from the journal or
// live, so the runtime still decides when each command runs; a command that must stop the
// drive (a gate, an in-doubt step, a divergence, a crash) returns a *halt, which no body's
// try/catch takes for an error of its own.
package kernel

import (
	"fmt"
	"sort"
)

// Body is a runner body: it issues commands through ctx and returns the execution's output.
type Body func(ctx *Context, input any) (any, error)

// Workflow is a named body with the resume schemas it declares per gate
// (kernel.resume-schema).
type Workflow struct {
	Name          string
	Body          Body
	ResumeSchemas map[string]*Schema
}

// NewWorkflow builds a workflow; a resume schema outside the subset is argument.schema
// (fail closed, when the workflow is built), and a key that is no gate id (the empty
// string) is argument.id (kernel.ids).
func NewWorkflow(name string, body Body, resumeSchemas map[string]any) (*Workflow, error) {
	wf := &Workflow{Name: name, Body: body, ResumeSchemas: map[string]*Schema{}}
	if _, ok := resumeSchemas[""]; ok {
		return nil, badID("a resumeSchemas key (a gate id)")
	}
	for gate, raw := range resumeSchemas {
		s, err := CompileSchema(raw)
		if err != nil {
			return nil, err
		}
		wf.ResumeSchemas[gate] = s
	}
	return wf, nil
}

// Runtime runs workflows over a journal store and an effect host. Each call (Start,
// Resume, Recover, Resolve, Replay) drives the body from its start against the journal
// (spec/kernel.md 2.3).
type Runtime struct {
	Store     *MemStore
	Host      EffectHost
	workflows map[string]*Workflow
	// OnWarn receives each warning by code (errors.warning-category).
	OnWarn func(code, text string)
	// OnEvent sees each event once its append returned (the scenario's trace).
	OnEvent func(Event)
	// AlwaysReplay replays the journal read-only after every append of a served kind
	// (INTERPRETING.md section 8, mode always-replay).
	AlwaysReplay bool
}

// NewRuntime builds a runtime serving the given workflows.
func NewRuntime(store *MemStore, host EffectHost, workflows ...*Workflow) *Runtime {
	rt := &Runtime{Store: store, Host: host, workflows: map[string]*Workflow{}}
	for _, wf := range workflows {
		rt.workflows[wf.Name] = wf
	}
	return rt
}

func (rt *Runtime) warn(code, text string) {
	if rt.OnWarn != nil {
		rt.OnWarn(code, text)
	}
}

// Result is what a call returns (kernel.failure-reporting): the body's outcome, and the
// drive report (kernel.drive-report).
type Result struct {
	Status      string // running, suspended, in-doubt, completed, failed
	Output      any
	Error       map[string]any
	WaitingOn   string
	InDoubtStep string
	Served      []string
	Ran         []string
	Torn        *Torn
}

// Resolution resolves an in-doubt step (kernel.resolve): exactly one of an output, an
// error {code, message}, or a retry.
type Resolution struct {
	Output    any
	HasOutput bool
	Error     map[string]any
	Retry     bool
}

// ---------------------------------------------------------------------------------------
// The journal as a writer holds it.

type writer struct {
	rt        *Runtime
	id        string
	events    []Event
	state     *State
	hasHeader bool
	torn      *Torn
	wf        *Workflow
}

// openWrite takes the journal's writer lock and reads it; a torn tail is reported
// (journal.torn-tail) and truncated, so before the writer's first append.
//
// Only start creates a journal; every other call on an execution id with no journal is
// journal.not-found (errors.md, JournalNotFoundError; notes A11). The torn tail is cut when
// the writer opens the journal, whether or not the call then appends (notes A20).
func (rt *Runtime) openWrite(id string, create bool) (*writer, error) {
	if err := rt.Store.Lock(id); err != nil {
		return nil, err
	}
	w := &writer{rt: rt, id: id}
	b, exists := rt.Store.Bytes(id)
	if !exists && !create {
		rt.Store.Unlock(id)
		return nil, notFound(id)
	}
	if exists {
		p, err := parseJournal(b, id)
		if err != nil {
			rt.Store.Unlock(id)
			return nil, err
		}
		w.events, w.hasHeader, w.torn = p.Events, p.HasHeader, p.Torn
		if p.Torn != nil {
			rt.warn("journal.torn-tail", fmt.Sprintf("torn tail at line %d (%d bytes)", p.Torn.Line, p.Torn.Size))
			rt.Store.truncate(id, len(b)-p.Torn.Size)
		}
	}
	st, err := Fold(w.events)
	if err != nil {
		rt.Store.Unlock(id)
		if create && len(w.events) > 0 {
			// start refuses a journal that holds events as an existing execution, before
			// it judges them (kernel.recover/illegal-transition-refused).
			return nil, NewError("kernel.execution-exists", "execution "+id+" has already started")
		}
		return nil, err
	}
	w.state = st
	return w, nil
}

func (w *writer) close() { w.rt.Store.Unlock(w.id) }

// alwaysReplayKinds are the appends after which mode always-replay replays.
var alwaysReplayKinds = map[string]bool{"STEP_COMPLETED": true, "STEP_FAILED": true,
	"DECISION_RECORDED": true, "STREAM_APPENDED": true, "EXECUTION_RESUMED": true}

// append writes one event (journal.write-before-act: it returns once the line is stored).
func (w *writer) append(kind string, payload map[string]any) error {
	ev := Event{Seq: len(w.events) + 1, Kind: kind, Payload: payload}
	line, err := eventLine(ev)
	if err != nil {
		return err
	}
	if err := w.state.Apply(ev); err != nil {
		return err
	}
	store := w.rt.Store
	if !w.hasHeader {
		store.write(w.id, headerLine(w.id))
		w.hasHeader = true
	}
	torn := store.armed && store.torn
	if err := store.appendLine(w.id, line); err != nil {
		// The crashing append: a whole line was written and is traced, a torn one was not
		// (notes A18). Nothing after it runs.
		if !torn && w.rt.OnEvent != nil {
			w.rt.OnEvent(ev)
		}
		return &halt{kind: haltCrash, err: err}
	}
	w.events = append(w.events, ev)
	if w.rt.OnEvent != nil {
		w.rt.OnEvent(ev)
	}
	if w.rt.AlwaysReplay && alwaysReplayKinds[kind] && w.wf != nil {
		w.rt.alwaysReplayCheck(w.id, w.wf)
	}
	return nil
}

// ---------------------------------------------------------------------------------------
// The calls.

func (rt *Runtime) workflowOf(events []Event) (*Workflow, error) {
	name, _ := events[0].Payload["workflow"].(string)
	wf, ok := rt.workflows[name]
	if !ok {
		return nil, NewError("kernel.unknown-workflow", "no workflow is registered as "+name)
	}
	return wf, nil
}

func notFound(id string) *Error {
	return NewError("journal.not-found", "execution "+id+" has no journal")
}

func notStarted(id string) *Error {
	return NewError("kernel.not-started", "execution "+id+" never started")
}

// Start starts an execution (kernel.start): an unknown workflow and an execution that has
// started are refused and nothing is written.
func (rt *Runtime) Start(workflow, id string, input any) (*Result, error) {
	wf, ok := rt.workflows[workflow]
	if !ok {
		return nil, NewError("kernel.unknown-workflow", "no workflow is registered as "+workflow)
	}
	w, err := rt.openWrite(id, true)
	if err != nil {
		return nil, err
	}
	defer w.close()
	if w.state.Status != "not-started" {
		return nil, NewError("kernel.execution-exists", "execution "+id+" has already started")
	}
	if err := checkJSON(input); err != nil {
		return nil, NewError("argument.invalid", "the input is not a JSON value: "+err.Error())
	}
	w.wf = wf
	if err := w.append("EXECUTION_STARTED", map[string]any{"executionId": id, "workflow": wf.Name, "input": input}); err != nil {
		return nil, unhalt(err)
	}
	return rt.drive(w, wf, w.events, id, "")
}

// Resume delivers a gate's payload (kernel.resume-gate, kernel.resume-schema): checked
// against the workflow's schema for the gate and the gate's journaled one before anything
// is appended.
func (rt *Runtime) Resume(id, gate string, payload any) (*Result, error) {
	w, err := rt.openWrite(id, false)
	if err != nil {
		return nil, err
	}
	defer w.close()
	st := w.state
	// A journal with no EXECUTION_STARTED: nothing waits (kernel.missing-execution).
	if st.Status != "suspended" || st.WaitingOn != gate || st.PendingResume {
		return nil, NewError("kernel.gate-not-waiting", "execution "+id+" is not waiting on gate "+gate, "gate", gate)
	}
	wf, err := rt.workflowOf(w.events)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(payload); err != nil {
		return nil, NewError("argument.invalid", "the payload is not a JSON value: "+err.Error())
	}
	// The problems of both schemas, the gate's own first (kernel.resume-schema).
	var problems []Problem
	if raw, ok := lastSuspension(w.events).Payload["resumeSchema"]; ok {
		s, err := CompileSchema(raw)
		if err != nil {
			return nil, err
		}
		problems = append(problems, s.Validate(payload)...)
	}
	if s, ok := wf.ResumeSchemas[gate]; ok {
		problems = append(problems, s.Validate(payload)...)
	}
	if len(problems) > 0 {
		list := make([]any, len(problems))
		text := ""
		seen := map[string]bool{}
		paths := []string{}
		for i, p := range problems {
			if !seen[p.Path] {
				seen[p.Path] = true
				paths = append(paths, p.Path)
			}
			list[i] = map[string]any{"path": p.Path, "message": p.Message}
			if i > 0 {
				text += "; "
			}
			text += p.Path + ": " + p.Message
		}
		sort.Strings(paths) // the distinct paths, by code point (INTERPRETING.md section 6)
		return nil, NewError("kernel.invalid-resume", "resume payload refused: "+text, "gate", gate,
			"problems", list, "paths", paths)
	}
	w.wf = wf
	if err := w.append("RESUME_RECEIVED", map[string]any{"gateId": gate, "payload": payload}); err != nil {
		return nil, unhalt(err)
	}
	if err := w.append("EXECUTION_RESUMED", map[string]any{"gateId": gate}); err != nil {
		return nil, unhalt(err)
	}
	return rt.drive(w, wf, w.events, id, "")
}

func lastSuspension(events []Event) Event {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Kind == "EXECUTION_SUSPENDED" {
			return events[i]
		}
	}
	return Event{Payload: map[string]any{}}
}

// stateResult is the result a call reports without driving, from the journal's state.
func stateResult(st *State) (*Result, error) {
	res := &Result{Status: st.Status, Served: []string{}, Ran: []string{}}
	switch st.Status {
	case "completed":
		out, err := roundTrip(st.Output)
		if err != nil {
			return nil, err
		}
		res.Output = out
	case "failed":
		res.Error = st.Error
	case "suspended":
		res.WaitingOn = st.WaitingOn
	case "in-doubt":
		res.InDoubtStep = st.InDoubtStep
	}
	return res, nil
}

// Recover continues an execution from its journal after a crash (kernel.recover): a
// finished, parked or in-doubt execution is reported without driving; a pending resume is
// continued; a running one is driven.
func (rt *Runtime) Recover(id string) (*Result, error) {
	w, err := rt.openWrite(id, false)
	if err != nil {
		return nil, err
	}
	defer w.close()
	st := w.state
	switch {
	case st.Status == "not-started":
		return nil, notStarted(id)
	case st.Status == "running", st.Status == "suspended" && st.PendingResume:
	default:
		res, err := stateResult(st)
		if res != nil {
			res.Torn = w.torn
		}
		return res, err
	}
	wf, err := rt.workflowOf(w.events)
	if err != nil {
		return nil, err
	}
	w.wf = wf
	if st.Status == "suspended" {
		if err := w.append("EXECUTION_RESUMED", map[string]any{"gateId": st.WaitingOn}); err != nil {
			return nil, unhalt(err)
		}
	}
	return rt.drive(w, wf, w.events, id, "")
}

// Resolve resolves an in-doubt step (kernel.resolve) and continues the execution.
func (rt *Runtime) Resolve(id, step string, how Resolution) (*Result, error) {
	n := 0
	for _, b := range []bool{how.HasOutput, how.Error != nil, how.Retry} {
		if b {
			n++
		}
	}
	if n != 1 {
		return nil, NewError("argument.invalid", "resolve takes exactly one of output, error, retry")
	}
	w, err := rt.openWrite(id, false)
	if err != nil {
		return nil, err
	}
	defer w.close()
	st := w.state
	// A journal with no EXECUTION_STARTED: nothing is in doubt (kernel.missing-execution).
	if st.Status != "in-doubt" || st.InDoubtStep != step {
		return nil, NewError("kernel.not-in-doubt", "step "+step+" is not in doubt", "step", step)
	}
	wf, err := rt.workflowOf(w.events)
	if err != nil {
		return nil, err
	}
	w.wf = wf
	retry := ""
	switch {
	case how.HasOutput:
		if err := checkJSON(how.Output); err != nil {
			return nil, NewError("argument.invalid", "the output is not a JSON value")
		}
		err = w.append("STEP_COMPLETED", map[string]any{"stepId": step, "output": how.Output})
	case how.Error != nil:
		err = w.append("STEP_FAILED", map[string]any{"stepId": step, "error": how.Error})
	default:
		retry = step
	}
	if err != nil {
		return nil, unhalt(err)
	}
	return rt.drive(w, wf, w.events, id, retry)
}

// Replay drives a body against its journal without writing and without calling effects
// (kernel.replay-readonly), and reports where the history ends or raises the divergence.
func (rt *Runtime) Replay(id string) (*Result, error) {
	b, exists := rt.Store.Bytes(id)
	if !exists {
		return nil, notFound(id)
	}
	p, err := parseJournal(b, id)
	if err != nil {
		return nil, err
	}
	if p.Torn != nil {
		rt.warn("journal.torn-tail", fmt.Sprintf("torn tail at line %d (%d bytes)", p.Torn.Line, p.Torn.Size))
	}
	st, err := Fold(p.Events)
	if err != nil {
		return nil, err
	}
	if st.Status == "not-started" {
		return nil, notStarted(id)
	}
	wf, err := rt.workflowOf(p.Events)
	if err != nil {
		return nil, err
	}
	res, err := rt.drive(nil, wf, p.Events, id, "")
	if res != nil {
		res.Torn = p.Torn
	}
	return res, err
}

// alwaysReplayCheck replays the journal as it stands, read-only, with a host that only
// notes calls and without running deciders; a replay that raises, calls an effect or
// would run a decider is the warning conformance.always-replay-diverged.
func (rt *Runtime) alwaysReplayCheck(id string, wf *Workflow) {
	b, _ := rt.Store.Bytes(id)
	p, err := parseJournal(b, id)
	if err != nil {
		rt.warn("conformance.always-replay-diverged", err.Error())
		return
	}
	det := &detectorHost{}
	sub := &Runtime{Store: rt.Store, Host: det, workflows: rt.workflows}
	d := sub.newDriver(nil, p.Events, id, "")
	d.check = true
	_, err = sub.run(d, wf)
	if err != nil || det.called {
		why := "the replay called an effect"
		if err != nil {
			why = err.Error()
		}
		rt.warn("conformance.always-replay-diverged", why)
	}
}

// detectorHost is the host of an always-replay check: any call is a divergence.
type detectorHost struct{ called bool }

func (h *detectorHost) Invoke(call EffectCall) (any, error) {
	h.called = true
	return nil, NewError("conformance.replay-called", "a replay called "+call.ToolID)
}

func (h *detectorHost) InvokeTransientCall(call EffectCall) (any, error) {
	h.called = true
	return nil, NewError("conformance.replay-called", "a replay called "+call.ToolID)
}

func (h *detectorHost) IsIdempotent(string) bool { return false }
