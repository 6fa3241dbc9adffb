// Package protocol speaks the conformance suite's JSON-lines protocol
// (conformance/INTERPRETING.md section 4) on stdin/stdout. A chapter package registers
// vector functions (and, optionally, a scenario handler); a command under cmd/ serves them.
//
// It knows nothing of any chapter's semantics: it reads a request, finds the function the
// case names, and writes {"seq", "observations"}, {"seq", "skipped"} or {"seq", "errored"}.
package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// Error is a function's failure with a stable code: the reply's {"error": {"code", ...details}}.
type Error struct {
	Code    string
	Details map[string]any
}

func (e *Error) Error() string { return e.Code }

// Fail builds an *Error from a code and alternating detail names and values.
func Fail(code string, kv ...any) *Error {
	d := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i].(string)] = kv[i+1]
	}
	return &Error{Code: code, Details: d}
}

// Skip, returned by a function, makes the case's reply {"skipped": {"reason"}}.
type Skip struct{ Reason string }

func (s *Skip) Error() string { return "skipped: " + s.Reason }

// Function is one vector function: input is the case's "input" decoded with
// json.Decoder.UseNumber (numbers arrive as json.Number). It returns the result (any value
// encoding/json can write) or an error (*Error, *Skip, or anything else, which is errored).
type Function func(input any) (any, error)

// Scenario runs a whole scenario case (the case object as sent) and returns its
// observations ({"actions": [...], "journal": ...}).
type Scenario func(c map[string]any) (any, error)

// Implementation is what a command serves.
type Implementation struct {
	Name      string
	Version   string
	Functions map[string]Function
	Scenario  Scenario // nil: no scenarios
	Features  []string // extra capabilities (crash, torn-write, text.code-points, ...)
	Stores    []string // optional store names (INTERPRETING.md section 4, stores)
}

// Merge returns the union of several function tables (a later table does not override).
func Merge(tables ...map[string]Function) map[string]Function {
	out := map[string]Function{}
	for _, t := range tables {
		for k, v := range t {
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
	return out
}

// DecodeJSON reads a JSON text that a case carries as a string (such as
// journal.store-on-disk's payloadText) the way a request is read: numbers as json.Number,
// exactly one value.
func DecodeJSON(text string) (any, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(text)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more than one JSON value")
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func decode(line []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func write(w *bufio.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// An errored reply must still answer the request's seq (INTERPRETING.md section 4).
		reply := map[string]any{"errored": map[string]any{"message": "cannot encode reply: " + err.Error()}}
		if m, ok := v.(map[string]any); ok {
			reply["seq"] = m["seq"]
		}
		b, _ = json.Marshal(reply)
	}
	w.Write(b)
	w.WriteByte('\n')
	w.Flush()
}

func (impl *Implementation) capabilities() []string {
	caps := []string{}
	for name := range impl.Functions {
		caps = append(caps, name)
	}
	if impl.Scenario != nil {
		caps = append(caps, "scenario")
	}
	caps = append(caps, impl.Features...)
	sort.Strings(caps)
	return caps
}

func (impl *Implementation) run(seq any, c map[string]any) (reply map[string]any) {
	reply = map[string]any{"seq": seq}
	defer func() {
		if r := recover(); r != nil {
			reply = map[string]any{"seq": seq, "errored": map[string]any{"message": fmt.Sprint("panic: ", r)}}
		}
	}()
	var result any
	var err error
	switch c["family"] {
	case "vector":
		name, _ := c["function"].(string)
		f, ok := impl.Functions[name]
		if !ok {
			reply["skipped"] = map[string]any{"reason": "function not implemented: " + name}
			return reply
		}
		result, err = f(c["input"])
		if err == nil {
			reply["observations"] = map[string]any{"result": result}
			return reply
		}
		if e, ok := err.(*Error); ok {
			obs := map[string]any{"code": e.Code}
			for k, v := range e.Details {
				obs[k] = v
			}
			reply["observations"] = map[string]any{"error": obs}
			return reply
		}
	case "scenario":
		if impl.Scenario == nil {
			reply["skipped"] = map[string]any{"reason": "no scenarios"}
			return reply
		}
		result, err = impl.Scenario(c)
		if err == nil {
			reply["observations"] = result
			return reply
		}
	default:
		reply["errored"] = map[string]any{"message": fmt.Sprintf("unknown family %v", c["family"])}
		return reply
	}
	if s, ok := err.(*Skip); ok {
		reply["skipped"] = map[string]any{"reason": s.Reason}
		return reply
	}
	reply["errored"] = map[string]any{"message": err.Error()}
	return reply
}

// Serve answers requests from stdin until "stop" or end of input.
func Serve(impl *Implementation) {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) == 0 {
			if err == io.EOF || err != nil {
				return
			}
			continue
		}
		v, derr := decode(line)
		req, _ := v.(map[string]any)
		if derr != nil || req == nil {
			fmt.Fprintln(os.Stderr, "unreadable request:", derr)
			continue
		}
		switch req["cmd"] {
		case "start":
			implInfo := map[string]any{"name": impl.Name, "version": impl.Version,
				"language": "go", "capabilities": impl.capabilities()}
			// schemas/protocol.start-reply.json allows "stores" only inside "implementation".
			if len(impl.Stores) > 0 {
				implInfo["stores"] = impl.Stores
			}
			reply := map[string]any{"protocol": 1, "implementation": implInfo}
			write(out, reply)
		case "run":
			c, _ := req["case"].(map[string]any)
			if c == nil {
				write(out, map[string]any{"seq": req["seq"], "errored": map[string]any{"message": "no case object"}})
				continue
			}
			write(out, impl.run(req["seq"], c))
		case "stop":
			write(out, map[string]any{"ok": true})
			return
		default:
			fmt.Fprintln(os.Stderr, "unknown request:", req["cmd"])
		}
	}
}
