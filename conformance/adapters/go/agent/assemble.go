package agent

import (
	"math"
	"strconv"
	"strings"

	"loomref/adapters/go/protocol"
)

// assembler is the tolerant BlockAssembler (stream.assembler): every chunk folds, the first
// block-end of an index wins, blocks come out in first-seen order, and what no fold can take
// (a bad index, non-string tool arguments) raises its rule id and stays failed.
type assembler struct {
	blocks map[int64]*asmBlock
	order  []int64
	usage  *Usage
	finish *Reason
	failed *protocol.Error
	// appended: the last chunk fed was a text or reasoning delta appended to a text block
	// (deltas.collect-text: only such text is delivered).
	appended bool
}

type asmBlock struct {
	typ   string
	ended bool
	final Block // the block-end's block, once ended
	text  strings.Builder
	id    string
	hasID bool
	name  string
	args  strings.Builder
}

func newAssembler() *assembler { return &assembler{blocks: map[int64]*asmBlock{}} }

// blockIndex reads an index that must be a non-negative integer (an integral float such as
// 1.0 is the integer 1, stream.wire.checker-owned-values).
func blockIndex(n string) (int64, bool) {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f < 0 || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return int64(f), true
}

func (a *assembler) open(i int64, typ string) *asmBlock {
	b, ok := a.blocks[i]
	if !ok {
		b = &asmBlock{typ: typ}
		a.blocks[i] = b
		a.order = append(a.order, i)
	}
	return b
}

// feed folds one chunk (stream.assembler.folds-everything, delta-only, first-block-end-wins,
// deltas-by-block-type, type-errors, failed-stays-failed).
func (a *assembler) feed(c *Chunk) *protocol.Error {
	a.appended = false
	if a.failed != nil {
		return a.failed
	}
	switch c.Type {
	case "usage":
		a.usage = c.Usage
		return nil
	case "finish":
		a.finish = c.Reason
		return nil
	}
	i, ok := blockIndex(string(c.Index))
	if !ok {
		a.failed = protocol.Fail("stream.index-non-negative-integer", "message", "a block index is not a non-negative integer")
		return a.failed
	}
	if b, seen := a.blocks[i]; seen && b.ended {
		return nil // a straggler: ignored, unjudged
	}
	switch c.Type {
	case "block-start":
		a.open(i, c.BlockType)
	case "text-delta", "reasoning-delta":
		b := a.open(i, strings.TrimSuffix(c.Type, "-delta"))
		if b.typ == "text" || b.typ == "reasoning" {
			b.text.WriteString(c.Text)
			a.appended = b.typ == "text"
		}
	case "tool-call-delta":
		s, ok := c.ArgumentsDelta.(string)
		if !ok {
			a.failed = protocol.Fail("stream.tool-arguments-raw-json", "message", "argumentsDelta is not a string")
			return a.failed
		}
		b := a.open(i, "tool-call")
		if b.typ == "tool-call" {
			b.id, b.hasID = c.ID, true
			if c.Name != nil && *c.Name != "" {
				b.name = *c.Name
			}
			b.args.WriteString(s)
		}
	case "block-end":
		if c.Block.Type == "tool-call" {
			if _, ok := c.Block.Arguments.(string); !ok {
				a.failed = protocol.Fail("stream.tool-arguments-raw-json", "message", "tool-call arguments are not a string")
				return a.failed
			}
		}
		b := a.open(i, c.Block.Type)
		b.ended, b.final = true, *c.Block
	}
	return nil
}

// finishReason is the last finish fed, `stop` when none came
// (stream.assembler.missing-finish-is-stop).
func (a *assembler) finishReason() *Reason {
	if a.finish == nil {
		return &Reason{Kind: "stop"}
	}
	return a.finish
}

// message assembles the blocks; a max-tokens finish removes every tool call
// (stream.assembler.max-tokens-drops-tool-calls).
func (a *assembler) message() *Message {
	dropCalls := a.finishReason().Kind == "max-tokens"
	msg := &Message{Role: "assistant", Content: []Block{}}
	for _, i := range a.order {
		b := a.blocks[i]
		var out Block
		if b.ended {
			out = b.final
		} else {
			switch b.typ {
			case "text", "reasoning":
				out = Block{Type: b.typ, Text: b.text.String()}
			case "tool-call":
				id := b.id
				if !b.hasID {
					id = "call-" + strconv.FormatInt(i, 10) // stream.assembler.unnamed-call
				}
				out = Block{Type: "tool-call", ID: id, Name: b.name, Arguments: b.args.String()}
			default:
				continue // an open tool-result block has no content and is dropped
			}
		}
		if dropCalls && out.Type == "tool-call" {
			continue
		}
		msg.Content = append(msg.Content, out)
	}
	return msg
}
