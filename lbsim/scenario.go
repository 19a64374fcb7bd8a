package lbsim

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/lbsim/notebooks/lbsim/param"
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
	// it whenever Service is set, Discipline is not FIFO or the policy
	// declares Needs.Workload, and only it runs those scenarios.
	EngineGeneral Engine = "general"
	// EngineUniformized simulates the occupancy counts of JSQ(d) (with or
	// without replacement) and random routing uniformized at the constant
	// rate N (lambda + mu): one draw picks the event, no clock, no per-server
	// state (see runUniformized). It is never chosen by EngineAuto.
	EngineUniformized Engine = "uniformized"
)

// NoWarmup is the Warmup of a scenario without warm-up. A zero Warmup
// means the default, a tenth of the horizon, as an absent "warmup" key does;
// NoWarmup is what the key's value 0 is in Go.
const NoWarmup = -1.0

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
	// Warmup is the time discarded before time averages start (zero: the
	// default, Horizon/10; NoWarmup for none, the key's 0). Trajectories
	// always start at time 0.
	Warmup float64
	// Replications is the number of independent replications (default 1).
	Replications int
	// Seed is the root seed (default 0, the same as an absent "seed" key);
	// replication r uses the stream Stream(Seed, r).
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
	// LawLevels are levels L whose law over the grid times after the warmup
	// the result reports (Result.LevelLaws); they need Grid > 0.
	LawLevels []int
	// AllowUnstable permits Lambda >= 1 (with a finite horizon, which every run
	// has) and overloaded heterogeneous systems.
	AllowUnstable bool

	// Workers is the number of replications run at once (default GOMAXPROCS).
	Workers int
	// Progress, if set, is called from the simulating goroutines about every
	// 2^18 events and at the end of each replication (see Progress).
	Progress func(Progress)

	// policyKeys are the keys the policy was built from, when it came from
	// keys (a file, the command line, a sweep) and cannot state them itself.
	policyKeys map[string]any
	// keys are the scenario's keys as Complete left them, kept by
	// ScenarioFromValues and resolve so that later steps of the same run
	// read them instead of completing them again (see completed). Never
	// modified once set: copies of the scenario share them.
	keys *param.Values
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

// resolve completes the scenario's keys (defaults, one check per key, see
// Keys; reused when the scenario carries them, see completed) and checks
// what depends on several of them and on the policy. It returns the
// scenario the engines run, carrying its completed keys: every default
// filled in and Warmup the actual warm-up time (0 for none).
func (sc Scenario) resolve() (Scenario, error) {
	v, err := sc.completed()
	if err != nil {
		return sc, err
	}
	sc.keys = v
	if sc.Policy == nil {
		return sc, fmt.Errorf("policy: missing; must be one of %s (or, in Go, any Policy value such as lbsim.JSQd(2))",
			strings.Join(PolicyNames(), ", "))
	}
	sc.Horizon = v.Float(keyHorizon)
	sc.Warmup = v.Float(keyWarmup)
	sc.Replications = v.Int(keyReplications)
	sc.Seed = v.Uint(keySeed)
	sc.Engine = Engine(v.String(keyEngine))
	sc.Discipline = Discipline(v.String(keyDiscipline))
	if sc.Workers < 0 {
		return sc, fmt.Errorf("workers = %d: must be >= 0 (0: one per core)", sc.Workers)
	}
	meanS := 1.0
	if sc.Service != nil {
		meanS = sc.Service.Mean()
		if math.IsNaN(meanS) || math.IsInf(meanS, 0) || meanS <= 0 {
			return sc, fmt.Errorf("service = %s: must have a finite mean > 0", sc.Service)
		}
	}
	if why := needsGeneral(sc); why != "" && sc.Engine != EngineAuto && sc.Engine != EngineGeneral {
		return sc, fmt.Errorf("engine = %s: %s, which only engine general simulates; use engine general or auto", sc.Engine, why)
	}
	if sc.Servers > MaxServers && (sc.Engine == EngineServers || sc.Engine == EngineGeneral) {
		return sc, fmt.Errorf("servers = %d: the %s engine supports at most 2^31-2 servers; use the occupancy engine", sc.Servers, sc.Engine)
	}
	capacity := sc.capacity(meanS)
	if sc.Lambda*float64(sc.Servers) >= capacity && !sc.AllowUnstable {
		return sc, fmt.Errorf("lambda = %v: the system is unstable (arrival rate %g >= total service rate %g); "+
			"lambda must be below %g, or set allow_unstable (--allow-unstable) for a finite-horizon transient run",
			sc.Lambda, sc.Lambda*float64(sc.Servers), capacity, capacity/float64(sc.Servers))
	}
	if sc.Engine == EngineUniformized {
		if why := uniformIneligible(sc); why != "" {
			return sc, fmt.Errorf("engine = uniformized: %s; use engine servers, occupancy or auto", why)
		}
	}
	if sc.Engine == EngineOccupancy {
		if why := occupancyIneligible(sc); why != "" {
			return sc, fmt.Errorf("engine = occupancy: %s; use engine servers or auto", why)
		}
	}
	return sc, nil
}

