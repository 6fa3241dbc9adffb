package kernel

// EffectCall is one call to an effect (effects.host-seam): durable calls carry the step's
// identity and idempotency key, transient ones none.
type EffectCall struct {
	ToolID         string
	Input          any
	Mode           string // "durable" or "transient"
	Principal      string
	ExecutionID    string
	StepID         string
	IdempotencyKey string
}

// EffectContext is what an effect's Execute receives (kernel.effect-forms).
type EffectContext struct {
	Call    EffectCall
	Attempt int
}

// Effect is an effect record (effects.registration): one shape whichever host runs it.
type Effect struct {
	ToolID     string
	Modes      []string // nil: both
	Idempotent bool
	Execute    func(ctx *EffectContext, input any) (any, error)
}

func (e *Effect) allows(mode string) bool {
	if len(e.Modes) == 0 {
		return true
	}
	for _, m := range e.Modes {
		if m == mode {
			return true
		}
	}
	return false
}

// EffectHost is the seam the kernel reaches effects through (kernel.effect-seam).
type EffectHost interface {
	Invoke(call EffectCall) (any, error)
	InvokeTransientCall(call EffectCall) (any, error)
	IsIdempotent(toolID string) bool
}

// Registry is the kernel's plain host, without governance (kernel.effect-forms): it looks
// the tool up (effect.unknown-tool), refuses a mode the effect does not allow
// (effect.mode-refused) and runs Execute once, attempt 1.
type Registry struct {
	effects map[string]*Effect
}

// NewRegistry registers effects; a tool id registered twice is argument.invalid.
func NewRegistry(effects ...*Effect) (*Registry, error) {
	r := &Registry{effects: map[string]*Effect{}}
	for _, e := range effects {
		if err := r.Register(e); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds one effect.
func (r *Registry) Register(e *Effect) error {
	if e.ToolID == "" {
		return NewError("argument.invalid", "an effect's tool id is a non-empty string")
	}
	if _, dup := r.effects[e.ToolID]; dup {
		return NewError("argument.invalid", "tool "+e.ToolID+" is registered twice")
	}
	r.effects[e.ToolID] = e
	return nil
}

func (r *Registry) run(call EffectCall, mode string) (any, error) {
	if call.Mode != mode {
		return nil, NewError("argument.invalid", "a "+call.Mode+" call at the "+mode+" door")
	}
	e, ok := r.effects[call.ToolID]
	if !ok {
		return nil, NewError("effect.unknown-tool", "no effect is registered as "+call.ToolID)
	}
	if !e.allows(mode) {
		return nil, NewError("effect.mode-refused", call.ToolID+" does not allow "+mode+" calls")
	}
	return e.Execute(&EffectContext{Call: call, Attempt: 1}, call.Input)
}

// Invoke is the durable record door.
func (r *Registry) Invoke(call EffectCall) (any, error) { return r.run(call, "durable") }

// InvokeTransientCall is the transient record door.
func (r *Registry) InvokeTransientCall(call EffectCall) (any, error) {
	return r.run(call, "transient")
}

// IsIdempotent says whether a tool declares itself idempotent (false when unknown).
func (r *Registry) IsIdempotent(toolID string) bool {
	e, ok := r.effects[toolID]
	return ok && e.Idempotent
}

// DecideScope is what a decider runs in (effects.scope-principal): its transient calls run
// as the deciding execution, and it closes once the decision settles (effects.scope-closed).
type DecideScope struct {
	host        EffectHost
	executionID string
	closed      bool
}

// InvokeTransient makes a transient call through the scope's host.
func (s *DecideScope) InvokeTransient(toolID string, input any) (any, error) {
	if s.closed {
		return nil, NewError("effect.aborted", "scope closed", "reason", "scope closed")
	}
	return s.host.InvokeTransientCall(EffectCall{ToolID: toolID, Input: input, Mode: "transient",
		Principal: s.executionID, ExecutionID: s.executionID})
}

// Decision is what a decider returns: the choice and, optionally, the policy that made it.
type Decision struct {
	Choice any
	Policy map[string]any // {id, propensity}, or nil
}

// Decider makes a decision inside a scope (ctx.decide's second argument).
type Decider func(scope *DecideScope) (Decision, error)
