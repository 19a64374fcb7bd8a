package lbsim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/compat"
)

func TestCompatSpecDefaults(t *testing.T) {
	sc, err := lbsim.ParseScenario([]byte(`{"servers": 200, "lambda": 0.8, "policy": "compat-jsqd", "compat": "random",
		"server_degree": 5, "seed": 9}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := sc.CompletedValues()
	if err != nil {
		t.Fatal(err)
	}
	if v.Int("types") != 200 || v.Int("d") != 2 || v.String("sampling") != "without" || !v.Has("compat_seed") || v.Uint("compat_seed") != 9 {
		t.Fatalf("defaults: types %d, d %d, sampling %q, compat_seed %v; want 200, 2, without, 9",
			v.Int("types"), v.Int("d"), v.String("sampling"), v.Get("compat_seed"))
	}
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	again, err := lbsim.ParseScenario(data)
	if err != nil {
		t.Fatalf("JSON round trip of %s: %v", data, err)
	}
	if data2, err := json.Marshal(again); err != nil || string(data2) != string(data) {
		t.Fatalf("JSON round trip: %v\n%s\n%s", err, data, data2)
	}
	if want := "compat-jsqd(d=2,without,compat=random,types=200,server_degree=5)"; sc.Policy.Name() != want {
		t.Errorf("policy name %q, want %q", sc.Policy.Name(), want)
	}
	// The graph follows compat_seed, not the replications' streams.
	keys := map[string]any{"servers": 200, "lambda": 0.8, "policy": "compat-jsqd", "compat": "random",
		"server_degree": 5, "seed": 9}
	g1, err := lbsim.CompatFromKeys(keys)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := lbsim.CompatFromKeys(keys)
	keys["compat_seed"] = 9
	g9, _ := lbsim.CompatFromKeys(keys)
	keys["compat_seed"] = uint64(10)
	g3, err := lbsim.CompatFromKeys(keys)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g1.TypeAdjacency(), g2.TypeAdjacency()) || !slices.Equal(g1.TypeAdjacency(), g9.TypeAdjacency()) ||
		slices.Equal(g1.TypeAdjacency(), g3.TypeAdjacency()) {
		t.Error("the same compat_seed (default: seed) must give the same graph and another seed another graph")
	}
	// Block shares set blocks.
	sc, err = lbsim.ParseScenario([]byte(`{"servers": 30, "lambda": 0.5, "policy": "compat-jsq", "compat": "block",
		"types": 6, "block_shares": [1, 2, 3]}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := sc.CompletedValues(); err != nil || v.Int("blocks") != 3 {
		t.Fatalf("block_shares: %v, blocks = %v; want 3", err, v.Get("blocks"))
	}
}

func TestCompatSpecErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "g.txt")
	os.WriteFile(file, []byte("0 1\n1 5\n"), 0o644)
	cases := []struct{ spec, want string }{
		{`"policy": "jsqd", "compat": "random"`, `compat = "random": policy jsqd takes no compat`},
		{`"policy": "jsq", "types": 5`, `types = 5: policy jsq takes no types`},
		{`"policy": "neighbour-jsq", "topology": "ring", "degree": 2, "server_degree": 3`, `server_degree = 3: policy neighbour-jsq takes no server_degree`},
		{`"policy": "random", "type_rates": [1, 2]`, `type_rates = [1,2]: policy random takes no type_rates`},
		{`"policy": "compat-jsqd"`, `compat: required for compat-jsqd`},
		{`"policy": "compat-jsqd", "compat": "mesh"`, `compat = "mesh": must be one of complete, random`},
		{`"policy": "compat-jsqd", "compat": "random"`, `server_degree = 0: compat random needs the number of types per server in [1, 10]`},
		{`"policy": "compat-jsqd", "compat": "random", "server_degree": 11`, `server_degree = 11`},
		{`"policy": "compat-jsqd", "compat": "ring", "compat_radius": 0.1, "types": 4000000000`, `4000000000 types, more than 2147483648 in all`},
		{`"policy": "compat-jsqd", "compat": "random", "server_degree": 2, "compat_radius": 0.1`, `compat_radius = 0.1: compat random takes no compat_radius`},
		{`"policy": "compat-jsqd", "compat": "random-types", "type_degree": 11`, `type_degree = 11: compat random-types needs the number of servers per type in [1, servers = 10]`},
		{`"policy": "compat-jsqd", "compat": "ring", "compat_radius": 0.6`, `compat_radius = 0.6: compat ring needs a radius in (0, 0.5]`},
		{`"policy": "compat-jsqd", "compat": "torus", "compat_radius": 0.1, "compat_seed": 3`, `compat_seed = 3: compat torus is not random`},
		{`"policy": "compat-jsqd", "compat": "block", "blocks": 11`, `blocks = 11: compat block needs a number of blocks in [1, min(servers, types) = 10]`},
		{`"policy": "compat-jsqd", "compat": "block", "blocks": 2, "block_shares": [1]`, `block_shares: 1 values, want one per block (blocks = 2)`},
		{`"policy": "compat-jsqd", "compat": "block", "block_shares": [1, 3], "lambda": 0.9`, `block_shares: block 0 (3 servers) would receive load 1.5 >= 1`},
		{`"policy": "compat-jsqd", "compat": "complete", "types": 3, "type_rates": [1, 2]`, `type_rates: 2 values, want one per type (types = 3)`},
		{`"policy": "compat-jsqd", "compat": "complete", "types": 2, "type_rates": [1, -2]`, `type_rates[1] = -2`},
		{`"policy": "compat-jsqd", "compat": "complete", "topology": "ring"`, `topology = "ring": policy compat-jsqd takes no topology`},
		{`"policy": "compat-jsqd", "compat": "complete", "sampling": "twice"`, `sampling = "twice": must be one of without, with`},
		{`"policy": "compat-jsqd", "compat": "complete", "d": 11`, `d = 11: must be between 1 and servers (10)`},
		{`"policy": "compat-jsq", "compat": "complete", "d": 2`, `d = 2: policy compat-jsq takes no d`},
		{`"policy": "compat-jsq", "compat_graph": "` + filepath.Join(dir, "none.txt") + `"`, `compat_graph = "` + filepath.Join(dir, "none.txt")},
		{`"policy": "compat-jsq", "compat": "complete", "compat_graph": "` + file + `"`, `give either compat or compat_graph`},
		{`"policy": "compat-jsq", "types": 2, "compat_graph": "` + file + `", "server_degree": 2`, `server_degree = 2: a compatibility graph from a file takes no server_degree`},
		{`"policy": "compat-jsq", "types": 1, "compat_graph": "` + file + `"`, `line 2: type 1: must be below types = 1`},
	}
	for _, c := range cases {
		spec := `{"servers": 10, "lambda": 0.5, ` + c.spec + `}`
		if strings.Contains(c.spec, `"lambda"`) {
			spec = `{"servers": 10, ` + c.spec + `}`
		}
		_, err := lbsim.ParseScenario([]byte(spec))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n  got  %v\n  want %q", spec, err, c.want)
		}
	}
}

