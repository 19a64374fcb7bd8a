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
