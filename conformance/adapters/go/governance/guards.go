package governance

import (
	"unicode/utf8"

	"loomref/adapters/go/protocol"
)

// Delta guards (spec/governance.md §4.3) and hold-back (§4.4, extension).

// DefaultWindow is the running text's default window, in code points ({#guards.window}).
const DefaultWindow = 4096

// Sever is a DeltaSevered: a code (governance.delta-severed or
// governance.stream-token-budget), the rule of a validator's sever (nil for the budget),
// the delta's index counted from the last reset, and the details.
type Sever struct {
	Code       string
	Rule       *string
	DeltaIndex int
	Details    map[string]any
}

// Error is the sever as a protocol error, marked repeated when raised again
// ({#guards.sticky-sever}).
func (s *Sever) Error(repeated bool) *protocol.Error {
	e := protocol.Fail(s.Code, "message", "delta severed")
	for k, v := range s.Details {
		e.Details[k] = v
	}
	if repeated {
		e.Details["repeated"] = true
	}
	return e
}

// stager is a delta guard that can stage a delta ({#guards.chain-sever}): stage checks the
// delta exactly as check would and returns a commit that takes it into the guard's state,
// or a sever. index is the delta's index since the last reset.
type stager interface {
	stage(delta string, index int) (commit func() error, sv *Sever)
	reset()
}

// staleCommit refuses a commit run after its guard was staged again or reset.
func staleCommit() error {
	return protocol.Fail(codeGuardState, "message", "stale commit")
}

// RunningTextGuard hands each validator's delta form the running text: the last window
// code points accepted before the delta, then the whole delta ({#guards.running-text}).
type RunningTextGuard struct {
	validators []*Validator
	window     int
	tail       []rune // the last window code points accepted since the last reset
	accepted   int    // code points accepted since the last reset
	generation int    // bumped by every stage and reset: commits are valid once
}

// NewRunningTextGuard refuses a validator without a delta form ({#validators.fail-closed})
// and a window below 1 (the text sets no range; guards.delta/window-zero refuses 0).
func NewRunningTextGuard(validators []*Validator, window int) (*RunningTextGuard, error) {
	if window < 1 {
		return nil, invalid("window must be a positive integer")
	}
	for _, v := range validators {
		if !v.HasDeltaForm() {
			return nil, invalid("validator %s has no delta form", v.Name)
		}
	}
	return &RunningTextGuard{validators: validators, window: window}, nil
}

func (g *RunningTextGuard) stage(delta string, index int) (func() error, *Sever) {
	g.generation++
	gen := g.generation
	running := newText(string(g.tail) + delta)
	fresh := len(g.tail)
	base := g.accepted - len(g.tail) // where the running text starts in the attempt's text
	for _, v := range g.validators {
		vi := v.scanTail(running, PhaseDelta, fresh)
		if vi == nil {
			continue
		}
		rule := vi.rule
		return nil, &Sever{Code: codeDeltaSevered, Rule: &rule, DeltaIndex: index,
			Details: map[string]any{
				"validator": vi.validator, "phase": vi.phase, "rule": vi.rule,
				"span":        []int{base + vi.start, base + vi.end},
				"delta_index": index, "cause": codeSafetyViolation,
			}}
	}
	return func() error {
		if gen != g.generation {
			return staleCommit()
		}
		g.generation++
		g.tail = append(g.tail, []rune(delta)...)
		if len(g.tail) > g.window {
			g.tail = append([]rune(nil), g.tail[len(g.tail)-g.window:]...)
		}
		g.accepted += utf8.RuneCountInString(delta)
		return nil
	}, nil
}

// reset clears the running text at the start of attempt n > 1 ({#guards.reset}).
func (g *RunningTextGuard) reset() {
	g.generation++
	g.tail, g.accepted = nil, 0
}

// ApproxTokenCount is the default counter: ceil(code points / 4) ({#guards.token-count}).
func ApproxTokenCount(delta string) int64 {
	return int64((utf8.RuneCountInString(delta) + 3) / 4)
}

// TokenBudget is stream_token_budget: the delta that would take the attempt's sum above
// max is severed before delivery; a sum equal to the budget is allowed
// ({#guards.token-budget}).
type TokenBudget struct {
	max, used  int64
	generation int
}

// NewTokenBudget refuses a negative budget.
func NewTokenBudget(max int64) (*TokenBudget, error) {
	if max < 0 {
		return nil, invalid("maxTokens must be >= 0")
	}
	return &TokenBudget{max: max}, nil
}

func (b *TokenBudget) stage(delta string, index int) (func() error, *Sever) {
	b.generation++
	gen := b.generation
	tokens := ApproxTokenCount(delta)
	if b.used+tokens > b.max {
		return nil, &Sever{Code: codeTokenBudget, DeltaIndex: index, Details: map[string]any{
			"max_tokens": b.max, "used": b.used, "delta_tokens": tokens, "delta_index": index,
		}}
	}
	return func() error {
		if gen != b.generation {
			return staleCommit()
		}
		b.generation++
		b.used += tokens
		return nil
	}, nil
}

