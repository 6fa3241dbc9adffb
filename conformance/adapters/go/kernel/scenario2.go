package kernel

// Continued from scenario.go.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Scenario runs a scenario case and returns its observations {actions, journal}.
func Scenario(c map[string]any) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			if b, ok := r.(brokenCase); ok {
				result, err = nil, fmt.Errorf("broken case: %s", b.msg)
				return
			}
			panic(r)
		}
	}()
	wfSpec, ok := c["workflow"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the case has no workflow")
	}
	wfName := str(wfSpec, "name")
	instrs := body(wfSpec, "body")
	schemas, _ := wfSpec["resumeSchemas"].(map[string]any)
	actions, ok := c["actions"].([]any)
	if !ok {
		return nil, fmt.Errorf("the case has no actions")
	}
	execID := "e1"
	if s, ok := c["executionId"].(string); ok {
		execID = s
	}
	options, _ := c["options"].(map[string]any)
	alwaysReplay, _ := options["alwaysReplay"].(bool)
	if s, ok := options["store"]; ok && s != nil {
		return nil, fmt.Errorf("unknown store %v", s)
	}
	observe := map[string]bool{}
	if l, ok := c["observe"].([]any); ok {
		for _, m := range l {
			s, _ := m.(string)
			observe[s] = true
		}
	}
	w := &world{effects: map[string]map[string]any{}, deciders: map[string][]any{},
		effCount: map[string]int{}, decCount: map[string]int{}, drift: map[string]int{}}
	if effs, ok := c["effects"].(map[string]any); ok {
		for tool, spec := range effs {
			m, _ := spec.(map[string]any)
			w.effects[tool] = m
		}
	}
	if decs, ok := c["deciders"].(map[string]any); ok {
		for name, spec := range decs {
			m, _ := spec.(map[string]any)
			script, _ := m["script"].([]any)
			w.deciders[name] = script
		}
	}
	store := NewMemStore()
	var out []any
	for _, raw := range actions {
		a, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("an action is not an object")
		}
		o := &obs{trace: []any{}, warnings: []string{}}
		do, _ := a["do"].(string)
		entry := map[string]any{}
		switch do {
		case "start", "resume", "recover", "resolve", "replay":
			res, err := runAction(a, do, w, o, store, wfName, instrs, schemas, execID, alwaysReplay)
			switch e := err.(type) {
			case nil:
				entry["result"] = resultObservation(res, observe)
			case *Crash:
				entry["crashed"] = true
			case *Error:
				entry["raised"] = e.Fields()
			default:
				return nil, err
			}
		case "tear", "appendBytes", "corrupt":
			// The byte edits work on a journal that exists (kernel.missing-execution).
			if _, exists := store.Bytes(execID); !exists {
				entry["raised"] = notFound(execID).Fields()
				break
			}
			if err := editBytes(store, execID, a); err != nil {
				return nil, err
			}
			entry["done"] = true
		case "holdWriter":
			// A second writer opens the journal: one that does not exist is not found
			// (notes A27), one that is held is locked.
			// It opens as any writer does (INTERPRETING.md section 6): a journal that does
			// not read is refused, and a torn tail is truncated and warned about.
			b, exists := store.Bytes(execID)
			if !exists {
				entry["raised"] = notFound(execID).Fields()
			} else if err := store.Lock(execID); err != nil {
				entry["raised"] = err.(*Error).Fields()
			} else if p, err := parseJournal(b, execID); err != nil {
				store.Unlock(execID)
				entry["raised"] = err.(*Error).Fields()
			} else {
				if p.Torn != nil {
					o.warnings = append(o.warnings, "journal.torn-tail")
					store.truncate(execID, len(b)-p.Torn.Size)
				}
				entry["done"] = true
			}
		case "releaseWriter":
			store.Unlock(execID)
			entry["done"] = true
		default:
			return nil, fmt.Errorf("unknown action %q", do)
		}
		entry["trace"], entry["warnings"] = o.trace, o.warnings
		out = append(out, entry)
	}
	return map[string]any{"actions": out, "journal": journalObservation(store, execID)}, nil
}

