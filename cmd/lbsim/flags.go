package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim"
)

// flags is a flag set that remembers the order of its flags and the
// placeholder of each value, for the help text. Every flag is named like a
// JSON key of the command's configuration, with '-' for '_'.
type flags struct {
	*flag.FlagSet
	order       []string
	placeholder map[string]string
}

func newFlags(name string) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run reports errors in one line
	fs.Usage = func() {}
	return &flags{FlagSet: fs, placeholder: map[string]string{}}
}

// add defines the flag --name, shown as "--name PLACEHOLDER" in the help.
func (f *flags) add(name, placeholder, usage string, v flag.Value) {
	f.Var(v, name, usage)
	f.order = append(f.order, name)
	f.placeholder[name] = placeholder
}

// scenarioFlags defines the flags of the lbsim.Spec fields shared by run and
// exact, writing into sp.
func (f *flags) scenarioFlags(sp *lbsim.Spec) {
	f.add("servers", "N", "number of servers N (an integer >= 1; required)", intValue(&sp.Servers))
	f.add("lambda", "X", "arrival rate per server: tasks arrive at rate lambda*N (> 0, and below the mean "+
		"service rate unless --allow-unstable; required)", floatValue(&sp.Lambda))
	f.add("policy", "NAME", "dispatching policy, one of: "+strings.Join(lbsim.PolicyNames(), ", ")+" (required)",
		stringValue(&sp.Policy))
	f.add("d", "D", "servers sampled per task by jsqd, jiqd and compat-jsqd, walkers of nbrw-jsqd (1 <= d <= N; default 2)", intValue(&sp.D))
	f.add("sampling", "with|without", "jsqd and compat-jsqd sampling with or without replacement (default without)",
		stringValue(&sp.Sampling))
	f.add("rates", "LIST", "per-server service rates (> 0; default all 1), N values: comma-separated "+
		"(1,1,2,2) or compact VALUExCOUNT runs (1x2,2x2), mixable; \"\" for the default", floatList(&sp.Rates))
	f.add("origin-weights", "LIST", "relative rates at which tasks appear at each server (>= 0, not all 0; "+
		"default uniform), N values in the syntax of --rates; used only by policies that use origins",
		floatList(&sp.OriginWeights))
	f.add("topology", "NAME", "graph of the graph policies neighbour-jsq and neighbour-jsqd (servers are "+
		"vertices; a task joins the shortest queue among its origin and neighbours) and nbrw-jsqd (walkers on the "+
		"vertices): complete, er, regular, ring, "+
		"torus (servers = L*L), geometric, split or pendant; or give --graph", stringValue(&sp.Topology))
	f.add("degree", "K", "mean degree of er (in (0, N-1]), degree of regular (integer in [1, N-1], N*K even), "+
		"degree of ring (even integer in [2, N-1]: K/2 neighbours on each side)", floatValue(&sp.Degree))
	f.add("p", "X", "edge probability of er, instead of --degree (in (0, 1])", floatValue(&sp.P))
	f.add("radius", "R", "connection radius of geometric, on the unit torus (in (0, 0.7071])", floatValue(&sp.Radius))
	f.add("split", "C", "clique fraction of split: round(C*N) servers form a clique joined to all others (in (0, 1])",
		floatValue(&sp.Split))
	f.add("clique", "M", "clique size of pendant; the other servers hang off it round-robin (in [1, N])",
		intValue(&sp.Clique))
	f.add("graph", "FILE", "edge-list file for the graph policies instead of --topology: \"u v\" per line, "+
		"0-based ids below N, # comments", stringValue(&sp.Graph))
	f.add("graph-seed", "S", "seed of the random topologies er, regular and geometric (an integer in [0, 2^64-1]; "+
		"default: --seed)", optionalUint(&sp.GraphSeed))
	f.add("walk", "nbrw|srw", "walk of the nbrw-jsqd walkers: nbrw (non-backtracking, the default) or srw "+
		"(simple random walk)", stringValue(&sp.Walk))
	f.add("steps", "S", "walk steps each nbrw-jsqd walker takes per arrival (an integer in [1, 1048576]; default 1)",
		intValue(&sp.Steps))
	f.add("compat", "NAME", "compatibility graph of compat-jsqd and compat-jsq between the servers and --types "+
		"task types: complete, random (--server-degree types per server), random-types (--type-degree servers "+
		"per type), sparse (the Rutten-Mukherjee construction: --server-degree draws per server), ring or torus "+
		"(compatible within --compat-radius), block (--blocks, --block-shares); or give --compat-graph",
		stringValue(&sp.Compat))
	f.add("types", "M", "number of task types of the compat policies (an integer in [1, 2^32-1]; default N)",
		intValue(&sp.Types))
	f.add("server-degree", "C", "types per server of compat random and sparse (random: in [1, M])",
		intValue(&sp.ServerDegree))
	f.add("type-degree", "K", "servers per type of compat random-types (in [1, N])", intValue(&sp.TypeDegree))
	f.add("compat-radius", "R", "compatibility radius of compat ring (in (0, 0.5], unit circle) and torus "+
		"(in (0, 0.7071], unit torus)", floatValue(&sp.CompatRadius))
	f.add("blocks", "B", "number of blocks of compat block (in [1, min(N, M)])", intValue(&sp.Blocks))
	f.add("block-shares", "LIST", "relative server shares of the blocks of compat block (> 0, B values in the "+
		"syntax of --rates; default equal; types are split equally)", floatList(&sp.BlockShares))
	f.add("compat-graph", "FILE", "edge-list file for the compat policies instead of --compat: \"type server\" "+
		"per line, 0-based ids below M and N, # comments", stringValue(&sp.CompatGraph))
	f.add("compat-seed", "S", "seed of the random compat designs random, random-types and sparse "+
		"(an integer in [0, 2^64-1]; default: --seed)", optionalUint(&sp.CompatSeed))
	f.add("type-rates", "LIST", "relative arrival rates of the task types of the compat policies (>= 0, not all 0; "+
		"default equal), M values in the syntax of --rates", floatList(&sp.TypeRates))
	f.add("allow-unstable", "", "allow lambda at or above the mean service rate (a finite-horizon transient "+
		"run; for exact, a truncated chain with an explicit --cap)", boolValue(&sp.AllowUnstable))
}

