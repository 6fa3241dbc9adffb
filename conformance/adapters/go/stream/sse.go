package stream

// Server-sent events, per the WHATWG event-stream format (stream.openai.sse,
// stream.anthropic.sse): LF, CRLF or CR line ends, ':' comments, one space after the colon
// dropped, data lines joined with LF, dispatch on a blank line, one leading U+FEFF ignored.

import "strings"

// sseParser reads text pieces cut anywhere and calls dispatch with each event's data.
// dispatch returns stop=true to end the reading (nothing after is read) or an error.
type sseParser struct {
	dispatch func(data string) (stop bool, err error)

	started   bool            // the first character was looked at (for the BOM)
	line      strings.Builder // the current, unended line
	pendingCR bool            // the last character was CR: a following LF is part of its line end
	data      strings.Builder
	stopped   bool
}

// feed reads one piece.
func (p *sseParser) feed(s string) error {
	if p.stopped {
		return nil
	}
	if !p.started && s != "" {
		p.started = true
		s = strings.TrimPrefix(s, "\uFEFF")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if p.pendingCR {
			p.pendingCR = false
			if c == '\n' {
				continue
			}
		}
		switch c {
		case '\r':
			p.pendingCR = true
			fallthrough
		case '\n':
			if err := p.endLine(); err != nil || p.stopped {
				return err
			}
		default:
			p.line.WriteByte(c)
		}
	}
	return nil
}

func (p *sseParser) endLine() error {
	l := p.line.String()
	p.line.Reset()
	if l == "" {
		return p.fire()
	}
	if l[0] == ':' {
		return nil // a comment
	}
	field, value := l, ""
	if k := strings.IndexByte(l, ':'); k >= 0 {
		field, value = l[:k], strings.TrimPrefix(l[k+1:], " ")
	}
	if field == "data" {
		p.data.WriteString(value)
		p.data.WriteByte('\n')
	}
	return nil // event, id, retry and unknown fields are not read
}

// fire dispatches the pending event (an empty data buffer dispatches nothing).
func (p *sseParser) fire() error {
	if p.data.Len() == 0 {
		return nil
	}
	data := strings.TrimSuffix(p.data.String(), "\n")
	p.data.Reset()
	stop, err := p.dispatch(data)
	if stop {
		p.stopped = true
	}
	return err
}

// endPartial ends the body by the Anthropic rule (stream.anthropic.sse): a last line with no
// line end is dropped, and the pending event, made of the lines that ended, is dispatched
// (notes N1, the reference's reading). The OpenAI reading discards the pending event instead,
// and does not call this.
func (p *sseParser) endPartial() error {
	if p.stopped {
		return nil
	}
	p.line.Reset()
	return p.fire()
}
