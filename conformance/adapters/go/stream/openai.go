package stream

// The OpenAI-compatible mapping (spec/stream.md, stream.openai): a chat-completions SSE body,
// as text pieces cut anywhere, to chunks (map_event_stream).

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"loomref/adapters/go/protocol"
)

const (
	codeMalformed      = "stream.provider.malformed-event"
	codeNoFinishReason = "stream.provider.no-finish-reason"
	codeInBand         = "stream.provider.in-band-error"
	codeContentFilter  = "stream.provider.content-filter"
	codeUnknownFinish  = "stream.provider.unknown-finish-reason"
	codeEmptyResponse  = "stream.provider.empty-response"
)

// mapBlock is a block a mapping has opened, with what its block-end will carry.
type mapBlock struct {
	index   int
	typ     string
	closed  bool
	text    []string
	id      string
	name    string
	hasName bool
	args    []string
	// Anthropic only.
	gotFragment bool
	input       any
	dropped     bool
}

// emitter collects the chunks a mapping emits and the blocks it opened.
type emitter struct {
	out    []*Chunk
	blocks []*mapBlock // protocol index order
}

func (e *emitter) open(typ string) *mapBlock {
	b := &mapBlock{index: len(e.blocks), typ: typ}
	e.blocks = append(e.blocks, b)
	e.out = append(e.out, &Chunk{Type: "block-start", Index: idx(b.index), BlockType: typ})
	return b
}

func idx(i int) json.Number { return json.Number(strconv.Itoa(i)) }

func (e *emitter) textDelta(b *mapBlock, s string) {
	t := "text-delta"
	if b.typ == "reasoning" {
		t = "reasoning-delta"
	}
	b.text = append(b.text, s)
	e.out = append(e.out, &Chunk{Type: t, Index: idx(b.index), Text: s})
}

func (e *emitter) toolDelta(b *mapBlock, name *string, args string) {
	b.args = append(b.args, args)
	e.out = append(e.out, &Chunk{Type: "tool-call-delta", Index: idx(b.index), ID: b.id, Name: name, ArgsDelta: args})
}

func (e *emitter) close(b *mapBlock) {
	b.closed = true
	blk := &Block{Type: b.typ}
	if b.typ == "tool-call" {
		blk.ID, blk.Name, blk.Args = b.id, b.name, strings.Join(b.args, "")
	} else {
		blk.Text = strings.Join(b.text, "")
	}
	e.out = append(e.out, &Chunk{Type: "block-end", Index: idx(b.index), Block: blk})
}

// finishStream ends a provider's stream (stream.openai.defer-usage-and-finish): on a normal
// finish the open blocks are closed in protocol index order; then usage; then finish. A
// finish mapped to error leaves the blocks open (notes O9, N6).
func (e *emitter) finishStream(f *Finish, usage *Usage, beforeClose func(*mapBlock)) {
	if f.Kind != "error" {
		for _, b := range e.blocks {
			if !b.closed && !b.dropped {
				if beforeClose != nil {
					beforeClose(b)
				}
				e.close(b)
			}
		}
	}
	if usage != nil {
		e.out = append(e.out, &Chunk{Type: "usage", Usage: usage})
	}
	e.out = append(e.out, &Chunk{Type: "finish", Reason: f})
}

// openaiMapper is ChatCompletionsMapper.
type openaiMapper struct {
	emitter
	cur       *mapBlock            // the open text or reasoning block
	calls     map[string]*mapBlock // provider tool-call key -> block
	errSet    bool
	errMsg    string
	usage     *Usage
	reasonSet bool
	reason    string
}

func nonEmptyString(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok && s != ""
}

func member(o *Object, name string) any {
	if o == nil {
		return nil
	}
	v, _ := o.Get(name)
	return v
}

// payload reads one event's data (stream.openai.payload).
func (m *openaiMapper) payload(o *Object) {
	// 1. error
	if ev, ok := o.Get("error"); ok && truthy(ev) && !m.errSet {
		m.errSet = true
		eo, _ := ev.(*Object)
		m.errMsg, _ = nonEmptyString(member(eo, "message"))
	}
	// 2. usage
	if uv, ok := o.Get("usage"); ok {
		if u := openaiUsage(uv); u != nil {
			m.usage = u
		}
	}
	// 3. choices
	choices, _ := member(o, "choices").([]any)
	for _, cv := range choices {
		c, ok := cv.(*Object)
		if !ok {
			continue
		}
		if iv, present := c.Get("index"); present && !isZeroInt(iv) {
			continue
		}
		if d, ok := member(c, "delta").(*Object); ok {
			m.delta(d)
		}
		if fr, ok := member(c, "finish_reason").(string); ok && !m.reasonSet {
			m.reasonSet, m.reason = true, fr
		}
	}
}

// isZeroInt: a number of value 0 (0, -0, 0.0; whether 0.0 is 0 is implementation-defined).
// false is not a number, so it is not 0 (stream.openai.payload, rule 3).
func isZeroInt(v any) bool {
	switch x := v.(type) {
	case Number:
		return !truthy(x)
	}
	return false
}

func (m *openaiMapper) delta(d *Object) {
	if s, ok := nonEmptyString(member(d, "reasoning_content")); ok {
		m.text("reasoning", s)
	} else if s, ok := nonEmptyString(member(d, "reasoning")); ok {
		m.text("reasoning", s)
	}
	if s, ok := nonEmptyString(member(d, "content")); ok {
		m.text("text", s)
	}
	calls, _ := member(d, "tool_calls").([]any)
	for pos, item := range calls {
		if tc, ok := item.(*Object); ok {
			m.toolCall(tc, pos)
		}
	}
}