// parse parses args, which may mix flags and positional arguments in any
// order ("--" ends the flags), and returns the positional arguments.
func (f *flags) parse(args []string) ([]string, error) {
	var positional []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, usageErr("%v (see lbsim %s -h)", err, f.Name())
		}
		rest := f.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// configure parses args, decodes the scenario file they name (if any) into
// cfg and overrides it with the flags given on the command line, which wrote
// into fromFlags (of the same type as cfg). It returns the JSON keys that the
// file or the flags set.
func (f *flags) configure(args []string, stdin io.Reader, cfg, fromFlags any) (map[string]bool, error) {
	positional, err := f.parse(args)
	if err != nil {
		return nil, err
	}
	given, err := loadFile(positional, stdin, cfg)
	if err != nil {
		return nil, err
	}
	d, s := reflect.ValueOf(cfg).Elem(), reflect.ValueOf(fromFlags).Elem()
	f.Visit(func(fl *flag.Flag) {
		key := jsonKey(fl.Name)
		i := fieldIndex(d.Type(), key)
		d.FieldByIndex(i).Set(s.FieldByIndex(i))
		given[key] = true
	})
	return given, nil
}

func jsonKey(flagName string) string { return strings.ReplaceAll(flagName, "-", "_") }

// fieldIndex finds the field of struct type t with the JSON key key.
func fieldIndex(t reflect.Type, key string) []int {
	for _, sf := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name == key && !sf.Anonymous {
			return sf.Index
		}
	}
	panic(fmt.Sprintf("lbsim: %v has no field with JSON key %q", t, key))
}

// printFlags writes the flags in definition order.
func (f *flags) printFlags(w io.Writer) {
	for _, name := range f.order {
		fl := f.Lookup(name)
		head := "--" + name
		if p := f.placeholder[name]; p != "" {
			head += " " + p
		}
		fmt.Fprintf(w, "  %s\n", head)
		line := "     "
		for _, word := range strings.Fields(fl.Usage) {
			if len(line)+1+len(word) > 79 {
				fmt.Fprintln(w, line)
				line = "     "
			}
			line += " " + word
		}
		fmt.Fprintln(w, line)
	}
}

