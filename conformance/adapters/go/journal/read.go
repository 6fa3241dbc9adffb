package journal

import (
	"fmt"
	"hash/crc32"
	"regexp"
	"strings"

	"loomref/adapters/go/protocol"
)

// Reasons of journal.corrupt (journal.corrupt-line, spec/journal.md §1.5).
const (
	reasonChecksum  = "journal.bad-checksum"
	reasonMalformed = "journal.malformed-line"
	reasonHeader    = "journal.bad-header"
	reasonPayload   = "journal.bad-payload"
	reasonSeq       = "journal.seq-gap"
)

const (
	journalSchema = "loom-ref.journal"
	logSchema     = "loom-ref.log"
)

// corruptError is journal.corrupt naming the 1-based line and the reason.
func corruptError(line int, reason string) *protocol.Error {
	return protocol.Fail("journal.corrupt", "line", line, "reason", reason)
}

// splitLines cuts text into its complete lines (each ended by "\n", journal.line-terminator)
// and the torn tail after the last "\n" (journal.torn-tail).
func splitLines(text string) (lines []string, tail string) {
	parts := strings.Split(text, "\n")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

// crcSuffix is the fixed final member `,"crc":"xxxxxxxx"}` (journal.checksum).
var crcSuffix = regexp.MustCompile(`,"crc":"([0-9a-f]{8})"}$`)

// lineCRC is the crc a line's prefix takes: CRC-32 (ISO-HDLC, zlib's crc32) as 8 lowercase hex
// digits (journal.checksum).
func lineCRC(prefix string) string {
	return fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(prefix)))
}

// withCRC completes a line's prefix (its JSON object without the closing brace) with its crc.
func withCRC(prefix string) string {
	return prefix + `,"crc":"` + lineCRC(prefix) + `"}`
}

// readLine checks a complete line's checksum and JSON form, the first rules of the order of
// journal.corrupt-line: the spelling of the crc member (malformed-line), the CRC over the
// bytes before it (bad-checksum), then strict JSON (journal.json-values; malformed-line).
// It returns the line's object or the reason it fails (notes points 1-3).
func readLine(line string) (map[string]any, string) {
	m := crcSuffix.FindStringSubmatchIndex(line)
	if m == nil {
		return nil, reasonMalformed
	}
	if lineCRC(line[:m[0]]) != line[m[2]:m[3]] {
		return nil, reasonChecksum
	}
	if tooDeep(line) {
		return nil, reasonMalformed
	}
	v, err := readJSON(line)
	if err != nil {
		return nil, reasonMalformed
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, reasonMalformed
	}
	return obj, ""
}

// checkHeader applies the header rules (journal.header, journal.log-format): the schema, the
// version 1 (an integer literal, notes point 6 and E.1 P1) and, for a journal header, a
// string executionId.
func checkHeader(obj map[string]any, schema string) bool {
	if s, ok := obj["schema"].(string); !ok || s != schema {
		return false
	}
	if v, ok := intValue(obj["version"]); !ok || v != 1 {
		return false
	}
	if schema == journalSchema {
		// journal.header: an execution id that breaks the id rule is a bad header.
		if id, ok := obj["executionId"].(string); !ok || !validID(id) {
			return false
		}
	}
	return true
}

// checkEventLine applies the rules after the JSON form to an event line, in the order of
// journal.corrupt-line: kind and payload, the sequence, then the set of members.
func checkEventLine(obj map[string]any, execID string, wantSeq int64, members int) string {
	if !checkEvent(obj["kind"], obj["payload"]) {
		return reasonPayload
	}
	// journal.started-names-header: an EXECUTION_STARTED names its journal's execution.
	if obj["kind"] == "EXECUTION_STARTED" {
		if p, _ := obj["payload"].(map[string]any); p == nil || p["executionId"] != execID {
			return reasonPayload
		}
	}
	// A seq that is missing, not an integer literal or not the next breaks the sequence
	// (notes points 6, 11: the reference's reading; the rule order puts seq before members).
	if n, ok := intValue(obj["seq"]); !ok || n != wantSeq {
		return reasonSeq
	}
	if len(obj) != members {
		return reasonMalformed
	}
	return ""
}

