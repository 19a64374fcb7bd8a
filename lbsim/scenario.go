package lbsim

import (
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/service"
)

// Engine names a simulation engine.
type Engine string

const (
	// EngineAuto uses the occupancy-level engine when the scenario allows it
	// (an OccupancyRouter policy, homogeneous rates, uniform origins, no
	// per-server initial lengths) and the per-server engine otherwise.
	EngineAuto Engine = "auto"
	// EngineServers simulates every server's queue length.
	EngineServers Engine = "servers"
	// EngineOccupancy simulates the occupancy counts (C_1, C_2, ...) directly;
	// its cost per event does not depend on N.
	EngineOccupancy Engine = "occupancy"
	// EngineGeneral is the event-driven engine for general service-time
	// laws and disciplines (Scenario.Service, Scenario.Discipline) and for
	// policies that read workloads (JSWd); see runGeneral. EngineAuto picks
	// it whenever Service is set, Discipline is not FIFO or the policy is a
	// WorkloadUser, and only it runs those scenarios.
	EngineGeneral Engine = "general"
)

// NoWarmup is a Warmup value that asks for no warmup at all (a zero Warmup
// means the default, a tenth of the horizon).
const NoWarmup = -1.0

// Default scenario values.
const (
	DefaultHorizon = 1000.0
	DefaultSeed    = 1
)

// Scenario is one simulation experiment: the system, the policy, the run length
// and what to measure. The zero values of the optional fields are useful
// defaults; Run reports the values it used in Result.Scenario.
type Scenario struct {
	// Servers is N, the number of servers (>= 1).
	Servers int
	// Lambda is the arrival rate per server: tasks arrive at total rate Lambda*N.
	// It must be in (0, 1) relative to the mean service rate unless AllowUnstable.
	Lambda float64
	// Policy dispatches the tasks.
	Policy Policy

	// Rates are the per-server service rates mu_j (nil: all 1).
	Rates []float64
	// OriginWeights are the relative rates at which tasks appear at each server
	// (nil: uniform). Only policies that use origins (graph policies) see them.
	OriginWeights []float64

	// Service is the law of a task's service requirement S; server j serves
	// at speed mu_j, so the task takes S/mu_j there. Nil means exponential
	// with mean 1, simulated by the Markov engines; any other value (an
	// exponential one included) runs on EngineGeneral. Stability then needs
	// Lambda * N * E[S] < sum_j mu_j.
	Service service.Distribution
	// Discipline is the order in which a server serves its tasks: FIFO (the
	// default), PS or LIFOPR. Other than FIFO it runs on EngineGeneral.
	Discipline Discipline

	// Horizon is the simulated time of each replication (default 1000).
	Horizon float64
	// Warmup is the time discarded before time averages start (default
	// Horizon/10; NoWarmup for none). Trajectories always start at time 0.
	Warmup float64
	// Replications is the number of independent replications (default 1).
	Replications int
	// Seed is the root seed; replication r uses the stream Stream(Seed, r).
	Seed uint64
	// Engine selects the engine (default EngineAuto).
	Engine Engine

	// InitOccupancy starts every replication from the occupancy vector
	// (q_1, q_2, ...): round(q_i*N) servers have at least i tasks, placed on
	// servers in a random order drawn from the replication's stream.
	InitOccupancy []float64
	// InitLengths starts every replication with these per-server queue lengths.
	InitLengths []int

	// Grid, if positive, records the occupancy q_i(t) at times 0, Grid, 2 Grid,
	// ... up to Horizon.
	Grid float64
	// AllowUnstable permits Lambda >= 1 (with a finite horizon, which every run
	// has) and overloaded heterogeneous systems.
	AllowUnstable bool

	// Workers is the number of replications run at once (default GOMAXPROCS).
	Workers int
	// Progress, if set, is called from the simulating goroutines about every
	// 2^18 events and at the end of each replication (see Progress).
	Progress func(Progress)
}

// Progress reports how far a run has got.
type Progress struct {
	// Replication is the replication that made progress; Done counts finished
	// replications out of Replications.
	Replication, Done, Replications int
	// Time is the simulated time reached by that replication, out of Horizon.
	Time, Horizon float64
	// Fraction is the share of the whole run done, in [0, 1].
	Fraction float64
}

