package agent

import "loomref/adapters/go/protocol"

// Compaction is the loop's compaction block (agent.compaction-guard); a nil threshold is
// absent.
type Compaction struct {
	AfterMessages *int64
	AfterBytes    *int64
	KeepRecent    int64
}

func compactionError(why string) *protocol.Error {
	return protocol.Fail("argument.agent-compaction", "message", why)
}

// newCompaction judges the Compaction members as given (any JSON value; nil = null):
// at least one threshold, thresholds ints >= 1, keep_recent an int >= 1 and, with
// after_messages, keep_recent < after_messages (agent.compaction-guard).
func newCompaction(afterMessages, afterBytes, keepRecent any) (*Compaction, *protocol.Error) {
	c := &Compaction{}
	threshold := func(v any, name string) (*int64, *protocol.Error) {
		if v == nil {
			return nil, nil
		}
		i, ok := asInt(v)
		if !ok || i < 1 {
			return nil, compactionError(name + " is not an int >= 1")
		}
		return &i, nil
	}
	var err *protocol.Error
	if c.AfterMessages, err = threshold(afterMessages, "afterMessages"); err != nil {
		return nil, err
	}
	if c.AfterBytes, err = threshold(afterBytes, "afterBytes"); err != nil {
		return nil, err
	}
	if c.AfterMessages == nil && c.AfterBytes == nil {
		return nil, compactionError("a compaction needs afterMessages or afterBytes")
	}
	k, ok := asInt(keepRecent)
	if !ok || k < 1 {
		return nil, compactionError("keepRecent is not an int >= 1")
	}
	if c.AfterMessages != nil && k >= *c.AfterMessages {
		return nil, compactionError("keepRecent must be below afterMessages")
	}
	c.KeepRecent = k
	return c, nil
}

// keptSuffixBytes is the byte rule's kept suffix (agent.kept-suffix-bytes): the longest run
// of the newest messages whose bytes total at most afterBytes / 2 (exactly: 2 * total <=
// afterBytes), stopping at the first newest-first message that does not fit, floored at 1
// and capped at keepRecent; 0 for no messages.
func keptSuffixBytes(sizes []int64, afterBytes, keepRecent int64) int64 {
	if len(sizes) == 0 {
		return 0
	}
	var keep, total int64
	for i := len(sizes) - 1; i >= 0 && keep < keepRecent; i-- {
		if 2*(total+sizes[i]) > afterBytes {
			break
		}
		total += sizes[i]
		keep++
	}
	if keep < 1 {
		keep = 1
	}
	return keep
}

// Plan is the compaction decision before a turn (agent.compaction-trigger, kept-suffix-*,
// compaction-skip).
type Plan struct {
	Compact bool
	Reason  string // "bytes", "messages" or "" (neither crossed)
	Keep    int64
	Fold    int64
	Skipped bool
}

// plan decides from the messages' sizes alone (agent.compaction-pure).
func (c *Compaction) plan(sizes []int64) Plan {
	n := int64(len(sizes))
	var total int64
	for _, s := range sizes {
		total += s
	}
	bytes := c.AfterBytes != nil && total > *c.AfterBytes
	messages := c.AfterMessages != nil && n > *c.AfterMessages
	var p Plan
	switch {
	case bytes: // the byte rule decides when both are crossed
		p.Reason, p.Keep = "bytes", keptSuffixBytes(sizes, *c.AfterBytes, c.KeepRecent)
	case messages:
		p.Reason, p.Keep = "messages", c.KeepRecent
	default:
		return Plan{Keep: n}
	}
	if p.Keep >= n {
		// "rather than paying a summary call that folds nothing"
		return Plan{Reason: p.Reason, Keep: n, Skipped: true}
	}
	p.Compact, p.Fold = true, n-p.Keep
	return p
}
