package kernel

import "fmt"

// MemStore keeps journals in memory as the bytes of the one-file-per-execution form
// (journal.one-file-per-execution), so that a scenario can tear, corrupt and append bytes
// as it would to a file. It enforces one writer per journal (journal.single-writer) and
// models a crash (journal.crash-model): once armed, the k-th append writes its line (or a
// strict prefix of it) and the append fails with *Crash; the store is then disarmed.
type MemStore struct {
	files map[string][]byte
	locks map[string]int // writers holding each journal

	armed      bool
	crashAfter int
	torn       bool
	appends    int
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{files: map[string][]byte{}, locks: map[string]int{}}
}

// tornBytes is how much of its line a torn crashing append writes.
const tornBytes = 17

// Crash is the simulated death of the process (journal.crash-model): it is no *Error, and
// nothing in a body or the kernel catches it.
type Crash struct{ After int }

func (c *Crash) Error() string { return fmt.Sprintf("crash after append %d", c.After) }

// Arm makes the k-th append from now crash (torn: writing a strict prefix of its line).
func (s *MemStore) Arm(k int, torn bool) {
	s.armed, s.crashAfter, s.torn, s.appends = true, k, torn, 0
}

// Disarm cancels a pending crash.
func (s *MemStore) Disarm() { s.armed = false }

// Bytes returns a journal's stored bytes, and whether it exists.
func (s *MemStore) Bytes(id string) ([]byte, bool) {
	b, ok := s.files[id]
	return b, ok
}

// SetBytes replaces a journal's bytes (the scenario's raw journal actions).
func (s *MemStore) SetBytes(id string, b []byte) { s.files[id] = b }

// Lock takes the writer's lock of a journal (journal.single-writer).
func (s *MemStore) Lock(id string) error {
	if s.locks[id] > 0 {
		return NewError("journal.locked", "journal "+id+" has another writer")
	}
	s.locks[id]++
	return nil
}

// Unlock lets a journal's writer go.
func (s *MemStore) Unlock(id string) {
	if s.locks[id] > 0 {
		s.locks[id]--
	}
}

// Read parses a journal without taking the writer; ok is false when it does not exist.
func (s *MemStore) Read(id string) (p *Parsed, ok bool, err error) {
	b, exists := s.files[id]
	if !exists {
		return nil, false, nil
	}
	p, err = parseJournal(b, id)
	return p, true, err
}

// truncate drops a journal's bytes from size on (a writer truncating a torn tail).
func (s *MemStore) truncate(id string, size int) {
	if b := s.files[id]; len(b) > size {
		s.files[id] = b[:size]
	}
}

// write appends raw bytes that are no event (the header): never a crash point (notes A19).
func (s *MemStore) write(id string, b []byte) {
	s.files[id] = append(s.files[id], b...)
}

// appendLine appends one event line, the crash point of the model.
func (s *MemStore) appendLine(id string, line []byte) error {
	s.appends++
	if s.armed && s.appends == s.crashAfter {
		s.armed = false
		if s.torn {
			// The size of a torn write is not in the text (notes A17); the reference's
			// scenario crash writes the first 17 bytes of the line (`{"seq":N,"kind":"`
			// for a one-digit seq), whatever its length.
			n := tornBytes
			if n > len(line)-2 {
				n = len(line) - 2
			}
			if n < 1 {
				n = 1
			}
			s.files[id] = append(s.files[id], line[:n]...)
			return &Crash{After: s.appends}
		}
		s.files[id] = append(s.files[id], line...)
		return &Crash{After: s.appends}
	}
	s.files[id] = append(s.files[id], line...)
	return nil
}
