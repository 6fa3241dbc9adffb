package stream

// The Anthropic adapter's request (stream.anthropic.headers, stream.anthropic.request) and
// app attribution (stream.attribution).

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"loomref/adapters/go/protocol"
)

const codeInvalid = "argument.invalid"

func invalid(format string, args ...any) error {
	return protocol.Fail(codeInvalid, "reason", fmt.Sprintf(format, args...))
}

// AppIdentity is the static public product facts an adapter sends (stream.attribution.static).
type AppIdentity struct{ Product, Version, URL string }

// tchar is RFC 9110 5.6.2's token character.
func tchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tchar(s[i]) {
			return false
		}
	}
	return true
}

// printableASCII: single-line printable ASCII (U+0020-U+007E).
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7E {
			return false
		}
	}
	return true
}

// NewAppIdentity judges an identity's values; anything else is argument.invalid.
func NewAppIdentity(product, version, url any) (*AppIdentity, error) {
	p, ok1 := product.(string)
	v, ok2 := version.(string)
	u, ok3 := url.(string)
	switch {
	case !ok1 || !isToken(p):
		return nil, invalid("product must be an RFC 9110 token")
	case !ok2 || !isToken(v):
		return nil, invalid("version must be an RFC 9110 token")
	case !ok3 || u == "" || !printableASCII(u) || strings.ContainsAny(u, `()\`):
		return nil, invalid("url must be printable ASCII without '(', ')' or '\\'")
	}
	return &AppIdentity{p, v, u}, nil
}

// AttributionHeaders is the User-Agent only (stream.attribution.user-agent), its name in
// lowercase (stream.vectors.header-names).
func AttributionHeaders(id *AppIdentity) map[string]any {
	return map[string]any{"user-agent": id.Product + "/" + id.Version + " (+" + id.URL + ")"}
}

// ToolSpec is a tool offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  *Object // nil: none
}

// LlmRequest is what an adapter is asked to stream.
type LlmRequest struct {
	Model       string
	Messages    []*Message
	Tools       []ToolSpec
	MaxTokens   *int64
	Temperature any // a JSON number, nil when absent
}

// AnthropicAdapter holds the injected configuration (stream.anthropic.injected-config).
type AnthropicAdapter struct {
	APIKey           string
	Identity         *AppIdentity
	Version          string
	DefaultMaxTokens int64
}

// Headers is what every request carries (stream.anthropic.headers).
func (a *AnthropicAdapter) Headers() map[string]any {
	h := AttributionHeaders(a.Identity)
	h["x-api-key"] = a.APIKey
	h["anthropic-version"] = a.Version
	h["content-type"] = "application/json"
	h["accept"] = "text/event-stream"
	return h
}

// parseArguments reads a tool call's raw arguments as the object `input` must be: an empty
// string, or one of JSON whitespace only (U+0009, U+000A, U+000D, U+0020: the reference's
// reading, notes R4), is {}.
func parseArguments(args any) (any, error) {
	s, ok := args.(string)
	if !ok {
		return nil, invalid("tool-call arguments must be a string")
	}
	if strings.Trim(s, " \t\n\r") == "" {
		return &Object{Values: map[string]any{}}, nil
	}
	v, err := parseJSON(s)
	if err != nil {
		return nil, invalid("tool-call arguments are not JSON")
	}
	if _, isObj := v.(*Object); !isObj {
		return nil, invalid("tool-call arguments are not a JSON object")
	}
	return v, nil
}

// roleBlocks is what each role's message may hold; any other block is argument.invalid.
// Not in the text: the reference's answers (notes R6): system messages hold text, user
// messages text and tool results, assistant messages text, reasoning and tool calls, tool
// messages tool results.
var roleBlocks = map[string]map[string]bool{
	"system":    {"text": true},
	"user":      {"text": true, "tool-result": true},
	"assistant": {"text": true, "reasoning": true, "tool-call": true},
	"tool":      {"tool-result": true},
}

// checkRoles judges the blocks of every message by its role.
func checkRoles(msgs []*Message) error {
	for i, m := range msgs {
		for _, b := range m.Content {
			if !roleBlocks[m.Role][b.Type] {
				return invalid("message %d: a %s message cannot hold a %s block", i, m.Role, b.Type)
			}
		}
	}
	return nil
}

// Body builds the request body (stream.anthropic.request). Its refusals come last in the
// input order (stream.vectors.input-order, step 3): a block its role cannot hold, then
// arguments that are not a JSON object.
func (a *AnthropicAdapter) Body(req *LlmRequest) (map[string]any, error) {
	if err := checkRoles(req.Messages); err != nil {
		return nil, err
	}
	var system []string
	type apiMessage struct {
		role    string
		content []any
	}
	var msgs []*apiMessage
	for _, m := range req.Messages {
		if m.Role == "system" {
			for _, b := range m.Content {
				if b.Type == "text" && b.Text != "" {
					system = append(system, b.Text)
				}
			}
			continue
		}
		role := "user"
		if m.Role == "assistant" {
			role = "assistant"
		}
		var content []any
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				if b.Text != "" {
					content = append(content, map[string]any{"type": "text", "text": b.Text})
				}
			case "tool-call":
				input, err := parseArguments(b.Args)
				if err != nil {
					return nil, err
				}
				content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input})
			case "tool-result":
				r := map[string]any{"type": "tool_result", "tool_use_id": b.CallID, "content": b.Content}
				if b.IsError {
					r["is_error"] = true
				}
				content = append(content, r)
			}
		}
		if len(content) == 0 {
			continue // a message left empty is not sent
		}
		if n := len(msgs); n > 0 && msgs[n-1].role == role {
			msgs[n-1].content = append(msgs[n-1].content, content...)
			continue
		}
		msgs = append(msgs, &apiMessage{role, content})
	}
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = map[string]any{"role": m.role, "content": m.content}
	}
	maxTokens := a.DefaultMaxTokens
	if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	body := map[string]any{"model": req.Model, "max_tokens": maxTokens, "messages": out, "stream": true}
	if len(system) > 0 {
		body["system"] = strings.Join(system, "\n\n")
	}
	if len(req.Tools) > 0 {
		tools := make([]any, len(req.Tools))
		for i, t := range req.Tools {
			var schema any = map[string]any{"type": "object"}
			if t.Parameters != nil && len(t.Parameters.Keys) > 0 {
				schema = t.Parameters
			}
			tools[i] = map[string]any{"name": t.Name, "description": t.Description, "input_schema": schema}
		}
		body["tools"] = tools
	}
	if req.Temperature != nil {
		body["temperature"] = req.Temperature
	}
	return body, nil
}

// textOf is a message's text: its text blocks' texts joined with nothing between them.
func textOf(m *Message) string {
	var sb strings.Builder
	for _, b := range m.Content {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// chatMessages is one protocol message as chat-completions messages (stream.openai.request).
func chatMessages(m *Message) ([]any, error) {
	switch m.Role {
	case "system":
		for _, b := range m.Content {
			if b.Type != "text" {
				return nil, invalid("a system message holds text blocks only")
			}
		}
		return []any{map[string]any{"role": "system", "content": textOf(m)}}, nil
	case "assistant":
		var calls []any
		for _, b := range m.Content {
			if b.Type == "tool-result" {
				return nil, invalid("an assistant message cannot hold a tool result")
			}
		}
		for _, b := range m.Content {
			if b.Type != "tool-call" {
				continue
			}
			args, ok := b.Args.(string) // raw JSON text, sent as it is
			if !ok {
				return nil, invalid("tool-call arguments must be a string")
			}
			calls = append(calls, map[string]any{"id": b.ID, "type": "function",
				"function": map[string]any{"name": b.Name, "arguments": args}})
		}
		out := map[string]any{"role": "assistant", "content": nil}
		if text := textOf(m); text != "" {
			out["content"] = text
		}
		if len(calls) > 0 {
			out["tool_calls"] = calls
		}
		return []any{out}, nil // reasoning is not sent back
	}
	// user and tool messages: each run of text a user message, each tool result a tool one
	var out []any
	var run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, map[string]any{"role": "user", "content": strings.Join(run, "")})
			run = nil
		}
	}
	for _, b := range m.Content {
		switch {
		case b.Type == "text" && m.Role != "tool":
			run = append(run, b.Text)
		case b.Type == "tool-result":
			flush()
			out = append(out, map[string]any{"role": "tool", "tool_call_id": b.CallID, "content": b.Content})
		default:
			return nil, invalid("a %s message cannot hold a %s block", m.Role, b.Type)
		}
	}
	flush()
	return out, nil
}

// ChatBody builds the OpenAI-compatible adapter's request body (stream.openai.request).
func ChatBody(req *LlmRequest) (map[string]any, error) {
	messages := []any{}
	for _, m := range req.Messages {
		part, err := chatMessages(m)
		if err != nil {
			return nil, err
		}
		messages = append(messages, part...)
	}
	body := map[string]any{"model": req.Model, "messages": messages, "stream": true,
		"stream_options": map[string]any{"include_usage": true}}
	if len(req.Tools) > 0 {
		tools := make([]any, len(req.Tools))
		for i, t := range req.Tools {
			var params any = &Object{Values: map[string]any{}}
			if t.Parameters != nil {
				params = t.Parameters
			}
			tools[i] = map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": params}}
		}
		body["tools"] = tools
	}
	if req.MaxTokens != nil {
		body["max_tokens"] = *req.MaxTokens
	}
	if req.Temperature != nil {
		body["temperature"] = req.Temperature
	}
	return body, nil
}

// toOrdered turns a protocol value (encoding/json) into the ordered form, members in
// code-point order (the canonical order the runner sends them in).
func toOrdered(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := &Object{Values: map[string]any{}}
		for _, k := range sortedKeys(x) {
			o.Keys = append(o.Keys, k)
			o.Values[k] = toOrdered(x[k])
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = toOrdered(item)
		}
		return out
	case json.Number:
		return Number(x)
	}
	return v
}

// intValue reads a JSON integer (an integer literal, not a boolean, not a float).
func intValue(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// finiteNumber reads a JSON number that is finite.
func finiteNumber(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}
