// Package mc holds what every model of the project shares without the
// simulator ("Monte Carlo"): reproducible random streams and confidence
// intervals over independent replications. It imports nothing from lbsim, so
// the theory packages (meanfield, cavity) and the simulator can both build on
// it.
//
// # Streams
//
// Stream(seed, path...) is the random stream for a root seed and a path of
// indices, for example a sweep point and a replication: a *rand.Rand over a
// PCG generator (math/rand/v2) whose two 64-bit words are derived from the
// seed and the path by SplitMix64 mixing. Streams for different paths are
// statistically independent; the same seed and path always give the same
// stream, whatever runs in parallel, so results do not depend on the number
// of workers. Source(seed, path...) is the same generator without the
// *rand.Rand wrapper, for engines that draw from the concrete *rand.PCG
// directly (no interface call per draw): rand.New(Source(seed, path...))
// gives exactly the numbers of Stream(seed, path...). SplitMix is the
// SplitMix64 finaliser itself, for code that derives its own seeds.
//
// The derivation is fixed: changing it would change every stored result, and
// the tests pin the first numbers of a few streams.
//
// # Confidence intervals
//
// MeanCI95(xs) is the mean of independent replications and the half-width of
// its 95% confidence interval, t_{0.975, n-1} s / sqrt(n), with the Student-t
// quantile from gonum's distuv.
package mc