// TestCompatSpecRun runs compat policies from specs: a graph from an edge-list
// file, and a sparse graph too thin for d = 2 without replacement, whose error
// names the type at Run time (the graph is generated lazily).
func TestCompatSpecRun(t *testing.T) {
	g, err := compat.Ring(20, 10, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ring.txt")
	f, _ := os.Create(file)
	if err := compat.WriteEdgeList(f, g); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fromFile := map[string]any{"servers": 20, "lambda": 0.7, "policy": "compat-jsqd", "types": 10, "compat_graph": file, "horizon": 100}
	direct := map[string]any{"servers": 20, "lambda": 0.7, "policy": "compat-jsqd", "types": 10, "compat": "ring", "compat_radius": 0.2, "horizon": 100}
	a, err := runKeys(fromFile)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runKeys(direct)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Occupancy, b.Occupancy) {
		t.Errorf("the ring from a file and from compat ring give different results: %v, %v", a.Occupancy, b.Occupancy)
	}
	thin := map[string]any{"servers": 50, "lambda": 0.5, "policy": "compat-jsqd", "compat": "sparse", "server_degree": 1, "horizon": 10}
	if _, err := runKeys(thin); err == nil || !strings.Contains(err.Error(), "compatible servers, fewer than 2") {
		t.Errorf("thin sparse graph: %v; want an error naming a type with fewer than 2 servers", err)
	}
	thin["sampling"] = "with"
	thin["types"] = 10
	tg, err := lbsim.CompatFromKeys(thin)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runKeys(thin)
	if iso := tg.Degrees().IsolatedTypes; (iso == 0) != (err == nil) {
		t.Errorf("sparse graph with %d types without servers, sampling with replacement: Run error %v", iso, err)
	}
}