func eventOut(obj map[string]any) map[string]any {
	return map[string]any{"seq": obj["seq"], "kind": obj["kind"], "payload": obj["payload"]}
}

// tornOut reports a torn tail (line and size in UTF-8 bytes), or nil when there is none.
func tornOut(lines []string, tail string) map[string]any {
	if tail == "" {
		return nil
	}
	return map[string]any{"line": len(lines) + 1, "size": len(tail)}
}

// parseJournal is the conformance function journal.parse: a journal file's text read as
// §1.1-1.5 say, without folding.
func parseJournal(text string) (any, error) {
	lines, tail := splitLines(text)
	var execID any
	events := []any{}
	for i, line := range lines {
		obj, reason := readLine(line)
		if reason != "" {
			return nil, corruptError(i+1, reason)
		}
		if i == 0 {
			if !checkHeader(obj, journalSchema) {
				return nil, corruptError(1, reasonHeader)
			}
			execID = obj["executionId"]
			continue
		}
		if reason := checkEventLine(obj, execID.(string), int64(i), 4); reason != "" {
			return nil, corruptError(i+1, reason)
		}
		events = append(events, eventOut(obj))
	}
	var torn any
	if t := tornOut(lines, tail); t != nil {
		torn = t
	}
	return map[string]any{"executionId": execID, "events": events, "torn": torn}, nil
}

// torn bytes that name an execution (journal.log-torn-tail).
var tornNamesID = regexp.MustCompile(`^\{"executionId":"([A-Za-z0-9_.-]*)"`)

// parseLog is the conformance function journal.parse-log: a store log read as §1.7 says.
func parseLog(text string) (any, error) {
	lines, tail := splitLines(text)
	executions := map[string][]any{}
	order := []any{}
	for i, line := range lines {
		n := i + 1
		obj, reason := readLine(line)
		if reason != "" {
			return nil, corruptError(n, reason)
		}
		if i == 0 {
			if !checkHeader(obj, logSchema) {
				return nil, corruptError(n, reasonHeader)
			}
			continue
		}
		if _, isHeader := obj["schema"]; isHeader {
			// A header line: an execution's journal header, once per execution
			// (journal.log-executions).
			if !checkHeader(obj, journalSchema) {
				return nil, corruptError(n, reasonHeader)
			}
			id := obj["executionId"].(string)
			if _, seen := executions[id]; seen {
				return nil, corruptError(n, reasonHeader)
			}
			executions[id] = []any{}
			order = append(order, id)
			continue
		}
		id, ok := obj["executionId"].(string)
		if !ok {
			return nil, corruptError(n, reasonMalformed) // notes point 17
		}
		evs, seen := executions[id]
		if !seen {
			return nil, corruptError(n, reasonHeader)
		}
		if reason := checkEventLine(obj, id, int64(len(evs)+1), 5); reason != "" {
			return nil, corruptError(n, reason)
		}
		executions[id] = append(evs, eventOut(obj))
	}
	var torn any
	if t := tornOut(lines, tail); t != nil {
		t["executionId"] = nil
		if m := tornNamesID.FindStringSubmatch(tail); m != nil && validID(m[1]) {
			t["executionId"] = m[1]
		}
		torn = t
	}
	return map[string]any{"executions": executions, "order": order, "torn": torn}, nil
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$`)

// windowsDevice is a name Windows reserves for a device, in any case.
var windowsDevice = regexp.MustCompile(`^(?i:CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])$`)

// validID is the execution id rule (journal.execution-ids): 1 to 200 characters of
// A-Z a-z 0-9 _ . - whose first is not . or -, and whose part before its first . (all of it
// if it has none) is not a Windows device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9).
func validID(id string) bool {
	if !idPattern.MatchString(id) {
		return false
	}
	return !windowsDevice.MatchString(strings.SplitN(id, ".", 2)[0])
}
