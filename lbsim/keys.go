package lbsim

import (
	"fmt"
	"math"
	"strings"

	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
	"github.com/lbsim/notebooks/lbsim/service"
)

// Keys declares every parameter of the dispatch model: the scenario keys of
// `lbsim run`, of scenario files, of sweeps and of Result.Scenario. The keys
// shared by every policy are declared here; a policy declares the keys of
// its own next to its code (see RegisterPolicy), and this one set makes them
// flags, file keys, defaults, checks and help lines.
var Keys = newKeys()

// The names of the keys the engines read.
const (
	keyServers       = model.KeyServers
	keyLambda        = "lambda"
	keyPolicy        = "policy"
	keyD             = "d"
	keySampling      = "sampling"
	keyRates         = model.KeyRates
	keyOriginWeights = "origin_weights"
	keyService       = "service"
	keyDiscipline    = "discipline"
	keyHorizon       = "horizon"
	keyWarmup        = "warmup"
	keyReplications  = "replications"
	keySeed          = "seed"
	keyEngine        = "engine"
	keyInit          = "init"
	keyInitLengths   = "init_lengths"
	keyGrid          = "grid"
	keyLawLevels     = "law_levels"
	keyAllowUnstable = "allow_unstable"
)

// MaxServers is the largest number of servers of the per-server and general
// engines (the occupancy engine has no such bound).
const MaxServers = math.MaxInt32 - 1

// DefaultHorizon is the simulated time of a replication when none is given;
// DefaultSeed the root seed (the zero value of Scenario.Seed).
const (
	DefaultHorizon = model.DefaultHorizon
	DefaultSeed    = 0
)

