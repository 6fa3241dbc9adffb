// Package journal implements the vector functions of the journal chapter
// (spec/journal.md) for the conformance protocol: journal.parse, journal.parse-log,
// journal.fold, journal.power-loss and journal.store-on-disk.
package journal

import "loomref/adapters/go/protocol"

// Functions is the chapter's table of vector functions (conformance/INTERPRETING.md §3).
var Functions = map[string]protocol.Function{
	"journal.parse": func(input any) (any, error) {
		text, err := textInput(input)
		if err != nil {
			return nil, err
		}
		return parseJournal(text)
	},
	"journal.parse-log": func(input any) (any, error) {
		text, err := textInput(input)
		if err != nil {
			return nil, err
		}
		return parseLog(text)
	},
	"journal.fold": func(input any) (any, error) {
		obj, ok := input.(map[string]any)
		if !ok {
			return nil, invalid("the input must be an object")
		}
		return fold(obj)
	},
	"journal.power-loss": func(input any) (any, error) {
		obj, ok := input.(map[string]any)
		if !ok {
			return nil, invalid("the input must be an object")
		}
		return powerLoss(obj)
	},
	"journal.store-on-disk": func(input any) (any, error) {
		obj, ok := input.(map[string]any)
		if !ok {
			return nil, invalid("the input must be an object")
		}
		return storeOnDisk(obj)
	},
}

// invalid is argument.invalid (errors.invalid-argument); a member given as null is a value of
// the wrong type (errors.vector-null).
func invalid(msg string) *protocol.Error {
	return protocol.Fail("argument.invalid", "message", msg)
}

func textInput(input any) (string, error) {
	obj, ok := input.(map[string]any)
	if !ok {
		return "", invalid("the input must be an object")
	}
	text, ok := obj["text"].(string)
	if !ok {
		return "", invalid("text must be a string")
	}
	return text, nil
}
