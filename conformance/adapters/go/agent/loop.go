package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The agent loop (spec/agent.md 6.1-6.12) over an execution context: the durable form over
// the kernel's drive (one step per turn and per tool call), the opaque form (agent_step)
// over transient calls.

// loopCtx is what the loop reaches: ctx.execute / decide / suspend / stream, and a warning.
type loopCtx interface {
	Execute(tool string, input any, stepID string) (any, error)
	Decide(id string, decider deciderFunc, context, alternatives any) (any, error)
	Suspend(gate, on, correlationKey string, schema any) (any, error)
	Stream(data any) error
	Warn(code string)
}

// MaxTokensNotice is the user message after a turn cut at the output-token ceiling
// (agent.max-tokens-turn), word for word.
const MaxTokensNotice = "Your previous reply reached the output-token limit and was cut off, so none of its tool calls was run. Continue from where it stopped, in shorter steps, and make again any tool call you still need."

type agentTool struct {
	name, toolID, description string
	parameters                map[string]any
}

type routerConfig struct {
	routes  []string
	decider string
	elevate string // "" = none
}

type loopConfig struct {
	modelToolID    string
	router         *routerConfig
	system         string
	tools          []agentTool
	maxIterations  int64
	maxToolCalls   int64
	approveAll     bool
	approveNames   map[string]bool
	approvalSchema any
	compaction     *Compaction
	compactionTool string
	warnBytes      int64 // 0: disabled
	skills         map[string]string
	skillsDecider  string
	hasSkills      bool
	recallDecider  string
	recallLimit    int64
	hasRecall      bool
	streamMinChars int64
	hasApproval    bool
}

// intAtLeast1 reads an int >= 1 (`true` is not an int; agent.config-guard).
func intAtLeast1(v any) (int64, bool) {
	i, ok := asInt(v)
	return i, ok && i >= 1
}

// buildConfig checks the config as it is built (agent.config-guard, agent.model-access,
// agent.compaction-guard), from the JSON members of INTERPRETING.md section 5a.
func buildConfig(m map[string]any) (*loopConfig, *kErr) {
	c := &loopConfig{maxIterations: 25, maxToolCalls: 16, warnBytes: 262144}
	bad := func(format string, a ...any) *kErr { return kfail("argument.invalid", format, a...) }
	// Model access (agent.model-access): exactly one of modelToolId and router.
	mt, hasModel := m["modelToolId"]
	rv, hasRouter := m["router"]
	if hasModel && mt == nil {
		hasModel = false
	}
	if hasRouter && rv == nil {
		hasRouter = false
	}
	if hasModel == hasRouter {
		return nil, kfail("argument.agent-model-access", "a config needs exactly one of model_tool_id and router")
	}
	if hasModel {
		s, ok := mt.(string)
		if !ok || s == "" {
			return nil, kfail("argument.agent-model-access", "model_tool_id must be a non-empty string")
		}
		c.modelToolID = s
	} else {
		r, ok := rv.(map[string]any)
		if !ok {
			return nil, bad("router is not an object")
		}
		routes, ok := r["routes"].([]any)
		if !ok || len(routes) == 0 {
			return nil, bad("a router's routes are a non-empty list")
		}
		rc := &routerConfig{}
		seen := map[string]bool{}
		for _, x := range routes {
			s, ok := x.(string)
			if !ok || s == "" || seen[s] {
				return nil, bad("a router's routes are distinct non-empty strings")
			}
			seen[s] = true
			rc.routes = append(rc.routes, s)
		}
		rc.decider = str(r["decider"])
		if e, ok := r["elevate"].(string); ok {
			rc.elevate = e
		}
		c.router = rc
	}
	if v, ok := m["system"]; ok {
		s, ok := v.(string)
		if !ok {
			return nil, bad("system is not a string")
		}
		c.system = s
	}
	for _, k := range []string{"maxIterations", "maxToolCallsPerTurn", "streamMinChars"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		i, ok := intAtLeast1(v)
		if !ok {
			return nil, bad("%s is not an int >= 1", k)
		}
		switch k {
		case "maxIterations":
			c.maxIterations = i
		case "maxToolCallsPerTurn":
			c.maxToolCalls = i
		default:
			c.streamMinChars = i
		}
	}
	if v, ok := m["warnTranscriptBytes"]; ok {
		if b, isBool := v.(bool); isBool && !b {
			c.warnBytes = 0
		} else if i, ok := intAtLeast1(v); ok {
			c.warnBytes = i
		} else {
			return nil, bad("warnTranscriptBytes is an int >= 1 or false")
		}
	}
	if v, ok := m["tools"]; ok {
		list, ok := v.([]any)
		if !ok {
			return nil, bad("tools is not a list")
		}
		names := map[string]bool{}
		for _, t := range list {
			tm, ok := t.(map[string]any)
			if !ok {
				return nil, bad("a tool is not an object")
			}
			name, ok := tm["name"].(string)
			if !ok || name == "" || names[name] {
				return nil, bad("tool names are distinct non-empty strings")
			}
			names[name] = true
			tool := agentTool{name: name, toolID: name, parameters: map[string]any{}}
			if id, present := tm["toolId"]; present {
				s, ok := id.(string)
				if !ok || s == "" {
					return nil, bad("a tool id is a non-empty string")
				}
				tool.toolID = s
			}
			if d, present := tm["description"]; present {
				s, ok := d.(string)
				if !ok {
					return nil, bad("a tool description is a string")
				}
				tool.description = s
			}
			if p, present := tm["parameters"]; present {
				pm, ok := p.(map[string]any)
				if !ok {
					return nil, bad("a tool's parameters are an object")
				}
				tool.parameters = pm
			}
			c.tools = append(c.tools, tool)
		}
	}
	if v, ok := m["needsApproval"]; ok && v != nil {
		switch x := v.(type) {
		case bool:
			c.approveAll, c.hasApproval = x, x
		case []any:
			c.approveNames, c.hasApproval = map[string]bool{}, true
			for _, n := range x {
				c.approveNames[str(n)] = true
			}
		default:
			return nil, bad("needsApproval is true or a list of tool names")
		}
	}
	if v, ok := m["approvalResumeSchema"]; ok && v != nil {
		if err := checkSchema(v); err != nil {
			return nil, err
		}
		c.approvalSchema = v
	}
	if v, ok := m["skills"]; ok && v != nil {
		sm, _ := v.(map[string]any)
		lib, ok := sm["library"].(map[string]any)
		if !ok {
			return nil, bad("a skills library is a map of names to strings")
		}
		c.skills = map[string]string{}
		for name, instr := range lib {
			s, ok := instr.(string)
			if name == "" || !ok {
				return nil, bad("a skills library is a map of non-empty names to strings")
			}
			c.skills[name] = s
		}
		c.skillsDecider, c.hasSkills = str(sm["decider"]), true
	}
	if v, ok := m["recall"]; ok && v != nil {
		rm, _ := v.(map[string]any)
		c.recallDecider, c.recallLimit, c.hasRecall = str(rm["decider"]), 5, true
		if l, present := rm["recallLimit"]; present {
			i, ok := intAtLeast1(l)
			if !ok {
				return nil, bad("recall_limit is an int >= 1")
			}
			c.recallLimit = i
		}
	}
	if v, ok := m["compaction"]; ok && v != nil {
		cm, ok := v.(map[string]any)
		if !ok {
			return nil, kfail("argument.agent-compaction", "compaction is not an object")
		}
		tool, ok := cm["toolId"].(string)
		if !ok || tool == "" {
			return nil, kfail("argument.agent-compaction", "compaction needs a tool id")
		}
		keep, hasKeep := cm["keepRecent"]
		if !hasKeep {
			// loom-ref's choice: 8, lowered to after_messages - 1 when that is smaller.
			k := int64(8)
			if am, ok := asInt(cm["afterMessages"]); ok && am-1 < k {
				k = am - 1
			}
			keep = json.Number(strconv.FormatInt(k, 10))
		}
		comp, err := newCompaction(cm["afterMessages"], cm["afterBytes"], keep)
		if err != nil {
			return nil, &kErr{Code: err.Code, Message: str(err.Details["message"])}
		}
		c.compaction, c.compactionTool = comp, tool
	}
	return c, nil
}

