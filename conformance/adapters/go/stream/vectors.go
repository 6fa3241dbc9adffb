// Package stream is a Go implementation of Loom's stream protocol (spec/stream.md): the
// chunk wire form, the contract checker, the block assembler, the consumer wrapper over a
// scripted adapter, the OpenAI-compatible and Anthropic mappings, the Anthropic request and
// app attribution, served as the conformance suite's vector functions (stream.vectors).
package stream

import (
	"encoding/json"
	"math/big"
	"sort"
	"strconv"

	"loomref/adapters/go/protocol"
)

// Functions is the chapter's vector functions (stream.vectors).
var Functions = map[string]protocol.Function{
	"stream.check":               vecCheck,
	"stream.assemble":            vecAssemble,
	"stream.decode":              vecDecode,
	"stream.enforce":             vecEnforce,
	"stream.consume":             vecConsume,
	"stream.openai_fold":         vecOpenAIFold,
	"stream.openai_map":          vecOpenAIMap,
	"stream.sse_data":            vecSseData,
	"stream.anthropic_map":       vecAnthropicMap,
	"stream.anthropic_request":   vecAnthropicRequest,
	"stream.openai_request":      vecOpenAIRequest,
	"stream.attribution_headers": vecAttributionHeaders,
	"stream.usage_billed":        vecUsageBilled,
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// inputObject reads a harness object by stream.vectors.input-order: not-an-object, then
// unknown-field (a member it does not define), then missing-field (a required one absent).
func inputObject(v any, path string, required, optional []string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, wireErr(codeNotAnObject, path)
	}
	defined := map[string]bool{}
	for _, k := range append(append([]string{}, required...), optional...) {
		defined[k] = true
	}
	for _, k := range sortedKeys(m) {
		if !defined[k] {
			return nil, wireErr(codeUnknownField, path+"."+k)
		}
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return nil, wireErr(codeMissingField, path+"."+k)
		}
	}
	return m, nil
}

// chunksInput reads {"chunks": [...]} (and, for stream.assemble, "strict"): the object, the
// chunks member, strict, unknown members, then the chunks (stream.wire.check-order, notes W10).
func chunksInput(v any, withStrict bool) ([]*Chunk, bool, error) {
	o, err := newObj(v, "$")
	if err != nil {
		return nil, false, err
	}
	cv, _, err := o.get("chunks", true)
	if err != nil {
		return nil, false, err
	}
	if _, ok := cv.([]any); !ok {
		return nil, false, wireErr(codeNotAList, "$.chunks")
	}
	strict := false
	if withStrict {
		sv, present, _ := o.get("strict", false)
		if present {
			b, ok := sv.(bool)
			if !ok {
				return nil, false, wireErr(codeFieldType, "$.strict")
			}
			strict = b
		}
	}
	if err := o.unknown(); err != nil {
		return nil, false, err
	}
	chunks, err := decodeChunks(cv, "$.chunks")
	return chunks, strict, err
}

func vecCheck(input any) (any, error) {
	chunks, _, err := chunksInput(input, false)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, v := range Check(chunks) {
		out = append(out, map[string]any{"rule": v.Rule, "index": v.Index})
	}
	return map[string]any{"violations": out}, nil
}

func vecEnforce(input any) (any, error) {
	chunks, _, err := chunksInput(input, false)
	if err != nil {
		return nil, err
	}
	yielded, v := Enforce(chunks)
	var raised any
	if v != nil {
		raised = map[string]any{"code": v.Rule, "index": v.Index}
	}
	return map[string]any{"yielded": yielded, "raised": raised}, nil
}

func vecDecode(input any) (any, error) {
	chunks, _, err := chunksInput(input, false)
	if err != nil {
		return nil, err
	}
	return map[string]any{"chunks": encodeChunks(chunks)}, nil
}

// fold feeds every chunk to an assembler and returns its result.
func fold(chunks []*Chunk, strict bool) (map[string]any, error) {
	a := NewAssembler(strict)
	for _, c := range chunks {
		if err := a.Feed(c); err != nil {
			return nil, err
		}
	}
	return a.Result()
}

func vecAssemble(input any) (any, error) {
	chunks, strict, err := chunksInput(input, true)
	if err != nil {
		return nil, err
	}
	return fold(chunks, strict)
}

