// Package service provides service-time distributions for the load-balancing
// simulator: general (non-exponential) laws for the time a task occupies a
// server.
//
// # Model
//
// Every task brings an independent service time S drawn from a Distribution,
// a law on [0, inf) with finite mean. Each law is parametrised by its mean
// (default 1 in Parse, so that the arrival rate per server is the load) and by
// one shape parameter; Mean and SecondMoment give E[S] and E[S^2] (+Inf when
// infinite), so the squared coefficient of variation is
// SCV = E[S^2]/E[S]^2 - 1. Sample draws from a *rand.Rand (math/rand/v2) and
// does not allocate.
//
// # Laws
//
//	law                                parametrisation                                  hazard rate
//	Exponential(mean)                  P(S > x) = exp(-x/mean); SCV 1                   constant
//	Deterministic(mean)                S = mean; SCV 0                                  increasing
//	Erlang(k, mean)                    sum of k Exp(mean/k) = Gamma(k, rate k/mean);    increasing (k >= 2)
//	                                   SCV 1/k
//	Hyperexponential(probs, means)     Exp(mean means[i]) w.p. probs[i]; SCV >= 1       decreasing
//	HyperexpSCV(mean, scv)             2 balanced-means phases (below); SCV scv > 1     decreasing
//	Bimodal(mean, scv)                 mean/2 w.p. 1-q, mean(1+2scv) w.p.               neither
//	                                   q = 1/(1+4scv); SCV scv > 0
//	Pareto(alpha, mean)                Lomax: P(S > x) = (1 + x/lambda)^-alpha,         decreasing
//	                                   lambda = mean(alpha-1), alpha > 1;
//	                                   SCV alpha/(alpha-2) (alpha > 2), else +Inf
//	Weibull(shape, mean)               P(S > x) = exp(-(x/lambda)^shape),               increasing if shape > 1,
//	                                   lambda = mean/Gamma(1+1/shape);                  decreasing if shape < 1
//	                                   SCV Gamma(1+2/shape)/Gamma(1+1/shape)^2 - 1
//	Lognormal(sigma, mean)             exp(mu + sigma N), mu = ln(mean) - sigma^2/2;    neither (rises, then falls)
//	                                   SCV exp(sigma^2) - 1
//	PhaseType(alpha, T)                absorption time of a CTMC, sub-generator T       recognised cases, else neither
//	PhaseTypeWithMean(alpha, T, mean)  the same, time rescaled to the mean
//	Empirical(samples)                 uniform resampling of the data                   neither
//	EmpiricalWithMean(samples, mean)   the same, data rescaled to the mean
//	ReadEmpirical(r)                   Empirical of one number per line, # comments
//
// HyperexpSCV is the standard balanced-means two-phase hyperexponential: with
// p = (1 + sqrt((scv-1)/(scv+1)))/2, S is exponential with rate 2p/mean with
// probability p and with rate 2(1-p)/mean with probability 1-p, so each phase
// contributes mean/2 to the mean and E[S^2] = (1+scv) mean^2.
//
// Bimodal fixes its small point at mean/2 (so no task is shorter than half the
// mean and none has length 0) and puts the rest of the variability in a rare
// large point; e.g. scv = 4 gives size 1/2 w.p. 16/17 and size 9 w.p. 1/17.
//
// Pareto is the Lomax (Pareto type II starting at 0) rather than the classic
// type I law, because its hazard alpha/(lambda + x) decreases on all of
// [0, inf), while type I has zero hazard below its minimum. The Lomax is the
// classic Pareto with x_m = lambda shifted left by lambda. Its k-th moment is
// finite iff alpha > k: E[S^2] = 2 lambda^2/((alpha-1)(alpha-2)) for alpha > 2.
// Simulations with alpha <= 2 have infinite-variance service times: sample
// means converge slowly and the queue-length tails are heavy.
//
// PhaseType accepts alpha with sum(alpha) <= 1 (the deficit is an atom at
// S = 0) and T with negative diagonal, non-negative off-diagonal entries, row
// sums <= 0 and -T nonsingular; E[S] = alpha (-T)^-1 1 and
// E[S^2] = 2 alpha (-T)^-2 1 are computed with gonum/mat, and Sample simulates
// the chain. Its hazard class is reported for a single phase (constant), a
// diagonal T (hyperexponential: decreasing) and a series 0 -> 1 -> ... -> n-1
// entered in phase 0 (hypoexponential: increasing); otherwise neither.
//
// # Hazard classes and which theory applies
//
// The hazard rate h(t) = f(t)/(1-F(t)) is the rate at which a task of age t
// completes. Its class (Hazard) decides which mean-field results are proven:
//
//   - FIFO servers: Bramson, Lu and Prabhakar ("Asymptotic independence of
//     queues under randomized load balancing", Queueing Systems 2012) prove
//     the asymptotic-independence ansatz, and hence the mean-field (cavity)
//     fixed point for power-of-d / JSQ(d), for service laws with decreasing
//     hazard rate (HazardDecreasing; HazardConstant is both): here
//     hyperexponential, Pareto (Lomax) and Weibull with shape < 1. For
//     increasing-hazard laws (deterministic, Erlang, Weibull shape > 1) and
//     for the others (lognormal, bimodal, general phase-type, empirical) the
//     ansatz is conjectured and supported by simulation but not proven in
//     general under FIFO; there the simulator is the reference.
//   - Processor sharing (PS) and preemptive-resume LIFO (LIFO-PR) are
//     insensitive disciplines: a queue fed by (state-dependent) Poisson
//     arrivals has a queue-length law that depends on the service law only
//     through its mean. So under the ansatz the mean-field fixed point for
//     PS and LIFO-PR is the exponential one for every law here; Bramson, Lu
//     and Prabhakar (SIGMETRICS 2010, "Randomized load balancing with general
//     service time distributions") use this for general service laws.
//
// # Command line
//
// Parse reads specs such as "exp", "det", "erlang:k=4", "hyperexp:scv=4",
// "bimodal:scv=4", "pareto:alpha=2.5", "weibull:shape=0.5",
// "lognormal:sigma=1" and "empirical:FILE", each accepting mean=X (default 1),
// e.g. "erlang:k=4,mean=2"; an empirical file's data are rescaled to the
// mean. Usage is a help text for the syntax. The form String prints, e.g.
// "erlang(k=4,mean=2)", parses back to the same law.
//
// # Sampling
//
// The laws are sampled by standard exact methods on math/rand/v2:
// exponential by r.ExpFloat64 (ziggurat); Erlang as a sum of k exponentials
// (k <= 5) or by Marsaglia-Tsang (larger k); Pareto, Weibull and the
// hyperexponential phases by inversion of an exponential; lognormal from
// r.NormFloat64. gonum's stat/distuv (whose Src field in v0.17.0 is a
// math/rand/v2 Source) is used in the tests for the closed-form CDFs; its
// Rand methods are not used because they wrap Src in a new rand.Rand per call.
package service
