package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// The stream chapter's wire form (spec/stream.md, stream.wire), decoded strictly. Every
// decoding error is reported by the agent vectors as argument.invalid (agent.vector-input:
// "a chunk ... that does not decode is argument.invalid, not its stream.wire.* code"), so
// the decoder only needs to find every malformed value, not to name it.

// Block is a content block (stream.blocks): text, reasoning, tool-call or tool-result.
type Block struct {
	Type      string
	Text      string // text, reasoning
	ID        string // tool-call
	Name      string // tool-call
	Arguments any    // tool-call: a JSON value as the decoder lets it through (a string when valid)
	CallID    string // tool-result
	Content   string // tool-result
	IsError   bool   // tool-result
}

// Message is {"role", "content": [blocks]}.
type Message struct {
	Role    string
	Content []Block
}

// Usage is a TokenUsage; nil pointers are counts not reported (stream.usage.absent-not-zero).
type Usage struct {
	InputTokens, OutputTokens                          int64
	CacheReadTokens, CacheWriteTokens, ReasoningTokens *int64
}

// Failure is a finish reason's failure.
type Failure struct {
	Message string
	Code    *string
}

// Reason is a FinishReason.
type Reason struct {
	Kind    string
	Failure *Failure
}

// Chunk is one StreamChunk.
type Chunk struct {
	Type           string
	Index          json.Number // checker-owned: any JSON number (stream.wire.checker-owned-values)
	BlockType      string
	Text           string
	ID             string
	Name           *string
	ArgumentsDelta any // checker-owned: any JSON value
	Block          *Block
	Usage          *Usage
	Reason         *Reason
}

type wireError struct{ path, why string }

func (e *wireError) Error() string { return e.path + ": " + e.why }

func werr(path, format string, a ...any) error {
	return &wireError{path, fmt.Sprintf(format, a...)}
}

// fields checks that an object has no member outside `known`.
func noUnknown(m map[string]any, path string, known ...string) error {
	ok := map[string]bool{}
	for _, k := range known {
		ok[k] = true
	}
	for k := range m {
		if !ok[k] {
			return werr(path, "unknown field %q", k)
		}
	}
	return nil
}

func reqString(m map[string]any, k, path string) (string, error) {
	v, ok := m[k]
	if !ok {
		return "", werr(path, "missing field %q", k)
	}
	s, ok := v.(string)
	if !ok {
		return "", werr(path, "field %q is not a string", k)
	}
	return s, nil
}

func reqNumber(m map[string]any, k, path string) (json.Number, error) {
	v, ok := m[k]
	if !ok {
		return "", werr(path, "missing field %q", k)
	}
	n, ok := v.(json.Number)
	if !ok {
		return "", werr(path, "field %q is not a number", k)
	}
	return n, nil
}

// tokenCount reads a usage count: a non-negative integral number.
func tokenCount(v any, path string) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, werr(path, "token count is not a number")
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, werr(path, "token count is negative or not integral")
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, nil
	}
	return int64(f), nil
}

func decodeUsage(v any, path string) (*Usage, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, werr(path, "usage is not an object")
	}
	u := &Usage{}
	for _, k := range []string{"inputTokens", "outputTokens"} {
		x, ok := m[k]
		if !ok {
			return nil, werr(path, "missing %q", k)
		}
		c, err := tokenCount(x, path+"."+k)
		if err != nil {
			return nil, err
		}
		if k == "inputTokens" {
			u.InputTokens = c
		} else {
			u.OutputTokens = c
		}
	}
	for _, k := range []string{"cacheReadTokens", "cacheWriteTokens", "reasoningTokens"} {
		x, ok := m[k]
		if !ok {
			continue
		}
		c, err := tokenCount(x, path+"."+k)
		if err != nil {
			return nil, err
		}
		switch k {
		case "cacheReadTokens":
			u.CacheReadTokens = &c
		case "cacheWriteTokens":
			u.CacheWriteTokens = &c
		default:
			u.ReasoningTokens = &c
		}
	}
	return u, noUnknown(m, path, "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")
}

