package admission

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// The keys of the admission model.
const (
	keyServers    = "servers"
	keyBeta       = "beta"
	keyRevenue    = "revenue"
	keyThresholds = "thresholds"
	keySimulate   = "simulate"
)

// DefaultHorizon is the simulated time of a replication when none is given.
const DefaultHorizon = model.DefaultHorizon

// MaxSimServers bounds servers when simulate is set.
const MaxSimServers = 1_000_000

// Keys declares the parameters of the admission model: `lbsim admission`
// flags, scenario-file keys and sweep axes.
var Keys = newKeys()

func newKeys() *param.Set {
	s := param.NewSet("lbsim admission", "")
	s.Add(
		param.Key{Name: keyServers, Kind: param.Int, Arg: "S", Required: true, Range: "an integer >= 1",
			Doc: "number of unit-rate servers s", Check: param.IntAtLeast(1)},
		param.Key{Name: keyBeta, Kind: param.Float, Arg: "X", Required: true,
			Range: "a number in [-30, 30] below sqrt(servers)",
			Doc:   "QED load parameter: arrivals at rate s - beta*sqrt(s) (beta <= 0 allowed)",
			Check: func(x any, _ *param.Values) string {
				if b := x.(float64); math.IsNaN(b) || !(math.Abs(b) <= MaxLimitBeta) {
					return fmt.Sprintf("must be a finite number in [-%d, %d]", MaxLimitBeta, MaxLimitBeta)
				}
				return ""
			}},
		param.Key{Name: keyRevenue, Kind: param.String, Arg: "LAW", DefaultDoc: "linear:a=1,b=1",
			Default: param.Constant("linear:a=1,b=1"), Range: "linear:a=A,b=B or exponential:a=A,b=B with A >= 0, B > 0",
			Doc: "revenue rate r((k-s)/sqrt(s)) in state k: linear r(x) = 1+a*x (x <= 0), 1-b*x (x > 0); exponential r(x) = exp(a*x) (x <= 0), exp(-b*x) (x > 0)",
			Check: func(x any, _ *param.Values) string {
				if _, err := ParseRevenue(x.(string)); err != nil {
					return err.Error()
				}
				return ""
			}},
		param.Key{Name: keyThresholds, Kind: param.String, Arg: "LO:HI", DefaultDoc: "none",
			Range: "integers 0 <= LO <= HI, at most 16777216 of them",
			Doc:   "also print the revenue curve R_s(tau) for tau = LO..HI (figure revenue_curve)",
			Check: func(x any, _ *param.Values) string {
				if _, _, err := parseRange(x.(string)); err != nil {
					return err.Error()
				}
				return ""
			}},
		param.Key{Name: keySimulate, Kind: param.Bool, DefaultDoc: "false", Default: param.Constant(false),
			Doc: "also simulate the optimal threshold policy (figure simulated_revenue with its 95% half-width)"},
	)
	// The simulation's keys are read only with simulate: given without it
	// (other than at their defaults), they would enter the scenario and a
	// sweep's point seeds while changing nothing.
	for _, k := range []param.Key{model.HorizonKey(DefaultHorizon), model.WarmupKey(), model.ReplicationsKey(), model.SeedKey()} {
		k.Unused = func(v *param.Values) string {
			if v.Bool(keySimulate) {
				return ""
			}
			return fmt.Sprintf("unused without simulate: the point is solved exactly and nothing is simulated; give simulate or drop %s", k.Name)
		}
		s.Add(k)
	}
	return s
}

// parseRange reads "lo:hi".
func parseRange(spec string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(spec, ":")
	if ok {
		lo, err = strconv.Atoi(strings.TrimSpace(a))
		if err == nil {
			hi, err = strconv.Atoi(strings.TrimSpace(b))
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("want LO:HI, two integers")
	}
	if lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("want 0 <= LO <= HI")
	}
	if hi-lo >= MaxCurve {
		return 0, 0, fmt.Errorf("at most %d thresholds", MaxCurve)
	}
	return lo, hi, nil
}

