package kernel

// Continued from driver.go.

import (
	"fmt"
)

func (d *driver) runDecider(decider Decider) (Decision, error) {
	scope := &DecideScope{host: d.rt.Host, executionID: d.id}
	dec, err := decider(scope)
	scope.closed = true
	if err != nil {
		if _, ok := err.(*halt); ok {
			return dec, err
		}
		if _, ok := err.(*Error); !ok {
			err = Uncoded(err.Error())
		}
		return dec, err
	}
	if jerr := checkJSON(dec.Choice); jerr != nil {
		return dec, NewError("journal.bad-payload", "the choice is not a JSON value: "+jerr.Error())
	}
	return dec, nil
}

// SuspendOptions are a gate's metadata and its own resume schema (kernel.resume-schema).
type SuspendOptions struct {
	On             any
	CorrelationKey any
	ResumeSchema   any
	HasSchema      bool
}

// Suspend is ctx.suspend: the body parks on a gate until a resume delivers its payload.
func (c *Context) Suspend(gate string, opts SuspendOptions) (any, error) {
	d := c.d
	if gate == "" {
		return nil, badID("a gate id")
	}
	if opts.HasSchema {
		if _, err := CompileSchema(opts.ResumeSchema); err != nil {
			return nil, err
		}
	}
	if err := d.use(gate); err != nil {
		return nil, err
	}
	actual := map[string]any{"command": "suspend", "id": gate, "toolId": nil}
	if d.cursor < len(d.records) {
		r := d.records[d.cursor]
		if r.command != "suspend" || r.id != gate {
			return nil, d.refusedOrDiverge("EXECUTION_SUSPENDED", gatePayload(gate, opts), expectedOf(r), actual)
		}
		d.cursor++
		// A received resume is served; a writing drive only runs once EXECUTION_RESUMED
		// is journaled, a read-only replay serves it as it stands (notes A24).
		if r.resumed || r.received && d.w == nil {
			d.served = append(d.served, gate)
			return roundTrip(r.payload)
		}
		if d.w == nil {
			return nil, &halt{kind: haltEnd, result: &Result{Status: "suspended", WaitingOn: gate}}
		}
		return nil, &halt{kind: haltPark, result: &Result{Status: "suspended", WaitingOn: gate}}
	}
	if d.terminal != nil {
		return nil, d.refusedOrDiverge("EXECUTION_SUSPENDED", gatePayload(gate, opts), d.expectedAt(), actual)
	}
	if d.w == nil {
		return nil, running()
	}
	if err := d.append("EXECUTION_SUSPENDED", gatePayload(gate, opts)); err != nil {
		return nil, err
	}
	d.ran = append(d.ran, gate)
	return nil, &halt{kind: haltPark, result: &Result{Status: "suspended", WaitingOn: gate}}
}

// Stream is ctx.stream: one durable stream event, id `stream#<n>`.
func (c *Context) Stream(data any) error {
	d := c.d
	d.streams++
	id := fmt.Sprintf("stream#%d", d.streams)
	if err := d.use(id); err != nil {
		return err
	}
	actual := map[string]any{"command": "stream", "id": id, "toolId": nil}
	if d.cursor < len(d.records) {
		r := d.records[d.cursor]
		if r.command != "stream" || r.id != id {
			return d.refusedOrDiverge("STREAM_APPENDED", map[string]any{"streamId": id, "data": data}, expectedOf(r), actual)
		}
		d.cursor++
		d.served = append(d.served, id)
		return nil
	}
	if d.terminal != nil {
		return d.refusedOrDiverge("STREAM_APPENDED", map[string]any{"streamId": id, "data": data}, d.expectedAt(), actual)
	}
	if d.w == nil {
		return running()
	}
	if err := checkJSON(data); err != nil {
		return NewError("argument.invalid", "stream data is not a JSON value: "+err.Error())
	}
	if err := d.append("STREAM_APPENDED", map[string]any{"streamId": id, "data": data}); err != nil {
		return err
	}
	d.ran = append(d.ran, id)
	return nil
}

// Yield is a body yielding something that is no command (kernel.commands): argument.command
// is raised into the body, and nothing is journaled or called.
func (c *Context) Yield(v any) error {
	return NewError("argument.command", fmt.Sprintf("a body yielded %v, which is no command", v))
}

// IsHalt says whether an error stops the drive rather than being the body's own (a body's
// try/catch must let it pass).
func IsHalt(err error) bool {
	_, ok := err.(*halt)
	return ok
}

// sameEnd says whether a body that returned out (or raised berr) ended as the journaled
// EXECUTION_COMPLETED / EXECUTION_FAILED says.
func sameEnd(terminal *Event, out any, berr error) bool {
	if terminal.Kind == "EXECUTION_COMPLETED" {
		if berr != nil {
			return false
		}
		o, err := roundTrip(out)
		return err == nil && jsonEqual(o, terminal.Payload["output"])
	}
	if berr == nil {
		return false
	}
	ej := journalForm(berr, "kernel.body-error")
	je, _ := terminal.Payload["error"].(map[string]any)
	return je != nil && jsonEqual(ej["code"], je["code"]) && jsonEqual(ej["message"], je["message"])
}

// gatePayload is a gate's EXECUTION_SUSPENDED (kernel.gate-record).
func gatePayload(gate string, opts SuspendOptions) map[string]any {
	payload := map[string]any{"gateId": gate, "on": opts.On, "correlationKey": opts.CorrelationKey}
	if opts.HasSchema {
		payload["resumeSchema"] = opts.ResumeSchema
	}
	return payload
}