// text appends a text or reasoning fragment; a switch between the two closes the current block.
func (m *openaiMapper) text(typ, s string) {
	if m.cur != nil && m.cur.typ != typ {
		m.close(m.cur)
		m.cur = nil
	}
	if m.cur == nil {
		m.cur = m.open(typ)
	}
	m.textDelta(m.cur, s)
}

// stringifyArgs: absent or null is "", a string is itself, anything else is re-stringified.
func stringifyArgs(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return compactJSON(v)
}

func (m *openaiMapper) toolCall(tc *Object, pos int) {
	key := strconv.Itoa(pos)
	if iv, ok := tc.Get("index"); ok {
		if n, isNum := iv.(Number); isNum && isIntLiteral(n) {
			if z, ok := new(big.Int).SetString(string(n), 10); ok {
				key = z.String()
			}
		}
	}
	fn, _ := member(tc, "function").(*Object)
	name, hasName := nonEmptyString(member(fn, "name"))
	args := stringifyArgs(member(fn, "arguments"))
	b := m.calls[key]
	if b == nil {
		// The first fragment of a call closes the current text or reasoning block.
		if m.cur != nil {
			m.close(m.cur)
			m.cur = nil
		}
		b = m.open("tool-call")
		m.calls[key] = b
		if id, ok := nonEmptyString(member(tc, "id")); ok {
			b.id = id
		} else {
			b.id = "call-" + strconv.Itoa(b.index)
		}
		var np *string
		if hasName {
			b.name, b.hasName, np = name, true, &name
		}
		m.toolDelta(b, np, args)
		return
	}
	var np *string
	if hasName && !b.hasName {
		b.name, b.hasName, np = name, true, &name
	}
	if args != "" || np != nil {
		m.toolDelta(b, np, args)
	}
}

// openaiUsage maps a usage report (stream.openai.disjoint-usage); nil when missing or
// inconsistent.
func openaiUsage(v any) *Usage {
	o, ok := v.(*Object)
	if !ok {
		return nil
	}
	prompt, ok1 := nonNegInt(member(o, "prompt_tokens"))
	completion, ok2 := nonNegInt(member(o, "completion_tokens"))
	if !ok1 || !ok2 {
		return nil
	}
	pd, _ := member(o, "prompt_tokens_details").(*Object)
	cached, hasCached := nonNegInt(member(pd, "cached_tokens"))
	if !hasCached {
		cached, hasCached = nonNegInt(member(o, "prompt_cache_hit_tokens"))
	}
	cd, _ := member(o, "completion_tokens_details").(*Object)
	reasoning, hasReasoning := nonNegInt(member(cd, "reasoning_tokens"))
	u := &Usage{Input: prompt, Output: completion}
	if hasCached {
		if cached.Cmp(prompt) > 0 {
			return nil
		}
		u.Input = new(big.Int).Sub(prompt, cached)
		u.CacheRead = cached
	}
	if hasReasoning {
		if reasoning.Cmp(completion) > 0 {
			return nil
		}
		u.Reasoning = reasoning
	}
	return u
}

// asciiTrim strips the ASCII whitespace of stream.openai.sse.
func asciiTrim(s string) string {
	return strings.Trim(s, "\t\n\f\r ")
}

func (m *openaiMapper) end() {
	var f *Finish
	switch {
	case m.errSet:
		msg := m.errMsg
		if msg == "" {
			msg = "the provider reported an error"
		}
		f = failed("error", codeInBand, msg)
	case len(m.blocks) == 0 && (!m.reasonSet || m.reason == "stop"):
		// stream.openai.empty-response: a stop (or absent) finish that opened no block.
		f = failed("error", codeEmptyResponse, "the provider's reply is empty")
	case !m.reasonSet:
		f = failed("error", codeNoFinishReason, "the stream ended without a finish reason")
	default:
		switch m.reason {
		case "stop":
			f = &Finish{Kind: "stop"}
		case "tool_calls", "function_call":
			f = &Finish{Kind: "tool-calls"}
		case "length":
			f = &Finish{Kind: "max-tokens"}
		case "content_filter":
			f = failed("error", codeContentFilter, "the provider's content filter stopped the reply")
		default:
			f = failed("error", codeUnknownFinish, "unknown finish reason: "+m.reason)
		}
	}
	m.finishStream(f, m.usage, nil)
}

// MapOpenAI maps a chat-completions body, given as text pieces, to chunks. On a raise it
// returns the chunks the mapping had emitted before it, with the error.
func MapOpenAI(pieces []string) ([]*Chunk, error) {
	m := &openaiMapper{calls: map[string]*mapBlock{}}
	done := false
	p := &sseParser{dispatch: func(data string) (bool, error) {
		if asciiTrim(data) == "[DONE]" {
			done = true
			return true, nil
		}
		v, err := parseJSON(data)
		o, isObj := v.(*Object)
		if err != nil || !isObj {
			return true, protocol.Fail(codeMalformed)
		}
		m.payload(o)
		return false, nil
	}}
	for _, piece := range pieces {
		if err := p.feed(piece); err != nil {
			return m.out, err // the chunks emitted before the raise, for the consumer wrapper
		}
		if done {
			break
		}
	}
	// At the end of the text a partial event is discarded (stream.openai.sse).
	m.end()
	return m.out, nil
}
