package flows

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
	"github.com/lbsim/notebooks/lbsim/service"
)

// The keys of the flows model.
const (
	keyServers        = model.KeyServers
	keyRates          = model.KeyRates
	keyLambda         = "lambda"
	keyLambdaProfile  = "lambda_profile"
	keyPacketsPerFlow = "packets_per_flow"
	keyFlowSize       = "flow_size"
	keyPacketRate     = "packet_rate"
	keyService        = "service"
	keyPolicy         = "policy"
	keyD              = "d"
	keyThreshold      = "threshold"
	keyBins           = "bins"
	keyBinRemapRate   = "bin_remap_rate"
	keyQuantiles      = "quantiles"
)

// DefaultHorizon is the simulated time of a replication when none is given.
const DefaultHorizon = 1000.0

// Keys declares the parameters of the flows model: `lbsim flows` flags,
// scenario-file keys and sweep axes.
var Keys = newKeys()

func newKeys() *param.Set {
	s := param.NewSet("lbsim flows", keyPolicy)
	moving := []string{"jsqd", "sticky", "bins"}
	s.Add(
		param.Key{Name: keyServers, Kind: param.Int, Arg: "N", Required: true, Range: fmt.Sprintf("an integer in [1, %d]", MaxServers),
			Doc: "number of servers N (of rate 1 each unless rates)", Check: param.IntBetween(1, MaxServers)},
		model.RatesKey("absolute, not normalised, as in lbsim run: server i serves a packet of requirement S (mean 1) in S/rates[i]; "+
			"lambda*N must stay below their sum, and under static hashing lambda below each"),
		param.Key{Name: keyLambda, Kind: param.Float, Arg: "X", Required: true,
			Range: "0 < lambda < 1; with rates, lambda*N below their sum (static: lambda below every rate)",
			Doc:   "packet arrival rate per server: packets arrive at rate lambda*N",
			Check: func(x any, v *param.Values) string {
				l := x.(float64)
				if v.Has(keyRates) { // the load against the rates: Options.Check, once rates passed their checks
					if !(l > 0) || math.IsInf(l, 0) {
						return "must be a finite rate > 0"
					}
					return ""
				}
				if !(l > 0 && l < 1) {
					return "must be in (0, 1) (unit-rate servers; the system is unstable at lambda >= 1)"
				}
				return ""
			}},
		param.Key{Name: keyLambdaProfile, Kind: param.String, Arg: "T:L,...", DefaultDoc: "none (lambda throughout)",
			Range: "steps TIME:LAMBDA, times in (0, horizon) increasing, each lambda stable as lambda is",
			Doc:   "time-varying traffic: from time T on, packets arrive at rate L per server (before the first step at lambda); e.g. 500:0.9,1000:0.5",
			Check: func(x any, _ *param.Values) string {
				if _, err := ParseProfile(x.(string)); err != nil {
					return err.Error()
				}
				return ""
			}},
		param.Key{Name: keyFlowSize, Kind: param.String, Arg: "LAW", DefaultDoc: "geometric", Default: param.Constant("geometric"),
			Range: "geometric, fixed or pmf:K=W,K=W,... (packet counts K >= 1, weights W > 0)",
			Doc:   "law of the number of packets of a flow: geometric with mean m, fixed (exactly m), or any discrete law pmf:K=W,... (weights normalised; m is then its mean)",
			Check: func(x any, _ *param.Values) string {
				if _, _, _, err := ParseSizeLaw(x.(string)); err != nil {
					return err.Error()
				}
				return ""
			}},
		param.Key{Name: keyPacketsPerFlow, Kind: param.Float, Arg: "M", DefaultDoc: "1 (the mean of a pmf flow_size)",
			Default: func(v *param.Values) (any, bool) {
				if law, vals, probs, err := ParseSizeLaw(v.String(keyFlowSize)); err == nil && law == PMF {
					return pmfMean(vals, probs), true
				}
				return 1.0, true
			},
			Range: "a finite number >= 1 (an integer with flow_size fixed)",
			Doc:   "mean number of packets of a flow m; flows arrive at rate lambda*N/m",
			Check: func(x any, _ *param.Values) string {
				if m := x.(float64); !(m >= 1) || math.IsInf(m, 0) {
					return "must be a finite number >= 1"
				}
				return ""
			}},
		param.Key{Name: keyPacketRate, Kind: param.Float, Arg: "R", DefaultDoc: "1", Default: param.Constant(1.0),
			Doc: "rate r of a flow's packets: after the first, they follow at exponential gaps of rate r", Check: param.Positive("rate")},
		param.Key{Name: keyService, Kind: param.String, Arg: "SPEC", DefaultDoc: "exp", Default: param.Constant("exp"),
			Range: "a law of lbsim/service with mean 1",
			Doc:   "service-time law of a packet (mean 1): exp (the Markov engine), det, erlang:k=4, hyperexp:scv=4, bimodal:scv=4, pareto:alpha=2.5, weibull:shape=0.5, lognormal:sigma=1, empirical:FILE (the event-driven engine)",
			Check: func(x any, _ *param.Values) string {
				d, err := service.Parse(x.(string))
				if err != nil {
					return strings.TrimPrefix(err.Error(), "service: ")
				}
				if m := d.Mean(); !(math.Abs(m-1) <= 1e-9) {
					return fmt.Sprintf("mean %v: must be 1 (unit-rate servers; give mean=1)", m)
				}
				return ""
			}},
		param.Key{Name: keyPolicy, Kind: param.String, Arg: "NAME", Required: true, Enum: policyNames,
			Doc: "static (hash a flow to a random server for good), jsq / jsqd (every packet to the shortest of all / of d queues), sticky (a flow moves only when its queue holds >= threshold), bins (flows hash to bins; a bin moves when its queue holds >= threshold)"},
		param.Key{Name: keyD, Kind: param.Int, Arg: "D", For: moving, DefaultDoc: "2 for jsqd; servers (the shortest of all) for sticky and bins",
			Range: "1 <= d <= servers", Doc: "queues sampled per packet by jsqd, and when a flow or bin moves by sticky and bins",
			Default: func(v *param.Values) (any, bool) {
				if v.String(keyPolicy) == "jsqd" {
					return 2, true
				}
				return v.Int(keyServers), v.Has(keyServers)
			},
			Check: func(x any, v *param.Values) string {
				if d, n := x.(int), v.Int(keyServers); d < 1 || d > n {
					return fmt.Sprintf("must be between 1 and servers (%d)", n)
				}
				return ""
			}},
		param.Key{Name: keyThreshold, Kind: param.Int, Arg: "T", For: []string{"sticky", "bins"}, DefaultDoc: "5",
			Default: param.Constant(5), Range: "an integer in [1, 2^30]",
			Doc: "queue length T (packets, including the one in service) at which sticky moves a flow and bins moves a bin", Check: param.IntBetween(1, 1<<30)},
		param.Key{Name: keyBins, Kind: param.Int, Arg: "B", For: []string{"bins"}, DefaultDoc: "4*servers",
			Range: fmt.Sprintf("an integer in [1, %d]", MaxActiveFlows),
			Doc:   "number of bins B; bin b starts at server b mod N",
			Default: func(v *param.Values) (any, bool) {
				return min(4*v.Int(keyServers), MaxActiveFlows), v.Has(keyServers)
			},
			Check: param.IntBetween(1, MaxActiveFlows)},
		param.Key{Name: keyBinRemapRate, Kind: param.Float, Arg: "RATE", For: []string{"bins"}, DefaultDoc: "0",
			Default: param.Constant(0.0), Range: "a finite rate >= 0",
			Doc: "periodic rule of bins: each bin is also remapped to the shortest queue (of d, or all) at the epochs of its own Poisson clock of this rate, whatever the threshold (0: threshold remaps only)",
			Check: func(x any, _ *param.Values) string {
				if r := x.(float64); !(r >= 0) || math.IsInf(r, 0) {
					return "must be a finite rate >= 0"
				}
				return ""
			}},
		param.Key{Name: keyQuantiles, Kind: param.Floats, Arg: "LIST", DefaultDoc: "0.5,0.9,0.99,0.999,0.9999",
			Default: func(*param.Values) (any, bool) { return append([]float64(nil), DefaultQuantiles...), true },
			Range:   "1 to 1000 levels, each in (0, 1)",
			Doc:     "levels of the packet-delay quantiles (exact, from every packet's delay)",
			Check: func(x any, _ *param.Values) string {
				xs := x.([]float64)
				if len(xs) < 1 || len(xs) > 1000 {
					return fmt.Sprintf("got %d levels, want 1 to 1000", len(xs))
				}
				for i, p := range xs {
					if !(p > 0 && p < 1) {
						return fmt.Sprintf("%s[%d] = %v: must be in (0, 1)", keyQuantiles, i, p)
					}
				}
				return ""
			}},
	)
	s.Add(model.HorizonKey(DefaultHorizon), model.WarmupKey(), model.ReplicationsKey(), model.SeedKey())
	return s
}