func newKeys() *param.Set {
	s := param.NewSet("lbsim run", keyPolicy)
	sim := []string{param.SimulationOnly}
	servers := func(v *param.Values) int { return v.Int(keyServers) }
	s.Add(
		param.Key{Name: keyServers, Kind: param.Int, Arg: "N", Required: true, Range: "an integer >= 1",
			Doc: "number of servers N", Check: param.IntAtLeast(1)},
		param.Key{Name: keyLambda, Kind: param.Float, Arg: "X", Required: true,
			Range: "> 0, and below the mean service rate unless allow_unstable",
			Doc:   "arrival rate per server: tasks arrive at rate lambda*N", Check: param.Positive("number")},
		param.Key{Name: keyPolicy, Kind: param.String, Arg: "NAME", Range: "a registered policy; required",
			Doc: "dispatching policy (lbsim run -h lists the policies, with the keys each takes)", Check: checkPolicyName},
		param.Key{Name: keyD, Kind: param.Int, Arg: "D", For: []string{}, DefaultDoc: "2", Default: param.Constant(2),
			Range: "1 <= d <= N", Doc: "servers sampled per task, or walkers of nbrw-jsqd",
			Check: func(x any, v *param.Values) string {
				if d := x.(int); d < 1 || d > servers(v) {
					return fmt.Sprintf("must be between 1 and servers (%d)", servers(v))
				}
				return ""
			}},
		param.Key{Name: keySampling, Kind: param.String, Arg: "with|without", For: []string{}, Enum: []string{"without", "with"},
			DefaultDoc: "without", Default: param.Constant("without"),
			Doc: "sample the d servers with or without replacement"},
		model.RatesKey(""),
		param.Key{Name: keyOriginWeights, Kind: param.Floats, Arg: "LIST", DefaultDoc: "uniform",
			Doc: "relative rates at which tasks appear at each server (>= 0, not all 0), N values in the syntax of " +
				"rates; used only by policies that use origins",
			Check: func(x any, v *param.Values) string {
				total := 0.0
				msg := model.CheckPerServer(x.([]float64), servers(v), func(j int, w float64) string {
					if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
						return fmt.Sprintf("origin_weights[%d] = %v: must be a finite weight >= 0", j, w)
					}
					total += w
					return ""
				})
				if msg == "" && total <= 0 {
					return "all zero; at least one must be > 0"
				}
				return msg
			}},
		param.Key{Name: keyService, Kind: param.String, Arg: "SPEC", Tags: sim,
			DefaultDoc: "exponential, on the Markov engines",
			Doc: "service-requirement law, mean 1 unless mean= is given: exp, det, erlang:k=4, hyperexp:scv=4, " +
				"bimodal:scv=4, pareto:alpha=2.5 (Lomax), weibull:shape=0.5, lognormal:sigma=1, empirical:FILE; " +
				"a server of rate mu serves S in S/mu",
			Check: func(x any, _ *param.Values) string {
				d, err := service.Parse(x.(string))
				if err != nil {
					return strings.TrimPrefix(err.Error(), "service: ")
				}
				if m := d.Mean(); math.IsNaN(m) || math.IsInf(m, 0) || m <= 0 {
					return "must have a finite mean > 0"
				}
				return ""
			}},
		param.Key{Name: keyDiscipline, Kind: param.String, Arg: "NAME", Tags: sim, Enum: []string{"fifo", "ps", "lifo-pr"},
			DefaultDoc: "fifo", Default: param.Constant("fifo"),
			Doc: "service discipline at each server: fifo, ps (processor sharing) or lifo-pr (last in first out, preemptive resume)"},
		model.HorizonKey(DefaultHorizon),
		model.WarmupKey(),
		model.ReplicationsKey(),
		model.SeedKey(),
		param.Key{Name: keyEngine, Kind: param.String, Arg: "NAME", Tags: sim,
			Enum: []string{string(EngineAuto), string(EngineServers), string(EngineOccupancy), string(EngineGeneral),
				string(EngineUniformized)},
			DefaultDoc: "auto", Default: param.Constant(string(EngineAuto)),
			Doc: "servers (every queue), occupancy (occupancy counts; exchangeable policies, equal rates), general " +
				"(any service law and discipline; chosen by auto when service or discipline is given), uniformized " +
				"(occupancy counts uniformized at rate N(lambda+mu), one draw per step; jsqd and random with equal " +
				"rates; never chosen by auto) or auto"},
		param.Key{Name: keyInit, Kind: param.Floats, Arg: "LIST", Tags: sim, DefaultDoc: "empty system",
			Doc: "initial occupancy q_1,q_2,... with 1 >= q_1 >= q_2 >= ... >= 0, in the syntax of rates",
			Check: func(x any, _ *param.Values) string {
				if err := checkOccupancy(x.([]float64)); err != nil {
					return err.Error()
				}
				return ""
			}},
		param.Key{Name: keyInitLengths, Kind: param.Ints, Arg: "LIST", Tags: sim,
			Doc: "initial per-server queue lengths (N integers in [0, 2^24]), in the syntax of rates; not with init",
			Check: func(x any, v *param.Values) string {
				ls := x.([]int)
				if v.Has(keyInit) {
					return "give init (an occupancy vector) or init_lengths (per-server lengths), not both"
				}
				return model.CheckPerServer(ls, servers(v), func(j int, l int) string {
					if l < 0 || l > 1<<24 {
						return fmt.Sprintf("init_lengths[%d] = %d: must be between 0 and 2^24", j, l)
					}
					return ""
				})
			}},
		param.Key{Name: keyGrid, Kind: param.Float, Arg: "DT", Tags: sim, DefaultDoc: "0: no trajectory",
			Doc: "record the occupancy q_i(t) every DT time units from 0 to the horizon (horizon/DT at most 1e7)",
			Check: func(x any, v *param.Values) string {
				g := x.(float64)
				if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
					return "must be a finite time >= 0 (0: no trajectory)"
				}
				if h := v.Float(keyHorizon); g > 0 && h/g > 1e7 {
					return fmt.Sprintf("gives %.3g points; must give at most 1e7 (grid >= horizon/1e7)", h/g)
				}
				return ""
			}},
		param.Key{Name: keyLawLevels, Kind: param.Ints, Arg: "LIST", Tags: sim, DefaultDoc: "none",
			Doc: "levels L (1 <= L <= 64, increasing, at most 8) whose stationary law is reported: the quantiles of q_L " +
				"over the grid times after the warmup, per replication and averaged (level_laws; needs grid)",
			Check: checkLawLevels},
		param.Key{Name: keyAllowUnstable, Kind: param.Bool,
			Doc: "allow lambda at or above the mean service rate (a finite-horizon transient run; for exact, a " +
				"truncated chain with an explicit cap)"},
	)
	return s
}

func checkPolicyName(x any, _ *param.Values) string {
	name := x.(string)
	policiesMu.RLock()
	_, ok := policies[name]
	policiesMu.RUnlock()
	if !ok {
		return "unknown; must be one of " + strings.Join(PolicyNames(), ", ")
	}
	return ""
}

func checkOccupancy(q []float64) error {
	if len(q) > 1<<20 {
		return fmt.Errorf("%d levels; at most 2^20", len(q))
	}
	prev := 1.0
	for i, v := range q {
		if math.IsNaN(v) || v < 0 || v > prev {
			return fmt.Errorf("init[%d] = q_%d = %v: occupancy must satisfy 1 >= q_1 >= q_2 >= ... >= 0", i, i+1, v)
		}
		prev = v
	}
	return nil
}
