package kernel

import "fmt"

// State is the fold of an execution's events (journal.fold).
type State struct {
	Status        string // not-started, running, suspended, in-doubt, completed, failed
	Seq           int
	WaitingOn     string
	PendingResume bool
	InDoubtStep   string
	Output        any
	Error         map[string]any
	Steps         map[string]string
}

// transitions is the table of journal.transitions: the kinds allowed in each status and
// the status they lead to.
var transitions = map[string]map[string]string{
	"not-started": {"EXECUTION_STARTED": "running"},
	"running": {
		"STEP_STARTED": "running", "STEP_COMPLETED": "running", "STEP_FAILED": "running",
		"DECISION_RECORDED": "running", "STREAM_APPENDED": "running",
		"STEP_IN_DOUBT": "in-doubt", "EXECUTION_SUSPENDED": "suspended",
		"EXECUTION_COMPLETED": "completed", "EXECUTION_FAILED": "failed",
	},
	"suspended": {"RESUME_RECEIVED": "suspended", "EXECUTION_RESUMED": "running"},
	"in-doubt":  {"STEP_COMPLETED": "running", "STEP_FAILED": "running", "EXECUTION_FAILED": "failed"},
	"completed": {},
	"failed":    {},
}

func illegal(st *State, ev Event, why string) *Error {
	return NewError("journal.illegal-transition",
		fmt.Sprintf("%s at seq %d in status %s%s", ev.Kind, ev.Seq, st.Status, why),
		"seq", ev.Seq, "kind", ev.Kind, "status", st.Status)
}

// Apply folds one more event into the state, refusing an illegal transition.
func (st *State) Apply(ev Event) error {
	next, ok := transitions[st.Status][ev.Kind]
	if !ok {
		return illegal(st, ev, "")
	}
	p := ev.Payload
	stepID, _ := p["stepId"].(string)
	gateID, _ := p["gateId"].(string)
	switch ev.Kind {
	case "STEP_STARTED":
		st.Steps[stepID] = "started"
	case "STEP_COMPLETED", "STEP_FAILED":
		// journal.transitions: only an outcome of a step that never started is illegal; a
		// second outcome, and in doubt an outcome of another started step, are allowed
		if _, known := st.Steps[stepID]; !known {
			return illegal(st, ev, ": the step has not started")
		}
		if ev.Kind == "STEP_COMPLETED" {
			st.Steps[stepID] = "completed"
		} else {
			st.Steps[stepID] = "failed"
		}
		st.InDoubtStep = ""
	case "STEP_IN_DOUBT":
		if _, known := st.Steps[stepID]; !known {
			return illegal(st, ev, ": the step has not started")
		}
		st.Steps[stepID] = "in-doubt"
		st.InDoubtStep = stepID
	case "EXECUTION_SUSPENDED":
		st.WaitingOn = gateID
		st.PendingResume = false
	case "RESUME_RECEIVED":
		if gateID != st.WaitingOn || st.PendingResume {
			return illegal(st, ev, ": not the gate waited on")
		}
		st.PendingResume = true
	case "EXECUTION_RESUMED":
		if gateID != st.WaitingOn {
			return illegal(st, ev, ": not the gate waited on")
		}
		st.WaitingOn = ""
		st.PendingResume = false
	case "EXECUTION_COMPLETED":
		st.Output = p["output"]
	case "EXECUTION_FAILED":
		st.Error, _ = p["error"].(map[string]any)
	}
	st.Status = next
	st.Seq = ev.Seq
	return nil
}

// Fold folds events from the start.
func Fold(events []Event) (*State, error) {
	st := &State{Status: "not-started", Steps: map[string]string{}}
	for _, ev := range events {
		if err := st.Apply(ev); err != nil {
			return nil, err
		}
	}
	return st, nil
}
