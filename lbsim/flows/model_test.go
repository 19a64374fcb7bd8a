package flows

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
	"github.com/lbsim/notebooks/lbsim/model"
)

func point(t *testing.T, kv map[string]any) (*model.Outcome, error) {
	t.Helper()
	_, out, err := modeltest.Point(t, "flows", kv, 1, 2, 1)
	return out, err
}

// The registered model runs a point with the figures a sweep merges.
func TestModel(t *testing.T) {
	out, err := point(t, map[string]any{"servers": 20, "lambda": 0.7, "packets_per_flow": 5.0, "policy": "bins", "threshold": 3, "horizon": 100.0})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]model.Figure{}
	for _, f := range out.Figures {
		names[f.Name] = f
	}
	for _, name := range []string{"events", "mean_delay", "delay_p50", "delay_p99", "delay_p99.9", "delay_p99.99",
		"violated_flow_fraction", "moved_packet_fraction", "table_size", "q"} {
		if _, ok := names[name]; !ok {
			t.Errorf("no figure %q", name)
		}
	}
	if f := names["table_size"]; f.Value != "80" {
		t.Errorf("table size %+v, want the default 4*servers bins", f)
	}
	if len(out.PerReplication) != 2 {
		t.Errorf("%d replications", len(out.PerReplication))
	}
	if data, err := json.Marshal(out.Result); err != nil || !strings.Contains(string(data), `"policy":"bins","d":20,"threshold":3,"bins":80`) {
		t.Errorf("result JSON %.300s: %v", data, err)
	}
}

// Bad points are refused with the key named.
func TestModelBadInput(t *testing.T) {
	for _, c := range []struct {
		kv   map[string]any
		want string
	}{
		{map[string]any{"servers": 10, "lambda": 1.0, "policy": "static"}, "lambda = 1: must be in (0, 1)"},
		{map[string]any{"servers": 10, "lambda": 0.5, "policy": "random"}, `policy = "random": must be one of static, jsq, jsqd, sticky, bins`},
		{map[string]any{"servers": 10, "lambda": 0.5, "policy": "static", "d": 2}, "d = 2: policy static takes no d"},
		{map[string]any{"servers": 10, "lambda": 0.5, "policy": "jsqd", "d": 11}, "d = 11: must be between 1 and servers (10)"},
		{map[string]any{"servers": 10, "lambda": 0.5, "policy": "jsq", "threshold": 3}, "threshold = 3: policy jsq takes no threshold"},
		{map[string]any{"servers": 10, "lambda": 0.5, "policy": "sticky", "threshold": 0}, "threshold = 0: must be between 1"},
		{map[string]any{"servers": 10, "lambda": 0.5, "policy": "static", "flow_size": "fixed", "packets_per_flow": 2.5}, "packets_per_flow = 2.5: must be an integer"},
		{map[string]any{"servers": 10000, "lambda": 0.5, "policy": "static", "horizon": 1e4}, "horizon = 10000: about"},
		{map[string]any{"servers": 10, "lambda": 0.5, "policy": "static", "quantiles": []float64{0.5, 1}}, "quantiles[1] = 1: must be in (0, 1)"},
		{map[string]any{"servers": 4, "lambda": 0.5, "policy": "jsq", "rates": []float64{1, 1, 1}}, "rates = [1,1,1]: got 3 values, want one per server (4)"},
		{map[string]any{"servers": 4, "lambda": 0.5, "policy": "jsq", "rates": []float64{1, 1, 1, 0}}, "rates[3] = 0: must be a finite rate > 0"},
		{map[string]any{"servers": 4, "lambda": 1.2, "policy": "bins", "rates": []float64{1, 1, 1, 1.5}}, "lambda = 1.2: unstable: packets arrive at lambda*N = 4.8, at least the total service rate 4.5"},
		{map[string]any{"servers": 4, "lambda": 0.6, "policy": "static", "rates": []float64{1, 1, 0.6, 2}}, "server 2 serves at rates[2] = 0.6 <= lambda"},
	} {
		_, err := point(t, c.kv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.kv, err, c.want)
		}
	}
}
