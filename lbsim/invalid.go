package lbsim

import "errors"

// ErrInvalid is matched (errors.Is) by the errors of Run that come from the
// scenario rather than from running it: a policy that does not fit the
// system (its Prepare fails, such as a compatibility graph with a type that
// has fewer servers than d). The command line reports them as invalid input
// (exit 2).
var ErrInvalid = errors.New("invalid scenario")

type invalidError struct{ err error }

func (e invalidError) Error() string        { return e.err.Error() }
func (e invalidError) Unwrap() error        { return e.err }
func (e invalidError) Is(target error) bool { return target == ErrInvalid }

// invalid marks err as coming from the scenario (nil stays nil).
func invalid(err error) error {
	if err == nil {
		return nil
	}
	return invalidError{err}
}
