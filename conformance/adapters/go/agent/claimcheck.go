package agent

import "loomref/adapters/go/protocol"

// ContentStore is a content-addressed store (agent.claim-check-ref): the reference of bytes
// is "sha256:" + hex(sha256(bytes)).
type ContentStore map[string]string

// Put stores canonical bytes and returns their reference.
func (s ContentStore) Put(data string) string {
	ref := contentRef(data)
	s[ref] = data
	return ref
}

// claimCheck stores a result (tainted values in their vector encoding) and returns the
// envelope (agent.claim-check-envelope, agent.claim-check-taint) and the stored text.
func claimCheck(store ContentStore, result any, preview bool) (map[string]any, string, error) {
	stored, err := Canonical(result)
	if err != nil {
		return nil, "", err
	}
	ref := store.Put(stored)
	env := map[string]any{"__loomClaimCheck": true, "ref": ref}
	if origins := taintOrigins(result); len(origins) > 0 {
		// "never for tainted content": no digest of any kind.
		list := make([]any, len(origins))
		for i, o := range origins {
			list[i] = o
		}
		env["tainted"] = true
		env["origins"] = list
		return env, stored, nil
	}
	if preview {
		r := []rune(stored)
		digest := map[string]any{"truncated": len(r) > 256}
		if len(r) > 256 {
			r = r[:256]
		}
		digest["preview"] = string(r)
		env["digest"] = digest
	}
	return env, stored, nil
}

// resolveClaimCheck gives the stored value back (tainted values decoded). Only an envelope
// is resolved: `"__loomClaimCheck": true` and a string `ref`, else argument.invalid; an
// unknown reference is agent.content-not-found.
func resolveClaimCheck(store ContentStore, envelope any) (any, error) {
	m, ok := envelope.(map[string]any)
	if !ok || m["__loomClaimCheck"] != true {
		return nil, invalid("not a claim-check envelope")
	}
	ref, ok := m["ref"].(string)
	if !ok {
		return nil, invalid("the envelope's ref is not a string")
	}
	data, ok := store[ref]
	if !ok {
		return nil, protocol.Fail("agent.content-not-found", "message", "no content for "+ref)
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	d, perr := decodeTainted(v)
	if perr != nil {
		return nil, perr
	}
	return d, nil
}
