package journal

import (
	"encoding/json"
	"fmt"
	"reflect"

	"loomref/adapters/go/protocol"
)

// Statuses of an execution (journal.transitions, spec/journal.md §1.3).
const (
	notStarted = "not-started"
	running    = "running"
	suspended  = "suspended"
	inDoubt    = "in-doubt"
	completed  = "completed"
	failed     = "failed"
)

// transitions is the table of journal.transitions: status -> kind -> next status.
var transitions = map[string]map[string]string{
	notStarted: {"EXECUTION_STARTED": running},
	running: {
		"STEP_STARTED": running, "STEP_COMPLETED": running, "STEP_FAILED": running,
		"DECISION_RECORDED": running, "STREAM_APPENDED": running,
		"STEP_IN_DOUBT": inDoubt, "EXECUTION_SUSPENDED": suspended,
		"EXECUTION_COMPLETED": completed, "EXECUTION_FAILED": failed,
	},
	suspended: {"RESUME_RECEIVED": suspended, "EXECUTION_RESUMED": running},
	inDoubt:   {"STEP_COMPLETED": running, "STEP_FAILED": running, "EXECUTION_FAILED": failed},
	completed: {},
	failed:    {},
}

// state is an execution's state, a function of its events only (journal.fold).
type state struct {
	Status        string         `json:"status"`
	Seq           any            `json:"seq"`
	WaitingOn     any            `json:"waitingOn"`
	PendingResume bool           `json:"pendingResume"`
	InDoubtStep   any            `json:"inDoubtStep"`
	Output        any            `json:"output"`
	Error         any            `json:"error"`
	Steps         map[string]any `json:"steps"`
	Decisions     map[string]any `json:"decisions"`
}

type event struct {
	seq     any
	kind    string
	payload map[string]any
}

func newState() *state {
	return &state{Status: notStarted, Seq: json.Number("0"),
		Steps: map[string]any{}, Decisions: map[string]any{}}
}

func illegal(i int, kind, status string) *protocol.Error {
	return protocol.Fail("journal.illegal-transition", "index", i, "kind", kind, "status", status)
}

// apply folds one event into the state: the table, then the two rules of
// journal.transitions beyond it (an outcome for a step never started, a resume for a gate
// that is not waiting; notes points 29-31).
func (s *state) apply(i int, e event) error {
	next, ok := transitions[s.Status][e.kind]
	if !ok {
		return illegal(i, e.kind, s.Status)
	}
	p := e.payload
	switch e.kind {
	case "STEP_STARTED":
		s.Steps[p["stepId"].(string)] = "started"
	case "STEP_COMPLETED", "STEP_FAILED", "STEP_IN_DOUBT":
		id := p["stepId"].(string)
		if _, started := s.Steps[id]; !started {
			return illegal(i, e.kind, s.Status)
		}
		s.Steps[id] = map[string]string{"STEP_COMPLETED": completed, "STEP_FAILED": failed,
			"STEP_IN_DOUBT": inDoubt}[e.kind]
	case "DECISION_RECORDED":
		s.Decisions[p["decisionId"].(string)] = p["choice"]
	case "EXECUTION_SUSPENDED":
		s.WaitingOn = p["gateId"]
	case "RESUME_RECEIVED":
		if s.PendingResume || !reflect.DeepEqual(p["gateId"], s.WaitingOn) {
			return illegal(i, e.kind, s.Status)
		}
		s.PendingResume = true
	case "EXECUTION_RESUMED":
		if !reflect.DeepEqual(p["gateId"], s.WaitingOn) {
			return illegal(i, e.kind, s.Status)
		}
	case "EXECUTION_COMPLETED":
		s.Output = p["output"]
	case "EXECUTION_FAILED":
		s.Error = p["error"]
	}
	if next != suspended {
		s.WaitingOn, s.PendingResume = nil, false
	}
	// inDoubtStep: set by STEP_IN_DOUBT, cleared only by a step's outcome (of any step);
	// EXECUTION_FAILED leaves it as it is (journal.fold-vector).
	switch e.kind {
	case "STEP_IN_DOUBT":
		s.InDoubtStep = p["stepId"]
	case "STEP_COMPLETED", "STEP_FAILED":
		s.InDoubtStep = nil
	}
	s.Status = next
	s.Seq = e.seq
	return nil
}

// fold is the conformance function journal.fold (journal.fold-vector): every event is
// checked first (the input's shape, then kind and payload as a reader checks a line's), then
// the events are folded through the table (notes point 27).
func fold(input map[string]any) (any, error) {
	list, ok := input["events"].([]any)
	if !ok {
		return nil, invalid("events must be a list")
	}
	events := make([]event, len(list))
	for i, x := range list {
		obj, ok := x.(map[string]any)
		if !ok {
			return nil, invalid("an event must be an object")
		}
		if !checkEvent(obj["kind"], obj["payload"]) {
			return nil, protocol.Fail("journal.bad-payload", "index", i)
		}
		kind := obj["kind"].(string)
		payload := obj["payload"].(map[string]any)
		switch kind {
		case "STEP_STARTED", "STEP_COMPLETED", "STEP_FAILED", "STEP_IN_DOUBT":
			if _, ok := payload["stepId"].(string); !ok {
				return nil, invalid("a step event's stepId must be a string")
			}
		case "DECISION_RECORDED":
			if _, ok := payload["decisionId"].(string); !ok {
				return nil, invalid("a decisionId must be a string")
			}
		}
		// Its seq last (journal.fold-vector: an object, its kind and payload, its id, its seq).
		seq := any(json.Number(fmt.Sprint(i + 1)))
		if v, present := obj["seq"]; present {
			if _, ok := intValue(v); !ok {
				return nil, invalid("an event's seq must be an integer")
			}
			seq = v
		}
		events[i] = event{seq: seq, kind: kind, payload: payload}
	}
	s := newState()
	for i, e := range events {
		if err := s.apply(i, e); err != nil {
			return nil, err
		}
	}
	return s, nil
}
