package agent

// Continued from loop.go.

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// chooseSkills records #skills (agent.skills).
func (l *agentLoop) chooseSkills(q string) ([]string, error) {
	names := make([]string, 0, len(l.cfg.skills))
	for n := range l.cfg.skills {
		names = append(names, n)
	}
	sort.Strings(names)
	alts := make([]any, len(names))
	for i, n := range names {
		alts[i] = n
	}
	name := l.cfg.skillsDecider
	choice, err := l.ctx.Decide("#skills", func(rt *runtime) (any, map[string]any, error) {
		return scriptedDecide(rt, name)
	}, map[string]any{"query": q}, alts)
	if err != nil {
		return nil, err
	}
	list, ok := choice.([]any)
	unknown := kfail("agent.unknown-skill", "the skill selection is not a list of the library's names")
	if !ok {
		return nil, unknown
	}
	out := []string{}
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, unknown
		}
		if _, ok := l.cfg.skills[s]; !ok {
			return nil, kfail("agent.unknown-skill", "no skill named %q", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// recall records #recall, bounded by recall_limit (agent.recall).
func (l *agentLoop) recall(q string) ([]string, error) {
	name, limit := l.cfg.recallDecider, l.cfg.recallLimit
	choice, err := l.ctx.Decide("#recall", func(rt *runtime) (any, map[string]any, error) {
		found, policy, err := scriptedDecide(rt, name)
		if err != nil {
			return nil, nil, err
		}
		// the memory answers a value, never a decision: a Choice is not a list of strings
		list, ok := found.([]any)
		if !ok || policy != nil {
			return nil, nil, kfail("argument.invalid", "a memory search returns a list of strings")
		}
		for _, x := range list {
			if _, ok := x.(string); !ok {
				return nil, nil, kfail("argument.invalid", "a memory search returns a list of strings")
			}
		}
		if int64(len(list)) > limit {
			list = list[:limit]
		}
		return list, nil, nil
	}, map[string]any{"query": q, "recallLimit": limit}, nil)
	if err != nil {
		return nil, err
	}
	list, _ := choice.([]any)
	out := []string{}
	for _, x := range list {
		out = append(out, str(x))
	}
	return out, nil
}

// turnError translates a failed model call (agent.turn-error).
func turnError(err error, step string) error {
	ke, ok := err.(*kErr)
	if !ok {
		return err
	}
	code := ""
	switch ke.Code {
	case "effect.llm-error":
		code = "agent.turn-error"
	case "effect.llm-aborted":
		code = "agent.turn-aborted"
	default:
		return err
	}
	return &kErr{Code: code, Message: fmt.Sprintf("model call %s failed with %s: %s", step, ke.Code, ke.Message)}
}

// compact runs the compaction before turn i (agent.compaction-trigger .. summary-message).
func (l *agentLoop) compact(i int64) error {
	p := l.cfg.compaction.plan(l.sizes)
	if !p.Compact {
		return nil
	}
	step := fmt.Sprintf("#turn:%d:compact", i)
	folded := append([]any{}, l.transcript[:p.Fold]...)
	out, err := l.ctx.Execute(l.cfg.compactionTool, map[string]any{"messages": folded}, step)
	if err != nil {
		return turnError(err, step)
	}
	if isEnvelope(out) {
		return kfail("agent.claim-checked-output", "the compaction tool %s returned a claim-check envelope: take it out of claim_check_middleware(tool_ids=...) (execution.claimCheck.toolIds)", l.cfg.compactionTool)
	}
	summary, ok := out.(string)
	if !ok {
		m, isMap := out.(map[string]any)
		s, isStr := m["summary"].(string)
		if !isMap || !isStr || len(m) != 1 {
			return kfail("agent.compaction-output", "the compaction tool must return {\"summary\": str}")
		}
		summary = s
	}
	kept := l.transcript[p.Fold:]
	keptSizes := l.sizes[p.Fold:]
	l.transcript, l.sizes, l.bytes = nil, nil, 0
	l.push(MessageJSON(textMessage("user", "Summary of the earlier conversation:\n"+summary)))
	l.transcript = append(l.transcript, kept...)
	for _, s := range keptSizes {
		l.sizes = append(l.sizes, s)
		l.bytes += s
	}
	return nil
}

func (l *agentLoop) request() map[string]any {
	return map[string]any{"messages": append([]any{}, l.transcript...), "tools": l.offered, "system": l.system}
}

// modelTurn makes turn i's model call, by model_tool_id or the router, and checks the
// response (agent.turn-step, agent.router, agent.model-response).
func (l *agentLoop) modelTurn(i int64) (*Message, string, error) {
	var out any
	var err error
	if l.cfg.router == nil {
		step := fmt.Sprintf("#turn:%d", i)
		out, err = l.ctx.Execute(l.cfg.modelToolID, l.request(), step)
		if err != nil {
			return nil, "", turnError(err, step)
		}
	} else {
		out, err = l.routedTurn(i)
		if err != nil {
			return nil, "", err
		}
	}
	return checkResponse(out)
}

func (l *agentLoop) routedTurn(i int64) (any, error) {
	rc := l.cfg.router
	alts := make([]any, len(rc.routes))
	for k, r := range rc.routes {
		alts[k] = r
	}
	choice, err := l.ctx.Decide(fmt.Sprintf("#turn:%d:route", i), func(rt *runtime) (any, map[string]any, error) {
		return scriptedDecide(rt, rc.decider)
	}, map[string]any{"turn": i}, alts)
	if err != nil {
		return nil, err
	}
	route, _ := choice.(string)
	idx := -1
	for k, r := range rc.routes {
		if r == route && choice != nil {
			idx = k
		}
	}
	if idx < 0 {
		c, _ := Canonical(choice)
		return nil, kfail("agent.unknown-route", "the route %s is not one of the router's routes", c)
	}
	request := l.request()
	for k := 0; ; k++ {
		id := fmt.Sprintf("#turn:%d:call:%d", i, k)
		r := rc.routes[idx]
		msg, err := l.ctx.Decide(id, func(rt *runtime) (any, map[string]any, error) {
			out, err := rt.invoke(r, request, false, "", "")
			if err != nil {
				return nil, nil, err
			}
			return out, nil, nil
		}, map[string]any{"route": r}, nil)
		if err != nil {
			return nil, turnError(err, id)
		}
		if rc.elevate == "" || idx+1 >= len(rc.routes) {
			return msg, nil
		}
		up, err := l.ctx.Decide(fmt.Sprintf("#turn:%d:elevate:%d", i, k), func(rt *runtime) (any, map[string]any, error) {
			v, policy, err := scriptedDecide(rt, rc.elevate)
			if err != nil {
				return nil, nil, err
			}
			if policy != nil {
				return v, policy, nil // a Choice is recorded as it is
			}
			return truthy(v), nil, nil
		}, map[string]any{"route": r}, []any{false, true})
		if err != nil {
			return nil, err
		}
		if up != true {
			return msg, nil
		}
		idx++
	}
}

// checkResponse reads a model step's (or a routed turn's) recorded message
// (agent.model-response, agent.claim-check-not-model).
func checkResponse(out any) (*Message, string, error) {
	if isEnvelope(out) {
		return nil, "", kfail("agent.claim-checked-output", "the model returned a claim-check envelope: take its tool out of claim_check_middleware(tool_ids=...) (execution.claimCheck.toolIds)")
	}
	bad := func(why string) error { return kfail("agent.model-response", "the model response %s", why) }
	m, ok := out.(map[string]any)
	if !ok {
		return nil, "", bad("is not a message")
	}
	fin := ""
	rest := map[string]any{}
	for k, v := range m {
		rest[k] = v
	}
	if f, present := m["finish"]; present {
		r, err := decodeReason(f, "$.finish")
		if err != nil {
			return nil, "", bad("has a finish that does not decode")
		}
		if r.Kind == "error" || r.Kind == "aborted" {
			return nil, "", bad("is a failed stream (finish " + r.Kind + ")")
		}
		fin = r.Kind
		delete(rest, "finish")
	}
	msg, err := DecodeMessage(rest, "$")
	if err != nil {
		return nil, "", bad("does not decode: " + err.Error())
	}
	if msg.Role != "assistant" {
		return nil, "", bad("is not an assistant message")
	}
	return msg, fin, nil
}

// streamText appends the turn's text to the durable stream in chunk_deltas batches
// (agent.stream-text).
func (l *agentLoop) streamText(i int64, msg *Message) error {
	var batches []string
	c := ChunkDeltas(func(b string) { batches = append(batches, b) }, int(l.cfg.streamMinChars))
	c.Push(messageText(msg, ""))
	c.Flush()
	for _, b := range batches {
		if err := l.ctx.Stream(map[string]any{"turn": i, "text": b}); err != nil {
			return err
		}
	}
	return nil
}

func toolResultBlock(callID, content string, isError bool) map[string]any {
	return BlockJSON(Block{Type: "tool-result", CallID: callID, Content: content, IsError: isError})
}

func errorResult(call Block, code, message string) map[string]any {
	n, _ := Canonical(call.Name)
	e, _ := Canonical(map[string]any{"code": code, "message": message})
	return toolResultBlock(call.ID, `{"tool":`+n+`,"error":`+e+`}`, true)
}

// parseArguments reads a tool call's raw arguments (agent.tool-spec, agent.tool-error).
func parseArguments(raw any) (map[string]any, string) {
	s, ok := raw.(string)
	if !ok {
		return nil, "arguments must be a JSON object"
	}
	if strings.TrimFunc(s, isPySpace) == "" {
		return map[string]any{}, ""
	}
	v, err := decodeJSONStrict(s)
	if err != nil || hasLoneSurrogateEscape(s) {
		return nil, "arguments are not valid JSON"
	}
	if !finiteNumbers(v) {
		return nil, "arguments are not valid JSON"
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "arguments must be a JSON object"
	}
	return m, ""
}

// hasLoneSurrogateEscape finds a `\uD800`-`\uDFFF` escape that is not half of a pair in a
// JSON text: Go's decoder would turn it into U+FFFD, where journal.json-values refuses it.
func hasLoneSurrogateEscape(s string) bool {
	hex4 := func(i int) (int, bool) {
		if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
		return int(n), err == nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i+1 < len(s) && s[i+1] != 'u' {
			i++ // an escape of one character (\\, \", ...)
			continue
		}
		n, ok := hex4(i)
		if !ok {
			continue
		}
		switch {
		case n >= 0xD800 && n <= 0xDBFF:
			if m, ok := hex4(i + 6); ok && m >= 0xDC00 && m <= 0xDFFF {
				i += 11
				continue
			}
			return true
		case n >= 0xDC00 && n <= 0xDFFF:
			return true
		}
		i += 5
	}
	return false
}

// decodeJSONStrict reads one JSON value with nothing but JSON whitespace around it.
func decodeJSONStrict(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var extra any
	if err := d.Decode(&extra); err == nil || err.Error() != "EOF" {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

func finiteNumbers(v any) bool {
	switch x := v.(type) {
	case json.Number:
		if isIntText(x) {
			return true
		}
		f, err := strconv.ParseFloat(string(x), 64)
		return !(err != nil && (math.IsInf(f, 0) || math.IsNaN(f)))
	case []any:
		for _, i := range x {
			if !finiteNumbers(i) {
				return false
			}
		}
	case map[string]any:
		for _, i := range x {
			if !finiteNumbers(i) {
				return false
			}
		}
	}
	return true
}

// toolCall runs tool call j of turn i (agent.tool-spec .. agent.approval-payload).
func (l *agentLoop) toolCall(i, j int64, call Block) (map[string]any, error) {
	if j >= l.cfg.maxToolCalls {
		return errorResult(call, "agent.tool-call-limit", fmt.Sprintf("more than %d tool calls in one turn; this one was not run", l.cfg.maxToolCalls)), nil
	}
	var tool *agentTool
	for k := range l.cfg.tools {
		if l.cfg.tools[k].name == call.Name {
			tool = &l.cfg.tools[k]
		}
	}
	if tool == nil {
		n, _ := Canonical(call.Name)
		return errorResult(call, "agent.unknown-tool", "there is no tool named "+n), nil
	}
	args, why := parseArguments(call.Arguments)
	if why != "" {
		return errorResult(call, "agent.tool-arguments", why), nil
	}
	step := fmt.Sprintf("#turn:%d:tool:%d", i, j)
	if l.cfg.approveAll || l.cfg.approveNames[call.Name] {
		payload, err := l.ctx.Suspend(step+":approval", "AgentToolApproval", step, l.cfg.approvalSchema)
		if err != nil {
			return nil, err
		}
		p, _ := payload.(map[string]any)
		if p == nil || p["approved"] != true {
			reason, ok := p["reason"].(string)
			if !ok || reason == "" {
				reason = "declined by the approver"
			}
			c, _ := ToolResultContent(call.Name, map[string]any{"refused": true, "reason": reason})
			return toolResultBlock(call.ID, c, false), nil
		}
	}
	out, err := l.ctx.Execute(tool.toolID, args, step)
	if err != nil {
		ke, ok := err.(*kErr)
		if !ok || !ke.Step {
			return nil, err
		}
		return errorResult(call, ke.Code, ke.Message), nil
	}
	c, cerr := ToolResultContent(call.Name, out)
	if cerr != nil {
		return nil, kfail("argument.invalid", "%v", cerr)
	}
	return toolResultBlock(call.ID, c, false), nil
}

// --- the instruction and the opaque form

// agentInstruction runs `agent_loop` (INTERPRETING.md section 5a) in a drive.
func agentInstruction(d *drive, cfgJSON map[string]any, input any, opaque bool) (any, error) {
	cfg, err := buildConfig(cfgJSON)
	if err != nil {
		return nil, err
	}
	if !opaque {
		l := &agentLoop{ctx: d, cfg: cfg}
		return l.run(input)
	}
	if err := opaqueCheck(cfg); err != nil {
		return nil, err
	}
	return d.Execute("agent_step", map[string]any{"input": input}, "")
}

// opaqueCheck refuses a config that needs the body (agent.step-opaque).
func opaqueCheck(cfg *loopConfig) *kErr {
	if cfg.hasApproval || cfg.streamMinChars > 0 {
		return kfail("argument.agent-step", "agent_step cannot take needs_approval or stream_min_chars")
	}
	return nil
}

// installAgentStep registers the agent_step effect (not idempotent) for each opaque
// instruction of the workflow: it runs the whole loop inside the call, its model and tool
// calls transient calls of the world.
func installAgentStep(w *world, wf *workflow) {
	walkBody(wf.body, func(ins map[string]any) {
		if str(ins["op"]) != "agent_loop" || ins["opaque"] != true {
			return
		}
		cfgJSON, _ := ins["config"].(map[string]any)
		w.effects["agent_step"] = &scriptedEffect{builtin: func(rt *runtime, input any) (any, *kErr) {
			// spec: agent.step-input -- the call's input is {"input": ...}, refused before
			// the loop runs otherwise
			in, ok := input.(map[string]any)
			if !ok || len(in) != 1 || !has(in, "input") {
				return nil, kfail("argument.invalid", "the agent_step input must be {input: ...}")
			}
			cfg, err := buildConfig(cfgJSON)
			if err != nil {
				return nil, err
			}
			l := &agentLoop{ctx: &opaqueCtx{rt: rt}, cfg: cfg}
			out, lerr := l.run(in["input"])
			if lerr != nil {
				ke, ok := lerr.(*kErr)
				if !ok {
					ke = kfail("", "%v", lerr)
				}
				return nil, ke
			}
			return out, nil
		}}
	})
}

// opaqueCtx is the loop's context inside agent_step: transient calls through the host, a
// decide scope that records nothing, no gate, no stream.
type opaqueCtx struct{ rt *runtime }
