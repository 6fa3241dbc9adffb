package journal

import (
	"strconv"
	"strings"

	"loomref/adapters/go/protocol"
)

// The file store (one file per execution, journal.one-file-per-execution) and the store log
// (journal.log-format) over the simulated disk, for the conformance function
// journal.store-on-disk (spec/journal.md §1.8).

// syncAfter is, per fsync policy, the kinds an append is synced after
// (journal.fsync-policy, journal.write-ahead).
var syncAfter = map[string]map[string]bool{
	"every-event": nil, // every kind
	"write-ahead": {"STEP_STARTED": true, "STEP_IN_DOUBT": true, "EXECUTION_SUSPENDED": true,
		"EXECUTION_COMPLETED": true, "EXECUTION_FAILED": true},
	"at-boundaries": {"STEP_IN_DOUBT": true, "EXECUTION_SUSPENDED": true,
		"EXECUTION_COMPLETED": true, "EXECUTION_FAILED": true},
	"never": {},
}

func syncs(policy, kind string) bool {
	if policy == "every-event" {
		return true
	}
	return syncAfter[policy][kind]
}

const storeDir = "/disk"

// recorder wraps the disk and records every call that changes the disk or its locks.
type recorder struct {
	disk  *Disk
	calls []any
}

func (r *recorder) record(op, p string, extra ...any) {
	c := map[string]any{"call": op, "path": p}
	for i := 0; i+1 < len(extra); i += 2 {
		c[extra[i].(string)] = extra[i+1]
	}
	r.calls = append(r.calls, c)
}

func (r *recorder) create(p string) (*handle, error) {
	r.record("create", p)
	return r.disk.Create(p)
}

func (r *recorder) open(p string) (*handle, error) {
	r.record("open", p)
	return r.disk.Open(p, false)
}

func (r *recorder) lock(h *handle) bool {
	ok, _ := r.disk.Lock(h)
	r.record("lock", h.path)
	return ok
}

func (r *recorder) append(h *handle, b []byte) {
	r.disk.Append(h, b)
	r.record("append", h.path, "lines", tellLines(b))
}

func (r *recorder) truncate(h *handle, size int) {
	r.disk.Truncate(h, size)
	r.record("truncate", h.path)
}

func (r *recorder) fsync(h *handle) {
	r.disk.Fsync(h)
	r.record("fsync", h.path)
}

func (r *recorder) fsyncDir(p string) {
	r.disk.FsyncDir(p)
	r.record("fsyncDir", p)
}

// close records a close even of a handle already closed (the store log closes its file
// when a torn write breaks it and again when the store is closed).
func (r *recorder) close(h *handle) {
	r.disk.Close(h)
	r.record("close", h.path)
}

// tellLines tells a file by its lines: a header by its schema, an event by its kind, an
// unterminated tail as "torn" (journal.store-on-disk).
func tellLines(b []byte) []any {
	lines, tail := splitLines(string(b))
	out := []any{}
	for _, l := range lines {
		v, _ := readJSON(l)
		obj, _ := v.(map[string]any)
		if s, ok := obj["schema"]; ok {
			out = append(out, s)
		} else if k, ok := obj["kind"]; ok {
			out = append(out, k)
		} else {
			out = append(out, "?")
		}
	}
	if tail != "" {
		out = append(out, "torn")
	}
	return out
}

func journalError(code string) *protocol.Error { return protocol.Fail(code) }

// headerPrefix and eventPrefix spell lines without their crc member (journal.header,
// journal.line-shape, journal.log-format); loom-ref's log writer puts executionId first.
func headerPrefix(schema, id string) string {
	if id == "" {
		return `{"schema":"` + schema + `","version":1`
	}
	return `{"schema":"` + schema + `","version":1,"executionId":"` + id + `"`
}

func eventPrefix(logID string, seq int, kind string, payload any) string {
	var sb strings.Builder
	sb.WriteString("{")
	if logID != "" {
		sb.WriteString(`"executionId":"` + logID + `",`)
	}
	sb.WriteString(`"seq":` + strconv.Itoa(seq) + `,"kind":`)
	writeString(&sb, kind)
	sb.WriteString(`,"payload":`)
	writeJSON(&sb, payload)
	return sb.String()
}

// journalStore is what the two layouts offer the steps.
type journalStore interface {
	create(id string) error
	open(id string) (any, error)
	read(id string) (any, error)
	append(id, kind string, payload map[string]any, torn any) error
	close(id string) error
	shutdown()
}

func summary(events []any, torn bool) any {
	kinds := []any{}
	for _, e := range events {
		kinds = append(kinds, e.(map[string]any)["kind"])
	}
	return map[string]any{"events": kinds, "torn": torn}
}

// ---- the file store ----

type fileJournal struct {
	h      *handle
	seq    int
	broken bool // a torn write broke it: appends are journal.closed
}

// fileStore keeps one file per execution in /disk (journal.one-file-per-execution).
type fileStore struct {
	r         *recorder
	policy    string
	held      map[string]*fileJournal // the journals this store holds open
	order     []string                // their ids, in the order they were opened
	dirSynced map[string]bool         // executions whose directory entry this store synced
}

