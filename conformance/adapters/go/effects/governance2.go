package effects

// Continued from governance.go.

func (g *budgetGuard) stage(delta string) (func(), error) {
	t := approxTokens(delta)
	if g.used+t > g.max {
		e := severed("governance.stream-token-budget", "stream token budget exceeded")
		e.Details = map[string]any{"max_tokens": g.max, "used": g.used, "delta_tokens": t}
		return nil, e
	}
	return func() { g.used += t }, nil
}

// holdBackGuard is HoldBackGuard(validators, window) ({#guards.hold-back-width},
// {#guards.hold-back}, {#guards.hold-back-flush}).
type holdBackGuard struct {
	rt       *runningTextGuard
	maxWidth int
	received []rune
	released int
}

// newHoldBackGuard refuses what a HoldBackGuard refuses (argument.invalid).
func newHoldBackGuard(vs []*Validator, window int) (*holdBackGuard, *LoomError) {
	widest := 0
	for _, v := range vs {
		if !v.HasDelta {
			return nil, invalid("hold-back needs the delta form of every validator")
		}
		for _, rl := range v.Rules {
			if rl.MaxWidth == unbounded {
				return nil, invalid("hold-back needs bounded rules")
			}
			if rl.MaxWidth > widest {
				widest = rl.MaxWidth
			}
		}
	}
	if window < widest {
		return nil, invalid("window narrower than the widest rule")
	}
	return &holdBackGuard{rt: newRunningTextGuard(vs, window), maxWidth: widest}, nil
}

func (g *holdBackGuard) feed(delta string) (string, error) {
	commit, err := g.rt.stage(delta)
	if err != nil {
		return "", err
	}
	commit()
	g.received = append(g.received, []rune(delta)...)
	upto := len(g.received)
	if g.maxWidth > 0 {
		upto = len(g.received) - (g.maxWidth - 1)
	}
	if upto <= g.released {
		return "", nil
	}
	out := string(g.received[g.released:upto])
	g.released = upto
	return out, nil
}

func (g *holdBackGuard) flush() string {
	out := string(g.received[g.released:])
	g.released = len(g.received)
	return out
}
