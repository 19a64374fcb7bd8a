// Package flows simulates packets that belong to flows, the model of Liang
// and Borst's trade-off between flow stickiness and packet delay in
// data-centre load balancing ("Fundamental trade-off between stickiness and
// delay", seed 002: static hashing of a flow's five-tuple keeps all its
// packets on one server but balances poorly; per-packet JSQ balances well
// but breaks stickiness; relaxing stickiness by a minuscule amount clips the
// delay tail; bins give a middle way). The paper's exact figure parameters
// are not known here: the model below is stated in full, and the notebook
// 08-flow-stickiness chooses its own.
//
// # Model
//
// N servers serve packets one at a time, FIFO, with service requirements
// of mean 1: exponential by default, or any law of lbsim/service (a
// packet's delay is its sojourn: wait plus service). Server i serves at rate
// mu_i (rates; 1 by default): a requirement S takes S/mu_i. As in the
// dispatch simulator the rates are absolute, not normalised. A load with
// lambda*N at or above their sum is refused (unstable under every policy),
// and under static hashing, which sends every server packets at rate lambda,
// so is lambda at or above any rate (the message names the server). No
// other condition is checked, as in the dispatch simulator: queue-length
// rules that sample few queues can be unstable below the sum when the rates
// are far apart (jsqd with d = 1 routes every packet uniformly, so it is
// unstable once lambda reaches any rate, and is not refused). The dispatchers still compare queue
// lengths (packets), not lengths over rates, as the dispatch simulator's
// policies do. Flows arrive
// in a Poisson stream of rate lambda*N/m; a flow is a sequence of K packets,
// the first at the flow's arrival and each next one after an exponential
// gap of rate r (packet_rate). K is geometric with mean m (each packet is
// the last with probability 1/m; the default), exactly m (flow_size
// fixed), or any discrete law (flow_size pmf:K=W,..., ParseSizeLaw; m is
// its mean). So packets arrive at rate lambda*N (lambda < 1 with unit
// rates), and the flows in
// progress (sent a packet, more to come) number lambda*N*(m-1)/(m*r) on
// average. m = 1 is the ordinary supermarket model.
//
// The dispatcher routes each packet:
//
//   - static: a flow is hashed to a uniformly random server on arrival and
//     all its packets go there (no state: the hash is the table);
//   - jsq, jsqd: each packet independently joins the shortest of all queues
//     or of d distinct random ones (ties uniformly at random);
//   - sticky: a flow keeps its server unless that queue holds at least T
//     packets (threshold, counting the one in service) when a packet comes;
//     the packet then joins the shortest of d random queues (d = N, the
//     default: of all) if that one is strictly shorter, and the flow stays
//     on its new server. A dispatcher needs a table entry only for the
//     flows in progress away from their hashed server (table_size);
//   - bins: flows hash to one of B bins (uniformly), bin b starting at
//     server b mod N; when a packet finds its bin's server holding at least
//     T packets, the bin is remapped to the shortest of d random queues (or
//     of all) if strictly shorter, which moves every flow of the bin; with
//     bin_remap_rate > 0 (the periodic rule) each bin is also remapped so at
//     the epochs of its own Poisson clock of that rate, whatever the
//     threshold (a Poisson clock keeps the chain Markov; threshold 2^30 makes
//     it the only rule). The table is the B bins.
//
// A packet is moved when it goes to another server than its flow's
// previous packet; a flow is violated when its packets go to more than one
// server.
//
// # Measurements
//
// After a warm-up, over [warmup, horizon]: the delay of every packet that
// arrives in the window (the replication then serves the packets left,
// without further arrivals: under FIFO later packets do not change earlier
// delays), its mean and its exact quantiles: every delay is recorded (8
// bytes each, at most MaxRecords per replication, which the options are
// checked against before anything runs) and the quantile at level p is the
// ceil(p*n)-th smallest of the n delays (selection, then a sort of the
// values above the lowest level asked for). The moved-packet fraction is
// moved packets over packets arriving in the window; the violated-flow
// fraction is the flows first violated in the window over the flows
// arriving in it, which in steady state is the probability that a flow is
// violated (rate conservation: flows become violated at rate (flow rate) x
// P(violated)), without waiting for the flows in progress to end. The
// occupancy q_i is the time-average fraction of servers with at least i
// packets. Replication r draws from mc.Stream(seed, r); means over
// replications come with Student-t 95% half-widths.
//
// Each replication starts with empty queues and the flows in progress at
// their stationary law (a Poisson number; for fixed sizes each with a
// uniform number of packets to come), so long flows need no long warm-up
// to fill in.
//
// # Engine
//
// With exponential service the chain is continuous-time Markov: the next event comes after an
// exponential time of rate lambda*N/m + r*(flows in progress) + (busy
// servers) and is a new flow, a packet of a uniformly chosen flow in
// progress, or the departure of a uniformly chosen busy server's packet.
// With rates the departures come at the total rate of the busy servers:
// with equal rates mu times their number, the departing server drawn as
// without rates (so rates all 1 give the same draws and bytes as none);
// with unequal rates the busy servers' rates sit in a Fenwick tree (the
// dispatch simulator's sampler, lbsim/internal/fenwick), from which the
// departing server is drawn with probability proportional to its rate in
// O(log N).
// Per server the engine keeps the queue length and a ring of its packets'
// arrival times; flows in progress sit in a dense array (16 bytes each,
// removed by swapping with the last), so memory follows the packets and
// flows present, never the flows finished. JSQ over all servers keeps the
// servers sorted by queue length (a permutation with the start of each
// level), so the shortest is found in O(1).
//
// Any other service law runs an event-driven engine: under FIFO a packet's
// departure is known when it arrives (it starts when the packet ahead of it
// leaves and takes a drawn service time), so its delay is recorded then and
// the rings hold departure times; the busy servers sit in a heap keyed by
// their next departure, and the arrivals, Poisson at a rate that changes only
// at events, are redrawn after every event.
//
// # Exact solutions
//
// Static hashing makes the servers independent for every N (each receives
// an independent Poisson stream of flows of rate lambda/m), and with
// geometric sizes a server is the quasi-birth-death process of (queue
// length Q, flows in progress F): packets arrive at rate lambda/m + r*F,
// a new flow stays in progress with probability 1-1/m, a flow in progress
// ends at each of its packets with probability 1/m. StaticExact solves it
// by the matrix-geometric method (F truncated where its Poisson law leaves
// less than 1e-13), and the delay law from the queue a packet finds: under
// FIFO it waits k+1 exponential services when it finds k packets. As r
// grows the flows become batches (the M^X/M/1 queue with geometric batches:
// P(Q >= n) = lambda (1 - (1-lambda)/m)^(n-1), mean delay m/(1-lambda)).
// With per-server rates the servers stay independent under static hashing,
// each receiving packets at rate lambda, and server i is the same chain with
// its clock run mu_i times faster: StaticExactRates solves it at load
// lambda/mu_i and packet rate r/mu_i, divides its delays by mu_i and mixes
// the servers' delay laws with equal weights (a packet goes to each server
// with probability 1/N); with one packet per flow that is the mixture of
// M/M/1 delays, exponential of rate mu_i - lambda.
// The tests also solve the chain of two servers with flows for per-packet
// JSQ and sticky, state (Q1, Q2, flows by last server and violated or
// not), against which the simulation's delay, moved and violated fractions
// are checked.
package flows
