// Package governance implements chapter 4 of the Loom specification (spec/governance.md):
// taint (§4.1), safety validators with the portable pattern dialect portable-1 (§4.2,
// §4.2.1), delta guards (§4.3), hold-back (§4.4, extension) and the chapter's conformance
// vector functions (§4.5).
//
// Text is measured in Unicode code points throughout ({#validators.violation},
// {#guards.running-text}): Go strings are UTF-8 bytes, so offsets are converted. Matching
// relies on Go's regexp package, which {#patterns.semantics} names as one of the engines
// the dialect is built for; the dialect itself (what is accepted, the refusal reasons,
// the limits and the widths) is checked by this package before anything is compiled
// ({#patterns.dialect}).
//
// Functions is the table of vector functions, served by cmd/governance.
package governance
