package governance

import (
	"fmt"

	"loomref/adapters/go/protocol"
)

// Error codes of this chapter ({#errors.stable-codes}, spec/governance.md §4.6).
const (
	codeInvalid         = "argument.invalid"
	codeNotTainted      = "argument.not-tainted"
	codePattern         = "argument.pattern"
	codeTaintedRequest  = "governance.tainted-request"
	codeSafetyViolation = "governance.safety-violation"
	codeDeltaSevered    = "governance.delta-severed"
	codeTokenBudget     = "governance.stream-token-budget"
	codeGuardState      = "governance.guard-state"
)

// invalid is an InvalidArgument (argument.invalid) with an informative message.
func invalid(format string, args ...any) *protocol.Error {
	return protocol.Fail(codeInvalid, "message", fmt.Sprintf(format, args...))
}
