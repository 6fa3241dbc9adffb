package journal

import (
	"bytes"
	"path"
	"strings"
)

// The simulated disk of journal.power-loss-model (spec/journal.md §1.8, "The power-loss
// simulation"): it records every operation that changes the disk and gives the images a
// power loss right after the last one may leave.

// Disk errors, as the journal.power-loss answers spell them.
const (
	errExists   = "exists"
	errNotFound = "not-found"
	errClosed   = "closed"
	// errNotAFile: what is at the path is not a regular file (a planted link or FIFO,
	// journal.regular-files); opening it never follows or waits on it.
	errNotAFile = "not-a-file"
)

type diskError string

func (e diskError) Error() string { return string(e) }

// diskOp is one unsynced operation on a file: an append (data) or a truncation (size).
type diskOp struct {
	isAppend bool
	data     []byte
	size     int
}

func (op diskOp) apply(content []byte) []byte {
	out := append([]byte(nil), content...)
	if op.isAppend {
		return append(out, op.data...)
	}
	if op.size < len(out) {
		out = out[:op.size]
	}
	return out
}

// simFile is a file: what its last sync covered, what was written since, and whether its
// name is durable (a directory sync after its creation).
type simFile struct {
	durable     []byte
	ops         []diskOp
	data        []byte
	nameDurable bool
}

type handle struct {
	path   string
	closed bool
}

// Disk is the simulated disk.
type Disk struct {
	dirs     map[string]bool
	files    map[string]*simFile
	locks    map[string]*handle
	planted  map[string]string // paths holding an entry that is no regular file: its kind
	moments  int
	syncs    int
	dirSyncs int
}

// NewDisk makes a disk holding the directories and the files of image, all durable.
func NewDisk(dirs []string, image map[string][]byte) *Disk {
	d := &Disk{dirs: map[string]bool{}, files: map[string]*simFile{}, locks: map[string]*handle{},
		planted: map[string]string{}}
	for _, dir := range dirs {
		d.dirs[dir] = true
	}
	for p, b := range image {
		d.files[p] = &simFile{durable: b, data: b, nameDurable: true}
	}
	return d
}

// Plant puts at p an entry that is not a regular file ("symlink" or "fifo").
func (d *Disk) Plant(p, kind string) { d.planted[p] = kind }

func (d *Disk) newFile(p string) error {
	if _, ok := d.planted[p]; ok {
		return diskError(errExists) // O_CREAT|O_EXCL never follows a link: something is there
	}
	if _, ok := d.files[p]; ok || d.dirs[p] {
		return diskError(errExists) // a listed directory is there too, and holds no file
	}
	if !d.dirs[dirOf(p)] {
		return diskError(errNotFound)
	}
	d.files[p] = &simFile{durable: []byte{}, data: []byte{}}
	d.moments++ // creating a file is a moment
	return nil
}

// Create makes a new file (an error if one exists) and opens it.
func (d *Disk) Create(p string) (*handle, error) {
	if err := d.newFile(p); err != nil {
		return nil, err
	}
	return &handle{path: p}, nil
}

// Open opens a file, creating it if asked to and it is missing.
func (d *Disk) Open(p string, create bool) (*handle, error) {
	if _, ok := d.planted[p]; ok {
		return nil, diskError(errNotAFile)
	}
	if _, ok := d.files[p]; !ok {
		if !create {
			return nil, diskError(errNotFound)
		}
		if err := d.newFile(p); err != nil {
			return nil, err
		}
	}
	return &handle{path: p}, nil
}

func (d *Disk) file(h *handle) (*simFile, error) {
	if h.closed {
		return nil, diskError(errClosed)
	}
	return d.files[h.path], nil
}

// Append writes bytes at the end of the file; a non-empty write is a moment.
func (d *Disk) Append(h *handle, b []byte) error {
	f, err := d.file(h)
	if err != nil || len(b) == 0 {
		return err
	}
	op := diskOp{isAppend: true, data: append([]byte(nil), b...)}
	f.ops = append(f.ops, op)
	f.data = op.apply(f.data)
	d.moments++
	return nil
}

// Truncate cuts the file to size (never extends it, notes point 42); a moment.
func (d *Disk) Truncate(h *handle, size int) error {
	f, err := d.file(h)
	if err != nil {
		return err
	}
	op := diskOp{size: size}
	f.ops = append(f.ops, op)
	f.data = op.apply(f.data)
	d.moments++
	return nil
}

// Fsync makes the file's bytes and size durable (not its name).
func (d *Disk) Fsync(h *handle) error {
	f, err := d.file(h)
	if err != nil {
		return err
	}
	f.durable, f.ops = append([]byte(nil), f.data...), nil
	d.moments++
	d.syncs++
	return nil
}

