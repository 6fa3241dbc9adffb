package effects

import (
	"fmt"
	"math"
	"sort"
)

// --- signals ({#effects.signal-compose}, {#effects.signal-detach}) ---

// Signal is an abort signal: once aborted it stays aborted with its first reason.
type Signal struct {
	aborted   bool
	reason    string
	listeners map[int]func(string)
	nextID    int
}

// NewSignal returns a signal that has not aborted.
func NewSignal() *Signal { return &Signal{listeners: map[int]func(string){}} }

// never is the shared NEVER signal of a call that carries none ({#effects.context}).
var never = NewSignal()

// Abort aborts the signal with reason (a second abort changes nothing).
func (s *Signal) Abort(reason string) {
	if s.aborted {
		return
	}
	s.aborted, s.reason = true, reason
	ids := make([]int, 0, len(s.listeners))
	for id := range s.listeners {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if f, ok := s.listeners[id]; ok {
			f(reason)
		}
	}
}

// anyOf composes inputs: it aborts as soon as any input does, with that input's reason; an
// already-aborted input gives an aborted composite with the first such reason. detach
// removes the composite's listeners from its inputs.
func anyOf(inputs ...*Signal) (*Signal, func()) {
	c := NewSignal()
	for _, in := range inputs {
		if in != nil && in.aborted {
			c.Abort(in.reason)
			return c, func() {}
		}
	}
	type reg struct {
		s  *Signal
		id int
	}
	var regs []reg
	for _, in := range inputs {
		if in == nil {
			continue
		}
		id := in.nextID
		in.nextID++
		in.listeners[id] = func(r string) { c.Abort(r) }
		regs = append(regs, reg{in, id})
	}
	return c, func() {
		for _, r := range regs {
			delete(r.s.listeners, r.id)
		}
	}
}

// --- the clock ({#effects.injected-clock}) ---

// ManualClock starts at a time >= 0 and never moves back; sleep advances it at once.
type ManualClock struct {
	now     float64
	onSleep func(float64)
}

func newClock(start float64) (*ManualClock, *LoomError) {
	if start < 0 {
		return nil, invalid("clock start below 0")
	}
	return &ManualClock{now: start}, nil
}

// Now returns the clock's time.
func (c *ManualClock) Now() float64 { return c.now }

// Advance moves the clock forward; a negative step is argument.invalid.
func (c *ManualClock) Advance(s float64) error {
	if s < 0 || math.IsNaN(s) {
		return invalid("negative clock advance")
	}
	c.now += s
	return nil
}

// Sleep advances the clock at once.
func (c *ManualClock) Sleep(s float64) error {
	if err := c.Advance(s); err != nil {
		return err
	}
	if c.onSleep != nil {
		c.onSleep(s)
	}
	return nil
}

// --- kill switch ({#effects.kill-switch}) ---

// KillSwitch engages globally or per tool.
type KillSwitch struct {
	global *string
	tools  map[string]string
}

func (k *KillSwitch) kill(reason string, tool *string) {
	if tool == nil {
		r := reason
		k.global = &r
		return
	}
	k.tools[*tool] = reason
}

func (k *KillSwitch) revive(tool *string) {
	if tool == nil {
		k.global = nil
		return
	}
	delete(k.tools, *tool)
}

// engaged returns the kill reason for a tool: the global kill's reason wins.
func (k *KillSwitch) engaged(tool string) (string, bool) {
	if k.global != nil {
		return *k.global, true
	}
	r, ok := k.tools[tool]
	return r, ok
}

// --- metering ({#effects.metering-admission}, {#effects.metering-record}) ---

// MeterRecord is what BudgetMeter keeps for each attempt that reached the effect.
type MeterRecord struct {
	ToolID, Principal, Mode string
	Usage                   map[string]int64
	Charged                 int64
	Advisory                bool
}

// BudgetMeter admits while spent + estimate <= budget and charges sum(usage) per record.
type BudgetMeter struct {
	budget, estimate, spent int64
	records                 []MeterRecord
	onRecord                func(MeterRecord)
}

func (m *BudgetMeter) admit() (bool, string) {
	if m.spent+m.estimate <= m.budget {
		return true, ""
	}
	return false, fmt.Sprintf("over budget: spent %d + estimate %d > budget %d", m.spent, m.estimate, m.budget)
}

func (m *BudgetMeter) record(ctx *Ctx, advisory bool) {
	usage := map[string]int64{}
	var sum int64
	for k, v := range ctx.usage {
		usage[k] = v
		sum += v
	}
	m.spent += sum
	r := MeterRecord{ToolID: ctx.ToolID, Principal: ctx.Principal, Mode: ctx.Mode, Usage: usage,
		Charged: sum, Advisory: advisory}
	m.records = append(m.records, r)
	if m.onRecord != nil {
		m.onRecord(r)
	}
}

