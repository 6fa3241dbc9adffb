package effects

import (
	"encoding/hex"
	"testing"
)

func TestBlake2b(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"", "e4a6a0577479b2b4"},
		{"abc", "d8bb14d833d59559"},
	} {
		if got := hex.EncodeToString(blake2b([]byte(c.in), 8)); got != c.out {
			t.Errorf("blake2b(%q) = %s want %s", c.in, got, c.out)
		}
	}
	long := make([]byte, 300)
	for i := range long {
		long[i] = byte(i)
	}
	// Python's hashlib.blake2b(..., digest_size=8) of 300 and 128 bytes (multi-block, exact block)
	if got := hex.EncodeToString(blake2b(long, 8)); got != "d325a9e186fa61cc" {
		t.Errorf("blake2b(300 bytes) = %s", got)
	}
	if got := hex.EncodeToString(blake2b(long[:128], 8)); got != "c2d13df1b6617e82" {
		t.Errorf("blake2b(128 bytes) = %s", got)
	}
	if round6(0.0078125) != 0.007812 {
		t.Errorf("round6 tie")
	}
}
