package lbsim

import "github.com/lbsim/notebooks/lbsim/model"

// ErrInvalid is matched (errors.Is) by the errors of Run that come from the
// scenario rather than from running it: a policy that does not fit the
// system (its Prepare fails, such as a compatibility graph with a type that
// has fewer servers than d). The command line reports them as invalid input
// (exit 2). It is model.ErrInvalid, which every model's Run uses.
var ErrInvalid = model.ErrInvalid

// invalid marks err as coming from the scenario (nil stays nil).
func invalid(err error) error { return model.Invalid(err) }
