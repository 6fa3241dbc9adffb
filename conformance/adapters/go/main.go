// Command loom-adapter serves every chapter this Go implementation covers over the
// conformance protocol (conformance/INTERPRETING.md section 4): one process, one hello.
//
// The chapters were written blind, from spec/ and conformance/INTERPRETING.md alone (no
// loom_ref code, no other adapter). Each chapter lives in its own package; this file only
// joins their function tables and routes a scenario to the package that runs its body.
package main

import (
	"loomref/adapters/go/agent"
	"loomref/adapters/go/effects"
	"loomref/adapters/go/governance"
	"loomref/adapters/go/journal"
	"loomref/adapters/go/kernel"
	"loomref/adapters/go/protocol"
	"loomref/adapters/go/stream"
)

// scenario routes a scenario case: a body that needs the `agent` capability (the
// agent_loop instruction) runs on the agent package's runtime, every other body on the
// kernel package's.
func scenario(c map[string]any) (any, error) {
	if reqs, ok := c["requires"].([]any); ok {
		for _, r := range reqs {
			if r == "agent" {
				return agent.RunScenario(c)
			}
		}
	}
	return kernel.Scenario(c)
}

func main() {
	protocol.Serve(&protocol.Implementation{
		Name:    "loom-go",
		Version: "0.2.0",
		Functions: protocol.Merge(journal.Functions, stream.Functions, governance.Functions,
			effects.Functions, agent.Functions),
		Scenario: scenario,
		// Text is counted in code points and keys sorted by code point (INTERPRETING.md
		// section 15). Lone surrogates cannot be held (Go's encoding/json reads a lone
		// surrogate escape as U+FFFD), so text.lone-surrogates is not declared; nor is
		// patterns.python-re (the pattern dialect is the spec's, on Go's regexp).
		Features: []string{"crash", "torn-write", "always-replay", "agent", "text.code-points"},
	})
}