// withDefaults returns a copy of sc with defaults applied, or an error naming the
// first invalid parameter and its allowed range.
func (sc Scenario) withDefaults() (Scenario, error) {
	bad := func(name string, v any, allowed string) error {
		return fmt.Errorf("%s = %v: %s", name, v, allowed)
	}
	if sc.Servers < 1 {
		return sc, bad("servers", sc.Servers, "must be at least 1")
	}
	if sc.Servers > math.MaxInt32-1 && sc.Engine == EngineServers {
		return sc, bad("servers", sc.Servers, "the per-server engine supports at most 2^31-2 servers; use the occupancy engine")
	}
	if math.IsNaN(sc.Lambda) || math.IsInf(sc.Lambda, 0) || sc.Lambda <= 0 {
		return sc, bad("lambda", sc.Lambda, "must be a finite number > 0")
	}
	if sc.Policy == nil {
		return sc, fmt.Errorf("policy: missing (for example lbsim.JSQd(2))")
	}
	if sc.Horizon == 0 {
		sc.Horizon = DefaultHorizon
	}
	if math.IsNaN(sc.Horizon) || math.IsInf(sc.Horizon, 0) || sc.Horizon <= 0 {
		return sc, bad("horizon", sc.Horizon, "must be a finite time > 0")
	}
	switch {
	case sc.Warmup == 0:
		sc.Warmup = sc.Horizon / 10
	case sc.Warmup == NoWarmup:
		sc.Warmup = 0
	case math.IsNaN(sc.Warmup) || sc.Warmup < 0:
		return sc, bad("warmup", sc.Warmup, "must be >= 0")
	case sc.Warmup >= sc.Horizon:
		return sc, fmt.Errorf("horizon = %v: must exceed warmup (%v)", sc.Horizon, sc.Warmup)
	}
	if sc.Replications == 0 {
		sc.Replications = 1
	}
	if sc.Replications < 1 {
		return sc, bad("replications", sc.Replications, "must be at least 1")
	}
	if sc.Engine == "" {
		sc.Engine = EngineAuto
	}
	switch sc.Engine {
	case EngineAuto, EngineServers, EngineOccupancy, EngineGeneral:
	default:
		return sc, bad("engine", sc.Engine, "must be servers, occupancy or auto (or general, for service laws and disciplines)")
	}
	if sc.Discipline == "" {
		sc.Discipline = FIFO
	}
	switch sc.Discipline {
	case FIFO, PS, LIFOPR:
	default:
		return sc, bad("discipline", sc.Discipline, "must be fifo, ps or lifo-pr")
	}
	meanS := 1.0
	if sc.Service != nil {
		meanS = sc.Service.Mean()
		if math.IsNaN(meanS) || math.IsInf(meanS, 0) || meanS <= 0 {
			return sc, bad("service", sc.Service, "must have a finite mean > 0")
		}
	}
	if why := needsGeneral(sc); why != "" && sc.Engine != EngineAuto && sc.Engine != EngineGeneral {
		return sc, fmt.Errorf("engine = %s: %s, which only engine general simulates; use engine general or auto", sc.Engine, why)
	}
	if sc.Servers > math.MaxInt32-1 && sc.Engine == EngineGeneral {
		return sc, bad("servers", sc.Servers, "the general engine supports at most 2^31-2 servers")
	}
	if math.IsNaN(sc.Grid) || math.IsInf(sc.Grid, 0) || sc.Grid < 0 {
		return sc, bad("grid", sc.Grid, "must be a finite time >= 0 (0: no trajectory)")
	}
	if sc.Grid > 0 && sc.Horizon/sc.Grid > 1e7 {
		return sc, bad("grid", sc.Grid, fmt.Sprintf("gives %.3g points; must give at most 1e7 (grid >= horizon/1e7)", sc.Horizon/sc.Grid))
	}
	if sc.Workers < 0 {
		return sc, bad("workers", sc.Workers, "must be >= 0 (0: one per core)")
	}
	capacity := float64(sc.Servers)
	if sc.Rates != nil {
		if len(sc.Rates) != sc.Servers {
			return sc, fmt.Errorf("rates: got %d values, want one per server (%d)", len(sc.Rates), sc.Servers)
		}
		capacity = 0
		for j, mu := range sc.Rates {
			if math.IsNaN(mu) || math.IsInf(mu, 0) || mu <= 0 {
				return sc, fmt.Errorf("rates[%d] = %v: must be a finite rate > 0", j, mu)
			}
			capacity += mu
		}
	}
	capacity /= meanS // in tasks per unit time
	if sc.Lambda*float64(sc.Servers) >= capacity && !sc.AllowUnstable {
		return sc, fmt.Errorf("lambda = %v: the system is unstable (arrival rate %g >= total service rate %g); "+
			"lambda must be below %g, or set allow_unstable (--allow-unstable) for a finite-horizon transient run",
			sc.Lambda, sc.Lambda*float64(sc.Servers), capacity, capacity/float64(sc.Servers))
	}
	if sc.OriginWeights != nil {
		if len(sc.OriginWeights) != sc.Servers {
			return sc, fmt.Errorf("origin_weights: got %d values, want one per server (%d)", len(sc.OriginWeights), sc.Servers)
		}
		total := 0.0
		for j, w := range sc.OriginWeights {
			if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
				return sc, fmt.Errorf("origin_weights[%d] = %v: must be a finite weight >= 0", j, w)
			}
			total += w
		}
		if total <= 0 {
			return sc, fmt.Errorf("origin_weights: all zero; at least one must be > 0")
		}
	}
	if sc.InitOccupancy != nil && sc.InitLengths != nil {
		return sc, fmt.Errorf("init: give an occupancy vector or per-server lengths, not both")
	}
	if err := checkOccupancy(sc.InitOccupancy); err != nil {
		return sc, err
	}
	if sc.InitLengths != nil {
		if len(sc.InitLengths) != sc.Servers {
			return sc, fmt.Errorf("init_lengths: got %d values, want one per server (%d)", len(sc.InitLengths), sc.Servers)
		}
		for j, l := range sc.InitLengths {
			if l < 0 || l > 1<<24 {
				return sc, fmt.Errorf("init_lengths[%d] = %d: must be between 0 and 2^24", j, l)
			}
		}
	}
	if sc.Engine == EngineOccupancy {
		if why := occupancyIneligible(sc); why != "" {
			return sc, fmt.Errorf("engine = occupancy: %s; use engine servers or auto", why)
		}
	}
	return sc, nil
}