// loopInput reads the loop's input (agent.loop-input): a prompt string, or {"messages":
// [wire messages]} with at least one message.
func loopInput(input any) ([]any, *kErr) {
	bad := kfail("argument.agent-input", "the input must be a prompt string or {\"messages\": [...]} with a message")
	switch x := input.(type) {
	case string:
		return []any{MessageJSON(textMessage("user", x))}, nil
	case map[string]any:
		if len(x) != 1 {
			return nil, bad
		}
		msgs, err := DecodeMessages(x["messages"], "$.messages")
		if err != nil || len(msgs) == 0 {
			return nil, bad
		}
		out := []any{}
		for _, m := range msgs {
			out = append(out, MessageJSON(m))
		}
		return out, nil
	}
	return nil, bad
}

// truthy is JSON truthiness: false, null, 0, "", [] and {} are false.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return err != nil || f != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

func isEnvelope(v any) bool {
	m, ok := v.(map[string]any)
	return ok && m["__loomClaimCheck"] == true
}

// agentLoop is agent_loop(ctx, config, input) (agent.loop-body).
type agentLoop struct {
	ctx        loopCtx
	cfg        *loopConfig
	transcript []any
	sizes      []int64
	bytes      int64
	warned     bool
	system     string
	offered    []any
	turns      int64
}

func (l *agentLoop) push(m map[string]any) {
	c, _ := Canonical(m)
	l.transcript = append(l.transcript, m)
	l.sizes = append(l.sizes, int64(len(c)))
	l.bytes += int64(len(c))
	l.checkWarn()
}

// checkWarn warns once per drive when, with no compaction, the byte count first exceeds
// warn_transcript_bytes (agent.warn-transcript).
func (l *agentLoop) checkWarn() {
	if l.cfg.compaction == nil && l.cfg.warnBytes > 0 && !l.warned && l.bytes > l.cfg.warnBytes {
		l.warned = true
		l.ctx.Warn("agent.transcript-bytes")
	}
}