// runAction runs one call on a fresh runtime over the shared store (a fresh process).
func runAction(a map[string]any, do string, w *world, o *obs, store *MemStore, wfName string,
	instrs []any, schemas map[string]any, execID string, alwaysReplay bool) (*Result, error) {
	wf, err := NewWorkflow(wfName, w.body(o, instrs), schemas)
	if err != nil {
		return nil, err
	}
	var host EffectHost = w.host(o, false)
	if do == "replay" {
		host = replayHost{o} // every call, registered or not, traced and refused
	}
	rt := NewRuntime(store, host, wf)
	rt.AlwaysReplay = alwaysReplay
	rt.OnWarn = func(code, _ string) { o.warnings = append(o.warnings, code) }
	rt.OnEvent = func(ev Event) {
		o.add("event", map[string]any{"kind": ev.Kind, "payload": ev.Payload})
	}
	if cr, ok := a["crash"].(map[string]any); ok {
		n, _ := cr["afterEvent"].(json.Number)
		k, err := strconv.Atoi(string(n))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("crash.afterEvent is not a positive count")
		}
		torn, _ := cr["torn"].(bool)
		store.Arm(k, torn)
		defer store.Disarm()
	}
	switch do {
	case "start":
		name := wfName
		if s, ok := a["workflow"].(string); ok {
			name = s
		}
		return rt.Start(name, execID, a["input"])
	case "resume":
		gate, _ := a["gate"].(string)
		return rt.Resume(execID, gate, a["payload"])
	case "recover":
		return rt.Recover(execID)
	case "resolve":
		step, _ := a["step"].(string)
		var how Resolution
		if v, ok := a["output"]; ok {
			how.Output, how.HasOutput = v, true
		}
		if e, ok := a["error"].(map[string]any); ok {
			how.Error = map[string]any{"code": e["code"], "message": e["message"]}
		}
		how.Retry, _ = a["retry"].(bool)
		return rt.Resolve(execID, step, how)
	}
	return rt.Replay(execID)
}

func resultObservation(res *Result, observe map[string]bool) map[string]any {
	r := map[string]any{"status": res.Status}
	switch res.Status {
	case "completed":
		r["output"] = res.Output
	case "failed":
		r["error"] = res.Error
	case "suspended":
		r["waitingOn"] = res.WaitingOn
	case "in-doubt":
		r["inDoubtStep"] = res.InDoubtStep
	}
	if observe["served"] {
		r["served"] = res.Served
	}
	if observe["ran"] {
		r["ran"] = res.Ran
	}
	if observe["torn"] {
		if res.Torn == nil {
			r["torn"] = nil
		} else {
			r["torn"] = map[string]any{"line": res.Torn.Line, "size": res.Torn.Size}
		}
	}
	return r
}

// journalObservation reads the stored journal after the last action, without writing.
func journalObservation(store *MemStore, execID string) any {
	p, exists, err := store.Read(execID)
	if !exists {
		return nil
	}
	if err != nil {
		if e, ok := err.(*Error); ok {
			return map[string]any{"error": e.Fields()}
		}
		return map[string]any{"error": map[string]any{"code": "journal.error", "message": err.Error()}}
	}
	events := []any{}
	for _, ev := range p.Events {
		events = append(events, map[string]any{"kind": ev.Kind, "payload": ev.Payload})
	}
	return map[string]any{"events": events, "tornTail": p.Torn != nil}
}

// editBytes runs the raw journal actions tear, appendBytes and corrupt.
func editBytes(store *MemStore, execID string, a map[string]any) error {
	b, _ := store.Bytes(execID)
	if a["do"] == "appendBytes" {
		text, _ := a["text"].(string)
		store.SetBytes(execID, append(append([]byte{}, b...), text...))
		return nil
	}
	n, _ := a["line"].(json.Number)
	line, err := strconv.Atoi(string(n))
	if err != nil || line < 1 {
		return fmt.Errorf("line is not a 1-based line number")
	}
	start := 0
	for i := 1; i < line; i++ {
		j := bytes.IndexByte(b[start:], '\n')
		if j < 0 {
			return fmt.Errorf("the journal has no line %d", line)
		}
		start += j + 1
	}
	end := len(b)
	if j := bytes.IndexByte(b[start:], '\n'); j >= 0 {
		end = start + j
	}
	if start >= len(b) {
		return fmt.Errorf("the journal has no line %d", line)
	}
	content := b[start:end]
	switch a["do"] {
	case "tear":
		keep := len(content) / 2
		if whole, _ := a["whole"].(bool); whole {
			keep = len(content)
		}
		if keep < 1 {
			keep = 1
		}
		store.SetBytes(execID, append([]byte{}, b[:start+keep]...))
	case "corrupt":
		if len(content) < 10 {
			return fmt.Errorf("line %d has no crc", line)
		}
		out := append([]byte{}, b...)
		digits := out[end-10 : end-2]
		repl := "00000000"
		if string(digits) == repl {
			repl = "ffffffff"
		}
		copy(digits, repl)
		store.SetBytes(execID, out)
	}
	return nil
}
