package redundancy

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/pairs"
)

// Simulation against the exact product form on 4 servers: P(N = n) for
// n <= 4, E[N], the mean response time and P(server j busy), each within 4
// of its 95% half-widths (12 replications of 20000 time units after a
// warm-up of 500; fixed seeds). 4 half-widths is about 9 standard errors:
// with some 70 comparisons a false alarm has probability far below 1e-9,
// while a modelling error of a few percent would show.
func TestSimulateMatchesExact(t *testing.T) {
	cases := []struct {
		name  string
		dist  *pairs.Dist
		rates []float64
	}{
		{"uniform", mustUniform(t, 4, 2), nil},
		{"ring", mustRing(t, 4), nil},
		{"path", mustList(t, 4, "0 1\n1 2\n2 3\n"), nil},
		{"weighted", mustList(t, 4, "0 1 3\n1 2 1\n2 3 0.5\n0 2 1\n"), []float64{1, 2, 0.7, 1.3}},
	}
	for _, c := range cases {
		for _, lambda := range []float64{0.3, 0.6} {
			ratio, _, err := LoadRatio(c.dist, lambda, c.rates)
			if err != nil {
				t.Fatal(err)
			}
			if ratio >= 1 {
				t.Fatalf("%s lambda %v: load ratio %v", c.name, lambda, ratio)
			}
			ex := mustExact(t, c.dist, lambda, c.rates)
			res, err := Simulate(context.Background(), Options{Servers: 4, Lambda: lambda, Dist: c.dist, Rates: c.rates,
				Horizon: 20500, Warmup: 500, Replications: 12, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			within := func(what string, got, ci, want float64) {
				t.Helper()
				if !(closeTo(got, want, 4*ci)) {
					t.Errorf("%s lambda %v: %s = %v +- %v, exact %v", c.name, lambda, what, got, ci, want)
				}
			}
			for n := 0; n <= 4; n++ {
				within("P(N = "+string(rune('0'+n))+")", res.TasksDistribution[n], res.TasksDistributionCI95[n],
					ex.TasksDistribution[n])
			}
			t.Logf("%s lambda %v: E[N] %.5f +- %.5f (exact %.5f), E[T] %.5f +- %.5f (exact %.5f), P(N=0) %.5f +- %.5f (exact %.5f)",
				c.name, lambda, res.MeanTasks, res.MeanTasksCI95, ex.MeanTasks, res.MeanResponse, res.MeanResponseCI95,
				ex.MeanResponse, res.TasksDistribution[0], res.TasksDistributionCI95[0], ex.TasksDistribution[0])
			within("E[N]", res.MeanTasks, res.MeanTasksCI95, ex.MeanTasks)
			within("E[T]", res.MeanResponse, res.MeanResponseCI95, ex.MeanResponse)
			for j := range 4 {
				within("busy", res.Busy[j], res.BusyCI95[j], ex.Busy[j])
			}
			within("q1", res.Occupancy[0], res.OccupancyCI95[0], ex.Occupancy[0])
			// Replica events: d placements, 1 completion and d-1
			// cancellations per task; every measured task left.
			for _, rr := range res.PerReplication {
				if rr.Events != 2*rr.Arrivals+2*rr.Completions || rr.Cancellations != rr.Completions {
					t.Errorf("%s: events %+v", c.name, rr)
				}
			}
		}
	}
}

// The result does not depend on the number of workers.
func TestSimulateWorkersIndependent(t *testing.T) {
	o := Options{Servers: 6, Lambda: 0.7, Dist: mustRing(t, 6), Horizon: 300, Warmup: 30, Replications: 5, Seed: 3,
		Rates: []float64{1, 2, 1, 0.8, 1.2, 1}}
	var results []*Result
	for _, w := range []int{1, 2, 5} {
		o.Workers = w
		res, err := Simulate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		res.Seconds, res.EventsPerSecond = 0, 0
		results = append(results, res)
	}
	for _, r := range results[1:] {
		if !reflect.DeepEqual(r, results[0]) {
			t.Errorf("results differ with the number of workers")
		}
	}
	data, err := json.Marshal(results[0])
	if err != nil || !strings.Contains(string(data), `"tasks_distribution":[`) || !strings.Contains(string(data), `"mean_tasks_ci95":`) {
		t.Errorf("JSON %.200s: %v", data, err)
	}
	// One replication: half-widths are NaN, written as null.
	o.Replications = 1
	res, err := Simulate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := json.Marshal(res); err != nil || !strings.Contains(string(data), `"mean_tasks_ci95":null`) {
		t.Errorf("JSON with one replication: %v", err)
	}
}

func TestSimulateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Simulate(ctx, Options{Servers: 100, Lambda: 0.5, Dist: mustUniform(t, 100, 2), Horizon: 1e6})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

// Bad input is refused before anything runs; the error names the parameter.
func TestBadInput(t *testing.T) {
	u4 := mustUniform(t, 4, 2)
	lonely := mustList(t, 4, "0 1\n1 2\n")
	heavy := mustList(t, 4, "0 1 10\n2 3 1\n")
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Servers: 4, Lambda: 1, Dist: u4, Horizon: 10}, "lambda = 1: unstable"},
		{Options{Servers: 4, Lambda: 1.2, Dist: u4, Horizon: 10, Rates: []float64{1, 1, 1, 1}}, "lambda = 1.2: unstable"},
		// Pair {0, 1} gets 10/11 of Lambda = 2.4: 2.18 > mu({0, 1}) = 2,
		// though lambda < 1.
		{Options{Servers: 4, Lambda: 0.6, Dist: heavy, Horizon: 10}, "within the servers [0 1] arrive at 1.09091 times"},
		{Options{Servers: 4, Lambda: 0.3, Dist: lonely, Horizon: 10}, "pairs: 1 servers ([3])"},
		{Options{Servers: 4, Lambda: 0.3, Dist: u4, Horizon: 10, Rates: []float64{1, 1}}, "rates: got 2 values"},
		{Options{Servers: 4, Lambda: 0.3, Dist: u4, Horizon: 10, Rates: []float64{1, 1, 0, 1}}, "rates[2] = 0"},
		{Options{Servers: 5, Lambda: 0.3, Dist: u4, Horizon: 10}, "servers = 5"},
		{Options{Servers: 4, Lambda: -1, Dist: u4, Horizon: 10}, "lambda = -1"},
		{Options{Servers: 4, Lambda: 0.3, Dist: u4}, "horizon = 0"},
		{Options{Servers: 4, Lambda: 0.3, Dist: u4, Horizon: 10, Warmup: 10}, "warmup = 10"},
		{Options{Servers: 4, Lambda: 0.3, Horizon: 10}, "dist"},
	} {
		_, err := Simulate(context.Background(), c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
		if c.o.Dist != nil && c.o.Dist.N() == c.o.Servers && c.o.Horizon > 0 && c.o.Warmup == 0 {
			if _, err := Exact(c.o.Dist, c.o.Lambda, c.o.Rates, ExactOptions{}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Exact %+v: %v, want %q", c.o, err, c.want)
			}
		}
	}
}
