package model

import "errors"

// ErrInvalid is matched (errors.Is) by the errors a model's Run finds in its
// point's keys rather than in running it, such as an exact solution whose
// size the keys put out of reach; the command line reports them as invalid
// input (exit 2). Mark them with Invalid.
var ErrInvalid = errors.New("invalid point")

type invalidError struct{ err error }

func (e invalidError) Error() string        { return e.err.Error() }
func (e invalidError) Unwrap() error        { return e.err }
func (e invalidError) Is(target error) bool { return target == ErrInvalid }

// Invalid marks err as coming from the point's keys (nil stays nil).
func Invalid(err error) error {
	if err == nil {
		return nil
	}
	return invalidError{err}
}