// loadFile decodes the scenario file named by the positional arguments (none,
// a path, or - for stdin) strictly into cfg, and returns the JSON keys it set.
func loadFile(positional []string, stdin io.Reader, cfg any) (map[string]bool, error) {
	switch len(positional) {
	case 0:
		return map[string]bool{}, nil
	case 1:
	default:
		return nil, usageErr("unexpected argument %q: give at most one scenario file", positional[1])
	}
	path := positional[0]
	var data []byte
	var err error
	if path == "-" {
		path = "standard input"
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, usageErr("scenario file: %v", err)
	}
	if err := lbsim.DecodeStrict(data, cfg); err != nil {
		// The keys of the embedded Spec are reported as Spec.key.
		return nil, usageErr("%s: %s", path, strings.TrimPrefix(err.Error(), "Spec."))
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(data, &keys) // valid: DecodeStrict accepted it
	set := map[string]bool{}
	for k, v := range keys {
		if string(v) != "null" {
			set[strings.ToLower(k)] = true
		}
	}
	return set, nil
}

// checkGiven reports the required scenario keys that neither the file nor the
// command line gave, more clearly than their zero values would, and rejects
// zeros given explicitly for keys where a zero would stand for the default.
func checkGiven(sp lbsim.Spec, given map[string]bool) error {
	switch {
	case sp.Servers == 0 && !given["servers"]:
		return usageErr("servers: missing; give --servers N (an integer >= 1) or \"servers\" in the scenario file")
	case sp.Lambda == 0 && !given["lambda"]:
		return usageErr("lambda: missing; give --lambda X (a number > 0, below the mean service rate) or \"lambda\" in the scenario file")
	case sp.D == 0 && given["d"]:
		return usageErr("d = 0: must be between 1 and servers (%d); omit it for the default 2 of jsqd and jiqd", sp.Servers)
	case sp.Degree == 0 && given["degree"]:
		return usageErr("degree = 0: must be between 1 and servers-1 (%d)", sp.Servers-1)
	case sp.P == 0 && given["p"]:
		return usageErr("p = 0: must be an edge probability in (0, 1]")
	case sp.Radius == 0 && given["radius"]:
		return usageErr("radius = 0: must be in (0, 0.7071]")
	case sp.Split == 0 && given["split"]:
		return usageErr("split = 0: must be a clique fraction in (0, 1]")
	case sp.Clique == 0 && given["clique"]:
		return usageErr("clique = 0: must be between 1 and servers (%d)", sp.Servers)
	case sp.Steps == 0 && given["steps"]:
		return usageErr("steps = 0: must be between 1 and 1048576; omit it for the default 1")
	case sp.Horizon == 0 && given["horizon"]:
		return usageErr("horizon = 0: must be a finite time > 0; omit it for the default %g", lbsim.DefaultHorizon)
	case sp.Replications == 0 && given["replications"]:
		return usageErr("replications = 0: must be at least 1; omit it for the default 1")
	}
	return nil
}

// Flag values. Each writes through a pointer only when the flag is given, so
// a flag's zero value never hides a value from the scenario file.

type value[T any] struct {
	p     *T
	parse func(string) (T, error)
}

func (v value[T]) String() string {
	if v.p == nil {
		return ""
	}
	return fmt.Sprint(*v.p)
}

func (v value[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

type boolFlag struct{ value[bool] }

func (boolFlag) IsBoolFlag() bool { return true }

func boolValue(p *bool) flag.Value {
	return boolFlag{value[bool]{p, func(s string) (bool, error) {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return false, errors.New("want true or false")
		}
		return b, nil
	}}}
}

func stringValue(p *string) flag.Value {
	return value[string]{p, func(s string) (string, error) { return s, nil }}
}

func intValue(p *int) flag.Value { return value[int]{p, parseInt} }

func floatValue(p *float64) flag.Value { return value[float64]{p, parseFloat} }

// optionalFloat sets a field whose nil value means "default".
func optionalFloat(p **float64) flag.Value {
	return value[*float64]{p, func(s string) (*float64, error) {
		x, err := parseFloat(s)
		return &x, err
	}}
}

func optionalUint(p **uint64) flag.Value {
	return value[*uint64]{p, func(s string) (*uint64, error) {
		x, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			return nil, errors.New("want an integer in [0, 2^64-1]")
		}
		return &x, nil
	}}
}

func floatList(p *[]float64) flag.Value { return value[[]float64]{p, listParser(parseFloat)} }

func intList(p *[]int) flag.Value { return value[[]int]{p, listParser(parseInt)} }

// parseInt parses a decimal integer, also written like 1e6.
func parseInt(s string) (int, error) {
	x, err := strconv.ParseInt(s, 10, 0)
	if err == nil {
		return int(x), nil
	}
	if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return int(f), nil
	}
	return 0, errors.New("want an integer")
}

func parseFloat(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errors.New("want a number")
	}
	if errors.Is(err, strconv.ErrRange) && math.IsInf(x, 0) {
		return 0, errors.New("number out of range")
	}
	return x, nil
}

// maxListLen bounds the expansion of compact lists (VALUExCOUNT).
const maxListLen = 1 << 27

// listParser parses a comma-separated list whose items are values or runs
// VALUExCOUNT (COUNT copies of VALUE). The empty string is the nil list.
func listParser[T any](parse func(string) (T, error)) func(string) ([]T, error) {
	return func(s string) ([]T, error) {
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		var out []T
		for item := range strings.SplitSeq(s, ",") {
			item = strings.TrimSpace(item)
			x, err := parse(item)
			count := 1
			if err != nil {
				i := strings.LastIndexAny(item, "xX")
				if i < 0 {
					return nil, fmt.Errorf("item %q: %v (or VALUExCOUNT)", item, err)
				}
				if x, err = parse(item[:i]); err != nil {
					return nil, fmt.Errorf("item %q: value %q: %v", item, item[:i], err)
				}
				c, err := strconv.Atoi(item[i+1:])
				if err != nil || c < 1 {
					return nil, fmt.Errorf("item %q: count %q: want an integer >= 1", item, item[i+1:])
				}
				count = c
			}
			if len(out)+count > maxListLen {
				return nil, fmt.Errorf("more than %d values", maxListLen)
			}
			out = append(out, make([]T, count)...)
			for k := len(out) - count; k < len(out); k++ {
				out[k] = x
			}
		}
		return out, nil
	}
}
