package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"

	"loomref/adapters/go/journal"
)

// Event is one journal event (journal.line-shape).
type Event struct {
	Seq     int
	Kind    string
	Payload map[string]any
}

const crcSuffixLen = len(`,"crc":"xxxxxxxx"}`)

// sealLine adds the crc member to a line's prefix (journal.checksum) and its newline.
func sealLine(prefix []byte) []byte {
	sum := crc32.ChecksumIEEE(prefix)
	out := make([]byte, 0, len(prefix)+crcSuffixLen+1)
	out = append(out, prefix...)
	out = append(out, fmt.Sprintf(`,"crc":"%08x"}`, sum)...)
	return append(out, '\n')
}

// headerLine is the journal header (journal.header).
func headerLine(executionID string) []byte {
	id, _ := encodeJSON(executionID)
	return sealLine([]byte(`{"schema":"loom-ref.journal","version":1,"executionId":` + string(id)))
}

// eventLine encodes one event as a journal line.
func eventLine(ev Event) ([]byte, error) {
	if err := checkJSON(ev.Payload); err != nil {
		return nil, NewError("journal.bad-payload", err.Error())
	}
	p, err := encodeJSON(ev.Payload)
	if err != nil {
		return nil, NewError("journal.bad-payload", err.Error())
	}
	if lineDepth(p)+1 > 128 { // journal.nesting-limit: the line's own object is level 1
		return nil, NewError("journal.bad-payload", "the line would nest deeper than 128")
	}
	kind, _ := encodeJSON(ev.Kind)
	return sealLine([]byte(fmt.Sprintf(`{"seq":%d,"kind":%s,"payload":%s`, ev.Seq, kind, p))), nil
}

// Torn is a torn tail: the 1-based line it starts and its size in bytes (journal.torn-tail).
type Torn struct {
	Line int
	Size int
}

// Parsed is a journal read back.
type Parsed struct {
	HasHeader bool
	Events    []Event
	Torn      *Torn
}

func corrupt(line int, reason, text string) *Error {
	return NewError("journal.corrupt", fmt.Sprintf("line %d: %s", line, text), "line", line, "reason", reason)
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// parseJournal reads a journal's bytes (journal.torn-tail, journal.corrupt-line): complete
// lines are checked in the order of reasons the chapter gives; bytes after the last
// newline are the torn tail.
func parseJournal(data []byte, executionID string) (*Parsed, error) {
	p := &Parsed{}
	lines := bytes.Split(data, []byte("\n"))
	tail := lines[len(lines)-1]
	lines = lines[:len(lines)-1]
	if len(tail) > 0 {
		p.Torn = &Torn{Line: len(lines) + 1, Size: len(tail)}
	}
	for i, line := range lines {
		n := i + 1
		obj, err := checkLine(line, n)
		if err != nil {
			return nil, err
		}
		if n == 1 {
			// A header naming the id's case-only twin is the twin's journal, found where this
			// id's should be: argument.execution-id (journal.execution-ids).
			if named, ok := obj["executionId"].(string); ok && named != executionID && strings.EqualFold(named, executionID) {
				return nil, NewError("argument.execution-id", fmt.Sprintf("%s differs only in case from %s", executionID, named))
			}
			if obj["schema"] != "loom-ref.journal" || !isOne(obj["version"]) || obj["executionId"] != executionID {
				return nil, corrupt(n, "journal.bad-header", "not this execution's journal header")
			}
			p.HasHeader = true
			continue
		}
		ev, err := checkEventLine(obj, n, len(p.Events)+1)
		if err != nil {
			return nil, err
		}
		p.Events = append(p.Events, ev)
	}
	return p, nil
}

func isOne(v any) bool {
	n, ok := v.(json.Number)
	return ok && string(n) == "1"
}

// checkLine checks a complete line's crc spelling, checksum and JSON form.
func checkLine(line []byte, n int) (map[string]any, error) {
	if len(line) < crcSuffixLen || !bytes.HasPrefix(line[len(line)-crcSuffixLen:], []byte(`,"crc":"`)) ||
		!bytes.HasSuffix(line, []byte(`"}`)) || !isLowerHex(line[len(line)-10:len(line)-2]) {
		return nil, corrupt(n, "journal.malformed-line", "no crc member in its fixed spelling")
	}
	prefix := line[:len(line)-crcSuffixLen]
	want := fmt.Sprintf("%08x", crc32.ChecksumIEEE(prefix))
	if string(line[len(line)-10:len(line)-2]) != want {
		return nil, corrupt(n, "journal.bad-checksum", "checksum mismatch")
	}
	v, err := decodeJSON(line)
	if err != nil {
		return nil, corrupt(n, "journal.malformed-line", "not JSON: "+err.Error())
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, corrupt(n, "journal.malformed-line", "not a JSON object")
	}
	if err := checkJSON(obj); err != nil || hasLoneSurrogateEscape(line) {
		return nil, corrupt(n, "journal.malformed-line", "not made of JSON values")
	}
	return obj, nil
}

// hasLoneSurrogateEscape finds a \uD800-\uDFFF escape that is not half of a pair.
func hasLoneSurrogateEscape(line []byte) bool {
	s := string(line)
	for i := 0; i+6 <= len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if s[i+1] != 'u' {
			i++ // skip the escaped character
			continue
		}
		h := strings.ToLower(s[i+2 : i+6])
		if h >= "d800" && h <= "dbff" {
			if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
				l := strings.ToLower(s[i+8 : i+12])
				if l >= "dc00" && l <= "dfff" {
					i += 11
					continue
				}
			}
			return true
		}
		if h >= "dc00" && h <= "dfff" {
			return true
		}
		i += 5
	}
	return false
}

// checkEventLine checks an event line's kind, payload, seq and members.
func checkEventLine(obj map[string]any, n, wantSeq int) (Event, error) {
	kind, _ := obj["kind"].(string)
	req, known := journal.RequiredFields[kind]
	if !known {
		return Event{}, corrupt(n, "journal.bad-payload", fmt.Sprintf("unknown kind %v", obj["kind"]))
	}
	payload, ok := obj["payload"].(map[string]any)
	if !ok {
		return Event{}, corrupt(n, "journal.bad-payload", "payload is not an object")
	}
	for _, f := range req {
		if _, ok := payload[f]; !ok {
			return Event{}, corrupt(n, "journal.bad-payload", kind+" lacks "+f)
		}
	}
	if kind == "EXECUTION_SUSPENDED" {
		if s, ok := payload["resumeSchema"]; ok {
			if _, err := CompileSchema(s); err != nil {
				return Event{}, corrupt(n, "journal.bad-payload", "resumeSchema: "+err.Error())
			}
		}
	}
	seq, ok := obj["seq"].(json.Number)
	if !ok || string(seq) != fmt.Sprint(wantSeq) {
		return Event{}, corrupt(n, "journal.seq-gap", fmt.Sprintf("seq %v where %d was due", obj["seq"], wantSeq))
	}
	if len(obj) != 4 {
		return Event{}, corrupt(n, "journal.malformed-line", "an event line has exactly seq, kind, payload, crc")
	}
	return Event{Seq: wantSeq, Kind: kind, Payload: payload}, nil
}

// lineDepth is how deep encoded JSON nests arrays and objects (strings skipped).
func lineDepth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
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
	return deepest
}