// optionsFromValues reads completed values.
func optionsFromValues(v *param.Values) Options {
	pol, _ := ParsePolicy(v.String(keyPolicy))
	o := Options{Servers: v.Int(keyServers), Rates: v.Floats(keyRates), Lambda: v.Float(keyLambda), PacketsPerFlow: v.Float(keyPacketsPerFlow),
		PacketRate: v.Float(keyPacketRate), Policy: PolicyOptions{Policy: pol},
		Horizon: v.Float(model.KeyHorizon), Warmup: v.Float(model.KeyWarmup),
		Replications: v.Int(model.KeyReplications), Seed: v.Uint(model.KeySeed), Quantiles: v.Floats(keyQuantiles)}
	if d, err := service.Parse(v.String(keyService)); err == nil && !strings.HasPrefix(d.String(), "exp(") {
		o.Service = d
	}
	o.Size, o.SizeValues, o.SizeProbs, _ = ParseSizeLaw(v.String(keyFlowSize))
	if v.Has(keyLambdaProfile) {
		o.Profile, _ = ParseProfile(v.String(keyLambdaProfile))
	}
	if v.Has(keyD) {
		o.Policy.D = v.Int(keyD)
	}
	if v.Has(keyThreshold) {
		o.Policy.Threshold = v.Int(keyThreshold)
	}
	if v.Has(keyBins) {
		o.Policy.Bins = v.Int(keyBins)
	}
	if v.Has(keyBinRemapRate) {
		o.Policy.RemapRate = v.Float(keyBinRemapRate)
	}
	return o
}

