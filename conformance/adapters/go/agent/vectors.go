package agent

import (
	"loomref/adapters/go/protocol"
)

// Functions are the agent chapter's conformance vectors (spec/agent.md 6.14,
// agent.vector-input). Each reads its input strictly before anything runs.
var Functions = map[string]protocol.Function{
	"agent.compaction_plan":      compactionPlanVector,
	"agent.kept_suffix":          keptSuffixVector,
	"agent.message_bytes":        messageBytesVector,
	"agent.tool_result_content":  toolResultContentVector,
	"agent.chunk_deltas":         chunkDeltasVector,
	"agent.claim_check_envelope": claimCheckEnvelopeVector,
	"agent.content_ref":          contentRefVector,
	"agent.model_effect":         modelEffectVector,
	"agent.summarize":            summarizeVector,
	"agent.render_transcript":    renderTranscriptVector,
}

// sizesOf reads `sizes`: a list of ints >= 0.
func sizesOf(v any) ([]int64, *protocol.Error) {
	list, ok := v.([]any)
	if !ok {
		return nil, invalid("sizes is not a list")
	}
	out := make([]int64, len(list))
	for i, item := range list {
		n, ok := asInt(item)
		if !ok || n < 0 {
			return nil, invalid("a size is not an int >= 0")
		}
		out[i] = n
	}
	return out, nil
}

// agent.compaction_plan: sizes first (argument.invalid), then the Compaction guard
// (argument.agent-compaction), then the plan.
func compactionPlanVector(input any) (any, error) {
	m, err := readObject(input, []string{"sizes", "afterMessages", "afterBytes", "keepRecent"}, nil)
	if err != nil {
		return nil, err
	}
	sizes, err := sizesOf(m["sizes"])
	if err != nil {
		return nil, err
	}
	c, err := newCompaction(m["afterMessages"], m["afterBytes"], m["keepRecent"])
	if err != nil {
		return nil, err
	}
	p := c.plan(sizes)
	var reason any
	if p.Reason != "" {
		reason = p.Reason
	}
	return map[string]any{"compact": p.Compact, "reason": reason, "keep": p.Keep,
		"fold": p.Fold, "skipped": p.Skipped}, nil
}

// agent.kept_suffix: the byte rule alone.
func keptSuffixVector(input any) (any, error) {
	m, err := readObject(input, []string{"sizes", "afterBytes", "keepRecent"}, nil)
	if err != nil {
		return nil, err
	}
	sizes, err := sizesOf(m["sizes"])
	if err != nil {
		return nil, err
	}
	after, ok := asInt(m["afterBytes"])
	if !ok || after < 1 {
		return nil, invalid("afterBytes is not an int >= 1")
	}
	keep, ok := asInt(m["keepRecent"])
	if !ok || keep < 1 {
		return nil, invalid("keepRecent is not an int >= 1")
	}
	return map[string]any{"keep": keptSuffixBytes(sizes, after, keep)}, nil
}

// agent.message_bytes: the canonical JSON of any value and its UTF-8 size
// (agent.canonical-json, agent.byte-count).
func messageBytesVector(input any) (any, error) {
	m, err := readObject(input, []string{"message"}, nil)
	if err != nil {
		return nil, err
	}
	c, cerr := Canonical(m["message"])
	if cerr != nil {
		return nil, cerr
	}
	return map[string]any{"bytes": len(c), "canonical": c}, nil
}

// ToolResultContent is what the model reads of a tool's result (agent.tool-result):
// {"tool":<name>,"result":<result>}, "tool" first, each value in canonical JSON.
func ToolResultContent(name string, result any) (string, error) {
	n, err := Canonical(name)
	if err != nil {
		return "", err
	}
	r, err := Canonical(result)
	if err != nil {
		return "", err
	}
	return `{"tool":` + n + `,"result":` + r + `}`, nil
}

func toolResultContentVector(input any) (any, error) {
	m, err := readObject(input, []string{"name", "result"}, nil)
	if err != nil {
		return nil, err
	}
	name, ok := m["name"].(string)
	if !ok || name == "" {
		return nil, invalid("name is not a non-empty string")
	}
	c, cerr := ToolResultContent(name, m["result"])
	if cerr != nil {
		return nil, cerr
	}
	return map[string]any{"content": c}, nil
}

// agent.chunk_deltas: push every delta, flush after the indexes flushAfter lists, and flush
// at the end.
func chunkDeltasVector(input any) (any, error) {
	m, err := readObject(input, []string{"deltas", "minChars"}, []string{"flushAfter"})
	if err != nil {
		return nil, err
	}
	list, ok := m["deltas"].([]any)
	if !ok {
		return nil, invalid("deltas is not a list")
	}
	deltas := make([]string, len(list))
	for i, d := range list {
		if deltas[i], ok = d.(string); !ok {
			return nil, invalid("a delta is not a string")
		}
	}
	minChars, ok := asInt(m["minChars"])
	if !ok || minChars < 1 {
		return nil, invalid("minChars is not an int >= 1")
	}
	flushAt := map[int64]bool{}
	if fa, present := m["flushAfter"]; present {
		items, ok := fa.([]any)
		if !ok {
			return nil, invalid("flushAfter is not a list")
		}
		for _, item := range items {
			i, ok := asInt(item)
			if !ok || i < 0 || i >= int64(len(deltas)) {
				return nil, invalid("flushAfter holds something that is not an index of deltas")
			}
			flushAt[i] = true
		}
	}
	batches := []string{}
	c := ChunkDeltas(func(b string) { batches = append(batches, b) }, int(minChars))
	for i, d := range deltas {
		c.Push(d)
		if flushAt[int64(i)] {
			c.Flush()
		}
	}
	c.Flush()
	return map[string]any{"batches": batches}, nil
}