// validate checks what depends on several keys: a positive arrival rate, a
// revenue law with a finite optimum, and the size of a simulation.
func validate(v *param.Values) error {
	sys := System{Servers: v.Int(keyServers), Beta: v.Float(keyBeta)}
	if err := sys.Check(); err != nil {
		return err
	}
	r, err := ParseRevenue(v.String(keyRevenue))
	if err != nil {
		return fmt.Errorf("%s = %q: %v", keyRevenue, v.String(keyRevenue), err)
	}
	var a, b float64
	switch r := r.(type) {
	case Linear:
		a, b = r.A, r.B
	case Exponential:
		a, b = r.A, r.B
	}
	switch {
	case b == 0 && a > 0:
		return fmt.Errorf("%s = %q: b = 0 gives no finite optimal threshold (r is flat above 0, so admitting more always pays); give b > 0",
			keyRevenue, v.String(keyRevenue))
	case b == 0:
		// r = 1 everywhere: R_s(tau) = 1 for every tau, and the bounds on
		// eta* (the roots of functions that vanish identically) are noise.
		return fmt.Errorf("%s = %q: a = b = 0 makes the revenue rate constant, so every threshold earns the same and none is optimal; give b > 0",
			keyRevenue, v.String(keyRevenue))
	}
	if v.Bool(keySimulate) && sys.Servers > MaxSimServers {
		return fmt.Errorf("%s = %d: simulate takes at most %d servers", keyServers, sys.Servers, MaxSimServers)
	}
	_, err = solve(v)
	return err
}

// solved is the exact part of the last point solved (one entry), so that a
// point's validation, which solves it to find a revenue law without a finite
// optimum or with non-finite figures, and its run solve it once.
var (
	solvedMu  sync.Mutex
	solvedKey [4]string
	solved    Result
)

// solve returns the exact part of a point's result (everything but the
// simulation) from completed values whose keys passed their checks. Inputs
// it cannot give finite figures for are errors naming the revenue law: no
// finite optimal threshold within MaxThreshold, a revenue rate, limit or
// bound that overflows (an error naming thresholds for the curve).
func solve(v *param.Values) (Result, error) {
	sys := System{Servers: v.Int(keyServers), Beta: v.Float(keyBeta)}
	law := v.String(keyRevenue)
	key := [4]string{strconv.Itoa(sys.Servers), strconv.FormatFloat(sys.Beta, 'g', -1, 64), law, v.String(keyThresholds)}
	solvedMu.Lock()
	res, ok := solved, solvedKey == key
	solvedMu.Unlock()
	if ok {
		return res, nil
	}
	r, err := ParseRevenue(law)
	if err != nil {
		return Result{}, fmt.Errorf("%s = %q: %v", keyRevenue, law, err)
	}
	opt, err := sys.OptimalThreshold(r)
	if err != nil {
		return Result{}, fmt.Errorf("%s = %q: %v", keyRevenue, law, err)
	}
	lim, err := Limit{Beta: sys.Beta}.OptimalEta(r)
	if err != nil {
		return Result{}, fmt.Errorf("%s = %q: the QED limit: %v", keyRevenue, law, err)
	}
	lower, upper, err := Limit{Beta: sys.Beta}.EtaBounds(r)
	if err != nil {
		return Result{}, fmt.Errorf("%s = %q: the bounds on eta*: %v", keyRevenue, law, err)
	}
	// The bounds hold exactly; computed, they can miss eta* by rounding
	// where the functions whose roots they are vanish at eta* = 0 (a = 0:
	// a lower bound of 2e-162 beside eta* = 0). They are stated as bounds.
	lower, upper = math.Min(lower, lim.Eta), math.Max(upper, lim.Eta)
	res = Result{Servers: sys.Servers, Beta: sys.Beta, Lambda: sys.Lambda(), Revenue: fmt.Sprint(r),
		OptimalThreshold: opt.Threshold, ThresholdScaled: float64(opt.Threshold) / math.Sqrt(float64(sys.Servers)),
		OptimalRevenue: opt.Revenue, EtaLimit: lim.Eta, RevenueLimit: lim.Revenue,
		EtaLower: lower, EtaUpper: model.JSONNumber(upper), etaUpper: upper}
	for _, f := range []struct {
		name string
		x    float64
	}{{"revenue", opt.Revenue}, {"eta_limit", lim.Eta}, {"revenue_limit", lim.Revenue}, {"eta_lower_bound", lower}} {
		if math.IsNaN(f.x) || math.IsInf(f.x, 0) {
			return Result{}, fmt.Errorf("%s = %q: the figure %s is %v, not a finite number (the revenue function overflows "+
				"at these parameters); give smaller a and b", keyRevenue, law, f.name, f.x)
		}
	}
	if v.Has(keyThresholds) {
		spec := v.String(keyThresholds)
		lo, hi, err := parseRange(spec)
		if err != nil {
			return Result{}, fmt.Errorf("%s = %q: %v", keyThresholds, spec, err)
		}
		if res.Curve, err = sys.RevenueCurve(r, lo, hi); err != nil {
			return Result{}, fmt.Errorf("%s = %q: %v", keyThresholds, spec, err)
		}
		for i, x := range res.Curve {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return Result{}, fmt.Errorf("%s = %q: R_s(%d) is %v, not a finite number (revenue = %q overflows there)",
					keyThresholds, spec, lo+i, x, law)
			}
		}
		res.CurveFrom = &lo
	}
	solvedMu.Lock()
	solvedKey, solved = key, res
	solvedMu.Unlock()
	return res, nil
}