// Model is the flows model of the experiment layer: `lbsim flows` runs one
// point of it.
var Model = &model.Model{
	Name:    "flows",
	Command: "flows",
	Summary: "flows of packets under static hashing, per-packet JSQ(d), sticky with a threshold or bins: packet delay against flow stickiness",
	Keys:    Keys,
	Run: func(ctx context.Context, v *param.Values, workers int, progress func(float64)) (*model.Outcome, error) {
		o := optionsFromValues(v)
		o.Workers, o.Progress = workers, progress
		res, err := Simulate(ctx, o)
		if err != nil {
			return nil, err
		}
		return &model.Outcome{Figures: res.Figures(), PerReplication: res.ReplicationFigures(), Result: res}, nil
	},
	Validate: func(v *param.Values) error {
		o := optionsFromValues(v)
		return o.Check()
	},
	Memory: memory,
	Cost: func(v *param.Values) float64 {
		// A departure for every arrival, and the periodic remaps of bins
		// (each bin at its own rate).
		perTime := 2 * peakOf(v) * float64(v.Int(keyServers))
		if v.Has(keyBinRemapRate) && v.Has(keyBins) {
			perTime += v.Float(keyBinRemapRate) * float64(v.Int(keyBins))
		}
		return 1 + perTime*v.Float(model.KeyHorizon)*float64(v.Int(model.KeyReplications))
	},
	CostKey: func(v *param.Values) string {
		if v.Has(keyBinRemapRate) && v.Has(keyBins) &&
			v.Float(keyBinRemapRate)*float64(v.Int(keyBins)) > 2*peakOf(v)*float64(v.Int(keyServers)) {
			return keyBinRemapRate
		}
		return model.KeyHorizon
	},
}

// Bytes that memory counts, per replication running at once: per server
// (queue lengths, rings of packet times, the busy list, the event heap and
// the length order), per bin, per flow in progress (16 bytes and an eighth
// more of slack) and per packet delay recorded. Measured peak resident
// memory of `lbsim flows --lambda 0.8 --horizon 20 --workers 1`: 30 MB (jsq,
// servers = 10^5), 203 MB (jsq, 10^6: 1.5*10^7 delays), 73 MB (bins,
// 10^5 servers, 10^7 bins: 4.3 bytes a bin), 147 MB (sticky, 10^5 servers,
// 1000 packets per flow at packet rate 0.01: 8*10^6 flows, 18 bytes each).
const (
	bytesPerServer = 128
	bytesPerBin    = 8
	bytesPerFlow   = 20
	bytesPerRecord = 8
)

// memory is Model.Memory: servers, bins, flows in progress and recorded
// delays of each replication running at once, naming the key of the
// largest part.
func memory(v *param.Values) (float64, string) {
	o := optionsFromValues(v)
	n := float64(o.Servers)
	parts := []struct {
		key   string
		bytes float64
	}{
		{keyServers, bytesPerServer * n},
		// At most MaxActiveFlows and MaxRecords: Validate refuses more,
		// with messages of its own.
		{keyPacketRate, bytesPerFlow * 1.125 * math.Min(ExpectedActiveFlows(o.peakLambda(), n, o.PacketsPerFlow, o.PacketRate), MaxActiveFlows)},
		{model.KeyHorizon, bytesPerRecord * math.Min(ExpectedRecords(o.peakLambda(), n, o.Horizon-o.Warmup), MaxRecords)},
	}
	if o.Policy.Policy == Bins {
		parts = append(parts, struct {
			key   string
			bytes float64
		}{keyBins, bytesPerBin * float64(o.Policy.Bins)})
	}
	concurrent := float64(min(runtime.GOMAXPROCS(0), max(1, o.Replications)))
	total, key, most := 0.0, keyServers, 0.0
	for _, p := range parts {
		if !(p.bytes >= 0) { // NaN (bad values, which Validate names)
			continue
		}
		total += p.bytes
		if p.bytes > most {
			key, most = p.key, p.bytes
		}
	}
	return total * concurrent, key
}

func init() { model.MustRegister(Model) }

// peakOf is the largest arrival rate per server of completed values
// (Options.peakLambda).
func peakOf(v *param.Values) float64 {
	o := optionsFromValues(v)
	return o.peakLambda()
}
