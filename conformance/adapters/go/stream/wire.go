package stream

// The JSON wire form of chunks, blocks, usage, finish reasons and messages
// (spec/stream.md, stream.wire, stream.wire.check-order).

import (
	"encoding/json"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"loomref/adapters/go/protocol"
)

// Wire error codes (stream.wire table).
const (
	codeNotAnObject    = "stream.wire.not-an-object"
	codeNotAList       = "stream.wire.not-a-list"
	codeMissingField   = "stream.wire.missing-field"
	codeUnknownField   = "stream.wire.unknown-field"
	codeFieldType      = "stream.wire.field-type"
	codeUnknownVariant = "stream.wire.unknown-variant"
	codeBadValue       = "stream.wire.bad-value"
)

// wireErr is a WireError: its code and the path of what is wrong (stream.wire.malformed).
func wireErr(code, path string) error {
	return protocol.Fail(code, "path", path)
}

// Chunk is one StreamChunk (stream.chunks): Type selects which fields are meaningful.
type Chunk struct {
	Type      string
	Index     json.Number // block chunks: any JSON number (stream.wire.checker-owned-values)
	BlockType string      // block-start
	Text      string      // text-delta, reasoning-delta
	ID        string      // tool-call-delta
	Name      *string     // tool-call-delta, optional
	ArgsDelta any         // tool-call-delta: any JSON value, judged by the checker
	Block     *Block      // block-end
	Usage     *Usage      // usage
	Reason    *Finish     // finish
}

// Block is a content block (stream.blocks).
type Block struct {
	Type    string // text, reasoning, tool-call, tool-result
	Text    string // text, reasoning
	ID      string // tool-call
	Name    string // tool-call
	Args    any    // tool-call: any JSON value on the wire; a string once assembled
	CallID  string // tool-result
	Content string // tool-result
	IsError bool   // tool-result
}

// Usage is a TokenUsage (stream.usage); an absent optional count is nil.
type Usage struct {
	Input, Output                    *big.Int
	CacheRead, CacheWrite, Reasoning *big.Int
}

// Finish is a FinishReason (stream.finish); Failure is set for aborted and error.
type Finish struct {
	Kind    string
	Failure *Failure
}

// Failure is {"message", "code"?} (loom-ref's choice, stream.finish).
type Failure struct {
	Message string
	Code    *string // nil when absent
}

// Message is {"role", "content"}.
type Message struct {
	Role    string
	Content []*Block
}

var blockChunkTypes = map[string]bool{
	"block-start": true, "text-delta": true, "reasoning-delta": true,
	"tool-call-delta": true, "block-end": true,
}

var blockTypes = map[string]bool{"text": true, "reasoning": true, "tool-call": true, "tool-result": true}

var finishKinds = map[string]bool{"stop": true, "tool-calls": true, "max-tokens": true, "aborted": true, "error": true}

func failingKind(kind string) bool { return kind == "aborted" || kind == "error" }

// isBlockChunk reports whether a chunk addresses a block by its index.
func (c *Chunk) isBlockChunk() bool { return blockChunkTypes[c.Type] }

// --- reading --------------------------------------------------------------------------

// obj is the object being read: its members, its path, and the members its form defines.
type obj struct {
	m       map[string]any
	path    string
	defined map[string]bool
}

func newObj(v any, path string) (*obj, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, wireErr(codeNotAnObject, path)
	}
	return &obj{m: m, path: path, defined: map[string]bool{}}, nil
}

func (o *obj) at(name string) string { return o.path + "." + name }

// get marks a member as defined and returns it (step 2 of stream.wire.check-order).
func (o *obj) get(name string, required bool) (any, bool, error) {
	o.defined[name] = true
	v, ok := o.m[name]
	if !ok && required {
		return nil, false, wireErr(codeMissingField, o.at(name))
	}
	return v, ok, nil
}

func (o *obj) str(name string, required bool) (string, bool, error) {
	v, ok, err := o.get(name, required)
	if err != nil || !ok {
		return "", ok, err
	}
	s, isStr := v.(string)
	if !isStr {
		return "", true, wireErr(codeFieldType, o.at(name))
	}
	return s, true, nil
}