func (b *TokenBudget) reset() {
	b.generation++
	b.used = 0
}

// GuardChain runs its guards in order, in two phases: every guard stages the delta, and
// only once none severed are the commits run. It severs as a whole and stays severed
// until reset ({#guards.chain-order}, {#guards.chain-sever}, {#guards.sticky-sever}).
type GuardChain struct {
	guards  []stager
	index   int    // deltas accepted since the last reset
	severed *Sever // non-nil: the chain is severed
}

// NewGuardChain builds a chain of staging guards.
func NewGuardChain(guards ...stager) *GuardChain { return &GuardChain{guards: guards} }

// Check lets a delta through (nil) or severs; repeated tells a sever raised again.
func (c *GuardChain) Check(delta string) (sv *Sever, repeated bool, err error) {
	if c.severed != nil {
		return c.severed, true, nil
	}
	commits := make([]func() error, 0, len(c.guards))
	for _, g := range c.guards {
		commit, sv := g.stage(delta, c.index)
		if sv != nil {
			c.severed = sv
			return sv, false, nil
		}
		commits = append(commits, commit)
	}
	for _, commit := range commits {
		if err := commit(); err != nil {
			return nil, false, err
		}
	}
	c.index++
	return nil, false, nil
}

// Reset reopens the chain and resets every guard ({#guards.reset}, {#guards.lifecycle}).
func (c *GuardChain) Reset() {
	for _, g := range c.guards {
		g.reset()
	}
	c.index, c.severed = 0, nil
}

// lifecycle states ({#guards.lifecycle}).
type guardState int

const (
	stateOpen guardState = iota
	stateSevered
	stateFlushed
)

// HoldBackGuard releases only text that can no longer be the start of a match: everything
// but the last max_width - 1 code points received ({#guards.hold-back}).
type HoldBackGuard struct {
	chain *GuardChain // the validators' running-text guard, then the guards of after
	keep  int         // max_width - 1 (0 with no rules)
	held  []rune
	state guardState
}

// NewHoldBackGuard accepts only pattern validators with a delta form whose rules are all
// bounded, and a window at least as wide as the widest rule ({#guards.hold-back-width}).
func NewHoldBackGuard(validators []*Validator, window int, after ...stager) (*HoldBackGuard, error) {
	rtg, err := NewRunningTextGuard(validators, window)
	if err != nil {
		return nil, err
	}
	widest := 0
	for _, v := range validators {
		for _, r := range v.Rules {
			if r.Width == unbounded {
				return nil, invalid("hold-back needs bounded rules: %s/%s is unbounded (give it maxWidth)", v.Name, r.Name)
			}
			if r.Width > widest {
				widest = r.Width
			}
		}
	}
	if window < widest {
		return nil, invalid("window %d is narrower than the widest rule (%d)", window, widest)
	}
	keep := 0
	if widest > 0 {
		keep = widest - 1
	}
	guards := append([]stager{rtg}, after...)
	return &HoldBackGuard{chain: NewGuardChain(guards...), keep: keep}, nil
}

// Feed checks the delta and returns the piece released ({#guards.hold-back}); on a sever
// the held text is dropped ({#guards.hold-back-drop}). A flushed guard refuses it
// (governance.guard-state).
func (h *HoldBackGuard) Feed(delta string) (string, *Sever, bool, error) {
	switch h.state {
	case stateSevered:
		return "", h.chain.severed, true, nil
	case stateFlushed:
		return "", nil, false, protocol.Fail(codeGuardState, "message", "feed after flush")
	}
	sv, _, err := h.chain.Check(delta)
	if err != nil {
		return "", nil, false, err
	}
	if sv != nil {
		h.held, h.state = nil, stateSevered
		return "", sv, false, nil
	}
	h.held = append(h.held, []rune(delta)...)
	if len(h.held) <= h.keep {
		return "", nil, false, nil
	}
	cut := len(h.held) - h.keep
	released := string(h.held[:cut])
	h.held = append([]rune(nil), h.held[cut:]...)
	return released, nil, false, nil
}

// Flush returns the held remainder once the call has succeeded; a severed guard raises the
// sever again, releasing nothing ({#guards.hold-back-flush}).
func (h *HoldBackGuard) Flush() (string, *Sever, bool, error) {
	switch h.state {
	case stateSevered:
		return "", h.chain.severed, true, nil
	case stateFlushed:
		return "", nil, false, protocol.Fail(codeGuardState, "message", "flush after flush")
	}
	out := string(h.held)
	h.held, h.state = nil, stateFlushed
	return out, nil, false, nil
}

// Reset drops the held text and reopens the guard ({#guards.hold-back-drop}).
func (h *HoldBackGuard) Reset() {
	h.chain.Reset()
	h.held, h.state = nil, stateOpen
}