func messageText(m *Message, sep string) string {
	parts := []string{}
	for _, b := range m.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, sep)
}

// query is the text of the input's newest user message, text blocks joined by a newline
// (agent.recall).
func query(transcript []any) string {
	for i := len(transcript) - 1; i >= 0; i-- {
		m, err := DecodeMessage(transcript[i], "$")
		if err == nil && m.Role == "user" {
			return messageText(m, "\n")
		}
	}
	return ""
}

func (l *agentLoop) run(input any) (any, error) {
	msgs, err := loopInput(input)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		l.push(m.(map[string]any))
	}
	q := query(l.transcript)
	if s, ok := input.(string); ok {
		q = s
	}
	parts := []string{}
	if l.cfg.system != "" {
		parts = append(parts, l.cfg.system)
	}
	if l.cfg.hasSkills {
		chosen, err := l.chooseSkills(q)
		if err != nil {
			return nil, err
		}
		if len(chosen) > 0 {
			parts = append(parts, "## Skills")
			for _, name := range chosen {
				parts = append(parts, "### "+name+"\n"+l.cfg.skills[name])
			}
		}
	}
	if l.cfg.hasRecall {
		items, err := l.recall(q)
		if err != nil {
			return nil, err
		}
		if len(items) > 0 {
			lines := []string{"## Relevant memory"}
			for _, it := range items {
				lines = append(lines, "- "+it)
			}
			parts = append(parts, strings.Join(lines, "\n"))
		}
	}
	l.system = strings.Join(parts, "\n\n")
	l.offered = []any{}
	for _, t := range l.cfg.tools {
		l.offered = append(l.offered, map[string]any{"name": t.name, "description": t.description, "parameters": t.parameters})
	}
	for i := int64(0); ; i++ {
		if i >= l.cfg.maxIterations {
			return nil, kfail("agent.max-iterations", "the agent needed more than max_iterations=%d model calls", l.cfg.maxIterations)
		}
		if l.cfg.compaction != nil {
			if err := l.compact(i); err != nil {
				return nil, err
			}
		}
		msg, fin, err := l.modelTurn(i)
		if err != nil {
			return nil, err
		}
		l.turns++
		if l.cfg.streamMinChars > 0 {
			if err := l.streamText(i, msg); err != nil {
				return nil, err
			}
		}
		if fin == "max-tokens" {
			kept := &Message{Role: msg.Role, Content: []Block{}}
			for _, b := range msg.Content {
				if b.Type != "tool-call" {
					kept.Content = append(kept.Content, b)
				}
			}
			if len(kept.Content) > 0 {
				l.push(MessageJSON(kept))
			}
			l.push(MessageJSON(textMessage("user", MaxTokensNotice)))
			continue
		}
		var calls []Block
		for _, b := range msg.Content {
			if b.Type == "tool-call" {
				calls = append(calls, b)
			}
		}
		if len(calls) == 0 {
			return map[string]any{"text": messageText(msg, ""), "message": MessageJSON(msg), "turns": l.turns}, nil
		}
		l.push(MessageJSON(msg))
		results := []any{}
		for j, call := range calls {
			res, err := l.toolCall(i, int64(j), call)
			if err != nil {
				return nil, err
			}
			results = append(results, res)
		}
		l.push(map[string]any{"role": "tool", "content": results})
	}
}

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
		found, _, err := scriptedDecide(rt, name)
		if err != nil {
			return nil, nil, err
		}
		list, ok := found.([]any)
		if !ok {
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
	for _, item := range wf.body {
		ins, _ := item.(map[string]any)
		if str(ins["op"]) != "agent_loop" || ins["opaque"] != true {
			continue
		}
		cfgJSON, _ := ins["config"].(map[string]any)
		w.effects["agent_step"] = &scriptedEffect{builtin: func(rt *runtime, input any) (any, *kErr) {
			cfg, err := buildConfig(cfgJSON)
			if err != nil {
				return nil, err
			}
			in, _ := input.(map[string]any)
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
	}
}

// opaqueCtx is the loop's context inside agent_step: transient calls through the host, a
// decide scope that records nothing, no gate, no stream.
type opaqueCtx struct{ rt *runtime }

func (o *opaqueCtx) Execute(tool string, input any, stepID string) (any, error) {
	out, err := o.rt.invoke(tool, input, false, "", "")
	if err != nil {
		return nil, stepFailure(err)
	}
	return out, nil
}

func (o *opaqueCtx) Decide(id string, decider deciderFunc, context, alternatives any) (any, error) {
	o.rt.trace = append(o.rt.trace, map[string]any{"decider": map[string]any{"decisionId": id}})
	choice, _, err := decider(o.rt)
	return choice, err
}

func (o *opaqueCtx) Suspend(gate, on, correlationKey string, schema any) (any, error) {
	return nil, kfail("argument.agent-step", "no gate can park inside agent_step")
}

func (o *opaqueCtx) Stream(data any) error {
	return kfail("argument.agent-step", "nothing reaches the durable stream from agent_step")
}

func (o *opaqueCtx) Warn(code string) { o.rt.warn(code) }
