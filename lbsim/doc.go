// Package lbsim simulates large-scale load balancing: N single-server queues
// fed by one stream of tasks that a dispatch policy spreads over the servers.
//
// # The model
//
// Tasks arrive as a Poisson process of rate lambda*N. Each task appears at an
// origin server (uniform, or in proportion to Scenario.OriginWeights), which
// only graph-based policies look at, and the Policy sends it to one server.
// Server j serves its queue in FIFO order with exponential service times of rate
// mu_j (Scenario.Rates; 1 by default). A queue's length counts the task in
// service. The state is a continuous-time Markov chain, simulated exactly one
// event (arrival or departure) at a time.
//
// With Scenario.Service set (any law from package service; a server of rate
// mu_j serves a requirement S in S/mu_j) or Scenario.Discipline PS or LIFOPR,
// the general engine runs instead: an event heap of each busy server's next
// completion, FIFO with departure times fixed at arrival, PS by per-server
// virtual time, LIFO-PR by per-server stacks of remaining work, and sojourn
// times measured per task. Policies see the same State (queue lengths; and
// State.Workload for JSWd).
//
// The occupancy q_i = C_i/N, where C_i is the number of servers with at least i
// tasks, is the quantity the mean-field and diffusion limits describe. The
// engines maintain the C_i in O(1) per event and integrate them over time, so
// Result.Occupancy is an exact time average over [warmup, horizon] and
// Result.Trajectory samples q_i(t) on a grid. Individual queues are followed
// by wrapping the policy in a Tagger (TagQueues): it traces every change of
// the lengths of servers 0..k-1, from which TagLog gives the joint law of two
// tagged queues and the arrival gaps at one queue given its own length (the
// asymptotic independence and the Poisson arrivals of the cavity ansatz).
//
// # Policies
//
// A Policy returns a server for each arrival, reading the State (queue lengths,
// counts, a random idle or shortest server in O(1)) and drawing from the random
// stream it is given. Built in, one file each: Random (JSQ(1)), JSQ, JSQd (power
// of d, with or without replacement), JIQ, JIQd, RoundRobin; on a graph (package
// graph) NeighbourJSQ (and NeighbourJSQFirstIdle), NeighbourJSQd, and NBRWJSQd /
// WalkJSQd (d persistent non-backtracking or simple random walkers, whose
// positions are the candidates: Tang-Subramanian); under compatibility
// constraints between servers and task types (package compat) CompatJSQd and
// CompatJSQ (Rutten-Mukherjee); JSWd (least workload of d); JBT (join below
// threshold); and PairJSQ (power-of-two under non-uniform pair sampling,
// package pairs: Cardinaels-Borst-van Leeuwaarden). Users write
// their own by implementing the two methods of Policy, in a notebook if they
// like; optional interfaces add what a policy can do:
//
//   - Preparer: per-replication state and validation against the system;
//   - NeedsDeclarer: declares what the policy needs (Needs: the origin
//     server of each task, the servers kept sorted so that RandomShortest is
//     O(1), the workloads);
//   - ExactRouter (and StatefulRouter): states the exact routing distribution,
//     which package exact uses to solve small systems exactly;
//   - OccupancyRouter: routing depends only on the counts C_i, so the
//     occupancy-level engine can simulate it with a cost per event independent
//     of N (N = 10^9 is routine).
//
// JSQ(d), with or without replacement, and Random also run on request on the
// uniformized engine (EngineUniformized): the same counts, uniformized at the
// constant rate N (lambda + mu), one draw per event and no clock (see
// runUniformized); equal in law, not in bytes, to the other engines. JSQ(2)
// on at most 2^20 servers runs that chain on per-server queue lengths (a
// loop of one draw and no branch per step, engine_uniformized_servers.go),
// on the uniformized engine and, with equal service rates, on the per-server
// engine too.
//
// # Runs and reproducibility
//
// Run executes Scenario.Replications independent replications in parallel on
// all cores. Replication r draws every random number from Stream(Seed, r), so
// the same scenario gives the same bytes whatever the number of cores. Results
// carry 95% confidence half-widths from Student's t over replications. The
// streams and the intervals live in the leaf package lbsim/mc (mc.Stream,
// mc.Source, mc.MeanCI95), which the theory packages use without the
// simulator; Stream and MeanCI95 here are the same functions. Runs
// stop on context cancellation and report Progress.
//
// # Scenarios and keys
//
// Scenario is the one description of a run, in Go and as a file. Its keys
// (servers, lambda, policy, d, ..., the JSON keys of scenario files and the
// flags of `lbsim run`) are declared once, in Keys (package param): name,
// type, default, allowed range, doc, and the policies that use them. Files,
// flags, sweeps, defaults, checks (one message per key), help and the README
// tables come from those declarations. A policy registered by name
// (RegisterPolicy) declares the keys it brings and lists those it uses; a
// policy with a new key is one file. json.Marshal(res.Scenario) is a
// scenario file that reproduces the run (ParseScenario reads it back), and
// Run(ctx, res.Scenario) reproduces it in Go. ScenarioFromKeys builds a
// scenario from keys in Go. Dispatch is this simulator as a model of package
// model, the experiment layer that sweeps run by name.
//
// # Packages
//
// Imports point down: cmd/lbsim -> sweep, kernelhelpers -> lbsim and the
// theory packages -> shared leaves. lbsim/mc (random streams, confidence
// intervals), lbsim/param (key declarations), lbsim/model (models and
// figures), lbsim/service (service laws), lbsim/graph and lbsim/compat
// import nothing of the simulator; meanfield and cavity need only those
// leaves; exact needs lbsim's policy interfaces; lbsim/sweep needs only
// model and param (a model registers itself when its package is imported).
// The engines' fast internals (ziggurat exponentials, bounded draws, alias
// tables, the Fenwick tree of busy rates, the event heap, the shared draw of
// d distinct servers, CSR sorting) live under lbsim/internal.
package lbsim
