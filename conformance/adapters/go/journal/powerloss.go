package journal

import "strings"

// Bytes cross the protocol as text with one character per byte (journal.power-loss).

// textToBytes reads input text, which is ASCII (journal.power-loss: "input text is ASCII").
func textToBytes(s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] > 0x7F {
			return nil, false
		}
	}
	return []byte(s), true
}

func bytesToText(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

func imagesOut(d *Disk, tell func([]byte) any) []any {
	out := []any{}
	for _, im := range d.Images() {
		files := map[string]any{}
		for p, b := range im.Files {
			files[p] = tell(b)
		}
		out = append(out, map[string]any{"variant": im.Variant, "files": files})
	}
	return out
}

// powerLoss is the conformance function journal.power-loss: operations on a fresh simulated
// disk (or one booted from an image), one answer each, and the images of a power loss right
// after the last one.
func powerLoss(input map[string]any) (any, error) {
	dirs := []string{"/disk"}
	if v, present := input["directories"]; present {
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return nil, invalid("directories must be a non-empty list of absolute paths")
		}
		dirs = nil
		for _, x := range list {
			s, ok := x.(string)
			if !ok || !strings.HasPrefix(s, "/") {
				return nil, invalid("directories must be a non-empty list of absolute paths")
			}
			dirs = append(dirs, s)
		}
	}
	image := map[string][]byte{}
	if v, present := input["image"]; present && v != nil {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, invalid("image must be an object of texts")
		}
		for p, x := range obj {
			s, ok := x.(string)
			if !ok || p == "" {
				return nil, invalid("image must be an object of texts")
			}
			b, ok := textToBytes(s)
			if !ok {
				return nil, invalid("image texts are ASCII")
			}
			image[p] = b
		}
		for _, dir := range dirs {
			if _, ok := image[dir]; ok {
				return nil, invalid("an image holds no file at a listed directory's path")
			}
		}
	}
	ops, ok := input["ops"].([]any)
	if !ok {
		return nil, invalid("ops must be a list")
	}
	d := NewDisk(dirs, image)
	handles := map[string]*handle{}
	answers := []any{}
	for _, x := range ops {
		op, ok := x.(map[string]any)
		if !ok {
			return nil, invalid("an op must be an object")
		}
		a, err := runDiskOp(d, handles, op)
		if err != nil {
			return nil, err
		}
		answers = append(answers, a)
	}
	return map[string]any{
		"answers":  answers,
		"moments":  d.moments,
		"syncs":    d.syncs,
		"dirSyncs": d.dirSyncs,
		"images":   imagesOut(d, func(b []byte) any { return bytesToText(b) }),
	}, nil
}

// answer turns a disk error into {"error": ...}; any other value is the answer itself.
func answer(v any, err error) any {
	if e, ok := err.(diskError); ok {
		return map[string]any{"error": string(e)}
	}
	return v
}

func runDiskOp(d *Disk, handles map[string]*handle, op map[string]any) (any, error) {
	str := func(name string) (string, error) {
		s, ok := op[name].(string)
		if !ok {
			return "", invalid("op member " + name + " must be a string")
		}
		if (name == "path" || name == "as") && s == "" {
			return "", invalid(name + " must not be empty") // notes/journal.md E.1 F4
		}
		return s, nil
	}
	name, err := str("op")
	if err != nil {
		return nil, err
	}
	switch name {
	case "create", "open":
		p, err := str("path")
		if err != nil {
			return nil, err
		}
		as, err := str("as")
		if err != nil {
			return nil, err
		}
		create := false
		if name == "open" {
			if v, present := op["create"]; present {
				b, ok := v.(bool)
				if !ok {
					return nil, invalid("create must be a boolean")
				}
				create = b
			}
		}
		var h *handle
		if name == "create" {
			h, err = d.Create(p)
		} else {
			h, err = d.Open(p, create)
		}
		if err == nil {
			handles[as] = h
		}
		return answer(nil, err), nil
	case "append", "truncate", "fsync", "lock", "close", "readAll":
		f, err := str("file")
		if err != nil {
			return nil, err
		}
		h, ok := handles[f]
		if !ok {
			return nil, invalid("no handle named " + f)
		}
		switch name {
		case "append":
			t, err := str("text")
			if err != nil {
				return nil, err
			}
			b, ok := textToBytes(t)
			if !ok {
				return nil, invalid("text is ASCII")
			}
			return answer(nil, d.Append(h, b)), nil
		case "truncate":
			size, ok := intValue(op["size"])
			if !ok || size < 0 {
				return nil, invalid("size must be a count")
			}
			return answer(nil, d.Truncate(h, int(size))), nil
		case "fsync":
			return answer(nil, d.Fsync(h)), nil
		case "lock":
			return answer(d.Lock(h)), nil
		case "close":
			return answer(nil, d.Close(h)), nil
		default:
			b, err := d.ReadAll(h)
			return answer(bytesToText(b), err), nil
		}
	case "read", "exists", "isDir", "fsyncDir":
		p, err := str("path")
		if err != nil {
			return nil, err
		}
		switch name {
		case "read":
			b, err := d.Read(p)
			return answer(bytesToText(b), err), nil
		case "exists":
			return d.Exists(p), nil
		case "isDir":
			return d.IsDir(p), nil
		default:
			return answer(nil, d.FsyncDir(p)), nil
		}
	}
	return nil, invalid("unknown op " + name)
}
