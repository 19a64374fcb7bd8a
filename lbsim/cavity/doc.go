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
// # The method
//
// Under FIFO, T has no closed form, so Predict evaluates it by simulation. The
// single queue is simulated event by event, exactly: the arrival rate changes
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
// # Accuracy
//
// Prediction.SE is the standard error of the averaged output (per-iteration SE
// over sqrt(Average)). Prediction.Bias is the sup-norm of the mean residual
// T(u) - u over the averaged iterations: if the iteration had not quite
// settled, this is how far it was from a fixed point. Prediction.Accuracy =
// 3 max_n SE_n + Bias is the stated sup-norm accuracy of U as an
// approximation of the exact fixed point; it says nothing about how well the
// fixed point describes a finite system (the ansatz is a large-N limit). The
// tail is truncated where u_n < Tol (1e-6); beyond the last level the queue
// keeps the last arrival rate lambda u_K^(d-1), an over-estimate of lambda_n
// that keeps the simulated queue from being capped.
//
// With the defaults (4e6 time units per iteration at full horizon, 8
// replications, 8 averaged iterations) at lambda = 0.9, d = 2 the
// accuracy is about 5e-4 for exponential, 1e-3 for deterministic and
// 2e-3 for bimodal (scv 4) and Lomax (alpha 3) service, in 2 to 20 seconds
// on two cores. With infinite-variance service (Lomax alpha <= 2) the runs mix
// slowly and the accuracy is about 1e-2.
package cavity