// variant reads a discriminator: a string naming one of the variants (else unknown-variant).
func (o *obj) variant(name string, known map[string]bool) (string, error) {
	s, _, err := o.str(name, true)
	if err != nil {
		return "", err
	}
	if !known[s] {
		return "", wireErr(codeUnknownVariant, o.at(name))
	}
	return s, nil
}

// unknown is step 3: the first member the form does not define, in code-point order
// (notes W2).
func (o *obj) unknown() error {
	var names []string
	for k := range o.m {
		if !o.defined[k] {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return wireErr(codeUnknownField, o.at(names[0]))
}

// decodeChunks reads a chunk list item by item (the first malformed chunk is the error).
func decodeChunks(v any, path string) ([]*Chunk, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, wireErr(codeNotAList, path)
	}
	out := make([]*Chunk, len(items))
	for i, item := range items {
		c, err := decodeChunk(item, path+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

var chunkTypes = map[string]bool{
	"block-start": true, "text-delta": true, "reasoning-delta": true, "tool-call-delta": true,
	"block-end": true, "usage": true, "finish": true,
}

// decodeChunk reads one chunk by stream.wire.check-order.
func decodeChunk(v any, path string) (*Chunk, error) {
	o, err := newObj(v, path)
	if err != nil {
		return nil, err
	}
	t, err := o.variant("type", chunkTypes)
	if err != nil {
		return nil, err
	}
	c := &Chunk{Type: t}
	if blockChunkTypes[t] {
		iv, _, err := o.get("index", true)
		if err != nil {
			return nil, err
		}
		n, isNum := iv.(json.Number)
		if !isNum {
			return nil, wireErr(codeFieldType, o.at("index"))
		}
		c.Index = n
	}
	switch t {
	case "block-start":
		if c.BlockType, err = o.variant("blockType", blockTypes); err != nil {
			return nil, err
		}
	case "text-delta", "reasoning-delta":
		if c.Text, _, err = o.str("text", true); err != nil {
			return nil, err
		}
	case "tool-call-delta":
		if c.ID, _, err = o.str("id", true); err != nil {
			return nil, err
		}
		name, present, err := o.str("name", false)
		if err != nil {
			return nil, err
		}
		if present {
			c.Name = &name
		}
		if c.ArgsDelta, _, err = o.get("argumentsDelta", true); err != nil {
			return nil, err
		}
	case "block-end":
		bv, _, err := o.get("block", true)
		if err != nil {
			return nil, err
		}
		if c.Block, err = decodeBlock(bv, o.at("block")); err != nil {
			return nil, err
		}
	case "usage":
		uv, _, err := o.get("usage", true)
		if err != nil {
			return nil, err
		}
		if c.Usage, err = decodeUsage(uv, o.at("usage")); err != nil {
			return nil, err
		}
	case "finish":
		rv, _, err := o.get("reason", true)
		if err != nil {
			return nil, err
		}
		if c.Reason, err = decodeFinish(rv, o.at("reason")); err != nil {
			return nil, err
		}
	}
	if err := o.unknown(); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeBlock reads a content block (stream.blocks table, members in table order).
func decodeBlock(v any, path string) (*Block, error) {
	o, err := newObj(v, path)
	if err != nil {
		return nil, err
	}
	t, err := o.variant("type", blockTypes)
	if err != nil {
		return nil, err
	}
	b := &Block{Type: t}
	switch t {
	case "text", "reasoning":
		if b.Text, _, err = o.str("text", true); err != nil {
			return nil, err
		}
	case "tool-call":
		if b.ID, _, err = o.str("id", true); err != nil {
			return nil, err
		}
		if b.Name, _, err = o.str("name", true); err != nil {
			return nil, err
		}
		if b.Args, _, err = o.get("arguments", true); err != nil {
			return nil, err
		}
	case "tool-result":
		if b.CallID, _, err = o.str("callId", true); err != nil {
			return nil, err
		}
		if b.Content, _, err = o.str("content", true); err != nil {
			return nil, err
		}
		ev, present, _ := o.get("isError", false)
		if present {
			flag, isBool := ev.(bool)
			if !isBool {
				return nil, wireErr(codeFieldType, o.at("isError"))
			}
			b.IsError = flag
		}
	}
	if err := o.unknown(); err != nil {
		return nil, err
	}
	return b, nil
}

// countValue reads a token count: a JSON number (else field-type) that is a non-negative
// integer (else bad-value). An integral float is its integer (notes W5).
func countValue(v any, path string) (*big.Int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, wireErr(codeFieldType, path)
	}
	z, integral := numberInt(n)
	if !integral || z.Sign() < 0 {
		return nil, wireErr(codeBadValue, path)
	}
	return z, nil
}

// numberInt returns the integer a JSON number denotes, if it denotes one.
func numberInt(n json.Number) (*big.Int, bool) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		z, ok := new(big.Int).SetString(s, 10)
		return z, ok
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return nil, false
	}
	z, _ := big.NewFloat(f).Int(nil)
	return z, true
}

var usageFields = []string{"inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"}

// decodeUsage reads a TokenUsage: two required counts, three optional ones.
func decodeUsage(v any, path string) (*Usage, error) {
	o, err := newObj(v, path)
	if err != nil {
		return nil, err
	}
	u := &Usage{}
	slots := []**big.Int{&u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Reasoning}
	for i, name := range usageFields {
		cv, present, err := o.get(name, i < 2)
		if err != nil {
			return nil, err
		}
		if !present {
			continue
		}
		if *slots[i], err = countValue(cv, o.at(name)); err != nil {
			return nil, err
		}
	}
	if err := o.unknown(); err != nil {
		return nil, err
	}
	return u, nil
}

// decodeFinish reads a FinishReason: kind, then failure (required on a failing kind, notes
// W3), then unknown members, then the rule between members (a failure on a non-failing kind).
func decodeFinish(v any, path string) (*Finish, error) {
	o, err := newObj(v, path)
	if err != nil {
		return nil, err
	}
	kind, err := o.variant("kind", finishKinds)
	if err != nil {
		return nil, err
	}
	f := &Finish{Kind: kind}
	fv, present, err := o.get("failure", failingKind(kind))
	if err != nil {
		return nil, err
	}
	if present {
		if f.Failure, err = decodeFailure(fv, o.at("failure")); err != nil {
			return nil, err
		}
	}
	if err := o.unknown(); err != nil {
		return nil, err
	}
	if present && !failingKind(kind) {
		return nil, wireErr(codeBadValue, o.at("failure"))
	}
	return f, nil
}

func decodeFailure(v any, path string) (*Failure, error) {
	o, err := newObj(v, path)
	if err != nil {
		return nil, err
	}
	f := &Failure{}
	if f.Message, _, err = o.str("message", true); err != nil {
		return nil, err
	}
	code, present, err := o.str("code", false)
	if err != nil {
		return nil, err
	}
	if present {
		f.Code = &code
	}
	if err := o.unknown(); err != nil {
		return nil, err
	}
	return f, nil
}

var roles = map[string]bool{"system": true, "user": true, "assistant": true, "tool": true}

// decodeMessage reads a Message: role, content (an array), unknown members, then the items.
func decodeMessage(v any, path string) (*Message, error) {
	o, err := newObj(v, path)
	if err != nil {
		return nil, err
	}
	role, err := o.variant("role", roles)
	if err != nil {
		return nil, err
	}
	cv, _, err := o.get("content", true)
	if err != nil {
		return nil, err
	}
	items, ok := cv.([]any)
	if !ok {
		return nil, wireErr(codeNotAList, o.at("content"))
	}
	if err := o.unknown(); err != nil {
		return nil, err
	}
	m := &Message{Role: role}
	for i, item := range items {
		b, err := decodeBlock(item, o.at("content")+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		m.Content = append(m.Content, b)
	}
	return m, nil
}

// --- writing --------------------------------------------------------------------------

// encodeIndex writes an index: an integral number as the integer (stream.wire.checker-owned-values).
func encodeIndex(n json.Number) any {
	if z, ok := numberInt(n); ok {
		return json.Number(z.String())
	}
	return n
}