// agent.claim_check_envelope: store `result`, build its envelope, and resolve `resolve`
// against the same store when given.
func claimCheckEnvelopeVector(input any) (any, error) {
	m, err := readObject(input, []string{"result"}, []string{"preview", "resolve"})
	if err != nil {
		return nil, err
	}
	result, err := decodeTainted(m["result"])
	if err != nil {
		return nil, err
	}
	preview := true
	if p, present := m["preview"]; present {
		b, ok := p.(bool)
		if !ok {
			return nil, invalid("preview is not a boolean")
		}
		preview = b
	}
	store := ContentStore{}
	env, stored, cerr := claimCheck(store, result, preview)
	if cerr != nil {
		return nil, cerr
	}
	out := map[string]any{"envelope": env, "stored": stored}
	if r, present := m["resolve"]; present {
		v, rerr := resolveClaimCheck(store, r)
		if rerr != nil {
			return nil, rerr
		}
		out["resolved"] = encodeTainted(v)
	}
	return out, nil
}

// agent.content_ref: the reference of a value's canonical JSON, tainted values encoded.
func contentRefVector(input any) (any, error) {
	m, err := readObject(input, []string{"value"}, nil)
	if err != nil {
		return nil, err
	}
	v, err := decodeTainted(m["value"])
	if err != nil {
		return nil, err
	}
	c, cerr := Canonical(v)
	if cerr != nil {
		return nil, cerr
	}
	return map[string]any{"ref": contentRef(c)}, nil
}

func outcome(output any, err *protocol.Error) map[string]any {
	if err != nil {
		return map[string]any{"error": map[string]any{"code": err.Code}}
	}
	return map[string]any{"output": output}
}

// agent.model_effect: create_agent_model_effect(provider, tool_id="llm", model="m1",
// on_delta=<recording sink>, max_tokens=, temperature=) called once, transiently, with a
// recording per-call sink.
func modelEffectVector(input any) (any, error) {
	m, err := readObject(input, []string{"input", "chunks"}, []string{"maxTokens", "temperature"})
	if err != nil {
		return nil, err
	}
	chunks, werr := DecodeChunks(m["chunks"], "$.chunks")
	if werr != nil {
		return nil, invalid(werr.Error())
	}
	// The effect's own max_tokens / temperature default to None; a null member is read as
	// None, as the reference does (notes/agent.md point 36: errors.vector-null does not list
	// these members, so the text reads null as argument.invalid).
	var maxTokens, temperature any
	if v := m["maxTokens"]; v != nil {
		if _, ok := asInt(v); !ok {
			return nil, invalid("maxTokens is not an int")
		}
		maxTokens = v
	}
	if v := m["temperature"]; v != nil {
		if _, ok := asFiniteNumber(v); !ok {
			return nil, invalid("temperature is not a number")
		}
		temperature = v
	}
	callInput, err := decodeTainted(m["input"])
	if err != nil {
		return nil, err
	}
	p := &scriptedProvider{chunks: chunks}
	ch := &channel{origin: "llm:llm"}
	var output any
	req, err := parseLlmInput(callInput, "m1", maxTokens, temperature)
	if err == nil {
		output, _, err = llmCall(p, req, ch)
	}
	if err == nil {
		ch.succeeded()
	}
	return map[string]any{"requests": nonNil(p.requests), "outcome": outcome(output, err),
		"perCall": nonNil(ch.perCall), "onDelta": nonNil(ch.onDelta)}, nil
}

// agent.summarize: create_summarizer_effect(provider, tool_id="summarize", model="m1")
// called on {"messages"}.
func summarizeVector(input any) (any, error) {
	m, err := readObject(input, []string{"messages", "chunks"}, []string{"instructions"})
	if err != nil {
		return nil, err
	}
	chunks, werr := DecodeChunks(m["chunks"], "$.chunks")
	if werr != nil {
		return nil, invalid(werr.Error())
	}
	instructions := DefaultSummarizerInstructions
	if v, present := m["instructions"]; present {
		s, ok := v.(string)
		if !ok || s == "" {
			return nil, invalid("instructions is not a non-empty string")
		}
		instructions = s
	}
	p := &scriptedProvider{chunks: chunks}
	ch := &channel{origin: "llm:summarize"}
	// The messages are the call's input ({"messages"}): what the effect refuses of them,
	// a message that does not decode included, is the outcome's error (agent.vector-input:
	// "What the effect refuses of the call's input ... is the call's").
	var output any
	msgs, werr := DecodeMessages(m["messages"], "$.messages")
	if werr != nil {
		err = invalid(werr.Error())
	} else {
		output, err = summarize(p, msgs, instructions, "m1", ch)
	}
	return map[string]any{"requests": nonNil(p.requests), "outcome": outcome(output, err)}, nil
}

// agent.render_transcript.
func renderTranscriptVector(input any) (any, error) {
	m, err := readObject(input, []string{"messages"}, nil)
	if err != nil {
		return nil, err
	}
	msgs, werr := DecodeMessages(m["messages"], "$.messages")
	if werr != nil {
		return nil, invalid(werr.Error())
	}
	text, err := renderTranscript(msgs)
	if err != nil {
		return nil, err
	}
	return map[string]any{"text": text}, nil
}

func nonNil(list []any) []any {
	if list == nil {
		return []any{}
	}
	return list
}
