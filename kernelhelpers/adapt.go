package kernelhelpers

// Adapters: lbsim and meanfield results turned into the plain series, tables
// and progress updates of the rest of the package (plot.go, table.go,
// progress.go), which know nothing of lbsim.

import (
	"errors"
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim"
)

// Run is one occupancy trajectory: Occupancy[k][i-1] is q_i at Times[k], and
// CI95 (optional, same shape) its 95% confidence half-width. It is the layout
// of lbsim.Trajectory and of meanfield.Trajectory's Y.
type Run struct {
	Name      string
	Times     []float64
	Occupancy [][]float64
	CI95      [][]float64
}

// Traj makes a Run from an lbsim trajectory (Result.Trajectory).
func Traj(name string, tr *lbsim.Trajectory) Run {
	if tr == nil {
		return Run{Name: name}
	}
	return Run{Name: name, Times: tr.Times, Occupancy: tr.Occupancy, CI95: tr.CI95}
}

// Curve is a named sequence: for Stationary, Values[i-1] = P(queue >= i).
type Curve struct {
	Name   string
	Values []float64
}

// ResultTail is the series q_i against i of an lbsim result, with its 95%
// half-widths, for Tails.
func ResultTail(name string, res *lbsim.Result) Series {
	if res == nil {
		return Series{Name: name}
	}
	s := Tail(name, res.Occupancy)
	if len(res.OccupancyCI95) == len(res.Occupancy) {
		s.CI95 = append([]float64(nil), res.OccupancyCI95...)
	}
	return s
}

// LevelSeries splits a run into one series per level: q_i(t) for i = 1..levels,
// named "q₁", "q₂", ... (prefixed with the run's name), with the run's
// half-widths. Level i takes palette colour i-1, so the levels of several runs
// and of a mean-field overlay match.
func LevelSeries(r Run, levels int) []Series {
	out := make([]Series, 0, levels)
	for i := 1; i <= levels; i++ {
		s := Series{Name: "q" + subscript(i), X: r.Times, Y: make([]float64, len(r.Times)), Color: color(i - 1)}
		if r.Name != "" {
			s.Name = r.Name + " " + s.Name
		}
		for k := range r.Times {
			if k < len(r.Occupancy) {
				s.Y[k] = at(r.Occupancy[k], i-1)
			} else {
				s.Y[k] = math.NaN()
			}
		}
		if len(r.CI95) >= len(r.Times) {
			s.CI95 = make([]float64, len(r.Times))
			for k := range r.Times {
				s.CI95[k] = at(r.CI95[k], i-1)
			}
		}
		out = append(out, s)
	}
	return out
}

func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return math.NaN()
}

// Trajectory plots q_i(t), i = 1..k, of one lbsim trajectory with its 95%
// band. Typical use: kernelhelpers.Trajectory(res.Trajectory).Display().
func Trajectory(tr *lbsim.Trajectory, options ...Option) *Chart {
	return Trajectories([]Run{Traj("", tr)}, options...)
}

// Trajectories plots q_i(t) of several runs: one colour per level i; the first
// run solid, the others dotted with markers. A MeanField option overlays the
// mean-field solution as dashed lines in the level's colour; runs with CI95
// get a shaded 95% band unless NoBand is given. It converts the runs with
// LevelSeries and draws them with Lines.
func Trajectories(runs []Run, options ...Option) *Chart {
	options = append([]Option{XLabel("time t"), YLabel("qᵢ(t): fraction of servers with ≥ i tasks")}, options...)
	c := newConfig(options)
	if !c.logY || c.linearY {
		// Occupancies are fractions; keeps bands from pushing the axis below 0.
		options = append([]Option{YMin(0)}, options...)
	}
	fail := func(err error) *Chart { return plot("traj", "", "", false, nil, newConfig(options)).withErr(err) }
	if len(runs) == 0 {
		return fail(errors.New("kernelhelpers.Trajectories: no runs"))
	}
	levels := c.levels
	if levels <= 0 {
		for _, r := range runs {
			for _, row := range r.Occupancy {
				for i, q := range row {
					if q >= 1e-3 && i+1 > levels {
						levels = i + 1
					}
				}
			}
		}
		levels = max(1, min(levels, 8))
	}
	symbols := []string{"circle", "triangle", "rect", "diamond", "pin"}
	var series []Series
	for ri, r := range runs {
		if len(r.Times) == 0 || len(r.Occupancy) < len(r.Times) {
			return fail(fmt.Errorf("kernelhelpers.Trajectories: run %d (%q) has %d times and %d occupancy rows (nil trajectory? set Scenario.Grid > 0)",
				ri, r.Name, len(r.Times), len(r.Occupancy)))
		}
		for _, s := range LevelSeries(r, levels) {
			s.Marker = "none"
			if ri > 0 {
				s.Dash = "dotted"
				if len(r.Times) <= 60 {
					s.Marker = symbols[(ri-1)%len(symbols)]
				}
			}
			series = append(series, s)
		}
	}
	if c.mfTimes != nil {
		if len(c.mfOccupancy) < len(c.mfTimes) {
			return fail(fmt.Errorf("kernelhelpers.MeanField: %d times but %d rows", len(c.mfTimes), len(c.mfOccupancy)))
		}
		for _, s := range LevelSeries(Run{Times: c.mfTimes, Occupancy: c.mfOccupancy}, levels) {
			s.Name, s.Reference, s.Marker = c.mfName, true, "none"
			series = append(series, s)
		}
	}
	return plot("traj", "", "", false, series, newConfig(options))
}

