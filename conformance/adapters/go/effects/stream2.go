package effects

// Continued from stream.go.

// consumer is consume(adapter, request, signal): both sanctioned error paths folded into one
// terminal finish ({#stream.adapter.consumer-wrapper}).
type consumer struct {
	a       *scriptedAdapter
	model   string
	sig     *Signal
	it      *scriptedIter
	started bool
	done    bool
}

func finishChunk(kind, code, msg string) *Chunk {
	c := code
	return &Chunk{Type: "finish", Reason: &Finish{Kind: kind, Failure: &Failure{Message: msg, Code: &c}}}
}

func (c *consumer) raised(err error) *Chunk {
	c.done = true
	if c.sig.aborted {
		return finishChunk("aborted", "stream.aborted", "aborted")
	}
	code := codeOf(err)
	if code == "" {
		code = "stream.adapter-raised"
	}
	return finishChunk("error", code, err.Error())
}

// next returns the next chunk, or nil once the finish has been passed on.
func (c *consumer) next() *Chunk {
	if c.done {
		return nil
	}
	if !c.started {
		c.started = true
		if c.sig.aborted {
			c.done = true
			return finishChunk("aborted", "stream.aborted", "aborted before the request")
		}
		it, err := c.a.stream(c.model, c.sig)
		if err != nil {
			return c.raised(err)
		}
		c.it = it
	}
	if c.sig.aborted {
		c.close()
		c.done = true
		return finishChunk("aborted", "stream.aborted", "aborted")
	}
	ch, err := c.it.next()
	if err != nil {
		return c.raised(err)
	}
	if ch == nil {
		c.done = true
		return finishChunk("error", "stream.missing-finish", "stream ended without a finish")
	}
	if ch.Type == "finish" {
		c.done = true
	}
	return ch
}

func (c *consumer) close() {
	if c.it != nil {
		c.it.closed = true
	}
}