func decodeReason(v any, path string) (*Reason, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, werr(path, "reason is not an object")
	}
	kind, err := reqString(m, "kind", path)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "stop", "tool-calls", "max-tokens", "aborted", "error":
	default:
		return nil, werr(path, "unknown kind %q", kind)
	}
	r := &Reason{Kind: kind}
	failing := kind == "aborted" || kind == "error"
	if f, ok := m["failure"]; ok {
		fm, ok := f.(map[string]any)
		if !ok {
			return nil, werr(path, "failure is not an object")
		}
		msg, err := reqString(fm, "message", path+".failure")
		if err != nil {
			return nil, err
		}
		r.Failure = &Failure{Message: msg}
		if c, ok := fm["code"]; ok {
			cs, ok := c.(string)
			if !ok {
				return nil, werr(path, "failure code is not a string")
			}
			r.Failure.Code = &cs
		}
		if err := noUnknown(fm, path+".failure", "message", "code"); err != nil {
			return nil, err
		}
	} else if failing {
		// stream.finish.failure: aborted and error MUST carry a failure.
		return nil, werr(path, "missing failure")
	}
	if err := noUnknown(m, path, "kind", "failure"); err != nil {
		return nil, err
	}
	if r.Failure != nil && !failing {
		return nil, werr(path, "a failure on a non-failing kind")
	}
	return r, nil
}

// decodeBlock reads a content block (stream.blocks).
func decodeBlock(v any, path string) (*Block, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, werr(path, "block is not an object")
	}
	typ, err := reqString(m, "type", path)
	if err != nil {
		return nil, err
	}
	b := &Block{Type: typ}
	switch typ {
	case "text", "reasoning":
		if b.Text, err = reqString(m, "text", path); err != nil {
			return nil, err
		}
		err = noUnknown(m, path, "type", "text")
	case "tool-call":
		if b.ID, err = reqString(m, "id", path); err != nil {
			return nil, err
		}
		if b.Name, err = reqString(m, "name", path); err != nil {
			return nil, err
		}
		a, ok := m["arguments"]
		if !ok {
			return nil, werr(path, "missing arguments")
		}
		b.Arguments = a
		err = noUnknown(m, path, "type", "id", "name", "arguments")
	case "tool-result":
		if b.CallID, err = reqString(m, "callId", path); err != nil {
			return nil, err
		}
		if b.Content, err = reqString(m, "content", path); err != nil {
			return nil, err
		}
		if ie, ok := m["isError"]; ok {
			bv, ok := ie.(bool)
			if !ok {
				return nil, werr(path, "isError is not a boolean")
			}
			b.IsError = bv
		}
		err = noUnknown(m, path, "type", "callId", "content", "isError")
	default:
		return nil, werr(path, "unknown block type %q", typ)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// DecodeMessage reads a wire message {"role", "content": [blocks]}.
func DecodeMessage(v any, path string) (*Message, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, werr(path, "message is not an object")
	}
	role, err := reqString(m, "role", path)
	if err != nil {
		return nil, err
	}
	switch role {
	case "system", "user", "assistant", "tool":
	default:
		return nil, werr(path, "unknown role %q", role)
	}
	c, ok := m["content"]
	if !ok {
		return nil, werr(path, "missing content")
	}
	items, ok := c.([]any)
	if !ok {
		return nil, werr(path, "content is not a list")
	}
	if err := noUnknown(m, path, "role", "content"); err != nil {
		return nil, err
	}
	msg := &Message{Role: role, Content: []Block{}}
	for i, item := range items {
		b, err := decodeBlock(item, fmt.Sprintf("%s.content[%d]", path, i))
		if err != nil {
			return nil, err
		}
		msg.Content = append(msg.Content, *b)
	}
	return msg, nil
}

