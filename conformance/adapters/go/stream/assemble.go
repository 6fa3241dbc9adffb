package stream

// BlockAssembler (spec/stream.md, stream.assembler): the tolerant fold of dsh-llm's
// assembler.ts, and its strict form with the contract checker in front.

import (
	"strings"

	"loomref/adapters/go/protocol"
)

type asmBlock struct {
	index  string // the block's index, as decimal text
	typ    string
	closed bool
	final  *Block   // the block its first block-end carried (stream.assembler.first-block-end-wins)
	text   []string // text and reasoning parts, joined once (stream.assembler.linear)
	id     string   // tool call: the last delta's id
	hasID  bool
	name   string   // tool call: the last non-empty name
	args   []string // tool call: argumentsDelta parts, never parsed
}

// Assembler folds chunks into content blocks and an assistant message.
type Assembler struct {
	strict  bool
	checker *Checker
	blocks  map[string]*asmBlock
	order   []*asmBlock // first-seen order (stream.assembler.first-seen-order)
	usage   *Usage
	finish  *Finish
	n       int
	err     error // once set, every call returns it (stream.assembler.failed-stays-failed)
}

// NewAssembler returns an empty assembler; strict puts the checker in front of the fold.
func NewAssembler(strict bool) *Assembler {
	a := &Assembler{strict: strict, blocks: map[string]*asmBlock{}}
	if strict {
		a.checker = NewChecker()
	}
	return a
}

func (a *Assembler) fail(code string, index int) error {
	a.err = protocol.Fail(code, "index", index)
	return a.err
}

// Feed folds one chunk.
func (a *Assembler) Feed(c *Chunk) error {
	if a.err != nil {
		return a.err
	}
	i := a.n
	a.n++
	if a.strict {
		if vs := a.checker.Feed(c); len(vs) > 0 {
			return a.fail(vs[0].Rule, vs[0].Index)
		}
	}
	switch c.Type {
	case "usage":
		a.usage = c.Usage // the last one wins (stream.assembler.folds-everything)
		return nil
	case "finish":
		a.finish = c.Reason
		return nil
	}
	key, ok := indexKey(c.Index)
	if !ok {
		return a.fail(ruleIndex, i) // stream.assembler.type-errors
	}
	b := a.blocks[key]
	if b != nil && b.closed {
		return nil // a straggler, ignored unjudged
	}
	if argsNotRaw(c) {
		return a.fail(ruleRawJSON, i)
	}
	if b == nil {
		// stream.assembler.delta-only: any chunk opens an unseen index with its type.
		typ := c.BlockType
		switch c.Type {
		case "text-delta", "reasoning-delta", "tool-call-delta":
			typ = deltaBlockType[c.Type]
		case "block-end":
			typ = c.Block.Type
		}
		b = &asmBlock{index: key, typ: typ}
		a.blocks[key] = b
		a.order = append(a.order, b)
	}
	switch c.Type {
	case "text-delta", "reasoning-delta":
		if b.typ == "text" || b.typ == "reasoning" {
			b.text = append(b.text, c.Text)
		}
	case "tool-call-delta":
		if b.typ == "tool-call" {
			b.id, b.hasID = c.ID, true
			if c.Name != nil && *c.Name != "" {
				b.name = *c.Name
			}
			b.args = append(b.args, c.ArgsDelta.(string))
		}
	case "block-end":
		b.final, b.closed = c.Block, true
	}
	return nil
}

// assembled returns every block in first-seen order, open ones assembled from what they
// received (stream.assembler.unnamed-call); an open tool-result is dropped.
func (a *Assembler) assembled() []*Block {
	var out []*Block
	for _, b := range a.order {
		if b.closed {
			out = append(out, b.final)
			continue
		}
		switch b.typ {
		case "text", "reasoning":
			out = append(out, &Block{Type: b.typ, Text: strings.Join(b.text, "")})
		case "tool-call":
			id := b.id
			if !b.hasID {
				id = "call-" + b.index
			}
			out = append(out, &Block{Type: "tool-call", ID: id, Name: b.name, Args: strings.Join(b.args, "")})
		}
	}
	return out
}

func (a *Assembler) end() error {
	if a.err != nil {
		return a.err
	}
	if a.strict {
		if vs := a.checker.End(); len(vs) > 0 {
			return a.fail(vs[0].Rule, vs[0].Index)
		}
	}
	return nil
}

// Finish is the stream's finish, stop when it had none (stream.assembler.missing-finish-is-stop).
func (a *Assembler) Finish() *Finish {
	if a.finish == nil {
		return &Finish{Kind: "stop"}
	}
	return a.finish
}

// Blocks returns the assembled blocks; a max-tokens finish drops every tool call
// (stream.assembler.max-tokens-drops-tool-calls).
func (a *Assembler) Blocks() ([]*Block, error) {
	if err := a.end(); err != nil {
		return nil, err
	}
	all := a.assembled()
	if a.Finish().Kind != "max-tokens" {
		return all, nil
	}
	var out []*Block
	for _, b := range all {
		if b.Type != "tool-call" {
			out = append(out, b)
		}
	}
	return out, nil
}

// Message returns the assistant message.
func (a *Assembler) Message() (*Message, error) {
	blocks, err := a.Blocks()
	if err != nil {
		return nil, err
	}
	return &Message{Role: "assistant", Content: blocks}, nil
}

// Interrupted returns the prefix safe to keep after a cancellation: the non-blank text and
// reasoning blocks, ended or open, in first-seen order (stream.assembler.interrupted).
func (a *Assembler) Interrupted() ([]*Block, error) {
	if a.err != nil {
		return nil, a.err
	}
	var out []*Block
	for _, b := range a.assembled() {
		if (b.Type == "text" || b.Type == "reasoning") && !blank(b.Text) {
			out = append(out, b)
		}
	}
	return out, nil
}

// blank reports whether s is made only of what ECMAScript's String.prototype.trim removes.
func blank(s string) bool {
	for _, r := range s {
		if !ecmaSpace(r) {
			return false
		}
	}
	return true
}

func ecmaSpace(r rune) bool {
	switch r {
	case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// Result is stream.assemble's answer.
func (a *Assembler) Result() (map[string]any, error) {
	msg, err := a.Message()
	if err != nil {
		return nil, err
	}
	interrupted, err := a.Interrupted()
	if err != nil {
		return nil, err
	}
	ib := make([]any, len(interrupted))
	for i, b := range interrupted {
		ib[i] = encodeBlock(b)
	}
	var usage any
	if a.usage != nil {
		usage = encodeUsage(a.usage)
	}
	return map[string]any{
		"message":     encodeMessage(msg),
		"finish":      encodeFinish(a.Finish()),
		"usage":       usage,
		"interrupted": ib,
	}, nil
}