// count reads a harness count: a non-negative JSON integer, else field-type (notes S5).
func count(v any, path string) (int, error) {
	n, ok := intValue(v)
	if !ok || n < 0 {
		return 0, wireErr(codeFieldType, path)
	}
	return int(n), nil
}

// optCount reads an optional count whose null is absent (raiseAfter, abortAfter).
func optCount(m map[string]any, name, path string) (*int, error) {
	v, present := m[name]
	if !present || v == nil {
		return nil, nil
	}
	n, err := count(v, path)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// vecConsume runs scripted calls through the consumer wrapper (stream.consume).
func vecConsume(input any) (any, error) {
	m, err := inputObject(input, "$", []string{"scripts"}, []string{"calls", "abortAfter"})
	if err != nil {
		return nil, err
	}
	items, ok := m["scripts"].([]any)
	if !ok || len(items) == 0 {
		return nil, wireErr(codeNotAList, "$.scripts")
	}
	scripts := make([]Script, len(items))
	for i, item := range items {
		p := "$.scripts[" + strconv.Itoa(i) + "]"
		s, err := inputObject(item, p, []string{"chunks"}, []string{"raiseAfter"})
		if err != nil {
			return nil, err
		}
		if scripts[i].Chunks, err = decodeChunks(s["chunks"], p+".chunks"); err != nil {
			return nil, err
		}
		if scripts[i].RaiseAfter, err = optCount(s, "raiseAfter", p+".raiseAfter"); err != nil {
			return nil, err
		}
	}
	calls := len(scripts)
	if v, present := m["calls"]; present {
		if calls, err = count(v, "$.calls"); err != nil {
			return nil, err
		}
	}
	abortAfter, err := optCount(m, "abortAfter", "$.abortAfter")
	if err != nil {
		return nil, err
	}
	adapter := &ScriptedAdapter{Scripts: scripts}
	out := make([]any, 0, calls)
	for n := 0; n < calls; n++ {
		signal := &Signal{aborted: abortAfter != nil && *abortAfter == 0}
		var got []*Chunk
		Consume(adapter, signal, func(c *Chunk) {
			got = append(got, c)
			if abortAfter != nil && len(got) >= *abortAfter {
				signal.aborted = true
			}
		})
		out = append(out, encodeChunks(got))
	}
	return map[string]any{"calls": out}, nil
}

// ssePieces reads the input of stream.openai_map and stream.openai_fold: sse, a string or an
// array of strings (stream.vectors.input-order, step 2).
func ssePieces(input any) ([]string, error) {
	m, err := inputObject(input, "$", []string{"sse"}, nil)
	if err != nil {
		return nil, err
	}
	var pieces []string
	switch x := m["sse"].(type) {
	case string:
		pieces = []string{x}
	case []any:
		for _, item := range x {
			s, ok := item.(string)
			if !ok {
				return nil, wireErr(codeFieldType, "$.sse")
			}
			pieces = append(pieces, s)
		}
	default:
		return nil, wireErr(codeFieldType, "$.sse")
	}
	return pieces, nil
}

func vecOpenAIMap(input any) (any, error) {
	pieces, err := ssePieces(input)
	if err != nil {
		return nil, err
	}
	chunks, err := MapOpenAI(pieces)
	if err != nil {
		return nil, err
	}
	return map[string]any{"chunks": encodeChunks(chunks)}, nil
}

// vecSseData is stream.sse_data (stream.vectors.sse-data): the body's server-sent events
// decoded as stream.openai.sse reads them, and the data of each dispatched event, in order;
// nothing reads them as JSON and [DONE] is data like any other (the reading goes on after it).
// A partial event at the end of the text is discarded.
func vecSseData(input any) (any, error) {
	pieces, err := ssePieces(input)
	if err != nil {
		return nil, err
	}
	data := []any{}
	p := &sseParser{dispatch: func(d string) (bool, error) {
		data = append(data, d)
		return false, nil
	}}
	for _, piece := range pieces {
		if err := p.feed(piece); err != nil {
			return nil, err
		}
	}
	return map[string]any{"data": data}, nil
}

// vecOpenAIFold is stream.openai_fold (stream.vectors.openai-fold): the mapping behind the
// consumer wrapper (a raise becomes a terminal finish error with the raised code), folded by
// the tolerant assembler; its result is stream.assemble's without the interrupted blocks.
func vecOpenAIFold(input any) (any, error) {
	pieces, err := ssePieces(input)
	if err != nil {
		return nil, err
	}
	chunks, err := MapOpenAI(pieces)
	if err != nil {
		code, msg := "stream.adapter-raised", err.Error()
		if pe, ok := err.(*protocol.Error); ok {
			code, msg = pe.Code, "the provider's stream failed: "+pe.Code
		}
		chunks = append(chunks, &Chunk{Type: "finish", Reason: failed("error", code, msg)})
	}
	var taken []*Chunk
	for _, c := range chunks {
		taken = append(taken, c)
		if c.Type == "finish" {
			break // nothing is read after the adapter's own finish
		}
	}
	if len(taken) == 0 || taken[len(taken)-1].Type != "finish" {
		taken = append(taken, &Chunk{Type: "finish", Reason: failed("error", "stream.missing-finish", "the stream ended without a finish")})
	}
	r, err := fold(taken, false)
	if err != nil {
		return nil, err
	}
	return map[string]any{"message": r["message"], "finish": r["finish"], "usage": r["usage"]}, nil
}

func vecAnthropicMap(input any) (any, error) {
	m, err := inputObject(input, "$", []string{"sse"}, []string{"cuts"})
	if err != nil {
		return nil, err
	}
	sse, ok := m["sse"].(string)
	if !ok {
		return nil, wireErr(codeFieldType, "$.sse")
	}
	// A lone surrogate would be bad-value here, but encoding/json has already read it as
	// U+FFFD (notes N8): this implementation does not declare text.lone-surrogates.
	body := []byte(sse)
	var cuts []int
	if cv, present := m["cuts"]; present {
		items, ok := cv.([]any)
		if !ok {
			return nil, wireErr(codeNotAList, "$.cuts")
		}
		last := 0
		for i, item := range items {
			p := "$.cuts[" + strconv.Itoa(i) + "]"
			num, isNum := item.(json.Number)
			if !isNum || !isIntLiteral(Number(num)) {
				return nil, wireErr(codeFieldType, p) // true and 2.0 included (notes N7)
			}
			n, ok := intValue(item)
			if !ok {
				return nil, wireErr(codeBadValue, p) // an integer beyond int64
			}
			if n <= int64(last) || n >= int64(len(body)) {
				return nil, wireErr(codeBadValue, p)
			}
			last = int(n)
			cuts = append(cuts, last)
		}
	}
	var pieces [][]byte
	start := 0
	for _, c := range cuts {
		pieces = append(pieces, body[start:c])
		start = c
	}
	pieces = append(pieces, body[start:])
	chunks, err := MapAnthropic(pieces)
	if err != nil {
		return nil, err
	}
	result, err := fold(chunks, false)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"chunks":  encodeChunks(chunks),
		"message": result["message"],
		"finish":  result["finish"],
		"usage":   result["usage"],
	}, nil
}

