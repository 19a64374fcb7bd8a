package sweep

import (
	"os"
	"path/filepath"
	"testing"
)

// A point whose lock another sweep holds is left to it: the sweep runs the
// other points and counts it as run elsewhere; once the lock is free a
// resumed sweep runs it, and the locks leave no file behind.
func TestPointLocks(t *testing.T) {
	spec := `{"seed": 2, "replications": 1, "base": {"servers": 10, "policy": "jsq", "horizon": 50},
		"axes": [{"lambda": [0.5, 0.6, 0.7]}]}`
	dir := t.TempDir()
	if err := prepareDir(dir, mustParse(t, spec)); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockPoint(dir, 1) // a second process holding point 1
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockPoint(dir, 1); err != errBusy {
		t.Fatalf("second lock of a held point: %v, want errBusy", err)
	}
	sum := runAll(t, spec, dir, Options{Out: dir, Workers: 1})
	if sum.Ran != 2 || sum.Elsewhere != 1 {
		t.Errorf("with point 1 locked: ran %d, elsewhere %d; want 2 and 1", sum.Ran, sum.Elsewhere)
	}
	if _, err := os.Stat(PointFile(dir, 1)); !os.IsNotExist(err) {
		t.Errorf("the locked point was run: %v", err)
	}
	unlock()
	sum = runAll(t, spec, dir, Options{Out: dir, Workers: 1, Resume: true})
	if sum.Ran != 1 || sum.Skipped != 2 || sum.Elsewhere != 0 {
		t.Errorf("resumed: %+v; want point 1 run, 2 skipped", sum)
	}
	if locks, _ := filepath.Glob(filepath.Join(dir, LocksDir, "*")); len(locks) != 0 {
		t.Errorf("lock files left: %v", locks)
	}
}
