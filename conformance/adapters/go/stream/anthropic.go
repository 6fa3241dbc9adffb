package stream

// The Anthropic Messages mapping (spec/stream.md, stream.anthropic): a Messages SSE body,
// as bytes cut anywhere, to chunks (map_messages_stream).

import (
	"math/big"
	"strconv"
	"unicode/utf8"

	"loomref/adapters/go/protocol"
)

type anthropicMapper struct {
	emitter
	started  map[string]*mapBlock // the API's block index -> its block (dropped ones too)
	stopSet  bool
	stop     string
	inBand   bool
	inBandMs string
	counts   [4]*big.Int // input, output, cache read, cache write
}

var anthropicUsageNames = [4]string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}

// updateUsage applies a usage report: each count that is a non-negative integer replaces the
// one before (stream.anthropic.usage); any other value changes nothing.
func (m *anthropicMapper) updateUsage(v any) {
	o, ok := v.(*Object)
	if !ok {
		return
	}
	for i, name := range anthropicUsageNames {
		if z, ok := nonNegInt(member(o, name)); ok {
			m.counts[i] = z
		}
	}
}

func (m *anthropicMapper) usage() *Usage {
	if m.counts[0] == nil || m.counts[1] == nil {
		return nil
	}
	return &Usage{Input: m.counts[0], Output: m.counts[1], CacheRead: m.counts[2], CacheWrite: m.counts[3]}
}

// blockIndex reads an event's `index`: a non-negative integer (notes N4).
func blockIndex(o *Object) (string, bool) {
	z, ok := nonNegInt(member(o, "index"))
	if !ok {
		return "", false
	}
	return z.String(), true
}

// openBlock is the open, mapped block an event's index names, if any.
func (m *anthropicMapper) openBlock(o *Object) *mapBlock {
	key, ok := blockIndex(o)
	if !ok {
		return nil
	}
	b := m.started[key]
	if b == nil || b.dropped || b.closed {
		return nil
	}
	return b
}

// event reads one event's data; it returns true when the provider's stream has ended.
func (m *anthropicMapper) event(o *Object) bool {
	t, _ := member(o, "type").(string)
	switch t {
	case "message_start":
		msg, _ := member(o, "message").(*Object)
		m.updateUsage(member(msg, "usage"))
	case "content_block_start":
		m.blockStart(o)
	case "content_block_delta":
		m.blockDelta(o)
	case "content_block_stop":
		if b := m.openBlock(o); b != nil {
			m.inputDelta(b)
			m.close(b)
		}
	case "message_delta":
		d, _ := member(o, "delta").(*Object)
		if s, ok := member(d, "stop_reason").(string); ok {
			m.stopSet, m.stop = true, s
		}
		if uv, ok := o.Get("usage"); ok {
			m.updateUsage(uv)
		}
	case "message_stop":
		return true
	case "error":
		m.inBand = true
		eo, _ := member(o, "error").(*Object)
		m.inBandMs, _ = nonEmptyString(member(eo, "message"))
		return true
	}
	return false // ping and unknown types: nothing
}

// blockStart maps content_block_start (stream.anthropic.blocks).
func (m *anthropicMapper) blockStart(o *Object) {
	key, ok := blockIndex(o)
	if !ok || m.started[key] != nil {
		return
	}
	cb, isObj := member(o, "content_block").(*Object)
	if !isObj {
		// A content_block that is not an object is ignored and does not start its index:
		// a later start of that index opens it (stream.anthropic.blocks).
		return
	}
	ct, _ := member(cb, "type").(string)
	var b *mapBlock
	switch ct {
	case "text":
		b = m.open("text")
		if s, ok := nonEmptyString(member(cb, "text")); ok {
			m.textDelta(b, s)
		}
	case "thinking":
		b = m.open("reasoning")
		if s, ok := nonEmptyString(member(cb, "thinking")); ok {
			m.textDelta(b, s)
		}
	case "tool_use":
		b = m.open("tool-call")
		if id, ok := nonEmptyString(member(cb, "id")); ok {
			b.id = id
		} else {
			b.id = "call-" + strconv.Itoa(b.index)
		}
		var np *string
		if name, ok := nonEmptyString(member(cb, "name")); ok {
			b.name, b.hasName, np = name, true, &name
		}
		b.input = member(cb, "input")
		m.toolDelta(b, np, "")
	default:
		b = &mapBlock{dropped: true} // no protocol form: dropped with its deltas and stop
	}
	m.started[key] = b
}