// DecodeMessages reads a list of wire messages.
func DecodeMessages(v any, path string) ([]*Message, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, werr(path, "not a list")
	}
	out := make([]*Message, 0, len(items))
	for i, item := range items {
		m, err := DecodeMessage(item, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// DecodeChunk reads one StreamChunk (stream.chunks).
func DecodeChunk(v any, path string) (*Chunk, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, werr(path, "chunk is not an object")
	}
	typ, err := reqString(m, "type", path)
	if err != nil {
		return nil, err
	}
	c := &Chunk{Type: typ}
	switch typ {
	case "block-start":
		if c.Index, err = reqNumber(m, "index", path); err != nil {
			return nil, err
		}
		if c.BlockType, err = reqString(m, "blockType", path); err != nil {
			return nil, err
		}
		switch c.BlockType {
		case "text", "reasoning", "tool-call", "tool-result":
		default:
			return nil, werr(path, "unknown blockType %q", c.BlockType)
		}
		err = noUnknown(m, path, "type", "index", "blockType")
	case "text-delta", "reasoning-delta":
		if c.Index, err = reqNumber(m, "index", path); err != nil {
			return nil, err
		}
		if c.Text, err = reqString(m, "text", path); err != nil {
			return nil, err
		}
		err = noUnknown(m, path, "type", "index", "text")
	case "tool-call-delta":
		if c.Index, err = reqNumber(m, "index", path); err != nil {
			return nil, err
		}
		if c.ID, err = reqString(m, "id", path); err != nil {
			return nil, err
		}
		if n, ok := m["name"]; ok {
			s, ok := n.(string)
			if !ok {
				return nil, werr(path, "name is not a string")
			}
			c.Name = &s
		}
		a, ok := m["argumentsDelta"]
		if !ok {
			return nil, werr(path, "missing argumentsDelta")
		}
		c.ArgumentsDelta = a
		err = noUnknown(m, path, "type", "index", "id", "name", "argumentsDelta")
	case "block-end":
		if c.Index, err = reqNumber(m, "index", path); err != nil {
			return nil, err
		}
		b, ok := m["block"]
		if !ok {
			return nil, werr(path, "missing block")
		}
		if c.Block, err = decodeBlock(b, path+".block"); err != nil {
			return nil, err
		}
		err = noUnknown(m, path, "type", "index", "block")
	case "usage":
		u, ok := m["usage"]
		if !ok {
			return nil, werr(path, "missing usage")
		}
		if c.Usage, err = decodeUsage(u, path+".usage"); err != nil {
			return nil, err
		}
		err = noUnknown(m, path, "type", "usage")
	case "finish":
		r, ok := m["reason"]
		if !ok {
			return nil, werr(path, "missing reason")
		}
		if c.Reason, err = decodeReason(r, path+".reason"); err != nil {
			return nil, err
		}
		err = noUnknown(m, path, "type", "reason")
	default:
		return nil, werr(path, "unknown chunk type %q", typ)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// DecodeChunks reads a list of chunks.
func DecodeChunks(v any, path string) ([]*Chunk, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, werr(path, "not a list")
	}
	out := make([]*Chunk, 0, len(items))
	for i, item := range items {
		c, err := DecodeChunk(item, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// --- encoding back to the wire form (optional fields omitted, isError only when true)

// BlockJSON is a block's wire form.
func BlockJSON(b Block) map[string]any {
	switch b.Type {
	case "text", "reasoning":
		return map[string]any{"type": b.Type, "text": b.Text}
	case "tool-call":
		return map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "arguments": b.Arguments}
	default:
		m := map[string]any{"type": b.Type, "callId": b.CallID, "content": b.Content}
		if b.IsError {
			m["isError"] = true
		}
		return m
	}
}

// MessageJSON is a message's wire form.
func MessageJSON(m *Message) map[string]any {
	content := make([]any, 0, len(m.Content))
	for _, b := range m.Content {
		content = append(content, BlockJSON(b))
	}
	return map[string]any{"role": m.Role, "content": content}
}

// UsageJSON is a usage's wire form.
func UsageJSON(u *Usage) map[string]any {
	m := map[string]any{"inputTokens": u.InputTokens, "outputTokens": u.OutputTokens}
	if u.CacheReadTokens != nil {
		m["cacheReadTokens"] = *u.CacheReadTokens
	}
	if u.CacheWriteTokens != nil {
		m["cacheWriteTokens"] = *u.CacheWriteTokens
	}
	if u.ReasoningTokens != nil {
		m["reasoningTokens"] = *u.ReasoningTokens
	}
	return m
}