func checkOccupancy(q []float64) error {
	prev := 1.0
	for i, v := range q {
		if math.IsNaN(v) || v < 0 || v > prev {
			return fmt.Errorf("init[%d] = q_%d = %v: occupancy must satisfy 1 >= q_1 >= q_2 >= ... >= 0", i, i+1, v)
		}
		prev = v
	}
	if len(q) > 1<<20 {
		return fmt.Errorf("init: %d levels; at most 2^20", len(q))
	}
	return nil
}

// needsGeneral says why only the general engine can run sc, or "".
func needsGeneral(sc Scenario) string {
	switch {
	case sc.Service != nil:
		return fmt.Sprintf("service is %s", sc.Service)
	case sc.Discipline != "" && sc.Discipline != FIFO:
		return fmt.Sprintf("discipline is %s", sc.Discipline)
	case usesWorkload(sc.Policy):
		return fmt.Sprintf("policy %s reads workloads", sc.Policy.Name())
	}
	return ""
}

// occupancyIneligible says why the occupancy-level engine cannot run sc, or "".
func occupancyIneligible(sc Scenario) string {
	if why := needsGeneral(sc); why != "" {
		return why
	}
	if _, ok := sc.Policy.(OccupancyRouter); !ok {
		return fmt.Sprintf("policy %s is not exchangeable (does not implement OccupancyRouter)", sc.Policy.Name())
	}
	if sc.Rates != nil {
		first := sc.Rates[0]
		for _, mu := range sc.Rates {
			if mu != first {
				return "service rates are heterogeneous"
			}
		}
	}
	if sc.OriginWeights != nil && usesOrigin(sc.Policy) {
		return "origins are weighted"
	}
	if sc.InitLengths != nil {
		return "per-server initial lengths are given"
	}
	return ""
}

// system returns the System of a validated scenario.
func (sc Scenario) system() System {
	return System{N: sc.Servers, Rates: sc.Rates, OriginWeights: sc.OriginWeights}
}
