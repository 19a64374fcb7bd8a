// Package evidence is how the project asserts a claim: an estimate that
// carries its uncertainty is compared with a reference that carries its own
// error, at a stated significance level, and every comparison says the
// smallest deviation it would detect. It is the statistics behind the
// notebooks' checks (kernelhelpers prints and enforces them) and imports
// nothing from the simulator (only its Monte Carlo helpers, lbsim/mc).
//
// # Estimates
//
// An Estimate is a value with a standard error SE and its degrees of freedom
// DF (Student's t; +Inf for a normal or exact error), an optional
// deterministic error Bound (a truncation mass, a solver tolerance: a bound on
// |error|, not a standard deviation) and the Method that produced it, which
// the checks print. Replications(xs) is the mean of independent replications
// (SE s/sqrt(n), n - 1 degrees of freedom); FromCI95 recovers the same from a
// mean and a 95% half-width over n replications; BatchMeans estimates the
// mean of one long stationary series from the means of b consecutive batches
// and refuses batches whose lag-1 correlation shows they are not
// independent; Exact is a reference with a bound on its numerical error;
// Normal is a large-sample estimate (many independent paths of an SDE, say).
//
// # Comparisons
//
// Agree tests the null hypothesis "estimate and reference have the same
// expectation" with the two-sided Welch t test (Welch-Satterthwaite degrees
// of freedom for two uncertain sides): it rejects when
// |est - ref| > t_{1-level/2, df} SE + Bound, with SE the combined standard
// error and Bound the sum of the two sides' deterministic bounds. Less tests
// the claim "a < b" one-sidedly: it holds when b - a > t_{1-level, df} SE +
// Bound. Under the null hypothesis (and errors within their bounds) each
// rejects with probability at most level; the package's tests measure that
// rate on synthetic estimates. Welch's degrees of freedom are an
// approximation: with equal replication counts on both sides the measured
// level is the stated one, but with few replications on the noisier side the
// test is liberal (1.7% instead of 1% for 5 against 16 replications with a
// standard-deviation ratio of 2; 1.3% for 8 against 16): give both sides the
// same number of replications, or the noisier side more.
//
// # Power
//
// Every Outcome carries Detects, the smallest true deviation (Agree) or margin
// (Less) that the test finds with probability Spec.Power (default 0.8), taking
// the combined SE as the true one. It is computed exactly for Student's t, by
// integrating the rejection probability over the law of the estimated
// standard error (noncentral t), not by the usual z approximation; for a
// normal error it is z_{1-level/2} + z_{power} standard errors plus Bound.
// Spec.Need is the deviation the claim must be able to see (for example 5% of
// q_2, or 10% of a diffusion-scale mean); an Outcome whose Detects exceeds it
// is Weak, and the check it backs is an error, not a pass: the experiment
// needs more replications, horizon or N.
//
// A negative control runs the same comparison on a deliberately wrong model;
// the control succeeds when the comparison does not hold (Outcome.Holds is
// false).
package evidence
