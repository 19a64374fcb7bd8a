// Package cavity computes the asymptotic-independence ("cavity") prediction of
// Bramson, Lu and Prabhakar for the supermarket model with general service.
//
// # The ansatz
//
// N FIFO servers of rate 1; tasks arrive as a Poisson process of rate
// lambda*N and each joins the shortest of d servers sampled uniformly (with
// replacement, ties uniform); service requirements are i.i.d. with law
// service.Distribution (any mean m, load rho = lambda*m < 1). As N -> infinity
// any fixed set of queues is asserted to become independent, each seeing the
// others only through their stationary tail u_n = P(L >= n) (u_0 = 1). A
// tagged queue holding n tasks is then chosen by an arrival when all d samples
// hold at least n tasks, at least one holds exactly n, and the tie is broken
// its way; summed over the arrivals this is a Poisson stream of rate
//
//	lambda_n = lambda (u_n^d - u_{n+1}^d) / (u_n - u_{n+1})
//
// (ArrivalRates), which depends on the queue's own state only. Consistency asks
// that the single FIFO queue with these state-dependent arrivals and the given
// service law have stationary tail u again: u is a fixed point of
// T: u -> tail of that queue. Bramson, Lu and Prabhakar (Queueing Systems 2012)
// prove the ansatz for service laws with decreasing hazard rate; for others it
// is a conjecture well supported by simulation (see notebook 04).
//
// For exponential service T is explicit (a birth-death chain) and the fixed
// point is u_n = rho^((d^n-1)/(d-1)). Under PS and LIFO-PR the queue-length
// law of a queue with state-dependent Poisson arrivals is insensitive (it
// depends on the service law only through its mean), so the prediction is the
// same closed form for every law: InsensitivePrediction.
//
// # The exact solver (the default)
//
// A service that starts with j tasks present sees, until it ends, a
// pure-birth arrival process with rates lambda_j, lambda_{j+1}, ...; with B
// its generator, truncated at K levels (arrivals blocked at K), the law of
// the number present when the service ends is row j of M = E[exp(B S)].
// Departures leave behind a skip-free-to-the-left chain, whose law pi solves
// the cut equations pi_m P(no arrival in a service from m) =
// sum_{j<m} pi_j P(a service from max(j,1) ends above m), sums of positive
// terms only. Level crossing (arrivals that find n, at rate lambda_n p_n,
// balance departures that leave n) turns pi into the time-average law p, with
// the throughput 1/(E[S] + pi_0/lambda_0); the time at K comes from the mean
// time a service spends there. T(u)_n = sum_{k>=n} p_k. The kernels:
//
//   - KernelMixture (exponential, hyperexponential, Lomax): S ~ Exp(T) with
//     T discrete or, for the Lomax law, T ~ Gamma(alpha, scale), integrated
//     by the trapezoidal rule in log T (step 1/4; the error of the analytic
//     integrand falls like exp(-c/step)). Given T = t a service outlasts the
//     births from j to m+1 with probability prod_l lambda_l/(lambda_l + t),
//     so the cut sums are running products, O(K) per node.
//   - KernelExpm (atoms: deterministic, bimodal, empirical; phase-type:
//     Erlang, general PH): M from gonum's matrix exponential of the augmented
//     generator (Van Loan), or by a Kronecker-sum solve for PH(alpha, T).
//   - KernelUniformization (any law with atoms or a density: Weibull,
//     lognormal by default, and every other law as a cross-check):
//     M = sum_k P(Poisson(d lambda S) = k) P^k, P = I + B/(d lambda), the
//     weights exact for atoms and by Gauss-Legendre quadrature of the
//     density otherwise, summed until the left-out mass is below Depth.
//
// The iteration u <- T(u) starts from rho^((d^n-1)/(d-1)) and stops when the
// residual sup|T(u) - u| is below Options.Residual (1e-12); it converges
// linearly (rate about 0.8 at lambda = 0.9, d = 2). K starts where the
// exponential solution is below sqrt(Depth) and grows by a quarter until
// u_K < Depth (1e-15) or K = MaxLevels (4096; reached by the power-law tails
// of Lomax service with alpha < 2).
//
// Its stated Accuracy is the sum of three estimates: the iteration error
// Residual q/(1-q) (q the measured rate), the truncation error (the change
// of U from the previous, smaller K: an a posteriori estimate), and the
// quadrature error (the change of T(U) under a kernel twice as fine, plus
// what the left-out Poisson weights could carry, over 1-q). At lambda = 0.9,
// d = 2 it is about 1e-11 for exponential, deterministic, bimodal and Lomax
// (alpha 3, 2) service, in milliseconds, and about 4e-4 (the truncation) for
// Lomax alpha = 1.5 in about 2 seconds.
//
// # The simulation-based solver (Options.Simulate, the cross-check)
//
// The single queue is simulated event by event, exactly: the arrival rate changes
// only at arrivals and departures, so the time to the next arrival is drawn
// exponential with the current rate after every event; the requirement of the
// task entering service is drawn when service starts (FIFO: it is independent
// of everything before). The queue length's time-average over a run is the
// estimate of T(u). Each evaluation runs Options.Replications independent
// replications (streams mc.Stream(Seed, iteration, replication), the same as
// lbsim.Stream, so results do not depend on the number of workers), each
// started from a length drawn from u and with a warmup of a tenth of its
// length; their spread gives the standard error SE_n of every level.
//
// The iteration starts from the exponential solution and is damped,
// u <- (1-a) u + a T(u) (a = Options.Damping, 0.8 by default). Early
// iterations use short runs (Horizon/64, doubling each iteration) since the
// step then dwarfs the noise. At the full horizon it stops once the residual
// |T(u)_n - u_n| is within Z = 3 standard errors (plus Tol) at every level,
// then continues for Options.Average iterations and returns the mean of their
// outputs T(u).
//
// Its Accuracy = 3 max_n SE_n + Bias (Bias the sup-norm of the mean residual
// over the averaged iterations) does not bound its distance to the fixed
// point. The map contracts slowly (rate q near 0.8 undamped, 1 - 0.8(1-q)
// damped), so a residual within the noise leaves the iterate up to
// residual/(1-q), several times the residual, from the fixed point, and the
// runs, started from the previous guess, carry their start into the average;
// against the exact solver it is low by 0.0063 on u_4 for Lomax (alpha 3)
// service at lambda = 0.9 with the defaults (0.3997 against 0.40599), four
// times its stated accuracy of 0.0015 (notebook 04, section 1). The tail is truncated where u_n < Tol (1e-6);
// beyond the last level the queue keeps the last arrival rate
// lambda u_K^(d-1).
package cavity