// Values returns the keys of the scenario: what its scenario file says
// (before defaults; see Keys). Zero fields are absent keys; NoWarmup is the
// warmup 0. The policy's keys come from the policy (KeyedPolicy) or from
// the keys it was built from; a service law made in Go is kept when the
// form its String prints parses back.
func (sc Scenario) Values() (*param.Values, error) {
	v := Keys.New()
	set := func(name string, x any) error {
		if err := v.Set(name, x); err != nil {
			return err
		}
		return nil
	}
	var errs []error
	add := func(name string, x any, present bool) {
		if present {
			errs = append(errs, set(name, x))
		}
	}
	add(keyServers, sc.Servers, sc.Servers != 0)
	add(keyLambda, sc.Lambda, sc.Lambda != 0)
	pk := sc.policyKeys
	if kp, ok := sc.Policy.(KeyedPolicy); ok && kp.ScenarioKeys() != nil {
		pk = kp.ScenarioKeys()
	}
	for _, name := range slices.Sorted(maps.Keys(pk)) {
		add(name, pk[name], true)
	}
	add(keyRates, sc.Rates, len(sc.Rates) > 0)
	add(keyOriginWeights, sc.OriginWeights, len(sc.OriginWeights) > 0)
	if sc.Service != nil {
		spec := sc.Service.String()
		if pl, ok := sc.Service.(parsedLaw); ok {
			spec = pl.spec
		}
		if _, err := service.Parse(spec); err == nil {
			add(keyService, spec, true)
		}
	}
	add(keyDiscipline, string(sc.Discipline), sc.Discipline != "")
	add(keyHorizon, sc.Horizon, sc.Horizon != 0)
	switch {
	case sc.Warmup == NoWarmup:
		add(keyWarmup, 0.0, true)
	case sc.Warmup != 0:
		add(keyWarmup, sc.Warmup, true)
	}
	add(keyReplications, sc.Replications, sc.Replications != 0)
	add(keySeed, sc.Seed, true)
	add(keyEngine, string(sc.Engine), sc.Engine != "")
	add(keyInit, sc.InitOccupancy, len(sc.InitOccupancy) > 0)
	add(keyInitLengths, sc.InitLengths, len(sc.InitLengths) > 0)
	add(keyGrid, sc.Grid, sc.Grid != 0)
	add(keyLawLevels, sc.LawLevels, len(sc.LawLevels) > 0)
	add(keyAllowUnstable, true, sc.AllowUnstable)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return v, nil
}

// ScenarioFromValues builds the scenario that keys describe: it completes
// them (defaults and checks; errors name the key) and builds the policy.
func ScenarioFromValues(v *param.Values) (Scenario, error) {
	v = v.Clone()
	if err := completeKeys(v); err != nil {
		return Scenario{}, err
	}
	return scenarioFromCompleted(v)
}

// scenarioFromCompleted builds the scenario of keys that Complete has
// completed (ScenarioFromValues, or a model's point: Dispatch's Memory,
// Validate and Run get them so), keeping them (they must not be modified
// afterwards), and checks it without completing them again.
func scenarioFromCompleted(v *param.Values) (Scenario, error) {
	if !v.Has(keyPolicy) {
		return Scenario{}, fmt.Errorf("policy: missing; give --policy NAME or \"policy\" in the scenario file; one of %s",
			strings.Join(PolicyNames(), ", "))
	}
	p, pk, err := buildPolicy(v)
	if err != nil {
		return Scenario{}, err
	}
	sc := Scenario{
		Servers: v.Int(keyServers), Lambda: v.Float(keyLambda), Policy: p, policyKeys: pk,
		Rates: v.Floats(keyRates), OriginWeights: v.Floats(keyOriginWeights),
		Discipline: Discipline(v.String(keyDiscipline)),
		Horizon:    v.Float(keyHorizon), Warmup: v.Float(keyWarmup), Replications: v.Int(keyReplications),
		Seed: v.Uint(keySeed), Engine: Engine(v.String(keyEngine)),
		InitOccupancy: v.Floats(keyInit), InitLengths: v.Ints(keyInitLengths),
		Grid: v.Float(keyGrid), LawLevels: v.Ints(keyLawLevels), AllowUnstable: v.Bool(keyAllowUnstable), keys: v,
	}
	if sc.Warmup == 0 {
		sc.Warmup = NoWarmup
	}
	if v.Has(keyService) {
		d, err := service.Parse(v.String(keyService))
		if err != nil {
			return Scenario{}, err
		}
		sc.Service = parsedLaw{d, v.String(keyService)}
	}
	if _, err := sc.resolve(); err != nil {
		return Scenario{}, err
	}
	return sc, nil
}

// ParseScenario reads a scenario file (JSON, strictly: unknown keys and
// trailing data are errors) and builds its scenario.
func ParseScenario(data []byte) (Scenario, error) {
	v, err := Keys.DecodeJSON(data)
	if err != nil {
		return Scenario{}, err
	}
	return ScenarioFromValues(v)
}

