package stream

// The scripted adapter and the consumer wrapper (spec/stream.md, stream.scripted,
// stream.adapter.consumer-wrapper).

// Signal is an abort signal (the stream layer uses only `aborted`).
type Signal struct{ aborted bool }

// Aborted reports whether the signal has aborted.
func (s *Signal) Aborted() bool { return s.aborted }

// streamError is an error raised by an adapter, with its stable code.
type streamError struct{ code, message string }

func (e *streamError) Error() string { return e.code + ": " + e.message }

// chunkIter is an adapter's stream: next returns a chunk, or done at the end, or an error.
type chunkIter interface {
	next() (c *Chunk, done bool, err error)
}

// Script is one call's chunks and the count after which it raises (nil: never).
type Script struct {
	Chunks     []*Chunk
	RaiseAfter *int
}

// ScriptedAdapter streams script n on call n; a call past the last raises
// stream.scripted.exhausted (stream.scripted). Chunks pass through unchecked.
type ScriptedAdapter struct {
	Scripts []Script
	calls   int
}

type scriptIter struct {
	s      Script
	pos    int
	signal *Signal
}

func (it *scriptIter) next() (*Chunk, bool, error) {
	if it.signal.Aborted() { // honor_signal
		return nil, false, &streamError{"stream.aborted", "the signal aborted"}
	}
	// raise_after=k raises after k chunks; a k at or past the script's length raises once
	// its chunks have run out.
	if k := it.s.RaiseAfter; k != nil && (it.pos >= *k || it.pos >= len(it.s.Chunks)) {
		return nil, false, &streamError{"stream.scripted.failure", "scripted failure"}
	}
	if it.pos >= len(it.s.Chunks) {
		return nil, true, nil
	}
	c := it.s.Chunks[it.pos]
	it.pos++
	return c, false, nil
}

// Stream starts one call.
func (a *ScriptedAdapter) Stream(signal *Signal) (chunkIter, error) {
	n := a.calls
	a.calls++
	if n >= len(a.Scripts) {
		return nil, &streamError{"stream.scripted.exhausted", "no script left for this call"}
	}
	return &scriptIter{s: a.Scripts[n], signal: signal}, nil
}

// Consume runs one call through the consumer wrapper: both sanctioned error paths become one
// terminal finish, and the abort signal severs the stream before the next chunk. take is
// called after each chunk the consumer takes (the harness aborts the signal there).
func Consume(adapter *ScriptedAdapter, signal *Signal, take func(*Chunk)) {
	abort := func() *Chunk {
		return &Chunk{Type: "finish", Reason: failed("aborted", "stream.aborted", "the signal aborted")}
	}
	fromErr := func(err error) *Chunk {
		if signal.Aborted() {
			return abort() // notes S1: the aborted finish carries stream.aborted
		}
		code, msg := "stream.adapter-raised", err.Error()
		if se, ok := err.(*streamError); ok {
			code, msg = se.code, se.message
		}
		return &Chunk{Type: "finish", Reason: failed("error", code, msg)}
	}
	if signal.Aborted() {
		take(abort())
		return
	}
	it, err := adapter.Stream(signal)
	if err != nil {
		take(fromErr(err))
		return
	}
	for {
		if signal.Aborted() {
			take(abort())
			return
		}
		c, done, err := it.next()
		switch {
		case err != nil:
			take(fromErr(err))
			return
		case done:
			take(&Chunk{Type: "finish", Reason: failed("error", "stream.missing-finish", "the stream ended without a finish")})
			return
		}
		take(c)
		if c.Type == "finish" {
			return // nothing is read after the adapter's own finish
		}
	}
}
