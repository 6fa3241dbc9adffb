package effects

import "fmt"

// Usage is a TokenUsage in the stream chapter's wire form ({#stream.usage}).
type Usage struct {
	Input, Output                    int64
	CacheRead, CacheWrite, Reasoning *int64
}

// JSON is the usage wire form: absent counts omitted ({#stream.usage.absent-not-zero}).
func (u *Usage) JSON() map[string]any {
	m := map[string]any{"inputTokens": u.Input, "outputTokens": u.Output}
	if u.CacheRead != nil {
		m["cacheReadTokens"] = *u.CacheRead
	}
	if u.CacheWrite != nil {
		m["cacheWriteTokens"] = *u.CacheWrite
	}
	if u.Reasoning != nil {
		m["reasoningTokens"] = *u.Reasoning
	}
	return m
}

// parseUsage reads the usage wire form; ok is false for anything else.
func parseUsage(v any) (*Usage, bool) {
	m, isObj := v.(map[string]any)
	if !isObj {
		return nil, false
	}
	count := func(k string) (*int64, bool, bool) { // value, present, ok
		x, present := m[k]
		if !present {
			return nil, false, true
		}
		i, ok := isInt(x)
		if !ok || i < 0 {
			return nil, true, false
		}
		return &i, true, true
	}
	for k := range m {
		switch k {
		case "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens":
		default:
			return nil, false
		}
	}
	in, p1, ok1 := count("inputTokens")
	out, p2, ok2 := count("outputTokens")
	if !p1 || !p2 || !ok1 || !ok2 {
		return nil, false
	}
	u := &Usage{Input: *in, Output: *out}
	var ok bool
	if u.CacheRead, _, ok = count("cacheReadTokens"); !ok {
		return nil, false
	}
	if u.CacheWrite, _, ok = count("cacheWriteTokens"); !ok {
		return nil, false
	}
	if u.Reasoning, _, ok = count("reasoningTokens"); !ok {
		return nil, false
	}
	return u, true
}

// Delta is an EffectDelta: a text chunk, a reset chunk or the terminal chunk ({#deltas.record});
// Text is the delta's value, tainted with Origin ({#deltas.taint}).
type Delta struct {
	Text    string
	Origin  string
	Done    bool
	Reset   bool
	Attempt int
	Usage   *Usage
}

// newDelta builds an EffectDelta, refusing any combination {#deltas.record} does not allow.
func newDelta(text, origin string, done, reset bool, attempt *int64, usage *Usage) (*Delta, *LoomError) {
	if origin == "" {
		return nil, invalid("origin must be a non-empty string")
	}
	d := &Delta{Text: text, Origin: origin, Done: done, Reset: reset, Usage: usage}
	switch {
	case done && reset:
		return nil, invalid("a chunk is not both terminal and reset")
	case reset:
		if text != "" || attempt == nil || *attempt < 2 || usage != nil {
			return nil, invalid("a reset chunk is {delta: \"\", reset: true, attempt: n >= 2}")
		}
		d.Attempt = int(*attempt)
	case done:
		if text != "" || attempt != nil {
			return nil, invalid("the terminal chunk is {delta: \"\", done: true, usage?}")
		}
	default:
		if text == "" || attempt != nil || usage != nil {
			return nil, invalid("a text chunk carries a non-empty delta and nothing else")
		}
	}
	return d, nil
}

// JSON is the chunk's JSON form ({#deltas.json}).
func (d *Delta) JSON() map[string]any {
	m := map[string]any{"delta": d.Text, "origin": d.Origin}
	if d.Done {
		m["done"] = true
	}
	if d.Reset {
		m["reset"] = true
		m["attempt"] = d.Attempt
	}
	if d.Usage != nil {
		m["usage"] = d.Usage.JSON()
	}
	return m
}

// channel is the guarded delta channel the runtime puts on ctx.on_delta ({#deltas.channel}).
// A silent channel checks what it is handed and drops it.
type channel struct {
	rt                  *Runtime
	ctx                 *Ctx
	silent              bool
	perCall, configured Sink
	origin              string
	settled             bool
	dropped             int

	// the running attempt
	guards    []any // deltaGuard or holdGuard, in middleware order ({#deltas.guard-order})
	sever     error
	streamed  bool
	endUsage  *Usage
	received  []rune
	delivered int
	released  []int
}

// openChannel opens the call's channel after the lookup and the authorizer, before the chain
// runs; under an uncovered inspects_output middleware it is silent and a call with a sink
// warns once ({#deltas.fail-closed}).
func (rt *Runtime) openChannel(call *EffectCall, eff *Effect, ctx *Ctx) *channel {
	ch := &channel{rt: rt, ctx: ctx, perCall: call.OnDelta, configured: eff.DeltaSink, origin: "llm:" + call.ToolID}
	hasSink := ch.perCall != nil || ch.configured != nil
	if len(rt.blockedBy) > 0 {
		ch.silent = true
		if hasSink && rt.onWarn != nil {
			rt.onWarn("deltas.streaming-disabled", "streaming disabled: inspects output without a delta form")
		}
		return ch
	}
	hasGuard := false
	for _, m := range rt.middleware {
		if m.DeltaGuard != nil {
			hasGuard = true
		}
	}
	ch.silent = !hasSink && !hasGuard
	return ch
}

