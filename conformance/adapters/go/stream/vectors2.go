package stream

// Continued from vectors.go.

import (
	"strconv"
)

// vecAnthropicRequest returns what the Anthropic adapter sends (stream.anthropic_request),
// reading its input in the order of stream.vectors.input-order, step 3.
func vecAnthropicRequest(input any) (any, error) {
	m, err := inputObject(input, "$", []string{"request", "apiKey", "identity"}, []string{"defaultMaxTokens", "version"})
	if err != nil {
		return nil, err
	}
	req, err := readRequest(m["request"])
	if err != nil {
		return nil, err
	}
	id, err := readIdentity(m["identity"], "$.identity")
	if err != nil {
		return nil, err
	}
	adapter := &AnthropicAdapter{Identity: id, Version: "2023-06-01", DefaultMaxTokens: 4096}
	key, ok := m["apiKey"].(string)
	if !ok || key == "" || !printableASCII(key) {
		return nil, invalid("apiKey must be a non-empty printable ASCII string")
	}
	adapter.APIKey = key
	if vv, present := m["version"]; present {
		v, ok := vv.(string)
		if !ok || v == "" || !printableASCII(v) {
			return nil, invalid("version must be a non-empty printable ASCII string")
		}
		adapter.Version = v
	}
	if dv, present := m["defaultMaxTokens"]; present {
		n, ok := intValue(dv)
		if !ok || n < 1 {
			return nil, invalid("defaultMaxTokens must be an integer of at least 1")
		}
		adapter.DefaultMaxTokens = n
	}
	body, err := adapter.Body(req)
	if err != nil {
		return nil, err
	}
	// Last in the input order: a request's maxTokens below 1 (the least the API takes).
	if req.MaxTokens != nil && *req.MaxTokens < 1 {
		return nil, invalid("maxTokens must be at least 1")
	}
	return map[string]any{"method": "POST", "path": "/v1/messages", "headers": adapter.Headers(), "body": body}, nil
}

// vecOpenAIRequest returns the body the OpenAI-compatible adapter posts
// (stream.openai_request): the input holds the request alone, read as above.
func vecOpenAIRequest(input any) (any, error) {
	m, err := inputObject(input, "$", []string{"request"}, nil)
	if err != nil {
		return nil, err
	}
	req, err := readRequest(m["request"])
	if err != nil {
		return nil, err
	}
	body, err := ChatBody(req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"body": body}, nil
}

// readRequest reads the request member of stream.anthropic_request and stream.openai_request
// (stream.vectors.input-order, step 3): its members, messages and tools, then its values.
func readRequest(value any) (*LlmRequest, error) {
	rm, err := inputObject(value, "$.request", []string{"model", "messages"}, []string{"tools", "maxTokens", "temperature"})
	if err != nil {
		return nil, err
	}
	items, ok := rm["messages"].([]any)
	if !ok {
		return nil, wireErr(codeNotAList, "$.request.messages")
	}
	req := &LlmRequest{}
	for i, item := range items {
		msg, err := decodeMessage(item, "$.request.messages["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		req.Messages = append(req.Messages, msg)
	}
	var toolMaps []map[string]any
	if tv, present := rm["tools"]; present {
		tools, ok := tv.([]any)
		if !ok {
			return nil, wireErr(codeNotAList, "$.request.tools")
		}
		for i, t := range tools {
			tm, err := inputObject(t, "$.request.tools["+strconv.Itoa(i)+"]", []string{"name"}, []string{"description", "parameters"})
			if err != nil {
				return nil, err
			}
			toolMaps = append(toolMaps, tm)
		}
	}
	// The values, judged as LlmRequest and ToolSpec judge them (notes R1).
	model, ok := rm["model"].(string)
	if !ok || model == "" {
		return nil, invalid("model must be a non-empty string")
	}
	req.Model = model
	for _, tm := range toolMaps {
		name, ok := tm["name"].(string)
		if !ok || name == "" {
			return nil, invalid("a tool's name must be a non-empty string")
		}
		spec := ToolSpec{Name: name}
		if dv, present := tm["description"]; present {
			if spec.Description, ok = dv.(string); !ok {
				return nil, invalid("a tool's description must be a string")
			}
		}
		if pv, present := tm["parameters"]; present {
			o, isObj := toOrdered(pv).(*Object)
			if !isObj {
				return nil, invalid("a tool's parameters must be an object")
			}
			spec.Parameters = o
		}
		req.Tools = append(req.Tools, spec)
	}
	// maxTokens and temperature of null are absent (stream.vectors.input-order, step 3).
	if mv, present := rm["maxTokens"]; present && mv != nil {
		n, ok := intValue(mv) // any integer: the reference's reading (notes R1)
		if !ok {
			return nil, invalid("maxTokens must be an integer")
		}
		req.MaxTokens = &n
	}
	if tv, present := rm["temperature"]; present && tv != nil {
		if !finiteNumber(tv) {
			return nil, invalid("temperature must be a finite number")
		}
		req.Temperature = tv
	}
	return req, nil
}
