package model

import (
	"fmt"
	"math"
	"strconv"

	"github.com/lbsim/notebooks/lbsim/param"
)

// The keys a simulation model shares, declared once here so that every
// model reads its run length, replications and seed the same way (and the
// sweep layer, which sets seed and replications, can rely on them).

// KeyHorizon and KeyWarmup name the simulated time of a replication and the
// time discarded before measuring.
const (
	KeyHorizon = "horizon"
	KeyWarmup  = "warmup"
)

var simulationOnly = []string{param.SimulationOnly}

// SeedKey declares the root seed: default 0; replication r draws from the
// stream mc.Stream(seed, r).
func SeedKey() param.Key {
	return param.Key{Name: KeySeed, Kind: param.Uint, Arg: "S", Tags: simulationOnly, DefaultDoc: "0",
		Default: param.Constant(uint64(0)), Range: "an integer in [0, 2^64-1]",
		Doc: "root random seed; replication r uses the stream (seed, r), so results do not depend on the cores used"}
}

// ReplicationsKey declares the number of independent replications:
// default 1.
func ReplicationsKey() param.Key {
	return param.Key{Name: KeyReplications, Kind: param.Int, Arg: "R", Tags: simulationOnly, DefaultDoc: "1",
		Default: param.Constant(1), Check: param.IntAtLeast(1),
		Doc: "independent replications, for the confidence intervals (95% half-widths need 2 or more)"}
}

// DefaultHorizon is the simulated time of a replication when none is given,
// the same for every model (each model's DefaultHorizon is this one).
const DefaultHorizon = 1000.0

// HorizonKey declares the simulated time of each replication, with its
// default.
func HorizonKey(def float64) param.Key {
	return param.Key{Name: KeyHorizon, Kind: param.Float, Arg: "T", Tags: simulationOnly,
		DefaultDoc: strconv.FormatFloat(def, 'g', -1, 64), Default: param.Constant(def),
		Doc: "simulated time of each replication", Check: param.Positive("time")}
}

// WarmupKey declares the time discarded before measuring: default a tenth
// of the horizon, 0 for none; it must be declared after HorizonKey.
func WarmupKey() param.Key {
	return param.Key{Name: KeyWarmup, Kind: param.Float, Arg: "T", Tags: simulationOnly, DefaultDoc: "horizon/10",
		Range:   "0 <= warmup < horizon; 0 for none",
		Default: func(v *param.Values) (any, bool) { return v.Float(KeyHorizon) / 10, v.Has(KeyHorizon) },
		Doc:     "time discarded before averaging",
		Check: func(x any, v *param.Values) string {
			w := x.(float64)
			if math.IsNaN(w) || w < 0 {
				return "must be >= 0"
			}
			if h := v.Float(KeyHorizon); w >= h {
				return fmt.Sprintf("must be below the horizon (%v)", h)
			}
			return ""
		}}
}

// KeyServers names the number of servers N of the models made of servers
// (lbsim run, lbsim flows); KeyRates their per-server service rates, N
// values checked against it.
const (
	KeyServers = "servers"
	KeyRates   = "rates"
)

// RatesKey declares the per-server service rates mu_j of a model of
// servers, the same key in every such model: N values (N the key servers)
// in the list syntax of param (comma-separated, or VALUExCOUNT runs), each
// a finite rate > 0 (CheckRates); absent, every server serves at rate 1.
// The rates are absolute, not normalised: a model compares its arrival rate
// with their sum. more, if not empty, is appended to the doc after "; ".
func RatesKey(more string) param.Key {
	doc := "per-server service rates (> 0), N values: comma-separated (1,1,2,2) or compact VALUExCOUNT runs " +
		"(1x2,2x2), mixable; \"\" for the default"
	if more != "" {
		doc += "; " + more
	}
	return param.Key{Name: KeyRates, Kind: param.Floats, Arg: "LIST", DefaultDoc: "all 1", Doc: doc,
		Check: func(x any, v *param.Values) string { return CheckRates(x.([]float64), v.Int(KeyServers)) }}
}

// CheckRates returns "" when rates holds one finite rate > 0 per server (n
// of them), else what is wrong: the count, or the first bad rate by its
// index ("rates[3] = -1: must be a finite rate > 0").
func CheckRates(rates []float64, n int) string {
	return CheckPerServer(rates, n, func(j int, mu float64) string {
		if math.IsNaN(mu) || math.IsInf(mu, 0) || mu <= 0 {
			return fmt.Sprintf("%s[%d] = %v: must be a finite rate > 0", KeyRates, j, mu)
		}
		return ""
	})
}

// CheckPerServer returns "" when xs holds one value per server (n of them)
// and check accepts each (returns ""), else the first message: the count
// ("got 9 values, want one per server (10)") or check's.
func CheckPerServer[T int | float64](xs []T, n int, check func(j int, x T) string) string {
	if len(xs) != n {
		return fmt.Sprintf("got %d values, want one per server (%d)", len(xs), n)
	}
	for j, x := range xs {
		if msg := check(j, x); msg != "" {
			return msg
		}
	}
	return ""
}
