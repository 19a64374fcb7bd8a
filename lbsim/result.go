package lbsim

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// Result is what a run measured: means over replications with 95% confidence
// half-widths (Student t over replications; NaN with a single replication).
// The json tags are the keys `lbsim run` prints (MarshalJSON).
type Result struct {
	// Scenario is the scenario after defaults: Run(ctx, res.Scenario), or its
	// JSON form as a scenario file, reproduces the result.
	Scenario Scenario `json:"scenario"`
	// Policy is the policy's name; Engine the engine that ran.
	Policy string `json:"policy"`
	Engine Engine `json:"engine"`

	Replications int `json:"replications"`
	// Events counts arrivals and departures over all replications.
	Events          int64   `json:"events"`
	WallSeconds     float64 `json:"wall_seconds"`
	EventsPerSecond float64 `json:"events_per_second"`

	// Occupancy[i-1] is the time-average q_i over [warmup, horizon]: the
	// fraction of servers with at least i tasks.
	Occupancy     []float64 `json:"occupancy"`
	OccupancyCI95 []float64 `json:"occupancy_ci95"`
	// MeanTasksPerServer is sum_i q_i.
	MeanTasksPerServer     float64 `json:"mean_tasks_per_server"`
	MeanTasksPerServerCI95 float64 `json:"mean_tasks_per_server_ci95"`
	// MeanSojourn is the mean time in system of tasks arriving after the warmup.
	// Service is exponential and FIFO, so a task that joins a queue of length l at
	// a server of rate mu stays (l+1)/mu on average whatever happens later; the
	// estimator averages these conditional means (lower variance than the
	// sampled sojourns, same expectation). On EngineGeneral it is the mean of
	// the actual sojourn times of the tasks arriving in (warmup, horizon],
	// including those that leave after the horizon (see runGeneral).
	MeanSojourn     float64 `json:"mean_sojourn"`
	MeanSojournCI95 float64 `json:"mean_sojourn_ci95"`
	// WaitProbability is the fraction of tasks that joined a busy server.
	WaitProbability     float64 `json:"wait_probability"`
	WaitProbabilityCI95 float64 `json:"wait_probability_ci95"`
	// SojournQuantiles are quantiles of the sojourn-time distribution of tasks
	// arriving after the warmup, pooled over replications: the exact mixture of
	// Erlang(l+1, mu) laws weighted by the observed counts of (l, mu) at
	// arrival. Nil with more than 256 distinct service rates. On EngineGeneral
	// they come from a log-bucketed histogram of the actual sojourn times
	// (buckets 0.8% wide, midpoints reported: within 0.4%).
	SojournQuantiles []Quantile `json:"sojourn_quantiles"`
	// MaxQueueLength is the largest queue length seen in any replication.
	MaxQueueLength int `json:"max_queue_length"`
	// Trajectory is q_i(t) on the grid, when Scenario.Grid > 0.
	Trajectory *Trajectory `json:"-"`
	// LevelLaws are the laws of q_L for L in Scenario.LawLevels.
	LevelLaws []LevelLaw `json:"level_laws,omitempty"`
	// PerReplication holds each replication's own figures, in order.
	PerReplication []ReplicationResult `json:"per_replication"`
}

// Quantile is a point of a distribution: P(X <= Value) = P.
type Quantile struct {
	P     float64 `json:"p"`
	Value float64 `json:"value"`
}

// Trajectory is the occupancy on a time grid: Occupancy[k][i-1] is q_i at
// Times[k], the mean over replications, and CI95 its confidence half-width.
type Trajectory struct {
	Times     []float64   `json:"times"`
	Occupancy [][]float64 `json:"occupancy"`
	CI95      [][]float64 `json:"occupancy_ci95"`
}

// ReplicationResult holds one replication's figures.
type ReplicationResult struct {
	Events             int64     `json:"events"`
	Occupancy          []float64 `json:"occupancy"`
	MeanTasksPerServer float64   `json:"mean_tasks_per_server"`
	MeanSojourn        float64   `json:"mean_sojourn"`
	WaitProbability    float64   `json:"wait_probability"`
	MaxQueueLength     int       `json:"max_queue_length"`
}

// sojournQuantileLevels are the probabilities at which sojourn quantiles are reported.
var sojournQuantileLevels = []float64{0.5, 0.9, 0.99, 0.999}