// beginAttempt starts attempt n: an eager reset chunk to both sinks when n > 1, fresh guards,
// and the held end chunk, hold-back text and sever dropped ({#deltas.reset}).
func (ch *channel) beginAttempt(ctx *Ctx) error {
	ch.sever, ch.streamed, ch.endUsage = nil, false, nil
	ch.received, ch.delivered, ch.released = nil, 0, nil
	ch.guards = nil
	if ch.silent {
		return nil
	}
	if ctx.Attempt > 1 {
		ch.deliver(&Delta{Origin: ch.origin, Reset: true, Attempt: ctx.Attempt}, true)
	}
	for _, m := range ch.rt.middleware {
		if m.DeltaGuard == nil {
			continue
		}
		g, err := m.DeltaGuard(ctx)
		if err != nil {
			return err
		}
		if g != nil {
			ch.guards = append(ch.guards, g)
			if _, ok := g.(holdGuard); ok {
				ch.released = append(ch.released, 0)
			}
		}
	}
	return nil
}

func (ch *channel) live() bool { return !ch.settled && !ch.ctx.Signal.aborted }

// deliver hands a chunk to the per-call sink, then (unless terminal) to the configured sink,
// checking the signal before each sink; a sink's failure is reported, never propagated
// ({#deltas.sink-isolated}, {#deltas.live-window}).
func (ch *channel) deliver(d *Delta, toConfigured bool) {
	sinks := []Sink{ch.perCall}
	if toConfigured {
		sinks = append(sinks, ch.configured)
	}
	for _, s := range sinks {
		if s == nil {
			continue
		}
		if ch.ctx.Signal.aborted {
			ch.dropped++
			return
		}
		if err := s(d); err != nil && ch.rt.onWarn != nil {
			ch.rt.onWarn("deltas.sink-raised", fmt.Sprintf("delta sink raised: %T: %v", err, err))
		}
	}
}

// Write is ctx.on_delta(text) ({#deltas.writer}, {#deltas.guard-before-delivery},
// {#deltas.sever-sticky}, {#deltas.live-window}).
func (ch *channel) Write(v any) error {
	text, ok := v.(string)
	if !ok {
		return invalid("on_delta takes a str")
	}
	if text == "" || ch.silent {
		return nil
	}
	if !ch.live() {
		ch.dropped++
		return nil
	}
	if ch.sever != nil {
		return ch.sever
	}
	ch.streamed = true
	var commits []func()
	hold := 0
	var releasedNow []string
	for _, g := range ch.guards {
		switch x := g.(type) {
		case deltaGuard:
			c, err := x.stage(text)
			if err != nil {
				ch.sever = err
				return err
			}
			commits = append(commits, c)
		case holdGuard:
			r, err := x.feed(text)
			if err != nil {
				ch.sever = err
				return err
			}
			releasedNow = append(releasedNow, r)
			hold++
		}
	}
	for _, c := range commits {
		c()
	}
	out := text
	if hold > 0 {
		ch.received = append(ch.received, []rune(text)...)
		for i, r := range releasedNow {
			ch.released[i] += len([]rune(r))
		}
		upto := ch.released[0]
		for _, r := range ch.released {
			if r < upto {
				upto = r
			}
		}
		out = ""
		if upto > ch.delivered {
			out = string(ch.received[ch.delivered:upto])
			ch.delivered = upto
		}
	}
	if out != "" {
		ch.deliver(&Delta{Text: out, Origin: ch.origin}, true)
	}
	return nil
}

// End is ctx.on_delta.end(usage): the effect's end chunk, held with its usage for the running
// attempt, never forwarded ({#deltas.terminal}).
func (ch *channel) End(usage any) error {
	var u *Usage
	if usage != nil {
		x, ok := usage.(*Usage)
		if !ok || x == nil {
			return invalid("end(usage) takes a TokenUsage")
		}
		u = x
	}
	if ch.silent {
		return nil
	}
	if !ch.live() {
		ch.dropped++
		return nil
	}
	if ch.sever != nil {
		return ch.sever
	}
	ch.streamed, ch.endUsage = true, u
	return nil
}

// complete runs after the whole route returned: the held hold-back rest, then the terminal
// chunk to the per-call sink only ({#deltas.terminal}, {#deltas.hold-back}).
func (ch *channel) complete() {
	if ch.silent || ch.ctx.Signal.aborted || !ch.streamed {
		return
	}
	hold := false
	for _, g := range ch.guards {
		if h, ok := g.(holdGuard); ok {
			h.flush()
			hold = true
		}
	}
	if hold && len(ch.received) > ch.delivered {
		rest := string(ch.received[ch.delivered:])
		ch.delivered = len(ch.received)
		ch.deliver(&Delta{Text: rest, Origin: ch.origin}, true)
	}
	ch.deliver(&Delta{Origin: ch.origin, Done: true, Usage: ch.endUsage}, false)
}
