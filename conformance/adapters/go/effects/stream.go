package effects

import (
	"fmt"
	"math"
	"strconv"
)

// The parts of the stream protocol (spec/stream.md) the LLM effect needs: the chunk and message
// wire forms (read strictly; any malformation is simply "does not decode"), the tolerant
// BlockAssembler, the scripted adapter and the consumer wrapper.

// Block is a content block ({#stream.blocks}).
type Block struct {
	Type      string
	Text      string
	ID, Name  string
	Arguments any // the raw JSON string (any JSON value on the wire)
	CallID    string
	Content   string
	IsError   bool
}

// JSON is the block's wire form.
func (b *Block) JSON() map[string]any {
	switch b.Type {
	case "text", "reasoning":
		return map[string]any{"type": b.Type, "text": b.Text}
	case "tool-call":
		return map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "arguments": b.Arguments}
	}
	m := map[string]any{"type": b.Type, "callId": b.CallID, "content": b.Content}
	if b.IsError {
		m["isError"] = true
	}
	return m
}

// Failure is a failing finish's failure.
type Failure struct {
	Message string
	Code    *string
}

// Finish is a FinishReason ({#stream.finish}).
type Finish struct {
	Kind    string
	Failure *Failure
}

// Chunk is one StreamChunk ({#stream.chunks}).
type Chunk struct {
	Type      string
	Index     any // any JSON number ({#stream.wire.checker-owned-values})
	BlockType string
	Text      string
	ID        string
	Name      *string
	ArgsDelta any
	Block     *Block
	Usage     *Usage
	Reason    *Finish
}

type wireErr struct{ msg string }

func wfail(format string, args ...any) { panic(wireErr{fmt.Sprintf(format, args...)}) }

func wobj(v any, allowed ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		wfail("not an object")
	}
	for k := range m {
		found := false
		for _, a := range allowed {
			found = found || a == k
		}
		if !found {
			wfail("unknown field %s", k)
		}
	}
	return m
}

func wstr(m map[string]any, k string, required bool) (string, bool) {
	v, ok := m[k]
	if !ok {
		if required {
			wfail("missing field %s", k)
		}
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		wfail("field-type %s", k)
	}
	return s, true
}

func wnum(m map[string]any, k string) any {
	v, ok := m[k]
	if !ok {
		wfail("missing field %s", k)
	}
	if _, ok := isNum(v); !ok {
		wfail("field-type %s", k)
	}
	return v
}

func decodeBlock(v any) *Block {
	m, ok := v.(map[string]any)
	if !ok {
		wfail("block: not an object")
	}
	t, _ := wstr(m, "type", true)
	b := &Block{Type: t}
	switch t {
	case "text", "reasoning":
		wobj(m, "type", "text")
		b.Text, _ = wstr(m, "text", true)
	case "tool-call":
		wobj(m, "type", "id", "name", "arguments")
		b.ID, _ = wstr(m, "id", true)
		b.Name, _ = wstr(m, "name", true)
		a, ok := m["arguments"]
		if !ok {
			wfail("missing field arguments")
		}
		b.Arguments = a
	case "tool-result":
		wobj(m, "type", "callId", "content", "isError")
		b.CallID, _ = wstr(m, "callId", true)
		b.Content, _ = wstr(m, "content", true)
		if e, ok := m["isError"]; ok {
			eb, ok := e.(bool)
			if !ok {
				wfail("field-type isError")
			}
			b.IsError = eb
		}
	default:
		wfail("unknown block type")
	}
	return b
}

func decodeFinish(v any) *Finish {
	m := wobj(v, "kind", "failure")
	k, _ := wstr(m, "kind", true)
	f := &Finish{Kind: k}
	switch k {
	case "stop", "tool-calls", "max-tokens", "aborted", "error":
	default:
		wfail("unknown finish kind")
	}
	if fv, ok := m["failure"]; ok {
		fm := wobj(fv, "message", "code")
		msg, _ := wstr(fm, "message", true)
		f.Failure = &Failure{Message: msg}
		if c, ok := wstr(fm, "code", false); ok {
			f.Failure.Code = &c
		}
	}
	failing := k == "aborted" || k == "error"
	if failing != (f.Failure != nil) {
		wfail("failure on a non-failing kind, or none on a failing one")
	}
	return f
}

