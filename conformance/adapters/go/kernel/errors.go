package kernel

// Error is a LoomError (errors.stable-codes): a stable dotted code, a message and JSON
// details. An error with an empty Code is one that carries no code (a scripted `raise`
// without one, INTERPRETING.md section 6): in Python an Exception, here "uncoded".
type Error struct {
	Code    string
	Message string
	Details map[string]any
	// Step marks a StepFailedError: a step's journaled failure raised into the body
	// (kernel.step-failure).
	Step bool
}

func (e *Error) Error() string {
	if e.Code == "" {
		return "Error: " + e.Message
	}
	return e.Code + ": " + e.Message
}

// NewError builds an error with a code and a message.
func NewError(code, message string, kv ...any) *Error {
	e := &Error{Code: code, Message: message}
	if len(kv) > 0 {
		e.Details = map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			e.Details[kv[i].(string)] = kv[i+1]
		}
	}
	return e
}

// Uncoded builds an error that carries no code.
func Uncoded(message string) *Error { return &Error{Message: message} }

// journalForm is the {code, message} an error is journaled as; an uncoded error gets
// fallback as its code and "<TypeName>: <text>" as its message (kernel.step-failure,
// kernel.body-failure; notes A15: the type name is "Error").
func journalForm(err error, fallback string) map[string]any {
	if e, ok := err.(*Error); ok {
		if e.Code != "" {
			return map[string]any{"code": e.Code, "message": e.Message}
		}
		return map[string]any{"code": fallback, "message": "Error: " + e.Message}
	}
	return map[string]any{"code": fallback, "message": "Error: " + err.Error()}
}

// Fields returns the error as an observation: code, message and details.
func (e *Error) Fields() map[string]any {
	out := map[string]any{"code": e.Code, "message": e.Message}
	for k, v := range e.Details {
		out[k] = v
	}
	return out
}
