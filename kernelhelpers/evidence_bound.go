package kernelhelpers

import "fmt"

// SanityAtMost prints a sanity check of a bound that holds by construction
// (a delay that the policy keeps below a quantile, a count the algorithm
// caps): got must not exceed bound by more than tol (the estimate's
// sampling error, say 4 half-widths). Like Sanity it proves nothing about
// the model and states no power; the line starts with "sanity:" and says
// how far below the bound got is. It fails the cell when got > bound + tol.
func SanityAtMost(name string, got, bound, tol float64, why string) {
	line := fmt.Sprintf("sanity: %s: got %.6g, at most %.6g, margin %.3g, tol %.3g", name, got, bound, bound-got, tol)
	if why != "" {
		line += " (" + why + ")"
	}
	report(got <= bound+tol, line) // false when any of them is NaN
}
