package journal

// Continued from store.go.

import (
	"encoding/json"
	"math"
	"path"
	"strconv"
	"strings"

	"loomref/adapters/go/protocol"
)

func (s *logStore) append(id, kind string, payload map[string]any, torn any) error {
	if err := s.ensure(); err != nil {
		return err
	}
	e, ok := s.execs[id]
	if !ok || !e.held {
		return notHeld()
	}
	if err := appendCheck(id, kind, payload, torn, s.crashed); err != nil {
		return err
	}
	// An execution's header goes in the same write as its first event
	// (journal.log-executions); loom-ref's writer puts executionId first, so a torn event
	// line names its execution (journal.log-torn-tail).
	var b []byte
	if !e.headerOut {
		b = append(b, withCRC(headerPrefix(journalSchema, id))+"\n"...)
	}
	line := withCRC(eventPrefix(id, e.seq+1, kind, payload)) + "\n"
	s.dropTorn() // kept torn bytes go before the store's first append
	if torn != nil {
		// A crash in mid-write tears the event line (the header before it is whole);
		// nothing may follow the torn bytes: the store closes.
		n, err := tornBytes(torn, len(line))
		if err != nil {
			return err
		}
		s.r.append(s.h, append(b, line[:n]...))
		s.crashed = true
		s.r.close(s.h)
		return nil
	}
	s.r.append(s.h, append(b, line...))
	e.headerOut = true
	e.seq++
	if syncs(s.policy, kind) {
		s.r.fsync(s.h)
		if !s.dirSynced {
			s.r.fsyncDir(storeDir) // journal.dir-sync: once per store
			s.dirSynced = true
		}
	}
	return nil
}

func (s *logStore) close(id string) error {
	if err := s.ensure(); err != nil {
		return err
	}
	if e, ok := s.execs[id]; ok {
		e.held = false
	}
	return nil
}

// shutdown closes the log if it was opened (again if a torn write already closed it).
func (s *logStore) shutdown() {
	if s.h != nil {
		s.r.close(s.h)
	}
}

// appendCheck refuses an append to a journal the store holds, in the order
// journal.store-on-disk-vector gives (the byte count is an integer of at least 1, checked
// with the input): a journal that takes no more appends (journal.closed), then the
// event: its kind and required fields, an EXECUTION_STARTED naming another execution
// (journal.started-names-header) and a payload nested too deep for a reader
// (journal.nesting-limit), all journal.bad-payload, nothing written. The bound of the
// byte count against the line comes after (tornBytes).
func appendCheck(id, kind string, payload map[string]any, torn any, broken bool) error {
	if broken {
		return journalError("journal.closed")
	}
	if !checkEvent(kind, payload) {
		return journalError("journal.bad-payload")
	}
	if kind == "EXECUTION_STARTED" {
		if named, ok := payload["executionId"].(string); !ok || named != id {
			return journalError("journal.bad-payload")
		}
	}
	// journal.nesting-limit: the payload may nest 127 levels, counting itself, so that its
	// line nests at most 128; a deeper one is refused and nothing is written.
	if nesting(payload) > maxNesting-1 {
		return journalError("journal.bad-payload")
	}
	// journal.json-values: a payloadText's number too large to be finite as a double (1e999,
	// or an integer of that size, a minus sign or not) is no JSON value a reader reads back.
	if !finiteNumbers(payload) {
		return journalError("journal.bad-payload")
	}
	return nil
}

// finiteNumbers reports whether every number in a decoded value (json.Number, as
// protocol.DecodeJSON reads them, or float64) is finite as a double.
func finiteNumbers(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if !finiteNumbers(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !finiteNumbers(e) {
				return false
			}
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return err == nil || !math.IsInf(f, 0)
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	return true
}

// nesting counts the levels of arrays and objects of a decoded value (a scalar is 0).
func nesting(v any) int {
	deepest := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if n := nesting(e); n > deepest {
				deepest = n
			}
		}
	case []any:
		for _, e := range x {
			if n := nesting(e); n > deepest {
				deepest = n
			}
		}
	default:
		return 0
	}
	return deepest + 1
}

// tornBytes reads a tornAppend's byte count: a strict, non-empty prefix of the line
// (INTERPRETING.md section 6: "a strict prefix of its line").
func tornBytes(v any, lineLen int) (int, error) {
	n, ok := intValue(v)
	if !ok || n < 1 || n >= int64(lineLen) {
		return 0, invalid("bytes must cut the line short")
	}
	return int(n), nil
}

// notHeld: an append names no journal this store holds open, which the vector's steps
// cannot ask (argument.invalid, as the reference answers; notes/journal.md E.1 F5).
func notHeld() error { return invalid("no journal of this execution is open in the store") }

