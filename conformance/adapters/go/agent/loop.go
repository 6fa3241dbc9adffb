package agent

import (
	"encoding/json"
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
		// the message enters the transcript in every turn, the answer's too, and is counted
		// (agent.model-response, agent.warn-transcript)
		l.push(MessageJSON(msg))
		if len(calls) == 0 {
			return map[string]any{"text": messageText(msg, ""), "message": MessageJSON(msg), "turns": l.turns}, nil
		}
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