func summarize(sc *Scenario, engine Engine, reps []*replication) *Result {
	res := &Result{
		Scenario:     *sc,
		Policy:       sc.Policy.Name(),
		Engine:       engine,
		Replications: len(reps),
	}
	var tasks, soj, wait []float64
	levels := 0
	for _, rep := range reps {
		o := rep.obs
		q := o.occupancy()
		rr := ReplicationResult{
			Events:          rep.events,
			Occupancy:       q,
			MeanSojourn:     math.NaN(),
			WaitProbability: math.NaN(),
			MaxQueueLength:  o.maxLen,
		}
		for _, x := range q {
			rr.MeanTasksPerServer += x
		}
		if o.arrivals > 0 {
			rr.MeanSojourn = o.sojournSum / float64(o.arrivals)
			rr.WaitProbability = float64(o.waited) / float64(o.arrivals)
		}
		res.PerReplication = append(res.PerReplication, rr)
		res.Events += rep.events
		res.MaxQueueLength = max(res.MaxQueueLength, o.maxLen)
		levels = max(levels, len(q))
		tasks = append(tasks, rr.MeanTasksPerServer)
		soj = append(soj, rr.MeanSojourn)
		wait = append(wait, rr.WaitProbability)
	}
	res.Occupancy = make([]float64, levels)
	res.OccupancyCI95 = make([]float64, levels)
	col := make([]float64, len(reps))
	for i := range levels {
		for k, rr := range res.PerReplication {
			col[k] = at(rr.Occupancy, i)
		}
		res.Occupancy[i], res.OccupancyCI95[i] = MeanCI95(col)
	}
	res.MeanTasksPerServer, res.MeanTasksPerServerCI95 = MeanCI95(tasks)
	res.MeanSojourn, res.MeanSojournCI95 = MeanCI95(soj)
	res.WaitProbability, res.WaitProbabilityCI95 = MeanCI95(wait)
	res.SojournQuantiles = sojournQuantiles(reps)
	if sc.Grid > 0 {
		res.Trajectory = meanTrajectory(sc, reps)
	}
	if len(sc.LawLevels) > 0 {
		res.LevelLaws = levelLaws(sc, reps)
	}
	return res
}

func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return 0
}

// MeanCI95 returns the mean of independent replications xs and the half-width
// of its 95% confidence interval: it is mc.MeanCI95 (Student t from gonum; the
// half-width is NaN for fewer than two values, both are NaN when xs is empty
// or holds a NaN).
func MeanCI95(xs []float64) (mean, half float64) { return mc.MeanCI95(xs) }

// meanTrajectory averages the replications' grid samples.
func meanTrajectory(sc *Scenario, reps []*replication) *Trajectory {
	points := len(reps[0].obs.traj)
	levels := 0
	for _, rep := range reps {
		points = min(points, len(rep.obs.traj))
		for _, row := range rep.obs.traj {
			levels = max(levels, len(row))
		}
	}
	tr := &Trajectory{
		Times:     make([]float64, points),
		Occupancy: make([][]float64, points),
		CI95:      make([][]float64, points),
	}
	col := make([]float64, len(reps))
	for k := range points {
		tr.Times[k] = float64(k) * sc.Grid
		tr.Occupancy[k] = make([]float64, levels)
		tr.CI95[k] = make([]float64, levels)
		for i := range levels {
			for r, rep := range reps {
				col[r] = at(rep.obs.traj[k], i)
			}
			tr.Occupancy[k][i], tr.CI95[k][i] = MeanCI95(col)
		}
	}
	return tr
}

// sojournQuantiles inverts the pooled sojourn-time distribution: a task that
// joined a queue of length l at a server of rate mu stays Erlang(l+1, mu).
func sojournQuantiles(reps []*replication) []Quantile {
	type component struct {
		w   float64
		law distuv.Gamma
	}
	pooled := map[[2]float64]float64{}
	total := 0.0
	for _, rep := range reps {
		if rep.obs.seen == nil || rep.mus == nil {
			return nil
		}
		for c, counts := range rep.obs.seen {
			for l, k := range counts {
				if k > 0 {
					pooled[[2]float64{float64(l + 1), rep.mus[c]}] += float64(k)
					total += float64(k)
				}
			}
		}
	}
	if total == 0 {
		return nil
	}
	keys := make([][2]float64, 0, len(pooled))
	for key := range pooled {
		keys = append(keys, key)
	}
	// A fixed order keeps the sums, and so the bytes, reproducible.
	slices.SortFunc(keys, func(a, b [2]float64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	var mix []component
	hi := 0.0
	for _, key := range keys {
		w := pooled[key]
		law := distuv.Gamma{Alpha: key[0], Beta: key[1]}
		mix = append(mix, component{w / total, law})
		hi = math.Max(hi, law.Quantile(0.99999))
	}
	cdf := func(x float64) float64 {
		s := 0.0
		for _, c := range mix {
			s += c.w * c.law.CDF(x)
		}
		return s
	}
	var out []Quantile
	for _, p := range sojournQuantileLevels {
		lo, up := 0.0, hi
		for up < math.MaxFloat64/4 && cdf(up) < p {
			up *= 2
		}
		for range 100 {
			mid := (lo + up) / 2
			if cdf(mid) < p {
				lo = mid
			} else {
				up = mid
			}
			if up-lo <= 1e-12*up {
				break
			}
		}
		out = append(out, Quantile{P: p, Value: (lo + up) / 2})
	}
	return out
}

// Q returns the time-average q_i: 1 for i <= 0, Occupancy[i-1] for the
// levels measured, 0 above them (no server reached level i).
func (r *Result) Q(i int) float64 {
	switch {
	case i <= 0:
		return 1
	case i > len(r.Occupancy):
		return 0
	}
	return r.Occupancy[i-1]
}
