package effects

import (
	"fmt"
	"strings"
)

// retryable says whether RetryMiddleware retries err: an Exception matching retry_on that is
// not a refusal, an invalid argument or the taint fence's refusal
// ({#effects.refusal-never-retried}); retryOn nil matches every error.
func retryable(err error, retryOn []string) bool {
	e, ok := err.(*LoomError)
	if ok && e.Kind != kindOrdinary {
		return false
	}
	if retryOn == nil {
		return true
	}
	for _, c := range retryOn {
		if c == codeOf(err) {
			return true
		}
	}
	return false
}

// retryMiddleware is RetryMiddleware(max_attempts, base_delay, multiplier, max_delay, jitter,
// retry_on, seed): it calls next up to maxAttempts times and sleeps on ctx.clock between
// attempts (§3.5, {#effects.retry-backoff}).
func retryMiddleware(maxAttempts int64, base, mult, maxDelay, jitter float64, seed string, retryOn []string) *Middleware {
	return &Middleware{Name: "retry", Handle: func(ctx *Ctx, input any, next Next) (any, error) {
		for n := int64(1); ; n++ {
			out, err := next(ctx, input)
			if err == nil {
				return out, nil
			}
			if n >= maxAttempts || !retryable(err, retryOn) {
				return nil, err
			}
			key := seed + ":"
			if ctx.IdempotencyKey != nil {
				key += *ctx.IdempotencyKey
			}
			if err := ctx.Clock.Sleep(backoffDelay(n, base, mult, maxDelay, jitter, key)); err != nil {
				return nil, err
			}
		}
	}}
}

type bucket struct{ tokens, last float64 }

// rateLimitMiddleware is RateLimitMiddleware(capacity, rate, per): a token bucket per key on
// ctx.clock, full at first, refilling at rate tokens per second ({#effects.rate-limit}).
func rateLimitMiddleware(capacity, rate float64, per string) *Middleware {
	buckets := map[string]*bucket{}
	return &Middleware{Name: "rateLimit", Handle: func(ctx *Ctx, input any, next Next) (any, error) {
		var key string
		switch per {
		case "tool":
			key = "t:" + ctx.ToolID
		case "principal":
			key = "p:" + ctx.Principal
		default: // "call": one bucket per (principal, tool id) — decided by the case
			// effects.middleware/rate-limit-per-call, not by the text (notes E15)
			key = fmt.Sprintf("c:%q:%q", ctx.Principal, ctx.ToolID)
		}
		now := ctx.Clock.Now()
		b, ok := buckets[key]
		if !ok {
			b = &bucket{tokens: capacity, last: now}
			buckets[key] = b
		} else {
			b.tokens = minF(capacity, b.tokens+(now-b.last)*rate)
			b.last = now
		}
		if b.tokens < 1 {
			e := refusal("effect.rate-limited", "rate limited")
			var after any
			if rate > 0 {
				after = round6((1 - b.tokens) / rate)
			}
			e.Details = map[string]any{"retryAfter": after}
			return nil, e
		}
		b.tokens--
		return next(ctx, input)
	}}
}

func minF(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}

// envelopeMiddleware returns {"tool", "result"}; a failure passes through ({#effects.envelope}).
func envelopeMiddleware() *Middleware {
	return &Middleware{Name: "envelope", Handle: func(ctx *Ctx, input any, next Next) (any, error) {
		out, err := next(ctx, input)
		if err != nil {
			return nil, err
		}
		return map[string]any{"tool": ctx.ToolID, "result": out}, nil
	}}
}

// outputTexts are the texts the output form is applied to ({#deltas.output-text}): a str
// output; a message's concatenated text blocks; every string in the output on its own.
func outputTexts(out any) []string {
	var texts []string
	if s, ok := out.(string); ok {
		texts = append(texts, s)
	}
	if m, ok := out.(map[string]any); ok {
		_, roleOK := m["role"].(string)
		content, contentOK := m["content"].([]any)
		if roleOK && contentOK {
			var b strings.Builder
			for _, blk := range content {
				if bm, ok := blk.(map[string]any); ok && bm["type"] == "text" {
					if t, ok := bm["text"].(string); ok {
						b.WriteString(t)
					}
				}
			}
			texts = append(texts, b.String())
		}
	}
	walkStrings(out, func(s string) bool { texts = append(texts, s); return true })
	return texts
}