func vecAttributionHeaders(input any) (any, error) {
	m, err := inputObject(input, "$", []string{"identity"}, nil)
	if err != nil {
		return nil, err
	}
	id, err := readIdentity(m["identity"], "$.identity")
	if err != nil {
		return nil, err
	}
	return map[string]any{"headers": AttributionHeaders(id)}, nil
}

// readIdentity reads an identity as an input object, then judges its values (AppIdentity).
func readIdentity(v any, path string) (*AppIdentity, error) {
	m, err := inputObject(v, path, []string{"product", "version", "url"}, nil)
	if err != nil {
		return nil, err
	}
	return NewAppIdentity(m["product"], m["version"], m["url"])
}

func vecUsageBilled(input any) (any, error) {
	m, err := inputObject(input, "$", []string{"usage"}, nil)
	if err != nil {
		return nil, err
	}
	u, err := decodeUsage(m["usage"], "$.usage")
	if err != nil {
		return nil, err
	}
	billedIn := new(big.Int).Set(u.Input)
	for _, z := range []*big.Int{u.CacheRead, u.CacheWrite} {
		if z != nil {
			billedIn.Add(billedIn, z)
		}
	}
	return map[string]any{
		"billedInputTokens":  json.Number(billedIn.String()),
		"billedOutputTokens": json.Number(u.Output.String()),
	}, nil
}