// decodeChunk reads one wire chunk ({#stream.wire}); ok is false when it does not decode.
func decodeChunk(v any) (c *Chunk, ok bool) {
	defer func() {
		if x := recover(); x != nil {
			if _, isW := x.(wireErr); isW {
				c, ok = nil, false
				return
			}
			panic(x)
		}
	}()
	m, isObj := v.(map[string]any)
	if !isObj {
		return nil, false
	}
	t, _ := wstr(m, "type", true)
	c = &Chunk{Type: t}
	switch t {
	case "block-start":
		wobj(m, "type", "index", "blockType")
		c.Index = wnum(m, "index")
		c.BlockType, _ = wstr(m, "blockType", true)
		switch c.BlockType {
		case "text", "reasoning", "tool-call", "tool-result":
		default:
			wfail("unknown blockType")
		}
	case "text-delta", "reasoning-delta":
		wobj(m, "type", "index", "text")
		c.Index = wnum(m, "index")
		c.Text, _ = wstr(m, "text", true)
	case "tool-call-delta":
		wobj(m, "type", "index", "id", "name", "argumentsDelta")
		c.Index = wnum(m, "index")
		c.ID, _ = wstr(m, "id", true)
		if n, ok := wstr(m, "name", false); ok {
			c.Name = &n
		}
		a, ok := m["argumentsDelta"]
		if !ok {
			wfail("missing argumentsDelta")
		}
		c.ArgsDelta = a
	case "block-end":
		wobj(m, "type", "index", "block")
		c.Index = wnum(m, "index")
		bv, ok := m["block"]
		if !ok {
			wfail("missing block")
		}
		c.Block = decodeBlock(bv)
	case "usage":
		wobj(m, "type", "usage")
		uv, ok := m["usage"]
		if !ok {
			wfail("missing usage")
		}
		u, ok := parseUsage(uv)
		if !ok {
			wfail("bad usage")
		}
		c.Usage = u
	case "finish":
		wobj(m, "type", "reason")
		rv, ok := m["reason"]
		if !ok {
			wfail("missing reason")
		}
		c.Reason = decodeFinish(rv)
	default:
		wfail("unknown chunk type")
	}
	return c, true
}

// decodeMessage reads a wire message {"role", "content": [blocks]}.
func decodeMessage(v any) (msg map[string]any, ok bool) {
	defer func() {
		if x := recover(); x != nil {
			if _, isW := x.(wireErr); isW {
				msg, ok = nil, false
				return
			}
			panic(x)
		}
	}()
	m := wobj(v, "role", "content")
	r, _ := wstr(m, "role", true)
	switch r {
	case "system", "user", "assistant", "tool":
	default:
		wfail("unknown role")
	}
	cv, present := m["content"]
	if !present {
		wfail("missing content")
	}
	cl, isList := cv.([]any)
	if !isList {
		wfail("content not a list")
	}
	content := []any{}
	for _, b := range cl {
		content = append(content, decodeBlock(b).JSON())
	}
	return map[string]any{"role": r, "content": content}, true
}

// --- the assembler ({#stream.assembler}) ---

type asmBlock struct {
	index    int
	typ      string
	text     []byte
	id, name string
	gotDelta bool
	args     []byte
	ended    bool
	endBlock *Block
}

// assembler is the tolerant BlockAssembler.
type assembler struct {
	blocks []*asmBlock
	byIdx  map[int]*asmBlock
	usage  *Usage
	finish *Finish
	failed *LoomError
	// appended: the last chunk fed was a text or reasoning delta appended to a text block
	// ({#deltas.collect-text}: only such text is delivered).
	appended bool
}

func newAssembler() *assembler { return &assembler{byIdx: map[int]*asmBlock{}} }