// --- calls, effects, contexts ---

// Sink is a DeltaSink: a synchronous, fire-and-forget callable receiving EffectDelta records
// ({#deltas.per-call-sink}); a returned error is the sink raising.
type Sink func(*Delta) error

// EffectCall is the record a door takes ({#effects.host-seam}).
type EffectCall struct {
	ToolID, Mode, Principal             string
	Input                               any
	ExecutionID, StepID, IdempotencyKey *string
	Signal                              *Signal
	OnDelta                             Sink
	OnEmit                              func(any)
	id                                  int
}

// Effect is a registered effect ({#effects.registration}).
type Effect struct {
	ToolID     string
	Modes      map[string]bool
	Idempotent bool
	DeltaSink  Sink
	Execute    func(ctx *Ctx, input any) (any, error)
	chain      Next
}

// DeltaWriter is ctx.on_delta: text with Write, the effect's end-of-stream chunk with End
// ({#deltas.writer}).
type DeltaWriter interface {
	Write(v any) error
	End(usage any) error
}

// Ctx is the EffectContext ({#effects.context}).
type Ctx struct {
	Call                        *EffectCall
	ToolID, Mode, Principal     string
	ExecutionID, IdempotencyKey *string
	Signal                      *Signal
	Attempt                     int
	Clock                       *ManualClock
	OnDelta                     DeltaWriter // nil only on a context built by hand
	usage                       map[string]int64
	Emitted                     []any
}

// Emit appends to ctx.emitted and forwards to on_emit on the durable path; a transient call's
// emit is a no-op ({#effects.emit}).
func (c *Ctx) Emit(ev any) {
	if c.Mode != "durable" {
		return
	}
	c.Emitted = append(c.Emitted, ev)
	if c.Call != nil && c.Call.OnEmit != nil {
		c.Call.OnEmit(ev)
	}
}

// ReportUsage adds counters to the running attempt's usage; a report is checked whole before
// anything is added ({#effects.usage}).
func (c *Ctx) ReportUsage(report map[string]any) error {
	add := map[string]int64{}
	for k, v := range report {
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		default:
			i, ok := isInt(v)
			if !ok {
				return invalid("usage %q is not an integer", k)
			}
			n = i
		}
		if n < 0 {
			return invalid("usage %q below 0", k)
		}
		add[k] = n
	}
	if c.usage == nil {
		c.usage = map[string]int64{}
	}
	for k, n := range add {
		c.usage[k] += n
	}
	return nil
}

// Next is a middleware's next(ctx, input) ({#effects.middleware-ctx}).
type Next func(ctx *Ctx, input any) (any, error)

// Middleware is an R9 wrapper ({#effects.middleware-order}, {#effects.inspects-output}).
type Middleware struct {
	Name           string
	Handle         func(ctx *Ctx, input any, next Next) (any, error)
	InspectsOutput bool
	// DeltaGuard is the optional per-attempt guard factory: it returns a deltaGuard, a
	// holdGuard or nil.
	DeltaGuard func(ctx *Ctx) (any, error)
}

// Runtime is the EffectRuntime.
type Runtime struct {
	effects    map[string]*Effect
	middleware []*Middleware
	authorize  func(principal, tool, mode string) (bool, string)
	meter      *BudgetMeter
	kill       *KillSwitch
	clock      *ManualClock
	onWarn     func(code, text string)
	blockedBy  []string
	calls      int
}

// NewRuntime builds a runtime; the middleware list is fixed here ({#effects.lean-route}).
func NewRuntime(mw []*Middleware, clock *ManualClock, onWarn func(code, text string)) *Runtime {
	rt := &Runtime{effects: map[string]*Effect{}, middleware: mw, kill: &KillSwitch{tools: map[string]string{}},
		clock: clock, onWarn: onWarn}
	if rt.clock == nil {
		rt.clock = &ManualClock{}
	}
	for _, m := range mw {
		if m.InspectsOutput && m.DeltaGuard == nil { // {#deltas.fail-closed}
			rt.blockedBy = append(rt.blockedBy, m.Name)
		}
	}
	return rt
}

