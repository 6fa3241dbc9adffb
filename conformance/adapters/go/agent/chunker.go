package agent

// DeltaChunker batches deltas to sentence boundaries (agent.chunk-boundary,
// agent.chunk-min-chars, agent.chunk-flush; ADR 0087 D7).
type DeltaChunker struct {
	emit     func(string)
	minChars int
	buf      []rune
}

// ChunkDeltas returns a chunker emitting batches of at least minChars characters (>= 1).
func ChunkDeltas(emit func(string), minChars int) *DeltaChunker {
	return &DeltaChunker{emit: emit, minChars: minChars}
}

// isPySpace is Python's str.isspace() as agent.chunk-boundary lists it.
func isPySpace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0D, r >= 0x1C && r <= 0x20, r == 0x85, r == 0xA0, r == 0x1680,
		r >= 0x2000 && r <= 0x200A, r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}

func isTerminator(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？':
		return true
	}
	return false
}

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', '”', '’', ')', ']':
		return true
	}
	return false
}

// boundaryAt reports whether a boundary ends just before position p (0 < p <= len): just
// after a newline (U+000A alone), or just after one whitespace character that follows a
// terminator and at most three closing quotes or brackets.
func boundaryAt(buf []rune, p int) bool {
	last := buf[p-1]
	if last == '\n' {
		return true
	}
	if !isPySpace(last) {
		return false
	}
	for k := 0; k <= 3; k++ {
		j := p - 2 - k // the terminator's position for k closers
		if j < 0 {
			return false
		}
		if isTerminator(buf[j]) {
			return true
		}
		if !isCloser(buf[j]) {
			return false
		}
	}
	return false
}

// Push buffers a delta and emits the text up to the last boundary when it is at least
// minChars characters; an empty delta is ignored.
func (c *DeltaChunker) Push(text string) {
	if text == "" {
		return
	}
	c.buf = append(c.buf, []rune(text)...)
	for p := len(c.buf); p > 0; p-- {
		if boundaryAt(c.buf, p) {
			if p >= c.minChars {
				batch := string(c.buf[:p])
				c.buf = append([]rune{}, c.buf[p:]...)
				c.emit(batch)
			}
			return
		}
	}
}

// Flush emits the buffered remainder, if any; the chunker is then as new.
func (c *DeltaChunker) Flush() {
	if len(c.buf) > 0 {
		batch := string(c.buf)
		c.buf = nil
		c.emit(batch)
	}
}
