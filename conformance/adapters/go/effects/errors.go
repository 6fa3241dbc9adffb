// Package effects implements, from their spec text alone, the effect runtime (spec/effects.md,
// chapter 3) and governed streaming deltas (spec/deltas.md, chapter 3a), with the pieces of
// governance (chapter 4) and of the stream protocol (chapter 5) they need, and exposes the
// conformance vector functions of those chapters (conformance/INTERPRETING.md section 3).
package effects

import (
	"fmt"

	"loomref/adapters/go/protocol"
)

// errKind says how the route treats an error when deciding whether to retry it
// ({#effects.refusal-never-retried}: by the error's kind, never by its code).
type errKind int

const (
	kindOrdinary errKind = iota // an effect's own failure, a sever, a violation: retryable
	kindRefusal                 // raised by the route (EffectRefusal): never retried
	kindInvalid                 // InvalidArgument: never retried
	kindFence                   // governance.tainted-request from the taint fence: never retried
)

// LoomError is an error with a stable code ({#errors.stable-codes}).
type LoomError struct {
	Code    string
	Message string
	Kind    errKind
	Details map[string]any
	Cause   error // the effect's own error an abort won over ({#effects.signal-abort})
	// Scripted marks an effect's scripted failure (effects.route `raise`).
	Scripted bool
	// Reason is the abort reason of effect.aborted (nil for a scripted effect.aborted).
	Reason *string
}

func (e *LoomError) Error() string { return e.Code + ": " + e.Message }

func invalid(format string, args ...any) *LoomError {
	return &LoomError{Code: "argument.invalid", Message: fmt.Sprintf(format, args...), Kind: kindInvalid}
}

func refusal(code, msg string) *LoomError {
	return &LoomError{Code: code, Message: msg, Kind: kindRefusal}
}

func abortedErr(reason string, cause error) *LoomError {
	r := reason
	return &LoomError{Code: "effect.aborted", Message: reason, Kind: kindRefusal, Reason: &r, Cause: cause}
}

// codeOf returns an error's stable code ("" for an error without one).
func codeOf(err error) string {
	if e, ok := err.(*LoomError); ok {
		return e.Code
	}
	return ""
}

// malformed is panicked to abandon a whole vector whose input turns out, while it runs, to be
// a script that cannot run as written ({#effects.route-vector}); the vector answers it.
type malformed struct{ err *LoomError }

// crash is panicked by a scripted effect's simulated crash (a BaseException, not an
// Exception): nothing after it runs — no record, no abort check, no middleware code
// ({#effects.metering-record}).
type crash struct{}

// toProtocol turns an error into the vector's top-level error reply.
func toProtocol(err error) error {
	if e, ok := err.(*LoomError); ok {
		if e.Code == "skip" { // a construct this implementation does not have (python-re)
			return &protocol.Skip{Reason: e.Message}
		}
		d := map[string]any{"message": e.Message}
		for k, v := range e.Details {
			d[k] = v
		}
		return &protocol.Error{Code: e.Code, Details: d}
	}
	return err
}

// vector wraps a function so that a *LoomError (returned or panicked as malformed) becomes a
// protocol error reply.
func vector(f func(input any) (any, error)) protocol.Function {
	return func(input any) (res any, err error) {
		defer func() {
			if r := recover(); r != nil {
				if m, ok := r.(malformed); ok {
					res, err = nil, toProtocol(m.err)
					return
				}
				panic(r)
			}
		}()
		res, err = f(input)
		if err != nil {
			return nil, toProtocol(err)
		}
		return res, nil
	}
}

// Functions are the vector functions of chapters 3 and 3a this package implements.
var Functions = map[string]protocol.Function{
	"effects.backoff": vector(backoffVector),
	"effects.route":   vector(routeVector),
	"deltas.run":      vector(deltasRunVector),
	"deltas.record":   vector(deltasRecordVector),
	"deltas.llm":      vector(deltasLLMVector),
	"deltas.replay":   vector(deltasReplayVector),
}
