package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/lbsim/notebooks/lbsim"
)

// writeTrajectoryFile writes tr to path, removing the file if writing fails.
func writeTrajectoryFile(path string, tr *lbsim.Trajectory) error {
	if tr == nil {
		return errors.New("trajectory: the run recorded none")
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("trajectory: %w", err)
	}
	err = tr.WriteCSV(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("trajectory: writing %s: %w", path, err)
	}
	return nil
}