// FsyncDir makes durable the names of the directory's files.
func (d *Disk) FsyncDir(p string) error {
	if !d.dirs[p] {
		return diskError(errNotFound)
	}
	for fp, f := range d.files {
		if dirOf(fp) == p {
			f.nameDurable = true
		}
	}
	d.moments++
	d.dirSyncs++
	return nil
}

// Lock takes the advisory lock of the file: false if another open handle holds it.
func (d *Disk) Lock(h *handle) (bool, error) {
	if h.closed {
		return false, diskError(errClosed)
	}
	if holder, ok := d.locks[h.path]; ok && holder != h && !holder.closed {
		return false, nil
	}
	d.locks[h.path] = h
	return true, nil
}

// Close closes the handle and lets go of its lock; closing it again is harmless.
func (d *Disk) Close(h *handle) error {
	h.closed = true
	if d.locks[h.path] == h {
		delete(d.locks, h.path)
	}
	return nil
}

// ReadAll reads the file through a handle: what was written, synced or not.
func (d *Disk) ReadAll(h *handle) ([]byte, error) {
	f, err := d.file(h)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), f.data...), nil
}

// Read reads a file by its path.
func (d *Disk) Read(p string) ([]byte, error) {
	if _, ok := d.planted[p]; ok {
		return nil, diskError(errNotAFile)
	}
	f, ok := d.files[p]
	if !ok {
		return nil, diskError(errNotFound)
	}
	return append([]byte(nil), f.data...), nil
}

// Exists says whether a file or a directory is there.
func (d *Disk) Exists(p string) bool {
	_, ok := d.files[p]
	_, planted := d.planted[p]
	return ok || planted || d.dirs[p]
}

// Names lists the regular files directly in a directory (their base names).
func (d *Disk) Names(dir string) []string {
	var out []string
	for p := range d.files {
		if dirOf(p) == dir {
			out = append(out, path.Base(p))
		}
	}
	return out
}

// IsDir says whether the path is one of the disk's directories.
func (d *Disk) IsDir(p string) bool { return d.dirs[p] }

// Image is what a power loss may leave: a variant's name and every file's bytes.
type Image struct {
	Variant string
	Files   map[string][]byte
}

var variants = []string{"synced", "names", "written", "torn", "zeroed", "prefix"}

// Images are the images of a power loss right after the last operation, equal ones given
// once, in the order of journal.power-loss-model.
func (d *Disk) Images() []Image {
	var out []Image
	for _, v := range variants {
		files := map[string][]byte{}
		for p, f := range d.files {
			if v == "synced" && !f.nameDurable {
				continue // a name not synced is lost, its file with it
			}
			files[p] = d.variantOf(f, v)
		}
		dup := false
		for _, im := range out {
			if sameFiles(im.Files, files) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, Image{Variant: v, Files: files})
		}
	}
	return out
}

// sameFiles: the same paths with the same bytes (an empty file is empty however it came to
// be: reflect.DeepEqual tells a nil slice from an empty one, journal.disk/truncate-size-zero).
func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for p, data := range a {
		other, ok := b[p]
		if !ok || !bytes.Equal(data, other) {
			return false
		}
	}
	return true
}

// variantOf is one file's bytes in an image variant (notes points 35-38).
func (d *Disk) variantOf(f *simFile, variant string) []byte {
	replay := func(ops []diskOp) []byte {
		c := append([]byte(nil), f.durable...)
		for _, op := range ops {
			c = op.apply(c)
		}
		return c
	}
	switch variant {
	case "synced", "names":
		return replay(nil)
	case "prefix":
		return replay(f.ops[:len(f.ops)/2])
	case "torn", "zeroed":
		// Only a last unsynced operation that is an append is cut (or lands as zeros):
		// journal.disk/truncate-is-pending-too and the fuzz (notes/journal.md D.37, E.1 F9).
		n := len(f.ops)
		if n == 0 || !f.ops[n-1].isAppend {
			return replay(f.ops)
		}
		c := replay(f.ops[:n-1])
		data := f.ops[n-1].data
		if variant == "zeroed" {
			return append(c, make([]byte, len(data))...)
		}
		keep := 0
		if len(data) > 1 {
			keep = 1 + (d.moments*7919)%(len(data)-1)
		}
		return append(c, data[:keep]...)
	default: // written
		return replay(f.ops)
	}
}

// dirOf is a path's directory on the simulated disk (journal.power-loss-vector): the part
// before its last "/", "/" when that is its first character, "" (none) without a "/";
// nothing is normalised, so "/disk//a" is in "/disk/".
func dirOf(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return ""
	}
	if i == 0 {
		return "/"
	}
	return p[:i]
}