// safetyMiddleware is safety_middleware(validators, delta_window, hold_back)
// ({#deltas.safety-phases}, {#deltas.safety-delta-guard}, {#deltas.hold-back}).
func safetyMiddleware(vs []*Validator, window int, holdBack bool) (*Middleware, *LoomError) {
	m := &Middleware{Name: "safety"}
	covered := true
	for _, v := range vs {
		if v.HasOutput {
			m.InspectsOutput = true
			if !v.HasDelta {
				covered = false
			}
		}
	}
	switch {
	case holdBack:
		for _, v := range vs {
			if !v.HasDelta {
				return nil, invalid("hold-back needs the delta form of every validator")
			}
		}
		if len(vs) > 0 {
			if _, err := newHoldBackGuard(vs, window); err != nil {
				return nil, err
			}
			m.DeltaGuard = func(*Ctx) (any, error) {
				g, err := newHoldBackGuard(vs, window)
				if err != nil {
					return nil, err
				}
				return g, nil
			}
		}
	case covered:
		m.DeltaGuard = func(*Ctx) (any, error) { return newRunningTextGuard(vs, window), nil }
	}
	m.Handle = func(ctx *Ctx, input any, next Next) (any, error) {
		for _, v := range vs {
			if err := v.CheckInput(input); err != nil {
				return nil, err
			}
		}
		out, err := next(ctx, input)
		if err != nil {
			return nil, err
		}
		for _, t := range outputTexts(out) {
			for _, v := range vs {
				if err := v.CheckOutput(t); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
	return m, nil
}

// maskText masks, rule by rule, every accepted match of each rule in the text the earlier
// rules left ({#deltas.redaction-inspects}).
func maskText(s string, rules []*Rule, mask string) string {
	for _, rl := range rules {
		t := newRuneText([]rune(s))
		var b strings.Builder
		last, p := 0, 0
		for p <= len(t.r) {
			st, e, ok := rl.find(t, p, -1)
			if !ok {
				break
			}
			b.WriteString(string(t.r[last:st]))
			b.WriteString(mask)
			last, p = e, e
		}
		b.WriteString(string(t.r[last:]))
		s = b.String()
	}
	return s
}

// redactValue applies the redactor to every string value of a JSON-like output.
func redactValue(v any, rules []*Rule) any {
	switch x := v.(type) {
	case string:
		return maskText(x, rules, "[redacted]")
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e, rules)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = redactValue(e, rules)
		}
		return out
	}
	return v
}

// redactionMiddleware is redaction_middleware(redact_output=pattern_redactor(validators)) when
// validators is non-nil, else redaction_middleware() ({#deltas.redaction-inspects}).
func redactionMiddleware(vs []*Validator, configured bool) *Middleware {
	m := &Middleware{Name: "redact", InspectsOutput: configured}
	var rules []*Rule
	for _, v := range vs {
		if v.HasOutput {
			rules = append(rules, v.Rules...)
		}
	}
	m.Handle = func(ctx *Ctx, input any, next Next) (any, error) {
		out, err := next(ctx, input)
		if err != nil || !configured {
			return out, err
		}
		return redactValue(out, rules), nil
	}
	return m
}

// budgetMiddleware is stream_budget_middleware(max_tokens) ({#deltas.token-budget}).
func budgetMiddleware(max int) *Middleware {
	return &Middleware{Name: "budget",
		Handle:     func(ctx *Ctx, input any, next Next) (any, error) { return next(ctx, input) },
		DeltaGuard: func(*Ctx) (any, error) { return &budgetGuard{max: max}, nil }}
}

// inspectorMiddleware is an inspects_output middleware with no delta guard.
func inspectorMiddleware() *Middleware {
	return &Middleware{Name: "inspector", InspectsOutput: true,
		Handle: func(ctx *Ctx, input any, next Next) (any, error) { return next(ctx, input) }}
}

// rewriteMiddleware replaces old by new in a str output after next, marked or not.
func rewriteMiddleware(old, new string, inspects bool) *Middleware {
	return &Middleware{Name: "rewrite", InspectsOutput: inspects,
		Handle: func(ctx *Ctx, input any, next Next) (any, error) {
			out, err := next(ctx, input)
			if err != nil {
				return nil, err
			}
			if s, ok := out.(string); ok {
				return strings.ReplaceAll(s, old, new), nil
			}
			return out, nil
		}}
}
