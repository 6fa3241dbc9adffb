package stream

// The contract checker (spec/stream.md, stream.checker): BLOCK_TRANSITIONS and
// STREAM_TRANSITIONS as two small state machines fed one chunk at a time.

import (
	"encoding/json"
	"strconv"
)

// Rule ids (each is its anchor in spec/stream.md).
const (
	ruleUsageBeforeFinish = "stream.usage-before-finish"
	ruleSingleUsage       = "stream.single-usage"
	ruleSingleFinish      = "stream.single-finish"
	ruleNothingAfter      = "stream.nothing-after-finish"
	ruleIndex             = "stream.index-non-negative-integer"
	ruleStartUnique       = "stream.block-start-unique"
	ruleStartAfterEnd     = "stream.block-start-after-end"
	ruleDeltaTargets      = "stream.delta-targets-open-block"
	ruleEndCloses         = "stream.block-end-closes-open-block"
	ruleOpenAtFinish      = "stream.open-blocks-at-finish"
	ruleRawJSON           = "stream.tool-arguments-raw-json"
	ruleIdentity          = "stream.tool-call-identity-stable"
)

// Violation is one broken rule at one chunk position.
type Violation struct {
	Rule  string
	Index int
}

type streamState int

const (
	streaming streamState = iota
	usageSeen
	finished
)

type blockState struct {
	typ     string
	closed  bool
	id      string // the tool call's first id (notes K2)
	hasID   bool
	name    string // its first given name (notes K3: present, "" included)
	hasName bool
}

// Checker judges a chunk stream incrementally: Feed each chunk in order, then End.
type Checker struct {
	state  streamState
	blocks map[string]*blockState
	order  []*blockState
	n      int
}

// NewChecker returns a checker at the start of a stream.
func NewChecker() *Checker { return &Checker{blocks: map[string]*blockState{}} }

// indexKey returns the block an index addresses: a non-negative integer, as its decimal
// text (stream.index-non-negative-integer; an integral float such as 1.0 is the integer 1).
func indexKey(n json.Number) (string, bool) {
	z, ok := numberInt(n)
	if !ok || z.Sign() < 0 {
		return "", false
	}
	return z.String(), true
}

// deltaBlockType is the block type a delta targets (stream.delta-targets-open-block).
var deltaBlockType = map[string]string{
	"text-delta": "text", "reasoning-delta": "reasoning", "tool-call-delta": "tool-call",
}

func argsNotRaw(c *Chunk) bool {
	switch c.Type {
	case "tool-call-delta":
		_, ok := c.ArgsDelta.(string)
		return !ok
	case "block-end":
		if c.Block.Type == "tool-call" {
			_, ok := c.Block.Args.(string)
			return !ok
		}
	}
	return false
}

// Feed judges the next chunk and returns its violations in the rule order of the chapter:
// index, raw JSON, stream table, block table (or open blocks at finish), identity.
func (k *Checker) Feed(c *Chunk) []Violation {
	i := k.n
	k.n++
	var rules []string
	key, validIndex := "", false
	if c.isBlockChunk() {
		if key, validIndex = indexKey(c.Index); !validIndex {
			rules = append(rules, ruleIndex)
		}
	}
	if argsNotRaw(c) {
		rules = append(rules, ruleRawJSON)
	}
	before := k.state
	// The stream table.
	switch {
	case c.isBlockChunk():
		if before == finished {
			rules = append(rules, ruleNothingAfter)
		}
	case c.Type == "usage":
		switch before {
		case streaming:
			k.state = usageSeen
		case usageSeen:
			rules = append(rules, ruleSingleUsage)
		case finished:
			rules = append(rules, ruleUsageBeforeFinish)
		}
	case c.Type == "finish":
		if before == finished {
			rules = append(rules, ruleSingleFinish)
		} else {
			k.state = finished
			if !failingKind(c.Reason.Kind) && k.anyOpen() {
				rules = append(rules, ruleOpenAtFinish)
			}
		}
	}
	// The block table: not after finish, not for an index that addresses no block.
	if c.isBlockChunk() && before != finished && validIndex {
		rules = append(rules, k.blockMove(c, key)...)
	}
	out := make([]Violation, len(rules))
	for j, r := range rules {
		out[j] = Violation{Rule: r, Index: i}
	}
	return out
}

func (k *Checker) anyOpen() bool {
	for _, b := range k.order {
		if !b.closed {
			return true
		}
	}
	return false
}

// blockMove applies BLOCK_TRANSITIONS, then the identity rule where the types match.
func (k *Checker) blockMove(c *Chunk, key string) []string {
	b := k.blocks[key]
	switch c.Type {
	case "block-start":
		if b != nil && b.closed {
			return []string{ruleStartAfterEnd} // not started again after its block-end
		}
		if b != nil {
			return []string{ruleStartUnique}
		}
		b = &blockState{typ: c.BlockType}
		k.blocks[key] = b
		k.order = append(k.order, b)
		return nil
	case "block-end":
		if b == nil || b.closed || b.typ != c.Block.Type {
			return []string{ruleEndCloses}
		}
		b.closed = true
		if b.typ == "tool-call" {
			name := c.Block.Name
			return b.identity(c.Block.ID, &name)
		}
		return nil
	default: // a delta
		if b == nil || b.closed || b.typ != deltaBlockType[c.Type] {
			return []string{ruleDeltaTargets}
		}
		if b.typ == "tool-call" {
			return b.identity(c.ID, c.Name)
		}
		return nil
	}
}

// identity judges stream.tool-call-identity-stable: the id never changes, and the name,
// once given (present, even empty: the reference's reading, notes K3), never changes. A
// changed id is reported before a changed name.
func (b *blockState) identity(id string, name *string) []string {
	var out []string
	if !b.hasID {
		b.id, b.hasID = id, true
	} else if id != b.id {
		out = append(out, ruleIdentity)
	}
	if name != nil {
		if !b.hasName {
			b.name, b.hasName = *name, true
		} else if *name != b.name {
			out = append(out, ruleIdentity)
		}
	}
	return out
}

// End judges the end of the stream: a missing finish is reported at len(chunks).
func (k *Checker) End() []Violation {
	if k.state != finished {
		return []Violation{{Rule: ruleSingleFinish, Index: k.n}}
	}
	return nil
}

// Check returns every violation of a chunk sequence, in chunk order.
func Check(chunks []*Chunk) []Violation {
	k := NewChecker()
	var out []Violation
	for _, c := range chunks {
		out = append(out, k.Feed(c)...)
	}
	return append(out, k.End()...)
}

// Enforce passes the chunks on until the first violation: it returns how many it yielded
// and the violation it raised, if any (stream.errors.rule-codes).
func Enforce(chunks []*Chunk) (int, *Violation) {
	k := NewChecker()
	for i, c := range chunks {
		if vs := k.Feed(c); len(vs) > 0 {
			return i, &vs[0]
		}
	}
	if vs := k.End(); len(vs) > 0 {
		return len(chunks), &vs[0]
	}
	return len(chunks), nil
}

func (v Violation) String() string { return v.Rule + "@" + strconv.Itoa(v.Index) }
