package agent

import (
	"fmt"
	"strings"

	"loomref/adapters/go/protocol"
)

// llmRequest is the LLM effect's parsed input (deltas.llm-input).
type llmRequest struct {
	model       string
	messages    []*Message
	tools       []any // {name, description, parameters}, defaults filled
	maxTokens   any   // an int (json.Number / int64) or nil
	temperature any   // a finite number or nil
}

// JSON is the request as the scripted provider records it (agent.model_effect): the system
// message first when one is sent, tools [] when none, maxTokens / temperature null when unset.
func (r *llmRequest) JSON() map[string]any {
	msgs := make([]any, 0, len(r.messages))
	for _, m := range r.messages {
		msgs = append(msgs, MessageJSON(m))
	}
	tools := r.tools
	if tools == nil {
		tools = []any{}
	}
	return map[string]any{"model": r.model, "messages": msgs, "tools": tools,
		"maxTokens": r.maxTokens, "temperature": r.temperature}
}

func textMessage(role, text string) *Message {
	return &Message{Role: role, Content: []Block{{Type: "text", Text: text}}}
}

// parseLlmInput reads the LLM effect's input (deltas.llm-input, agent.model-input): FIRST the
// taint fence (governance.tainted-request), then the shape, every fault argument.invalid.
// maxTokens / temperature, when absent or null, take the effect's own (the model effect's
// max_tokens= / temperature=, agent.model-input).
func parseLlmInput(input any, effModel string, effMax, effTemp any) (*llmRequest, *protocol.Error) {
	if err := guardRequest(input); err != nil {
		return nil, err
	}
	m, ok := input.(map[string]any)
	if !ok {
		return nil, invalid("the LLM input is not an object")
	}
	for k := range m {
		switch k {
		case "messages", "system", "tools", "model", "maxTokens", "temperature":
		default:
			return nil, invalid("unknown member of the LLM input: " + k)
		}
	}
	req := &llmRequest{model: effModel, maxTokens: effMax, temperature: effTemp}
	raw, ok := m["messages"]
	if !ok {
		return nil, invalid("the LLM input has no messages")
	}
	msgs, err := DecodeMessages(raw, "$.messages")
	if err != nil {
		return nil, invalid(err.Error())
	}
	if s, ok := m["system"]; ok {
		sys, ok := s.(string)
		if !ok {
			return nil, invalid("system is not a string")
		}
		if sys != "" {
			// agent.model-input: a non-empty system is sent as a leading system message.
			req.messages = append(req.messages, textMessage("system", sys))
		}
	}
	req.messages = append(req.messages, msgs...)
	if t, ok := m["tools"]; ok {
		list, ok := t.([]any)
		if !ok {
			return nil, invalid("tools is not an array")
		}
		req.tools = []any{}
		for _, item := range list {
			tm, ok := item.(map[string]any)
			if !ok {
				return nil, invalid("a tool is not an object")
			}
			spec := map[string]any{"description": "", "parameters": map[string]any{}}
			for k, v := range tm {
				switch k {
				case "name":
					s, ok := v.(string)
					if !ok || s == "" {
						return nil, invalid("a tool name is not a non-empty string")
					}
					spec["name"] = s
				case "description":
					s, ok := v.(string)
					if !ok {
						return nil, invalid("a tool description is not a string")
					}
					spec["description"] = s
				case "parameters":
					p, ok := v.(map[string]any)
					if !ok {
						return nil, invalid("tool parameters are not an object")
					}
					spec["parameters"] = p
				default:
					return nil, invalid("unknown member of a tool: " + k)
				}
			}
			if _, ok := spec["name"]; !ok {
				return nil, invalid("a tool has no name")
			}
			req.tools = append(req.tools, spec)
		}
	}
	if v, ok := m["model"]; ok {
		s, ok := v.(string)
		if !ok || s == "" {
			return nil, invalid("model is not a non-empty string")
		}
		req.model = s
	}
	if v, ok := m["maxTokens"]; ok && v != nil {
		if _, ok := asInt(v); !ok {
			return nil, invalid("maxTokens is not an int")
		}
		req.maxTokens = v
	}
	if v, ok := m["temperature"]; ok && v != nil {
		if _, ok := asFiniteNumber(v); !ok {
			return nil, invalid("temperature is not a finite number")
		}
		req.temperature = v
	}
	return req, nil
}

// scriptedProvider streams the same chunks on every call and records each request.
type scriptedProvider struct {
	chunks   []*Chunk
	requests []any
}

func (p *scriptedProvider) stream(req *llmRequest) []*Chunk {
	p.requests = append(p.requests, req.JSON())
	return p.chunks
}

// consume folds both sanctioned error paths into one finish
// (stream.adapter.consumer-wrapper): nothing is read after the adapter's own finish, and a
// stream that ends without one ends in `finish error` (stream.missing-finish). The scripted
// provider never raises and the vectors' signal never aborts.
func consume(chunks []*Chunk) []*Chunk {
	for i, c := range chunks {
		if c.Type == "finish" {
			return chunks[:i+1]
		}
	}
	code := "stream.missing-finish"
	out := append([]*Chunk{}, chunks...)
	return append(out, &Chunk{Type: "finish", Reason: &Reason{Kind: "error",
		Failure: &Failure{Message: "the stream ended without a finish", Code: &code}}})
}