func (m *anthropicMapper) blockDelta(o *Object) {
	b := m.openBlock(o)
	if b == nil {
		return
	}
	d, _ := member(o, "delta").(*Object)
	dt, _ := member(d, "type").(string)
	switch {
	case dt == "text_delta" && b.typ == "text":
		if s, ok := nonEmptyString(member(d, "text")); ok {
			m.textDelta(b, s)
		}
	case dt == "thinking_delta" && b.typ == "reasoning":
		if s, ok := nonEmptyString(member(d, "thinking")); ok {
			m.textDelta(b, s)
		}
	case dt == "input_json_delta" && b.typ == "tool-call":
		if s, ok := nonEmptyString(member(d, "partial_json")); ok {
			b.gotFragment = true
			m.toolDelta(b, nil, s)
		}
	}
}

// inputDelta: a tool call that received no fragment gets its start's input re-stringified
// (compact JSON, members in the order received; {} for none, and for an input that is not an
// object: the reference's reading, notes N3), so the deltas add up to the block-end's
// arguments.
func (m *anthropicMapper) inputDelta(b *mapBlock) {
	if b.typ != "tool-call" || b.gotFragment {
		return
	}
	s := "{}"
	if _, isObj := b.input.(*Object); isObj {
		s = compactJSON(b.input)
	}
	b.gotFragment = true
	m.toolDelta(b, nil, s)
}

func (m *anthropicMapper) end() {
	var f *Finish
	switch {
	case m.inBand:
		msg := m.inBandMs
		if msg == "" {
			msg = "the provider reported an error"
		}
		f = failed("error", codeInBand, msg)
	case !m.stopSet:
		f = failed("error", codeNoFinishReason, "the stream ended without a stop reason")
	default:
		switch m.stop {
		case "end_turn", "stop_sequence":
			f = &Finish{Kind: "stop"}
		case "tool_use":
			f = &Finish{Kind: "tool-calls"}
		case "max_tokens", "model_context_window_exceeded":
			f = &Finish{Kind: "max-tokens"}
		case "refusal":
			f = failed("error", codeContentFilter, "the model refused")
		default:
			f = failed("error", codeUnknownFinish, "unknown stop reason: "+m.stop)
		}
	}
	m.finishStream(f, m.usage(), m.inputDelta)
}

// MapAnthropic maps a Messages body, given as byte pieces, to chunks.
func MapAnthropic(pieces [][]byte) ([]*Chunk, error) {
	m := &anthropicMapper{started: map[string]*mapBlock{}}
	p := &sseParser{dispatch: func(data string) (bool, error) {
		v, err := parseJSON(data)
		o, isObj := v.(*Object)
		if err != nil || !isObj {
			return true, protocol.Fail(codeMalformed)
		}
		return m.event(o), nil
	}}
	dec := &utf8Decoder{}
	for _, piece := range pieces {
		if err := p.feed(dec.decode(piece, false)); err != nil {
			return nil, err
		}
	}
	if err := p.feed(dec.decode(nil, true)); err != nil {
		return nil, err
	}
	if err := p.endPartial(); err != nil {
		return nil, err
	}
	m.end()
	return m.out, nil
}

// utf8Decoder decodes UTF-8 incrementally: a character split between pieces is one
// character, and an invalid sequence becomes U+FFFD as the WHATWG decoder replaces it (one
// U+FFFD per maximal subpart).
type utf8Decoder struct{ pending []byte }

func (d *utf8Decoder) decode(piece []byte, flush bool) string {
	buf := append(d.pending, piece...)
	d.pending = nil
	out := make([]rune, 0, len(buf))
	for i := 0; i < len(buf); {
		r, size := utf8.DecodeRune(buf[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, r)
			i += size
			continue
		}
		// An invalid or incomplete sequence: find its maximal subpart.
		n := validPrefix(buf[i:])
		if i+n == len(buf) && n > 0 && !flush {
			d.pending = append([]byte(nil), buf[i:]...)
			break
		}
		if n == 0 {
			n = 1
		}
		out = append(out, utf8.RuneError)
		i += n
	}
	return string(out)
}

// validPrefix is the length of the longest prefix of b that starts a well-formed UTF-8
// sequence without completing it (0 when b[0] cannot start one).
func validPrefix(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 0
	}
	n := 1
	for n <= need && n < len(b) {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	if n > need {
		return 0 // complete: not reached for a sequence DecodeRune rejected
	}
	return n
}
