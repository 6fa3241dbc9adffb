package agent

// Continued from kernel.go.

import (
	"fmt"
)

// Stream is ctx.stream: one durable stream event, id stream#<n>.
func (d *drive) Stream(data any) error {
	d.counters["\x00stream"]++
	id := fmt.Sprintf("stream#%d", d.counters["\x00stream"])
	if err := d.claim(id); err != nil {
		return err
	}
	if _, ok := d.recorded("stream", id, ""); ok {
		return nil
	}
	if d.rt.readOnly {
		d.stopReplay()
	}
	d.rt.append("STREAM_APPENDED", map[string]any{"streamId": id, "data": data})
	return nil
}

func (d *drive) Warn(code string) { d.rt.warn(code) }

// deciderFunc runs a decider; its scope's transient door is the runtime's.
type deciderFunc func(rt *runtime) (choice any, policy map[string]any, err error)

// scriptedDecide runs the scripted decider `name` (INTERPRETING.md section 6).
func scriptedDecide(rt *runtime, name string) (any, map[string]any, error) {
	dec, ok := rt.world.deciders[name]
	if !ok {
		return nil, nil, kfail("conformance.bad-case-file", "no decider named %q", name)
	}
	entry := nextEntry(dec.script, &dec.n)
	switch {
	case has(entry, "return"):
		return entry["return"], nil, nil
	case has(entry, "raise"):
		return nil, nil, raiseEntry(entry["raise"])
	case has(entry, "choice"):
		// the propensity null when the entry gives none (kernel.decision-record)
		policy := map[string]any{"id": entry["policy"], "propensity": entry["propensity"]}
		return entry["choice"], policy, nil
	case has(entry, "invokeTransient"):
		it, _ := entry["invokeTransient"].(map[string]any)
		out, err := rt.invoke(str(it["tool"]), it["input"], false, "", "")
		if err != nil {
			return nil, nil, err
		}
		return out, nil, nil
	}
	return nil, nil, kfail("conformance.bad-case-file", "decider %s has no usable script entry", name)
}
