package trickle

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
	"github.com/lbsim/notebooks/lbsim/model"
)

func point(t *testing.T, kv map[string]any) (*model.Outcome, error) {
	t.Helper()
	_, out, err := modeltest.Point(t, "trickle", kv, 1, 2, 1)
	return out, err
}

// The registered model runs single cells and hearing graphs and reports
// the figures the command line prints; a synchronized cell reports exactly
// k per interval.
func TestModel(t *testing.T) {
	out, err := point(t, map[string]any{"nodes": 50, "k": 2, "sync": true, "horizon": 100.0, "warmup": 10.0})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"messages_per_interval": "2", "per_node_rate": "0.04", "replications": "2"}
	for _, f := range out.Figures {
		if w, ok := want[f.Name]; ok && f.Value != w {
			t.Errorf("%s = %s, want %s", f.Name, f.Value, w)
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		t.Errorf("missing figures %v", want)
	}
	// One replication: the half-widths are NaN, written as null.
	m, _ := model.Lookup("trickle")
	v := m.Keys.New()
	_ = v.Set("nodes", 16)
	_ = v.Set("topology", "torus")
	_ = v.Set("horizon", 10.0)
	v, err = m.Point(v, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	one, err := m.Run(context.Background(), v, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := json.Marshal(one.Result); err != nil || !strings.Contains(string(b), `"messages_per_interval_ci95":null`) ||
		!strings.Contains(string(b), `"events":`) {
		t.Errorf("one replication: %s, %v", b, err)
	}
	for _, kv := range []map[string]any{
		{"nodes": 100, "topology": "torus", "radius": 0.15, "horizon": 20.0},
		{"nodes": 100, "topology": "grid", "horizon": 20.0, "connected": true},
		{"nodes": 300, "topology": "geometric", "radius": 0.2, "horizon": 20.0, "connected": true, "eta": 0.5},
		{"nodes": 64, "imin": 0.125, "horizon": 20.0},
	} {
		out, err := point(t, kv)
		if err != nil {
			t.Fatalf("%v: %v", kv, err)
		}
		if res := out.Result.(*Result); !(res.MessagesPerInterval > 0) || len(out.PerReplication) != 2 {
			t.Errorf("%v: %+v", kv, res)
		}
	}
}

func TestModelInvalid(t *testing.T) {
	for _, tc := range []struct {
		kv   map[string]any
		want string
	}{
		{map[string]any{"nodes": 200, "topology": "geometric", "radius": 0.01, "connected": true}, "connected: the hearing graph"},
		{map[string]any{"nodes": 12, "topology": "torus"}, "nodes = 12: topology torus needs nodes = L*L"},
		{map[string]any{"nodes": 12, "imin": 3.0, "tau": 2.0}, "imin = 3: must be in [tau·2^-40, tau] = [1.82e-12, 2]"},
		{map[string]any{"nodes": 12, "imin": 5e-324}, "imin = 5e-324: must be in [tau·2^-40, tau]"},
		{map[string]any{"nodes": 12, "topology": "geometric"}, "radius: topology geometric needs a radius"},
	} {
		if _, err := point(t, tc.kv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.kv, err, tc.want)
		}
	}
}

// The figures of a result and of its replications (a sweep's columns) are
// byte for byte what they were (testdata/figures.json, written before the
// figures were read by the keys of their fields).
func TestFiguresBytes(t *testing.T) {
	var values []any
	for _, r := range jsonFixtures() {
		values = append(values, r.Figures(), r.ReplicationFigures())
	}
	modeltest.JSONBytes(t, "testdata/figures.json", values...)
}
