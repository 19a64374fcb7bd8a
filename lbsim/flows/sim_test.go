package flows

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/meanfield"
	"github.com/lbsim/notebooks/lbsim/service"
)

func closeTo(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func simulate(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Simulate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// One packet per flow under static hashing: every server is M/M/1, with
// mean delay 1/(1-lambda), delay quantiles -ln(1-p)/(1-lambda) and
// q_i = lambda^i; nothing is ever moved. Each figure within 4 of its 95%
// half-widths (8 replications, N = 20, 10^4 time units: about 9 standard
// errors over 10 comparisons).
func TestStaticOnePacketIsMM1(t *testing.T) {
	const lambda = 0.8
	res := simulate(t, Options{Servers: 20, Lambda: lambda, PacketsPerFlow: 1, PacketRate: 1, Policy: PolicyOptions{Policy: Static},
		Horizon: 10000, Warmup: 500, Replications: 8, Seed: 1, Quantiles: []float64{0.5, 0.9, 0.99, 0.999}})
	within := func(what string, got, ci, want float64) {
		t.Helper()
		if !closeTo(got, want, 4*ci) {
			t.Errorf("%s = %v ± %v, want %v", what, got, ci, want)
		}
	}
	within("mean delay", res.MeanDelay, res.MeanDelayCI95, 1/(1-lambda))
	for i, p := range res.QuantileLevels {
		within("delay quantile", res.DelayQuantiles[i], res.DelayQuantilesCI95[i], -math.Log(1-p)/(1-lambda))
	}
	for i := range 4 {
		within("q_i", res.Occupancy[i], res.OccupancyCI95[i], math.Pow(lambda, float64(i+1)))
	}
	if res.MovedPacketFraction != 0 || res.ViolatedFlowFraction != 0 || res.TableSize != 0 || res.ActiveFlows != 0 {
		t.Errorf("static hashing moved packets: %+v", res)
	}
	// Little's law on the sample path: mean queue = lambda * mean delay,
	// within the half-widths of both.
	if !closeTo(res.MeanQueue, lambda*res.MeanDelay, 4*(res.MeanQueueCI95+lambda*res.MeanDelayCI95)) {
		t.Errorf("Little: mean queue %v, lambda * mean delay %v", res.MeanQueue, lambda*res.MeanDelay)
	}
}

// Static hashing with geometric flows against its exact solution
// (StaticExact): mean delay, delay quantiles at 0.5, 0.9 and 0.99, q_1, q_2
// and q_5, within 4 of their 95% half-widths (16 replications); never a
// moved packet, however long the flows.
func TestStaticFlowsAgainstExact(t *testing.T) {
	for _, c := range []struct{ lambda, m, r float64 }{{0.6, 5, 1}, {0.5, 10, 0.2}} {
		ex, err := StaticExact(c.lambda, c.m, c.r)
		if err != nil {
			t.Fatal(err)
		}
		res := simulate(t, Options{Servers: 50, Lambda: c.lambda, PacketsPerFlow: c.m, PacketRate: c.r, Policy: PolicyOptions{Policy: Static},
			Horizon: 5000, Warmup: 500, Replications: 16, Seed: 2, Quantiles: []float64{0.5, 0.9, 0.99}})
		t.Logf("%+v: delay %.4f ± %.4f exact %.4f; p99 %.3f ± %.3f exact %.3f", c, res.MeanDelay, res.MeanDelayCI95, ex.MeanDelay,
			res.DelayQuantiles[2], res.DelayQuantilesCI95[2], ex.DelayQuantile(0.99))
		within := func(what string, got, ci, want float64) {
			t.Helper()
			if !closeTo(got, want, 4*ci) {
				t.Errorf("%+v: %s = %v ± %v, exact %v", c, what, got, ci, want)
			}
		}
		within("mean delay", res.MeanDelay, res.MeanDelayCI95, ex.MeanDelay)
		for i, p := range res.QuantileLevels {
			within("delay quantile", res.DelayQuantiles[i], res.DelayQuantilesCI95[i], ex.DelayQuantile(p))
		}
		for _, i := range []int{1, 2, 5} {
			within("q_i", res.Occupancy[i-1], res.OccupancyCI95[i-1], ex.Occupancy[i-1])
		}
		if want := ExpectedActiveFlows(c.lambda, 50, c.m, c.r); !closeTo(res.ActiveFlows, want, 0.05*want) {
			t.Errorf("%+v: %v flows in progress, want %v (5%%)", c, res.ActiveFlows, want)
		}
		if res.MovedPacketFraction != 0 || res.ViolatedFlowFraction != 0 {
			t.Errorf("%+v: static hashing moved packets", c)
		}
	}
}

// One packet per flow under per-packet JSQ(2) at N = 10^4 and lambda 0.9:
// the supermarket model, whose mean delay tends to T_2(0.9) = 2.6141 and
// q_i to lambda^(2^i-1) as N grows. The finite-N gap (and sampling
// without replacement) is O(1/N), 1e-3 here; the tolerance is 4 half-widths
// plus 0.005.
func TestJSQ2OnePacketIsSupermarket(t *testing.T) {
	const lambda = 0.9
	res := simulate(t, Options{Servers: 10000, Lambda: lambda, PacketsPerFlow: 1, PacketRate: 1, Policy: PolicyOptions{Policy: JSQd, D: 2},
		Horizon: 150, Warmup: 30, Replications: 4, Seed: 3})
	td, err := meanfield.JSQdMeanSojourn(lambda, 2)
	if err != nil {
		t.Fatal(err)
	}
	fp, _, err := meanfield.JSQdFixedPoint(lambda, 2, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mean delay %.5f ± %.5f, T_2 = %.5f", res.MeanDelay, res.MeanDelayCI95, td)
	if !closeTo(res.MeanDelay, td, 4*res.MeanDelayCI95+0.005) {
		t.Errorf("mean delay %v ± %v, T_2(0.9) = %v", res.MeanDelay, res.MeanDelayCI95, td)
	}
	for i := range 4 {
		if !closeTo(res.Occupancy[i], fp[i], 4*res.OccupancyCI95[i]+0.002) {
			t.Errorf("q_%d = %v ± %v, fixed point %v", i+1, res.Occupancy[i], res.OccupancyCI95[i], fp[i])
		}
	}
}

// Bins with B = N that never move (threshold out of reach) are static
// hashing draw for draw: bin b is server b.
func TestBinsWithoutRemapsAreStatic(t *testing.T) {
	o := Options{Servers: 30, Lambda: 0.7, PacketsPerFlow: 4, PacketRate: 0.5, Policy: PolicyOptions{Policy: Static},
		Horizon: 300, Warmup: 30, Replications: 2, Seed: 4}
	st := simulate(t, o)
	o.Policy = PolicyOptions{Policy: Bins, D: 30, Threshold: 1 << 30, Bins: 30}
	bins := simulate(t, o)
	if bins.TableSize != 30 || bins.RemapRate != 0 {
		t.Errorf("bins: table %v, remaps %v", bins.TableSize, bins.RemapRate)
	}
	for i := range st.PerReplication {
		a, b := st.PerReplication[i], bins.PerReplication[i]
		b.TableSize = 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("replication %d: static %+v, bins %+v", i, a, b)
		}
	}
}

// Sticky with a threshold out of reach never moves; bins at a low
// threshold move flows, and violate no more flows than they move packets
// for (every violation is a moved packet); per-packet JSQ moves most.
func TestViolationAccounting(t *testing.T) {
	base := Options{Servers: 100, Lambda: 0.8, PacketsPerFlow: 10, PacketRate: 1, Horizon: 300, Warmup: 50, Replications: 2, Seed: 6}
	run := func(p PolicyOptions) *Result {
		o := base
		o.Policy = p
		return simulate(t, o)
	}
	if res := run(PolicyOptions{Policy: Sticky, D: 100, Threshold: 1 << 30}); res.MovedPacketFraction != 0 || res.TableSize != 0 {
		t.Errorf("sticky with an unreachable threshold: moved %v, table %v", res.MovedPacketFraction, res.TableSize)
	}
	for _, p := range []PolicyOptions{{Policy: Sticky, D: 2, Threshold: 3}, {Policy: Bins, D: 100, Threshold: 3, Bins: 400},
		{Policy: JSQ}, {Policy: JSQd, D: 2}} {
		res := run(p)
		for _, rr := range res.PerReplication {
			moved := rr.MovedPacketFraction * float64(rr.Packets)
			violated := rr.ViolatedFlowFraction * float64(rr.Flows)
			if !(moved > 0) || violated > moved+1e-9 {
				t.Errorf("%+v: %v moved packets, %v violated flows", p, moved, violated)
			}
		}
		if p.Policy == Sticky && !(res.TableSize > 0 && res.TableSize < res.ActiveFlows) {
			t.Errorf("sticky: table %v, flows in progress %v", res.TableSize, res.ActiveFlows)
		}
		if p.Policy == Bins && !(res.RemapRate > 0) {
			t.Errorf("bins: no remaps")
		}
	}
}

// Fixed flow sizes: every flow has exactly m packets, so packets/flows = m
// up to the flows cut by the window's ends.
func TestFixedSizes(t *testing.T) {
	res := simulate(t, Options{Servers: 50, Lambda: 0.5, PacketsPerFlow: 4, Size: Fixed, PacketRate: 2, Policy: PolicyOptions{Policy: JSQd, D: 2},
		Horizon: 2000, Warmup: 100, Replications: 1, Seed: 7})
	if ratio := float64(res.Packets) / float64(res.Flows); !closeTo(ratio, 4, 0.02) {
		t.Errorf("packets per flow %v, want 4", ratio)
	}
	if want := ExpectedActiveFlows(0.5, 50, 4, 2); !closeTo(res.ActiveFlows, want, 0.05*want) {
		t.Errorf("%v flows in progress, want %v", res.ActiveFlows, want)
	}
}

// The result does not depend on the number of workers; JSON writes NaN as
// null.
func TestWorkersIndependent(t *testing.T) {
	o := Options{Servers: 40, Lambda: 0.7, PacketsPerFlow: 5, PacketRate: 1, Policy: PolicyOptions{Policy: Bins, D: 2, Threshold: 3, Bins: 80},
		Horizon: 200, Warmup: 20, Replications: 3, Seed: 8}
	var results []*Result
	for _, w := range []int{1, 3} {
		o.Workers = w
		res := simulate(t, o)
		res.WallSeconds, res.EventsPerSecond = 0, 0
		results = append(results, res)
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Error("results differ with the number of workers")
	}
	o.Replications = 1
	data, err := json.Marshal(simulate(t, o))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"mean_delay_ci95":null`, `"delay_quantiles":[{"p":0.5,"value":`, `"violated_flow_fraction":`,
		`"moved_packet_fraction":`, `"occupancy":[`, `"table_size":80`, `"events_per_second":`, `"wall_seconds":`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON lacks %s: %.300s", key, data)
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Simulate(ctx, Options{Servers: 100, Lambda: 0.5, PacketsPerFlow: 2, PacketRate: 1, Horizon: 1e5})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

// Bad options are refused before anything runs, naming the key.
func TestBadOptions(t *testing.T) {
	ok := Options{Servers: 10, Lambda: 0.5, PacketsPerFlow: 2, PacketRate: 1, Horizon: 10}
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Lambda = 1 }, "lambda = 1"},
		{func(o *Options) { o.Servers = 0 }, "servers = 0"},
		{func(o *Options) { o.PacketsPerFlow = 0.5 }, "packets_per_flow = 0.5"},
		{func(o *Options) { o.PacketsPerFlow, o.Size = 2.5, Fixed }, "packets_per_flow = 2.5: must be an integer"},
		{func(o *Options) { o.PacketRate = 0 }, "packet_rate = 0"},
		{func(o *Options) { o.PacketsPerFlow, o.PacketRate = 1e9, 1e-9 }, "packet_rate = 1e-09: about"},
		{func(o *Options) { o.Policy = PolicyOptions{Policy: JSQd, D: 11} }, "d = 11"},
		{func(o *Options) { o.Policy = PolicyOptions{Policy: Sticky, D: 2} }, "threshold = 0"},
		{func(o *Options) { o.Policy = PolicyOptions{Policy: Bins, D: 2, Threshold: 2} }, "bins = 0"},
		{func(o *Options) { o.Warmup = 10 }, "warmup = 10"},
		{func(o *Options) { o.Servers, o.Horizon = 1000000, 1000 }, "horizon = 1000: about 5.25e+08 packet delays"},
		{func(o *Options) { o.Quantiles = []float64{1} }, "quantiles"},
		{func(o *Options) { o.Rates = []float64{1, 1} }, "rates: got 2 values, want one per server (10)"},
		{func(o *Options) { o.Rates = []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, math.Inf(1)} }, "rates[9] = +Inf: must be a finite rate > 0"},
		{func(o *Options) { o.Rates, o.Lambda = []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1.5}, 1.05 }, "lambda = 1.05: unstable: packets arrive at lambda*N = 10.5"},
		{func(o *Options) { o.Rates = []float64{2, 2, 2, 2, 2, 2, 2, 2, 2, 0.5} }, "server 9 serves at rates[9] = 0.5 <= lambda"},
	} {
		o := ok
		c.edit(&o)
		_, err := Simulate(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", o, err, c.want)
		}
	}
}

// Quantiles are the ceil(p n)-th smallest values.
func TestQuantiles(t *testing.T) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64((i * 7919) % 1000) // a permutation of 0..999
	}
	got := Quantiles(xs, []float64{0.001, 0.5, 0.99, 0.9999, 0.0001})
	if want := []float64{0, 499, 989, 999, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("quantiles %v, want %v", got, want)
	}
	if q := Quantiles(nil, []float64{0.5}); !math.IsNaN(q[0]) {
		t.Errorf("no values: %v", q)
	}
}

// The event-driven engine of general service laws. One packet per flow
// under static hashing: deterministic service makes each server M/D/1, mean
// delay 1 + lambda/(2(1-lambda)) (Pollaczek-Khinchine); exponential service
// through this engine is M/M/1 (mean and quantiles). With flows, exponential
// service through this engine matches static hashing's exact solution as
// the Markov engine does. Each within 4 half-widths (8 or 16 replications).
func TestGeneralService(t *testing.T) {
	const lambda = 0.7
	det, err := service.Deterministic(1)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := service.Exponential(1)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Servers: 20, Lambda: lambda, PacketsPerFlow: 1, PacketRate: 1, Policy: PolicyOptions{Policy: Static}, Service: det,
		Horizon: 10000, Warmup: 500, Replications: 8, Seed: 9, Quantiles: []float64{0.5, 0.99}}
	res := simulate(t, o)
	if want := 1 + lambda/(2*(1-lambda)); !closeTo(res.MeanDelay, want, 4*res.MeanDelayCI95) {
		t.Errorf("M/D/1: mean delay %v ± %v, want %v", res.MeanDelay, res.MeanDelayCI95, want)
	}
	if !closeTo(res.MeanQueue, lambda*res.MeanDelay, 4*(res.MeanQueueCI95+lambda*res.MeanDelayCI95)) {
		t.Errorf("M/D/1: Little: mean queue %v, lambda * mean delay %v", res.MeanQueue, lambda*res.MeanDelay)
	}
	o.Service = exp
	res = simulate(t, o)
	if want := 1 / (1 - lambda); !closeTo(res.MeanDelay, want, 4*res.MeanDelayCI95) {
		t.Errorf("M/M/1 (general engine): mean delay %v ± %v, want %v", res.MeanDelay, res.MeanDelayCI95, want)
	}
	for i, p := range res.QuantileLevels {
		if want := -math.Log(1-p) / (1 - lambda); !closeTo(res.DelayQuantiles[i], want, 4*res.DelayQuantilesCI95[i]) {
			t.Errorf("M/M/1 (general engine): quantile %v = %v ± %v, want %v", p, res.DelayQuantiles[i], res.DelayQuantilesCI95[i], want)
		}
	}
	ex, err := StaticExact(0.6, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	res = simulate(t, Options{Servers: 50, Lambda: 0.6, PacketsPerFlow: 5, PacketRate: 1, Policy: PolicyOptions{Policy: Static}, Service: exp,
		Horizon: 5000, Warmup: 500, Replications: 16, Seed: 10, Quantiles: []float64{0.9}})
	if !closeTo(res.MeanDelay, ex.MeanDelay, 4*res.MeanDelayCI95) || !closeTo(res.DelayQuantiles[0], ex.DelayQuantile(0.9), 4*res.DelayQuantilesCI95[0]) {
		t.Errorf("flows, general engine: mean %v ± %v (exact %v), p90 %v ± %v (exact %v)", res.MeanDelay, res.MeanDelayCI95, ex.MeanDelay,
			res.DelayQuantiles[0], res.DelayQuantilesCI95[0], ex.DelayQuantile(0.9))
	}
	// Per-packet JSQ(2) and bins run on it too, and a mean other than 1 is refused.
	for _, p := range []PolicyOptions{{Policy: JSQd, D: 2}, {Policy: Bins, D: 50, Threshold: 3, Bins: 100}} {
		r := simulate(t, Options{Servers: 50, Lambda: 0.6, PacketsPerFlow: 5, PacketRate: 1, Policy: p, Service: det, Horizon: 200, Warmup: 20, Replications: 2})
		if !(r.MeanDelay >= 1) || !(r.MovedPacketFraction > 0) {
			t.Errorf("%+v: mean delay %v, moved %v", p, r.MeanDelay, r.MovedPacketFraction)
		}
	}
	two, _ := service.Deterministic(2)
	if _, err := Simulate(context.Background(), Options{Servers: 5, Lambda: 0.3, PacketsPerFlow: 1, PacketRate: 1, Service: two, Horizon: 10}); err == nil ||
		!strings.Contains(err.Error(), "service = det(mean=2): mean 2: must be 1") {
		t.Errorf("mean 2: %v", err)
	}
}

// The periodic rule: one bin remapped to the shortest of all queues at a
// rate far above the packet rate (threshold out of reach) sends nearly every
// packet to a currently shortest queue, so the mean delay approaches
// per-packet JSQ's; without the clock the single bin would hold everything
// on one server (unstable). Tolerance: 4 half-widths of both runs plus 3% for
// the packets that arrive before the next remap (remap rate 2000 against 7
// packets per unit time: about 0.35% of packets see a stale bin). Under
// deterministic service the bin also stays on its server among tied
// queues, where JSQ breaks ties at random; the server it stays on started
// its packet more recently (more work left), which cost 2.1% in the test
// run (1.1007 against 1.0780), inside the 3%.
func TestBinsPeriodicRemapApproachesJSQ(t *testing.T) {
	o := Options{Servers: 10, Lambda: 0.7, PacketsPerFlow: 1, PacketRate: 1, Policy: PolicyOptions{Policy: JSQ},
		Horizon: 10000, Warmup: 1000, Replications: 4, Seed: 8}
	jsq := simulate(t, o)
	o.Policy = PolicyOptions{Policy: Bins, D: 10, Threshold: 1 << 30, Bins: 1, RemapRate: 2000}
	bins := simulate(t, o)
	t.Logf("mean delay: jsq %.4f ± %.4f, bins with periodic remaps %.4f ± %.4f, remaps per unit time %.1f",
		jsq.MeanDelay, jsq.MeanDelayCI95, bins.MeanDelay, bins.MeanDelayCI95, bins.RemapRate)
	if !closeTo(bins.MeanDelay, jsq.MeanDelay, 4*(jsq.MeanDelayCI95+bins.MeanDelayCI95)+0.03*jsq.MeanDelay) {
		t.Errorf("bins with periodic remaps: mean delay %v, per-packet JSQ %v", bins.MeanDelay, jsq.MeanDelay)
	}
	if !(bins.RemapRate > 1) {
		t.Errorf("remap rate %v: the periodic rule did not remap", bins.RemapRate)
	}
	// The same through the event-driven engine (deterministic service).
	det, err := service.Parse("det")
	if err != nil {
		t.Fatal(err)
	}
	o.Service, o.Policy = det, PolicyOptions{Policy: JSQ}
	jsqDet := simulate(t, o)
	o.Policy = PolicyOptions{Policy: Bins, D: 10, Threshold: 1 << 30, Bins: 1, RemapRate: 2000}
	binsDet := simulate(t, o)
	t.Logf("deterministic service: jsq %.4f ± %.4f, bins %.4f ± %.4f", jsqDet.MeanDelay, jsqDet.MeanDelayCI95, binsDet.MeanDelay, binsDet.MeanDelayCI95)
	if !closeTo(binsDet.MeanDelay, jsqDet.MeanDelay, 4*(jsqDet.MeanDelayCI95+binsDet.MeanDelayCI95)+0.03*jsqDet.MeanDelay) {
		t.Errorf("deterministic service, bins with periodic remaps: mean delay %v, per-packet JSQ %v", binsDet.MeanDelay, jsqDet.MeanDelay)
	}
	o.Service = nil
	// The rate is a Poisson clock per bin: with 5 bins at rate 2 and d = 1
	// (a random queue, taken when shorter) the remaps per unit time are at
	// most 10.
	o.Policy = PolicyOptions{Policy: Bins, D: 1, Threshold: 1 << 30, Bins: 5, RemapRate: 2}
	o.Horizon, o.Warmup = 2000, 100
	few := simulate(t, o)
	if !(few.RemapRate > 0 && few.RemapRate <= 10) {
		t.Errorf("5 bins at rate 2: %v remaps per unit time, want in (0, 10]", few.RemapRate)
	}
	bad := o
	bad.Policy = PolicyOptions{Policy: Static, RemapRate: 1}
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "bin_remap_rate = 1") {
		t.Errorf("a remap rate for static: %v", err)
	}
}

// Any discrete flow-size law (pmf): 90% of flows with one packet and 10%
// with 91 (mean 10). Packets per flow and the flows in progress match
// their laws (m and lambda N (m-1)/(m r)) after a warm-up, and also from
// time 0 over a short window, which checks the start law (flows in
// progress size-biased by K-1, a uniform remainder; the unbiased law would
// start with half of them short, which drain far faster). Tolerances: 2% on packets per flow (about 4e5 flows),
// 5% on the mean count of about 2200 flows in progress, 4% at the start (40
// short replications).
func TestPMFSizes(t *testing.T) {
	law, vals, probs, err := ParseSizeLaw("pmf:1=0.9,91=0.1")
	if err != nil || law != PMF || pmfMean(vals, probs) != 10 {
		t.Fatalf("ParseSizeLaw: %v %v %v %v", law, vals, probs, err)
	}
	o := Options{Servers: 50, Lambda: 0.5, PacketsPerFlow: 10, Size: law, SizeValues: vals, SizeProbs: probs, PacketRate: 0.1,
		Policy: PolicyOptions{Policy: JSQd, D: 2}, Horizon: 4000, Warmup: 400, Replications: 2, Seed: 9}
	res := simulate(t, o)
	want := ExpectedActiveFlows(0.5, 50, 10, 0.1)
	t.Logf("packets per flow %.3f, flows in progress %.1f (want %.1f), flow_size %s", float64(res.Packets)/float64(res.Flows), res.ActiveFlows, want, res.FlowSize)
	if ratio := float64(res.Packets) / float64(res.Flows); !closeTo(ratio, 10, 0.2) {
		t.Errorf("packets per flow %v, want 10", ratio)
	}
	if !closeTo(res.ActiveFlows, want, 0.05*want) {
		t.Errorf("%v flows in progress, want %v", res.ActiveFlows, want)
	}
	if res.FlowSize != "pmf:1=0.9,91=0.1" {
		t.Errorf("flow_size %q", res.FlowSize)
	}
	// The start law, where it matters: half the flows of 2 packets, half of
	// 30 (mean 16); in progress at the start, 29 in 30 are long ones.
	o.Horizon, o.Warmup, o.Replications, o.PacketsPerFlow = 5, 1e-9, 40, 16
	o.Size, o.SizeValues, o.SizeProbs, _ = ParseSizeLaw("pmf:2=1,30=1")
	want = ExpectedActiveFlows(0.5, 50, 16, 0.1)
	start := simulate(t, o)
	t.Logf("flows in progress over [0, 5]: %.1f", start.ActiveFlows)
	if !closeTo(start.ActiveFlows, want, 0.04*want) {
		t.Errorf("flows in progress over [0, 5] from the start law: %v, want %v", start.ActiveFlows, want)
	}
	for _, bad := range []string{"pmf:", "pmf:0=1", "pmf:2=-1", "pmf:2=1,2=1", "zipf", "pmf:2"} {
		if _, _, _, err := ParseSizeLaw(bad); err == nil {
			t.Errorf("ParseSizeLaw(%q): no error", bad)
		}
	}
	o.PacketsPerFlow = 3
	if err := o.Check(); err == nil || !strings.Contains(err.Error(), "packets_per_flow = 3: the pmf flow-size law has mean 16") {
		t.Errorf("mean mismatch: %v", err)
	}
}