// Stationary plots P(queue ≥ i) against i on a log scale, for each policy in
// sim (solid, filled markers) next to theory (dashed, hollow markers); sim[j]
// and theory[j] share a colour. Values ≤ 0 are left out (log axis). Result.Occupancy
// and the meanfield fixed points are in this form. It is Tails of the curves
// (ResultTail gives a result's curve with its confidence band).
func Stationary(sim, theory []Curve, options ...Option) *Chart {
	var series []Series
	for j, cv := range sim {
		s := Tail(cv.Name, cv.Values)
		s.Color = color(j)
		series = append(series, s)
	}
	for j, cv := range theory {
		s := Reference(Tail(cv.Name, cv.Values))
		s.Color = color(j)
		series = append(series, s)
	}
	if len(series) == 0 {
		return Tails(nil, options...).withErr(errors.New("kernelhelpers.Stationary: no curves"))
	}
	return Tails(series, options...)
}

// ResultsTable tabulates lbsim results, one row each: policy, N, lambda, mean
// tasks per server, mean sojourn and waiting probability with 95% half-widths.
func ResultsTable(results []*lbsim.Result, options ...Option) *Table {
	rows := make([][]any, 0, len(results))
	for _, r := range results {
		if r == nil {
			continue
		}
		rows = append(rows, []any{r.Policy, r.Scenario.Servers, r.Scenario.Lambda,
			PlusMinus(r.MeanTasksPerServer, r.MeanTasksPerServerCI95),
			PlusMinus(r.MeanSojourn, r.MeanSojournCI95),
			PlusMinus(r.WaitProbability, r.WaitProbabilityCI95),
			r.Replications})
	}
	return NewTable([]string{"policy", "N", "λ", "tasks per server", "mean sojourn", "P(wait)", "replications"}, rows, options...)
}

// Update takes an lbsim progress report, as lbsim.Scenario.Progress:
// sc.Progress = bar.Update. Reports may come out of order from
// several goroutines: the bar never moves backwards, and it completes when all
// replications are done (or Fraction reaches 1).
func (b *Bar) Update(p lbsim.Progress) {
	// A run is done when every replication is counted: the last replication
	// reports a fraction of 1 before it is counted, and a bar that stopped
	// there would stay at n-1/n.
	final := p.Done >= p.Replications
	if p.Replications == 0 {
		final = p.Fraction >= 1-1e-9
	}
	note := fmt.Sprintf("%d/%d replications done", p.Done, p.Replications)
	b.set(p.Fraction, note, final)
}

// DiffusionSamples returns sqrt(N) q_level(t) (level 2: Q_2/sqrt(N), the
// servers with a waiting task on the diffusion scale) at the grid times t >=
// from of a run with N = res.Scenario.Servers servers and Scenario.Grid > 0:
// samples of the stationary law of a single path when res has one
// replication (with several, the trajectory is their mean). It panics without
// a trajectory or for level < 1.
func DiffusionSamples(res *lbsim.Result, level int, from float64) []float64 {
	if res == nil || res.Trajectory == nil || level < 1 {
		panic("kernelhelpers.DiffusionSamples: a result with a trajectory (Scenario.Grid > 0) and level >= 1")
	}
	s := math.Sqrt(float64(res.Scenario.Servers))
	var out []float64
	for k, t := range res.Trajectory.Times {
		if t < from {
			continue
		}
		q := 0.0 // no server reached the level
		if row := res.Trajectory.Occupancy[k]; level <= len(row) {
			q = row[level-1]
		}
		out = append(out, s*q)
	}
	return out
}

// Occ is the estimate of q_i (i >= 1) from a run's replications.
func Occ(res *lbsim.Result, i int) Estimate {
	xs := make([]float64, len(res.PerReplication))
	for r, rep := range res.PerReplication {
		if i-1 < len(rep.Occupancy) {
			xs[r] = rep.Occupancy[i-1]
		}
	}
	return Reps(xs)
}

// Sojourn is the estimate of the mean time in system from a run's
// replications.
func Sojourn(res *lbsim.Result) Estimate {
	xs := make([]float64, len(res.PerReplication))
	for r, rep := range res.PerReplication {
		xs[r] = rep.MeanSojourn
	}
	return Reps(xs)
}