// storeOnDisk is the conformance function journal.store-on-disk.
func storeOnDisk(input map[string]any) (any, error) {
	kind, _ := input["store"].(string)
	policy, ok := input["fsync"].(string)
	if _, known := syncAfter[policy]; !ok || !known {
		return nil, invalid("fsync must name a policy")
	}
	steps, ok := input["steps"].([]any)
	if !ok {
		return nil, invalid("steps must be a list")
	}
	r := &recorder{disk: NewDisk([]string{storeDir}, nil), calls: []any{}}
	// planted: entries that are no regular file (journal.store-on-disk, §1.8), each at a
	// path whose directory is /disk, "symlink" or "fifo"; anything else is refused, null included (an
	// optional member is never null unless its function says so, spec/errors.md).
	if pl, present := input["planted"]; present {
		m, ok := pl.(map[string]any)
		if !ok {
			return nil, invalid("planted must be an object")
		}
		for p, k := range m {
			if k != "symlink" && k != "fifo" || path.Dir(p) != storeDir {
				return nil, invalid("planted: a path in /disk to symlink or fifo")
			}
			r.disk.Plant(p, k.(string))
		}
	}
	var open func(reopened bool) journalStore
	switch kind {
	case "files":
		open = func(bool) journalStore { return newFileStore(r, policy) }
	case "log":
		open = func(reopened bool) journalStore { return newLogStore(r, policy, reopened) }
	default:
		return nil, invalid("store must be files or log")
	}
	if err := checkSteps(steps); err != nil {
		return nil, err
	}
	st := open(false)
	answers := []any{}
	for _, x := range steps {
		step := x.(map[string]any)
		a, err := runStep(st, step, func() error {
			st.shutdown()
			st = open(true)
			if ls, ok := st.(*logStore); ok {
				return ls.openErr
			}
			return nil
		})
		if err != nil {
			// A journal error is the step's answer; a bad argument refuses the whole call.
			if pe, ok := err.(*protocol.Error); ok && strings.HasPrefix(pe.Code, "journal.") {
				answers = append(answers, map[string]any{"error": pe.Code})
				continue
			}
			return nil, err
		}
		answers = append(answers, a)
	}
	st.shutdown()
	return map[string]any{
		"answers": answers,
		"calls":   r.calls,
		"images":  imagesOut(r.disk, func(b []byte) any { return tellLines(b) }),
	}, nil
}

// checkSteps judges the whole input before any step runs (journal.store-on-disk-vector):
// each step an object with a known do, an executionId string on every step but reopen,
// spelled as an id where it names a journal (create, open, read: argument.execution-id),
// and a tornAppend's bytes an integer of at least 1. The first problem, in step order,
// refuses the whole call, whatever the disk holds.
func checkSteps(steps []any) error {
	for _, x := range steps {
		step, ok := x.(map[string]any)
		if !ok {
			return invalid("a step must be an object")
		}
		do, _ := step["do"].(string)
		switch do {
		case "reopen":
			continue
		case "create", "open", "read", "close", "append", "tornAppend":
		default:
			return invalid("unknown step")
		}
		id, ok := step["executionId"].(string)
		if !ok {
			return invalid("executionId must be a string")
		}
		if (do == "create" || do == "open" || do == "read") && !validID(id) {
			return protocol.Fail("argument.execution-id")
		}
		if do == "tornAppend" {
			if n, ok := intValue(step["bytes"]); !ok || n < 1 {
				return invalid("bytes must be an integer of at least 1")
			}
		}
		if do == "append" || do == "tornAppend" {
			if _, err := stepPayload(step); err != nil {
				return err
			}
		}
	}
	return nil
}

// stepPayload reads an append's payload: payload, or payloadText, its JSON text, for a
// payload nesting deeper than a request may (INTERPRETING.md section 4, Depth); never both,
// and a text that is not one JSON value is argument.invalid (journal.store-on-disk-vector).
func stepPayload(step map[string]any) (map[string]any, error) {
	text, has := step["payloadText"]
	if !has {
		payload, _ := step["payload"].(map[string]any)
		return payload, nil
	}
	if _, both := step["payload"]; both {
		return nil, invalid("both payload and payloadText")
	}
	s, ok := text.(string)
	if !ok {
		return nil, invalid("payloadText must be a string")
	}
	// At most 512 arrays and objects, counted outside strings (journal.store-on-disk-vector).
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > deepest {
				deepest = depth
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	if deepest > 512 {
		return nil, invalid("payloadText nests more than 512 arrays and objects")
	}
	v, err := protocol.DecodeJSON(s)
	if err != nil {
		return nil, invalid("payloadText is not one JSON value: " + err.Error())
	}
	payload, _ := v.(map[string]any)
	return payload, nil
}

func runStep(st journalStore, step map[string]any, reopen func() error) (any, error) {
	do := step["do"].(string)
	if do == "reopen" {
		return nil, reopen()
	}
	id := step["executionId"].(string)
	switch do {
	case "create":
		return nil, st.create(id)
	case "open":
		return st.open(id)
	case "read":
		return st.read(id)
	case "close":
		return nil, st.close(id)
	}
	// append, tornAppend: a kind or payload the writer cannot write is journal.bad-payload,
	// the step's answer (checked by the store).
	kind, _ := step["kind"].(string)
	// checked by checkSteps: payloadText decodes
	payload, _ := stepPayload(step)
	var torn any // nil: a whole append; else the count checkSteps found an integer >= 1
	if do == "tornAppend" {
		torn = step["bytes"]
	}
	return nil, st.append(id, kind, payload, torn)
}