// MarshalJSON writes the scenario file of sc: every key after defaults, so
// that ParseScenario (and `lbsim run FILE`) gives back the same run.
func (sc Scenario) MarshalJSON() ([]byte, error) {
	v, err := sc.fileValues()
	if err != nil {
		return nil, err
	}
	return v.MarshalJSON()
}

// fileValues returns the completed keys of sc when they are a scenario file
// that reproduces it, or an error saying why not: a policy or a service law
// built in Go from a value that has no keys.
func (sc Scenario) fileValues() (*param.Values, error) {
	v, err := sc.completed()
	if err != nil {
		return nil, err
	}
	if !v.Has(keyPolicy) {
		name := "<nil>"
		if sc.Policy != nil {
			name = sc.Policy.Name()
		}
		return nil, fmt.Errorf("no scenario file: policy %s was built in Go and has no keys (see lbsim.KeyedPolicy)", name)
	}
	if sc.Service != nil && !v.Has(keyService) {
		return nil, fmt.Errorf("no scenario file: service law %s was built in Go and its name does not parse back (see service.Parse)", sc.Service)
	}
	return v, nil
}

// UnmarshalJSON reads a scenario file into sc (see ParseScenario).
func (sc *Scenario) UnmarshalJSON(data []byte) error {
	s, err := ParseScenario(data)
	if err != nil {
		return err
	}
	*sc = s
	return nil
}

// CompletedValues returns the keys of sc after defaults (see Values).
func (sc Scenario) CompletedValues() (*param.Values, error) {
	v, err := sc.completed()
	if err != nil {
		return nil, err
	}
	return v.Clone(), nil
}

// completeKeys is Keys.Complete, the one completion of a scenario's keys
// (defaults, one check per key); a variable so that the tests can count
// the completions of a run.
var completeKeys = func(v *param.Values) error { return Keys.Complete(v) }

// completed returns the keys of sc after defaults, to be read and not
// modified. A scenario built from keys (ScenarioFromValues) or resolved for
// a run carries them, completed once: they are returned as long as the
// scenario's fields still say the same (every key Values states has its
// value there, and every other key there is a default, not given), so that
// building, running and printing a scenario complete its keys once. A
// scenario whose fields were changed since is completed afresh.
func (sc Scenario) completed() (*param.Values, error) {
	v, err := sc.Values()
	if err != nil {
		return nil, err
	}
	if sc.keys != nil && states(v, sc.keys) {
		return sc.keys, nil
	}
	if err := completeKeys(v); err != nil {
		return nil, err
	}
	return v, nil
}

// states reports whether the completed keys c are a completion of the keys
// v: each key of v is in c with the same value, and each other key of c is
// a default (or implied), not given.
func states(v, c *param.Values) bool {
	for _, name := range c.Present() {
		if v.Has(name) {
			if !reflect.DeepEqual(v.Get(name), c.Get(name)) {
				return false
			}
		} else if c.Given(name) {
			return false
		}
	}
	for _, name := range v.Present() {
		if !c.Has(name) {
			return false
		}
	}
	return true
}

// parsedLaw is a service law read from its spec, which it keeps so that the
// scenario file of a run says what the user wrote.
type parsedLaw struct {
	service.Distribution
	spec string
}

// system returns the System of a validated scenario.
func (sc Scenario) system() System {
	return System{N: sc.Servers, Rates: sc.Rates, OriginWeights: sc.OriginWeights}
}

// ScenarioFromKeys builds the scenario that keys (named like the keys of a
// scenario file) describe, as ParseScenario does: for example
//
//	lbsim.ScenarioFromKeys(map[string]any{"servers": 100, "lambda": 0.9,
//		"policy": "neighbour-jsq", "topology": "er", "degree": 10})
//
// Numbers may be given as int or float64, lists as []float64 or []int.
func ScenarioFromKeys(keys map[string]any) (Scenario, error) {
	v := Keys.New()
	for _, name := range slices.Sorted(maps.Keys(keys)) {
		if Keys.Key(name) == nil {
			return Scenario{}, fmt.Errorf("unknown key %q; the keys are %s", name, strings.Join(Keys.Names(), ", "))
		}
		if err := v.Set(name, keys[name]); err != nil {
			return Scenario{}, err
		}
	}
	return ScenarioFromValues(v)
}

// Stable reports whether the arrival rate is below the total service rate
// (lambda N E[S] < sum_j mu_j).
func (sc Scenario) Stable() bool {
	meanS := 1.0
	if sc.Service != nil {
		meanS = sc.Service.Mean()
	}
	return sc.Lambda*float64(sc.Servers) < sc.capacity(meanS)
}

// capacity is the total service rate in tasks per unit time: the sum of
// the servers' rates (N when all are 1) over the mean service time meanS.
// Run refuses a scenario whose arrival rate lambda N reaches it unless
// AllowUnstable is set.
func (sc Scenario) capacity(meanS float64) float64 {
	c := float64(sc.Servers)
	if sc.Rates != nil {
		c = 0
		for _, mu := range sc.Rates {
			c += mu
		}
	}
	return c / meanS
}