// Register registers an effect and composes its chain once ({#effects.registration}).
func (rt *Runtime) Register(e *Effect) error {
	if _, dup := rt.effects[e.ToolID]; dup {
		return invalid("tool id %q registered twice", e.ToolID)
	}
	if len(e.Modes) == 0 {
		return invalid("an effect with no mode")
	}
	next := rt.inner(e)
	for i := len(rt.middleware) - 1; i >= 0; i-- {
		m, n := rt.middleware[i], next
		next = func(ctx *Ctx, input any) (any, error) { return m.Handle(ctx, input, n) }
	}
	e.chain = next
	rt.effects[e.ToolID] = e
	return nil
}

// IsIdempotent is false for an unknown tool id ({#effects.host-seam}).
func (rt *Runtime) IsIdempotent(tool string) bool {
	e, ok := rt.effects[tool]
	return ok && e.Idempotent
}

// Invoke is the durable record door.
func (rt *Runtime) Invoke(call *EffectCall) (any, error) {
	if call.Mode != "durable" {
		return nil, invalid("invoke takes a durable call")
	}
	return rt.route(call)
}

// InvokeTransientCall is the transient record door.
func (rt *Runtime) InvokeTransientCall(call *EffectCall) (any, error) {
	if call.Mode != "transient" {
		return nil, invalid("invoke_transient_call takes a transient call")
	}
	return rt.route(call)
}

// InvokeTransient is the keyword door ({#effects.transient-door}).
func (rt *Runtime) InvokeTransient(tool string, input any, principal string, signal *Signal, onDelta Sink) (any, error) {
	return rt.InvokeTransientCall(&EffectCall{ToolID: tool, Input: input, Mode: "transient",
		Principal: principal, Signal: signal, OnDelta: onDelta})
}

// route is the governed route ({#effects.route-order}).
func (rt *Runtime) route(call *EffectCall) (any, error) {
	eff, ok := rt.effects[call.ToolID]
	if !ok { // {#effects.unknown-tool}: before any stage
		return nil, &LoomError{Code: "effect.unknown-tool", Message: "unknown tool " + call.ToolID, Kind: kindRefusal}
	}
	if rt.authorize != nil { // {#effects.authorizer}: once per call, outside the chain
		if ok, reason := rt.authorize(call.Principal, call.ToolID, call.Mode); !ok {
			e := refusal("effect.denied", reason)
			e.Details = map[string]any{"toolId": call.ToolID, "principal": call.Principal, "mode": call.Mode}
			return nil, e
		}
	}
	rt.calls++
	call.id = rt.calls
	ctx := &Ctx{Call: call, ToolID: call.ToolID, Mode: call.Mode, Principal: call.Principal,
		ExecutionID: call.ExecutionID, Signal: call.Signal, Clock: rt.clock, usage: map[string]int64{}}
	if call.Mode == "durable" {
		ctx.IdempotencyKey = call.IdempotencyKey
	}
	if ctx.Signal == nil {
		ctx.Signal = never
	}
	ch := rt.openChannel(call, eff, ctx)
	ctx.OnDelta = ch
	out, err := eff.chain(ctx, call.Input)
	ch.settled = true
	if err != nil {
		return nil, err
	}
	ch.complete()
	return out, nil
}

// inner is the inner route, run once per attempt: mode, metering admission, kill switch,
// signal, then execute ({#effects.route-order}, {#effects.refusal-untouched}).
func (rt *Runtime) inner(eff *Effect) Next {
	return func(ctx *Ctx, input any) (any, error) {
		if !eff.Modes[ctx.Mode] {
			return nil, refusal("effect.mode-refused", "mode "+ctx.Mode+" refused by "+ctx.ToolID)
		}
		if rt.meter != nil {
			if ok, reason := rt.meter.admit(); !ok {
				return nil, refusal("effect.over-budget", reason)
			}
		}
		if reason, killed := rt.kill.engaged(ctx.ToolID); killed {
			return nil, refusal("effect.killed", reason)
		}
		if ctx.Signal.aborted {
			return nil, abortedErr(ctx.Signal.reason, nil)
		}
		ctx.Attempt++ // {#effects.retry-attempts}
		ctx.usage = map[string]int64{}
		ch := ctx.OnDelta.(*channel)
		if err := ch.beginAttempt(ctx); err != nil {
			return nil, err
		}
		out, err := eff.Execute(ctx, input) // a crash panics through: nothing below runs
		if rt.meter != nil {
			rt.meter.record(ctx, ctx.Mode != "durable")
		}
		if err == nil && ch.sever != nil { // {#deltas.sever-sticky}: fail-closed
			err = ch.sever
		}
		if ctx.Signal.aborted { // {#effects.signal-abort}: the abort wins
			return nil, abortedErr(ctx.Signal.reason, err)
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}
