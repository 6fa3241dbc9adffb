package agent

// Continued from loop.go.

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
