package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Two sweeps run into one output directory at the same time (the same
// shard started twice, two shardings of one sweep, a resubmitted Slurm
// array whose old tasks still run) share its points instead of both running
// every one: a point is run only by the process that holds its lock, an
// advisory lock (flock) on LocksDir/point-NNNNNN.lock taken before the
// point starts and released when its file is written. The lock dies with
// its process, so a killed sweep leaves no stale lock; the lock file is
// removed after use.

// LocksDir is the directory of the point locks inside a sweep output
// directory.
const LocksDir = ".locks"

// errBusy is the error of lockPoint when another process holds the lock.
var errBusy = errors.New("point locked by another process")

// lockPoint takes the lock of point index in dir without waiting: it
// returns errBusy if another process holds it, else the function that
// releases it (and removes the lock file).
func lockPoint(dir string, index int) (unlock func(), err error) {
	locks := filepath.Join(dir, LocksDir)
	if err := os.MkdirAll(locks, 0o755); err != nil {
		return nil, fmt.Errorf("out: %w", err)
	}
	path := filepath.Join(locks, fmt.Sprintf("point-%06d.lock", index))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("out: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, fmt.Errorf("out: locking %q: %w", path, err)
	}
	return func() {
		// Removed while locked: a process that opened the old file and locks
		// it after this one finds the point file written and does not run
		// the point again (point checks it after locking).
		os.Remove(path)
		f.Close()
	}, nil
}
