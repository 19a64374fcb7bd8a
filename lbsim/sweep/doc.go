// Package sweep runs parameter sweeps of any model of package model (the
// dispatch simulator of `lbsim run` by default), on one machine or sharded
// over a cluster (Slurm job arrays, Kubernetes indexed Jobs), and merges their
// outputs into tidy CSV files with provenance.
//
// # The sweep file
//
// A sweep is a JSON object (or YAML, converted to JSON first):
//
//	{"name": "jsqd-finite-n", "seed": 1, "replications": 20,
//	 "base": {"policy": "jsqd", "d": 2, "horizon": 2000},
//	 "axes": [{"servers": [10, 100, 1000]},
//	          {"lambda": {"from": 0.5, "to": 0.9, "step": 0.2}},
//	          {"policy": ["jsq", "jsqd"], "d": [null, 2]}]}
//
// "model" names the model (package model; absent: "dispatch", whose keys are
// those of an `lbsim run` scenario file, lbsim.Keys). base is a scenario with
// the model's keys, except seed and replications, which the sweep sets.
// Each axis is an object of one or more such keys with their lists of
// values; the lists of one axis are zipped (same length), the axes are
// combined by Cartesian product with the last axis varying fastest. A list
// is a JSON array of values of the key's type, or a range: {"from", "to",
// "step"} (from, from+step, ... up to to, rounded to 12 significant digits)
// or {"from", "to", "count"} with "scale": "linear" (default) or "log". A null
// value leaves the key out of the point, so its default applies. Keys are
// checked against the model's declarations (package param), so a key a
// model or policy declares works in sweeps at once. Spec.Points expands the sweep and validates every point
// with the strict scenario parser before anything runs; an error names the
// point (its index and axis values) and the parameter.
//
// # Seeds
//
// The scenario of a point is base with the point's axis values merged in.
// Its canonical JSON (CanonicalJSON: keys sorted, nulls dropped, numbers in
// one spelling) identifies it: Point.Key is its SHA-256, and the point's seed
// is
//
//	PointSeed(root, canon) = first 8 bytes (big-endian) of
//	    SHA-256("lbsim-sweep-seed/v1" || 0x00 || root as 8 bytes big-endian || canon)
//
// (for a model other than dispatch, the scenario object includes "model",
// so two models draw different numbers for the same keys). So a point's
// seed depends only on the root seed and its scenario: not on
// the other points, the order of the axes, whether a value came from base or
// an axis, or how a number is spelled (0.50, 5e-1, 0.5). The replications are
// not part of the key: replication r of a point draws from
// mc.Stream(seed, r) as in any run, so adding replications keeps the
// existing ones, and `lbsim run` with the point's scenario and --seed SEED
// gives the point's numbers again. Any subset of points can be rerun and
// gives the same bytes.
//
// # Running, sharding and atomic writes
//
// Run computes the points of one shard: shard i of n has the points whose
// index is i modulo n (round robin, so that slow and fast points spread over
// the shards). ShardFromEnv reads the shard of a Slurm job array task
// (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT) or of
// a Kubernetes indexed Job (JOB_COMPLETION_INDEX, of a count the Job passes).
// Points run in parallel on the cores, and a point's replications too when
// fewer points than cores are left; results do not depend on the number of
// workers. A unit of work is a point with all its replications.
//
// The output directory holds sweep.json (the sweep; a directory belongs to
// one sweep, and every shard checks it) and points/point-NNNNNN.json, one
// PointRecord per finished point: its index, key, seed, axis values, the
// model's full result (for dispatch, the lbsim.Result JSON), its figures
// (package model) summary and per replication, the code
// Version, host, shard, command and timings. Each file is written to a
// temporary file in the same directory, synced, and renamed into place, so a
// point file is complete or absent: a killed or requeued task loses at most
// its points in flight. With Options.Resume, finished points are skipped
// (and a killed writer's temporary files removed); without it, a finished
// point of the shard is an error (ErrConflict), as are a point file of
// another scenario or seed, or another sweep's directory.
//
// # Merging and provenance
//
// Merge gathers the point files of all shards into one tidy CSV: one row per
// point and replication (columns point, replication, the axis keys, seed,
// then the model's per-replication figures; a point computed without
// replications, whose figures carry no confidence interval, such as
// admission without simulation, gives one row with an empty replication
// cell) or, with Summary, one row per
// point with the model's summary figures. Figures become columns as package
// model says: a scalar is a column (and NAME_ci95 with a half-width), a
// vector the columns NAME1..NAMEK padded to the longest. For dispatch these
// are engine_used, events, mean_tasks_per_server, mean_sojourn,
// wait_probability, max_queue_length, q1..qK per replication, and in the
// summary the means over replications with their 95% Student-t half-widths
// (*_ci95) and the pooled sojourn quantiles (sojourn_p50, ...); q_i beyond
// the largest queue ever seen is 0. Numbers are written in Go's
// shortest round-trip form and no wall-clock figure enters the CSV, so the
// same sweep gives the same bytes on a laptop and on a cluster. Merge refuses
// missing points (IncompleteError lists each with its axis values) and points
// computed by different code (MixedError) unless told otherwise. Code is
// identified by Version: module version and VCS revision from the build
// information, Go version, and the SHA-256 of the executable, compared when
// the revision is missing (-buildvcs=false) or the tree was modified. The
// provenance sidecar (FILE.provenance.json, Provenance) records the sweep,
// the code versions, the merge and sweep command lines, hosts, shards,
// timings and any missing points.
//
// # Loading
//
// LoadCSV reads a merged CSV into a Table for notebooks:
//
//	t, err := sweep.LoadCSV("../data/01-jsqd-finite-n.csv")
//	soj, err := t.Where("servers", "100").Where("lambda", "0.9").Floats("mean_sojourn")
//
// LoadProvenance reads its sidecar.
package sweep