// channel is the call's delta channel as the runtime provides it (deltas.channel): text goes
// to the per-call sink first, then to the effect's configured sink; the effect's end chunk is
// held, and the runtime sends the terminal chunk to the per-call sink only after the call
// succeeded (deltas.terminal). No middleware, so no guard.
type channel struct {
	origin    string
	perCall   []any
	onDelta   []any
	streamed  bool
	heldUsage *Usage
}

func (ch *channel) write(text string) {
	if text == "" {
		return
	}
	ch.streamed = true
	d := map[string]any{"delta": text, "origin": ch.origin}
	ch.perCall = append(ch.perCall, d)
	ch.onDelta = append(ch.onDelta, d)
}

func (ch *channel) end(u *Usage) {
	ch.streamed = true
	ch.heldUsage = u
}

// succeeded sends the terminal chunk {delta: "", done: true, usage?} (deltas.terminal).
func (ch *channel) succeeded() {
	if !ch.streamed {
		return
	}
	t := map[string]any{"delta": "", "origin": ch.origin, "done": true}
	if ch.heldUsage != nil {
		t["usage"] = UsageJSON(ch.heldUsage)
	}
	ch.perCall = append(ch.perCall, t)
}

// collectStream folds the consumed stream with the assembler, writes the text of each
// text or reasoning delta the fold appended to a text block (deltas.collect-text), turns a failed finish
// into effect.llm-error / effect.llm-aborted (deltas.collect-finish) and, after a successful
// finish, writes the end chunk with the stream's usage.
func collectStream(chunks []*Chunk, ch *channel) (*Message, *Reason, *protocol.Error) {
	a := newAssembler()
	for _, c := range chunks {
		if err := a.feed(c); err != nil {
			return nil, nil, err
		}
		// Only text the fold appended to a text block is delivered (a reasoning-delta into a
		// text block included): not a delta into a reasoning, tool-call or tool-result block,
		// nor a straggler (deltas.collect-text).
		if a.appended {
			ch.write(c.Text)
		}
	}
	fin := a.finishReason()
	switch fin.Kind {
	case "error", "aborted":
		code := "effect.llm-error"
		if fin.Kind == "aborted" {
			code = "effect.llm-aborted"
		}
		failure := map[string]any{"message": "", "code": nil}
		if fin.Failure != nil {
			failure["message"] = fin.Failure.Message
			if fin.Failure.Code != nil {
				failure["code"] = *fin.Failure.Code
			}
		}
		return nil, nil, protocol.Fail(code, "message", fmt.Sprintf("the model stream ended with finish %s", fin.Kind), "failure", failure)
	}
	ch.end(a.usage)
	return a.message(), fin, nil
}

// llmCall runs the LLM effect's body on a parsed request: the adapter streamed through
// consume and collect_stream; the output is the assembled message in wire form, with
// "finish": {"kind": "max-tokens"} for a cut reply (deltas.llm-output-finish).
func llmCall(p *scriptedProvider, req *llmRequest, ch *channel) (map[string]any, *Message, *protocol.Error) {
	msg, fin, err := collectStream(consume(p.stream(req)), ch)
	if err != nil {
		return nil, nil, err
	}
	out := MessageJSON(msg)
	if fin.Kind == "max-tokens" {
		out["finish"] = map[string]any{"kind": "max-tokens"}
	}
	return out, msg, nil
}

// renderTranscript renders messages for the summarizer (agent.render-transcript): one group
// per message, groups separated by a blank line; `<role>: <text>`, `<role> called
// <name>(<arguments>)`, `tool result: <content>` / `tool error: <content>`; reasoning left out.
func renderTranscript(msgs []*Message) (string, *protocol.Error) {
	groups := []string{}
	for _, m := range msgs {
		lines := []string{}
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				lines = append(lines, m.Role+": "+b.Text)
			case "tool-call":
				args, ok := b.Arguments.(string)
				if !ok {
					return "", invalid("tool-call arguments are not a string")
				}
				lines = append(lines, m.Role+" called "+b.Name+"("+args+")")
			case "tool-result":
				if b.IsError {
					lines = append(lines, "tool error: "+b.Content)
				} else {
					lines = append(lines, "tool result: "+b.Content)
				}
			}
		}
		if len(lines) > 0 {
			groups = append(groups, strings.Join(lines, "\n"))
		}
	}
	return strings.Join(groups, "\n\n"), nil
}

// DefaultSummarizerInstructions is create_summarizer_effect's default (agent.summarizer).
const DefaultSummarizerInstructions = "Summarize the conversation below for the assistant that continues it. Keep every fact, decision, open question and tool result it will still need; drop pleasantries."

// summarize is the summarizer effect over an adapter (agent.summarizer): a system message
// holding the instructions and a user message holding the rendered transcript, through the
// LLM effect's body; it returns {"summary": <the reply's text blocks, joined>}.
func summarize(p *scriptedProvider, msgs []*Message, instructions, model string, ch *channel) (any, *protocol.Error) {
	text, err := renderTranscript(msgs)
	if err != nil {
		return nil, err
	}
	req := &llmRequest{model: model, messages: []*Message{textMessage("system", instructions), textMessage("user", text)}}
	_, msg, err := llmCall(p, req, ch)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, blk := range msg.Content {
		if blk.Type == "text" {
			b.WriteString(blk.Text)
		}
	}
	return map[string]any{"summary": b.String()}, nil
}