// Result is the full result of one point of the admission model.
type Result struct {
	Servers          int     `json:"servers"`
	Beta             float64 `json:"beta"`
	Lambda           float64 `json:"lambda"`
	Revenue          string  `json:"revenue_law"`
	OptimalThreshold int     `json:"optimal_threshold"`
	ThresholdScaled  float64 `json:"threshold_scaled"`
	OptimalRevenue   float64 `json:"revenue"`
	EtaLimit         float64 `json:"eta_limit"`
	RevenueLimit     float64 `json:"revenue_limit"`
	// EtaLower and EtaUpper bound eta* (Limit.EtaBounds); EtaUpper is
	// null when infinite.
	EtaLower float64 `json:"eta_lower_bound"`
	EtaUpper any     `json:"eta_upper_bound"`
	// Curve is R_s(tau) for tau = CurveFrom, CurveFrom+1, ... (with
	// thresholds).
	CurveFrom  *int       `json:"curve_from,omitempty"`
	Curve      []float64  `json:"revenue_curve,omitempty"`
	Simulation *SimResult `json:"simulation,omitempty"`
	// SimulationCI95 is the simulation's 95% half-width (null for one
	// replication).
	SimulationCI95 any `json:"simulation_ci95,omitempty"`

	etaUpper float64
}

// Figures returns optimal_threshold, threshold_scaled, revenue, eta_limit,
// revenue_limit, eta_lower_bound, eta_upper_bound, then revenue_curve (with thresholds) and
// simulated_revenue with its half-width and events (with simulate).
// Each is read by its JSON key (model.FigureOf), but eta_upper_bound (null
// in the JSON when unbounded, a number here) and the simulation's revenue
// (written as simulation.revenue and simulation_ci95).
func (res *Result) Figures() []model.Figure {
	figs, _ := res.figures(context.Background())
	return figs
}

// figures is Figures, cut short with ctx's error once ctx is done (the
// revenue curve can hold 10^7 values).
func (res *Result) figures(ctx context.Context) ([]model.Figure, error) {
	figs := append(model.FiguresOf(res, "optimal_threshold", "threshold_scaled", "revenue", "eta_limit", "revenue_limit",
		"eta_lower_bound"), model.Float("eta_upper_bound", res.etaUpper))
	if res.Curve != nil {
		curve, err := model.VectorContext(ctx, "revenue_curve", res.Curve, nil, math.NaN())
		if err != nil {
			return nil, err
		}
		figs = append(figs, curve)
	}
	if sim := res.Simulation; sim != nil {
		figs = append(figs, model.FloatCI("simulated_revenue", sim.Revenue, sim.RevenueCI95), model.FigureOf(sim, "events"))
	}
	return figs, nil
}

