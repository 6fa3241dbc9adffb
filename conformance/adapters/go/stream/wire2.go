package stream

// Continued from wire.go.

import (
	"encoding/json"
	"math/big"
)

func encodeChunk(c *Chunk) map[string]any {
	m := map[string]any{"type": c.Type}
	if c.isBlockChunk() {
		m["index"] = encodeIndex(c.Index)
	}
	switch c.Type {
	case "block-start":
		m["blockType"] = c.BlockType
	case "text-delta", "reasoning-delta":
		m["text"] = c.Text
	case "tool-call-delta":
		m["id"] = c.ID
		if c.Name != nil {
			m["name"] = *c.Name
		}
		m["argumentsDelta"] = c.ArgsDelta
	case "block-end":
		m["block"] = encodeBlock(c.Block)
	case "usage":
		m["usage"] = encodeUsage(c.Usage)
	case "finish":
		m["reason"] = encodeFinish(c.Reason)
	}
	return m
}

func encodeChunks(cs []*Chunk) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = encodeChunk(c)
	}
	return out
}

func encodeBlock(b *Block) map[string]any {
	m := map[string]any{"type": b.Type}
	switch b.Type {
	case "text", "reasoning":
		m["text"] = b.Text
	case "tool-call":
		m["id"] = b.ID
		m["name"] = b.Name
		m["arguments"] = b.Args
	case "tool-result":
		m["callId"] = b.CallID
		m["content"] = b.Content
		if b.IsError {
			m["isError"] = true
		}
	}
	return m
}

func encodeUsage(u *Usage) map[string]any {
	m := map[string]any{}
	for i, z := range []*big.Int{u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning} {
		if z != nil {
			m[usageFields[i]] = json.Number(z.String())
		}
	}
	return m
}

func encodeFinish(f *Finish) map[string]any {
	m := map[string]any{"kind": f.Kind}
	if f.Failure != nil {
		fm := map[string]any{"message": f.Failure.Message}
		if f.Failure.Code != nil {
			fm["code"] = *f.Failure.Code
		}
		m["failure"] = fm
	}
	return m
}

func encodeMessage(m *Message) map[string]any {
	content := make([]any, len(m.Content))
	for i, b := range m.Content {
		content[i] = encodeBlock(b)
	}
	return map[string]any{"role": m.Role, "content": content}
}

// failed builds a failing finish with a code.
func failed(kind, code, message string) *Finish {
	return &Finish{Kind: kind, Failure: &Failure{Message: message, Code: &code}}
}