func newFileStore(r *recorder, policy string) *fileStore {
	return &fileStore{r: r, policy: policy, held: map[string]*fileJournal{},
		dirSynced: map[string]bool{}}
}

func filePath(id string) string { return storeDir + "/" + id + ".jsonl" }

func (s *fileStore) hold(id string, j *fileJournal) {
	s.held[id] = j
	s.order = append(s.order, id)
}

func (s *fileStore) release(id string) {
	delete(s.held, id)
	for i, x := range s.order {
		if x == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// caseTwin says whether one of ids differs from id only in the case of its letters
// (journal.execution-ids: a store refuses to create such an id).
func caseTwin(id string, ids []string) bool {
	for _, other := range ids {
		if other != id && strings.EqualFold(other, id) {
			return true
		}
	}
	return false
}

// notAFile maps a disk's refusal of what is at a journal's path (journal.regular-files).
func notAFile(err error) bool { return err == diskError(errNotAFile) }

func (s *fileStore) create(id string) error {
	var held []string
	for _, name := range s.r.disk.Names(storeDir) {
		if strings.HasSuffix(name, ".jsonl") {
			held = append(held, strings.TrimSuffix(name, ".jsonl"))
		}
	}
	if caseTwin(id, held) {
		return protocol.Fail("argument.execution-id")
	}
	h, err := s.r.create(filePath(id))
	if err != nil {
		return journalError("journal.exists")
	}
	if !s.r.lock(h) {
		s.r.close(h)
		return journalError("journal.locked")
	}
	s.r.append(h, []byte(withCRC(headerPrefix(journalSchema, id))+"\n"))
	s.hold(id, &fileJournal{h: h})
	return nil
}

func (s *fileStore) open(id string) (any, error) {
	h, err := s.r.open(filePath(id))
	if notAFile(err) {
		return nil, journalError("journal.not-a-file")
	}
	if err != nil {
		return nil, journalError("journal.not-found")
	}
	if !s.r.lock(h) {
		s.r.close(h)
		return nil, journalError("journal.locked")
	}
	b, _ := s.r.disk.ReadAll(h)
	res, err := parseJournal(string(b))
	if err != nil {
		s.r.close(h)
		return nil, journalError("journal.corrupt")
	}
	m := res.(map[string]any)
	events := m["events"].([]any)
	torn := m["torn"] != nil
	if torn {
		// A writer truncates a torn tail before its first append (journal.torn-tail).
		_, tail := splitLines(string(b))
		s.r.truncate(h, len(b)-len(tail))
	}
	s.hold(id, &fileJournal{h: h, seq: len(events)})
	return summary(events, torn), nil
}

func (s *fileStore) read(id string) (any, error) {
	b, err := s.r.disk.Read(filePath(id))
	if notAFile(err) {
		return nil, journalError("journal.not-a-file")
	}
	if err != nil {
		return nil, journalError("journal.not-found")
	}
	res, perr := parseJournal(string(b))
	if perr != nil {
		return nil, journalError("journal.corrupt")
	}
	m := res.(map[string]any)
	return summary(m["events"].([]any), m["torn"] != nil), nil
}

func (s *fileStore) append(id, kind string, payload map[string]any, torn any) error {
	j, held := s.held[id]
	if !held {
		return notHeld()
	}
	if err := appendCheck(id, kind, payload, torn, j.broken); err != nil {
		return err
	}
	line := []byte(withCRC(eventPrefix("", j.seq+1, kind, payload)) + "\n")
	if torn != nil {
		// A crash in mid-write: the journal is broken (journal.crash-model); its file is
		// closed with the store.
		n, err := tornBytes(torn, len(line))
		if err != nil {
			return err
		}
		s.r.append(j.h, line[:n])
		j.broken = true
		return nil
	}
	s.r.append(j.h, line)
	j.seq++
	if syncs(s.policy, kind) {
		s.r.fsync(j.h)
		if !s.dirSynced[id] {
			// journal.dir-sync: once per execution and store, before the first sync
			// returns (a journal closed and opened again in the same store is not synced
			// again: notes/journal.md E.1 F17).
			s.r.fsyncDir(storeDir)
			s.dirSynced[id] = true
		}
	}
	return nil
}

// close lets go of a journal; closing one the store does not hold does nothing.
func (s *fileStore) close(id string) error {
	if j, held := s.held[id]; held {
		s.r.close(j.h)
		s.release(id)
	}
	return nil
}

// shutdown closes every journal the store holds, in the order they were opened.
func (s *fileStore) shutdown() {
	for _, id := range append([]string(nil), s.order...) {
		s.close(id)
	}
}

// ---- the store log ----

const logPath = storeDir + "/store.log"

type logExecution struct {
	seq        int
	headerOut  bool // its header line is in the log
	held       bool
	tornAtOpen bool // the torn tail found when the store opened named it
}

// logStore is the store log over the simulated disk. It opens its file on first use, or at
// once when built by a reopen (notes/journal.md E.1 F10: what the reference does; the text
// is silent).
type logStore struct {
	r         *recorder
	policy    string
	h         *handle // nil until the log is opened
	execs     map[string]*logExecution
	dirSynced bool
	crashed   bool
	tornAt    int // where kept torn bytes that name an execution begin; -1: none
	// openErr is why a reopen could not open the log: that step's answer
	// (journal.store-on-disk-vector: a store that cannot be opened answers
	// journal.not-a-file to every step, a reopen included)
	openErr error
}

func newLogStore(r *recorder, policy string, eager bool) *logStore {
	s := &logStore{r: r, policy: policy, execs: map[string]*logExecution{}, tornAt: -1}
	if eager {
		s.openErr = s.ensure()
	}
	return s
}

// ensure opens the log (creating it with its header), takes its lock, reads every
// execution and truncates a torn tail, remembering the execution it names
// (journal.log-torn-tail).
func (s *logStore) ensure() error {
	if s.h != nil {
		return nil
	}
	r := s.r
	var h *handle
	var err error
	if r.disk.Exists(logPath) {
		h, err = r.open(logPath)
	} else {
		h, err = r.create(logPath)
	}
	if err != nil {
		// journal.regular-files: a link or FIFO at the log's path is refused before a
		// byte is read; the store stays unopened and tries again at its next call.
		return journalError("journal.not-a-file")
	}
	s.h = h
	r.lock(s.h)
	b, _ := r.disk.ReadAll(s.h)
	if len(b) == 0 {
		r.append(s.h, []byte(withCRC(headerPrefix(logSchema, ""))+"\n"))
		return nil
	}
	res, err := parseLog(string(b))
	if err != nil {
		return nil
	}
	m := res.(map[string]any)
	for id, evs := range m["executions"].(map[string][]any) {
		s.execs[id] = &logExecution{seq: len(evs), headerOut: true}
	}
	if t, ok := m["torn"].(map[string]any); ok {
		_, tail := splitLines(string(b))
		id, named := t["executionId"].(string)
		if named {
			if e, known := s.execs[id]; known {
				e.tornAtOpen = true
			}
			// torn bytes that name an execution stay until a writer opens it or the
			// store appends (journal.log-torn-tail); any others go now
			s.tornAt = len(b) - len(tail)
		} else {
			r.truncate(s.h, len(b)-len(tail))
		}
	}
	return nil
}

// dropTorn truncates the torn bytes the store kept (journal.log-torn-tail).
func (s *logStore) dropTorn() {
	if s.tornAt >= 0 {
		s.r.truncate(s.h, s.tornAt)
		s.tornAt = -1
	}
}

func (s *logStore) create(id string) error {
	if err := s.ensure(); err != nil {
		return err
	}
	ids := make([]string, 0, len(s.execs))
	for other := range s.execs {
		ids = append(ids, other)
	}
	if caseTwin(id, ids) {
		return protocol.Fail("argument.execution-id")
	}
	if _, ok := s.execs[id]; ok {
		return journalError("journal.exists")
	}
	if s.crashed {
		return journalError("journal.closed") // the store closed after a torn write
	}
	s.execs[id] = &logExecution{held: true}
	return nil
}

// events reads an execution back from the log as it stands, and whether the log's torn
// tail names it.
func (s *logStore) events(id string) ([]any, bool, error) {
	b, _ := s.r.disk.Read(logPath)
	res, err := parseLog(string(b))
	if err != nil {
		// A log a reader refuses is corrupt (steps cannot make one: the writer refuses
		// what a reader refuses, journal.started-names-header included).
		return nil, false, journalError("journal.corrupt")
	}
	m := res.(map[string]any)
	torn := false
	if t, ok := m["torn"].(map[string]any); ok && t["executionId"] == id {
		torn = true
	}
	evs := m["executions"].(map[string][]any)[id]
	if evs == nil {
		evs = []any{}
	}
	return evs, torn, nil
}

func (s *logStore) open(id string) (any, error) {
	if err := s.ensure(); err != nil {
		return nil, err
	}
	e, ok := s.execs[id]
	if !ok {
		return nil, journalError("journal.not-found")
	}
	// After a torn write the store takes no writer: journal.closed, held or not, before
	// journal.locked (journal.store-on-disk-vector, journal.disk/log-open-held-after-torn).
	if s.crashed {
		return nil, journalError("journal.closed")
	}
	if e.held {
		return nil, journalError("journal.locked")
	}
	evs, torn, err := s.events(id)
	if err != nil {
		return nil, err
	}
	e.held = true
	// The torn tail is reported until a writer opens the execution (journal.log-torn-tail).
	torn = torn || e.tornAtOpen
	if e.tornAtOpen {
		s.dropTorn() // told once, to the writer, which finds them gone
	}
	e.tornAtOpen = false
	return summary(evs, torn), nil
}

func (s *logStore) read(id string) (any, error) {
	if err := s.ensure(); err != nil {
		return nil, err
	}
	e, ok := s.execs[id]
	if !ok {
		return nil, journalError("journal.not-found")
	}
	evs, torn, err := s.events(id)
	if err != nil {
		return nil, err
	}
	return summary(evs, torn || e.tornAtOpen), nil
}