// Model is the admission model of the experiment layer: `lbsim admission`
// runs one point of it.
var Model = &model.Model{
	Name:     "admission",
	Command:  "admission",
	Summary:  "admission control of an M/M/s queue in the QED regime: optimal threshold, its revenue and the Halfin-Whitt limit",
	Keys:     Keys,
	Run:      runPoint,
	Validate: validate,
	Memory:   memory,
	Cost:     cost,
	CostKey: func(v *param.Values) string {
		if v.Bool(keySimulate) {
			return model.KeyHorizon
		}
		if v.Has(keyThresholds) {
			return keyThresholds
		}
		return keyServers
	},
}

// BytesPerCurvePoint is what memory counts for each threshold of a revenue
// curve: its value, the cache's copy, its figure (a string) and its JSON in
// the result and the figures. Measured: 416 bytes of peak resident memory per
// threshold for `lbsim admission --thresholds 0:N` at N = 10^6 and 4*10^6
// (TestModelMemoryEstimates checks the bytes allocated against it).
const BytesPerCurvePoint = 480

// memory is Model.Memory: the revenue curve (thresholds), else the table of
// revenue rates of a simulation, one per state up to servers plus the
// largest threshold searched (servers).
func memory(v *param.Values) (float64, string) {
	bytes, key := 0.0, keyServers
	if v.Bool(keySimulate) {
		s := v.Int(keyServers)
		bytes = 8 * float64(s+MaxThreshold(s))
	}
	if v.Has(keyThresholds) {
		if lo, hi, err := parseRange(v.String(keyThresholds)); err == nil {
			if c := BytesPerCurvePoint * float64(hi-lo+1); c > bytes {
				bytes, key = c, keyThresholds
			}
		}
	}
	return bytes, key
}

// cost is Model.Cost: the states that the exact solution adds (below
// servers until the weights underflow, about 40 standard deviations
// sqrt(servers); above it up to the optimal threshold, of the order of
// sqrt(servers); up to the curve's last threshold), then the simulation's
// events.
func cost(v *param.Values) float64 {
	s := float64(v.Int(keyServers))
	c := 1 + math.Min(s, 40*math.Sqrt(s)) + math.Sqrt(s)
	if v.Has(keyThresholds) {
		if _, hi, err := parseRange(v.String(keyThresholds)); err == nil {
			c += float64(hi)
		}
	}
	if v.Bool(keySimulate) {
		c += 2 * s * v.Float(model.KeyHorizon) * float64(v.Int(model.KeyReplications))
	}
	return c
}

func init() { model.MustRegister(Model) }

func runPoint(ctx context.Context, v *param.Values, workers int, progress func(float64)) (*model.Outcome, error) {
	if err := validate(v); err != nil {
		return nil, err
	}
	solution, err := solve(v) // what validate solved
	if err != nil {
		return nil, err
	}
	res := &solution
	res.Curve = slices.Clone(res.Curve) // the cache keeps its own
	sys := System{Servers: v.Int(keyServers), Beta: v.Float(keyBeta)}
	r, _ := ParseRevenue(v.String(keyRevenue))
	if v.Bool(keySimulate) {
		sim, err := Simulate(ctx, SimOptions{System: sys, Revenue: r, Threshold: res.OptimalThreshold,
			Horizon: v.Float(model.KeyHorizon), Warmup: v.Float(model.KeyWarmup),
			Replications: v.Int(model.KeyReplications), Seed: v.Uint(model.KeySeed), Workers: workers, Progress: progress})
		if err != nil {
			return nil, err
		}
		res.Simulation = sim
		res.SimulationCI95 = model.JSONNumber(sim.RevenueCI95)
	} else if progress != nil {
		progress(1)
	}
	figs, err := res.figures(ctx)
	if err != nil {
		return nil, err
	}
	out := &model.Outcome{Figures: figs, Result: res}
	if sim := res.Simulation; sim != nil {
		for _, x := range sim.PerReplication {
			out.PerReplication = append(out.PerReplication, []model.Figure{model.Float("simulated_revenue", x)})
		}
	}
	return out, nil
}