func blockIndex(v any) (int, bool) {
	f, ok := isNum(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func (a *assembler) open(i int, typ string) *asmBlock {
	b := &asmBlock{index: i, typ: typ}
	a.blocks = append(a.blocks, b)
	a.byIdx[i] = b
	return b
}

// feed folds one chunk; what no fold can take raises its rule's code and the assembler stays
// failed ({#stream.assembler.type-errors}, {#stream.assembler.failed-stays-failed}).
func (a *assembler) feed(c *Chunk) error {
	a.appended = false
	if a.failed != nil {
		return a.failed
	}
	fail := func(code string) error {
		a.failed = &LoomError{Code: code, Message: "assembler: " + code}
		return a.failed
	}
	switch c.Type {
	case "usage": // a later usage or finish replaces an earlier one
		a.usage = c.Usage
		return nil
	case "finish":
		a.finish = c.Reason
		return nil
	}
	i, ok := blockIndex(c.Index)
	if !ok {
		return fail("stream.index-non-negative-integer")
	}
	b := a.byIdx[i]
	if b != nil && b.ended {
		return nil // a straggler, unjudged ({#stream.assembler.first-block-end-wins})
	}
	switch c.Type {
	case "block-start":
		if b == nil {
			a.open(i, c.BlockType)
		}
	case "text-delta", "reasoning-delta":
		if b == nil {
			t := "text"
			if c.Type == "reasoning-delta" {
				t = "reasoning"
			}
			b = a.open(i, t)
		}
		if b.typ == "text" || b.typ == "reasoning" {
			b.text = append(b.text, c.Text...)
			a.appended = b.typ == "text"
		}
	case "tool-call-delta":
		s, isStr := c.ArgsDelta.(string)
		if !isStr {
			return fail("stream.tool-arguments-raw-json")
		}
		if b == nil {
			b = a.open(i, "tool-call")
		}
		if b.typ == "tool-call" {
			b.id, b.gotDelta = c.ID, true
			if c.Name != nil && *c.Name != "" {
				b.name = *c.Name
			}
			b.args = append(b.args, s...)
		}
	case "block-end":
		if c.Block.Type == "tool-call" {
			if _, isStr := c.Block.Arguments.(string); !isStr {
				return fail("stream.tool-arguments-raw-json")
			}
		}
		if b == nil {
			b = a.open(i, c.Block.Type)
		}
		b.ended, b.endBlock = true, c.Block
	}
	return nil
}

// message assembles the blocks in first-seen order ({#stream.assembler.unnamed-call},
// {#stream.assembler.max-tokens-drops-tool-calls}).
func (a *assembler) message() map[string]any {
	content := []any{}
	maxTok := a.finish != nil && a.finish.Kind == "max-tokens"
	for _, b := range a.blocks {
		var blk *Block
		switch {
		case b.ended:
			blk = b.endBlock
		case b.typ == "text" || b.typ == "reasoning":
			blk = &Block{Type: b.typ, Text: string(b.text)}
		case b.typ == "tool-call":
			blk = &Block{Type: "tool-call", ID: b.id, Name: b.name, Arguments: string(b.args)}
			if !b.gotDelta {
				blk.ID = "call-" + strconv.Itoa(b.index)
			}
		default:
			continue // an open tool-result has no content
		}
		if maxTok && blk.Type == "tool-call" {
			continue
		}
		content = append(content, blk.JSON())
	}
	return map[string]any{"role": "assistant", "content": content}
}

// --- the scripted adapter and the consumer wrapper ---

type adapterScript struct {
	chunks     []*Chunk
	raiseAfter *int64
	honor      bool
}

// scriptedAdapter is ScriptedAdapter([script, ...]) ({#stream.scripted}).
type scriptedAdapter struct {
	scripts []adapterScript
	calls   int
	pulled  int
	models  []any
}

type scriptedIter struct {
	a      *scriptedAdapter
	s      adapterScript
	sig    *Signal
	i      int
	closed bool
}

func (a *scriptedAdapter) stream(model string, sig *Signal) (*scriptedIter, error) {
	a.calls++
	a.models = append(a.models, model)
	if a.calls > len(a.scripts) {
		return nil, &LoomError{Code: "stream.scripted.exhausted", Message: "scripted adapter exhausted"}
	}
	return &scriptedIter{a: a, s: a.scripts[a.calls-1], sig: sig}, nil
}

// next yields the next chunk, (nil, nil) at the end.
func (it *scriptedIter) next() (*Chunk, error) {
	if it.s.honor && it.sig.aborted {
		return nil, &LoomError{Code: "stream.aborted", Message: "aborted: " + it.sig.reason}
	}
	// raise_after=k raises after k chunks; a k at or past the script's length raises once its
	// chunks have run out ({#stream.scripted}).
	if it.s.raiseAfter != nil && (int64(it.i) >= *it.s.raiseAfter || it.i >= len(it.s.chunks)) {
		return nil, &LoomError{Code: "stream.scripted.failure", Message: "scripted failure"}
	}
	if it.i >= len(it.s.chunks) {
		return nil, nil
	}
	c := it.s.chunks[it.i]
	it.i++
	it.a.pulled++
	return c, nil
}
