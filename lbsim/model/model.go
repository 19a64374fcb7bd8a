package model

import (
	"context"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lbsim/notebooks/lbsim/param"
)

// Keys every model declares, with these meanings: the sweep layer sets them
// on each point.
const (
	// KeySeed is the root seed of a point (kind Uint).
	KeySeed = "seed"
	// KeyReplications is the number of independent replications (kind Int).
	KeyReplications = "replications"
)

// A Model is one family of stochastic models, runnable one point at a time.
type Model struct {
	// Name identifies the model in sweep files ("model") and messages.
	Name string
	// Command is the lbsim subcommand that runs one point of it.
	Command string
	// Summary says in one line what the model is.
	Summary string
	// Keys declares its parameters; it must include KeySeed and
	// KeyReplications.
	Keys *param.Set
	// Run runs one point: v holds the point's keys, completed (defaults
	// applied and checked). progress, if not nil, is called with the
	// fraction done, from any goroutine. workers bounds the cores it uses
	// (0: all).
	Run func(ctx context.Context, v *param.Values, workers int, progress func(fraction float64)) (*Outcome, error)
	// Validate, if not nil, checks completed values beyond the checks of
	// each key (what depends on several keys), without running anything.
	Validate func(v *param.Values) error
	// Cost estimates the work of a point in expected events, for progress
	// and scheduling and for the event limit (CheckResources); nil means 1.
	Cost func(v *param.Values) float64
	// CostKey, if not nil, names the key that drives Cost in v (such as
	// "thresholds"), for the message of a point above the event limit; nil
	// names horizon where the model declares it, else replications.
	CostKey func(v *param.Values) string
	// Memory, if not nil, estimates the peak memory of a point in bytes and
	// names the key that drives it (such as "servers"), so that a point above
	// the memory limit is refused before it allocates (CheckResources). It
	// gets completed values whose keys passed their checks, before Validate
	// (which may itself allocate from them), and must not allocate from them.
	Memory func(v *param.Values) (bytes float64, key string)
}

// Outcome is what one point produced.
type Outcome struct {
	// Figures are the point's summary figures, in column order.
	Figures []Figure
	// PerReplication holds each replication's figures, in order.
	PerReplication [][]Figure
	// Result is the model's own full result, written to the point file as
	// JSON (for dispatch, what `lbsim run` prints).
	Result any
	// Files are the output files the point makes (a trace a key names).
	// Run does not write them: its caller does, once the whole point has
	// succeeded, so that a failed or interrupted command leaves none behind
	// (the command line stages them with its result, a sweep writes them
	// before the point file). A file is never replaced: an existing path is
	// an error.
	Files []File
}

// File is an output file of a point: Path, named by the key Key, holds
// what Write writes.
type File struct {
	Key, Path string
	Write     func(w io.Writer) error
}

// Figure is one named measurement, already formatted (see Float, Int, Text).
type Figure struct {
	Name string `json:"name"`
	// Value is a scalar (or text); CI95 its 95% half-width, if it has one.
	Value string  `json:"value,omitempty"`
	CI95  *string `json:"ci95,omitempty"`
	// Vector is a vector figure (columns Name1, Name2, ...); VectorCI95 its
	// half-widths (or nil); Pad fills columns beyond its length.
	Vector     []string `json:"vector,omitempty"`
	VectorCI95 []string `json:"vector_ci95,omitempty"`
	Pad        string   `json:"pad,omitempty"`
}

// FormatFloat writes x in shortest round-trip form, NaN and infinities as NaN.
func FormatFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "NaN"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Float is a scalar figure without a confidence interval.
func Float(name string, x float64) Figure { return Figure{Name: name, Value: FormatFloat(x)} }

// FloatCI is a scalar figure with its 95% half-width.
func FloatCI(name string, x, ci float64) Figure {
	c := FormatFloat(ci)
	return Figure{Name: name, Value: FormatFloat(x), CI95: &c}
}

// Int is an integer figure.
func Int(name string, n int64) Figure { return Figure{Name: name, Value: strconv.FormatInt(n, 10)} }

// Text is a label figure.
func Text(name, s string) Figure { return Figure{Name: name, Value: s} }

// Vector is a vector figure, padded with pad; ci may be nil.
func Vector(name string, xs, ci []float64, pad float64) Figure {
	f, _ := VectorContext(context.Background(), name, xs, ci, pad)
	return f
}

// VectorContext is Vector for a vector long enough that formatting it takes
// seconds (10^7 values): it returns ctx's error once ctx is done.
func VectorContext(ctx context.Context, name string, xs, ci []float64, pad float64) (Figure, error) {
	format := func(xs []float64) ([]string, error) {
		out := make([]string, 0, len(xs))
		for i, x := range xs {
			if i%(1<<14) == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			out = append(out, FormatFloat(x))
		}
		return out, nil
	}
	f := Figure{Name: name, Pad: FormatFloat(pad)}
	var err error
	if len(xs) > 0 {
		if f.Vector, err = format(xs); err != nil {
			return Figure{}, err
		}
	}
	if ci != nil {
		if f.VectorCI95, err = format(ci); err != nil {
			return Figure{}, err
		}
	}
	return f, nil
}

// FigureOf is the figure of the field of the struct v (or a pointer to one)
// that v's JSON writes under key, named key: Int for an integer, Text for a
// string, Float for a float64 and Vector (padded with 0) for a []float64,
// each with the half-widths of the field keyed key+"_ci95" when v has one.
// A figure read by the key of its field has the name and the half-width the
// JSON result gives it, so the columns of a sweep and the result cannot
// drift apart. A key that v lacks panics: a mistake in the model's code,
// which its tests meet.
func FigureOf(v any, key string) Figure {
	rv := reflect.Indirect(reflect.ValueOf(v))
	x, ok := fieldByKey(rv, key)
	if !ok {
		panic(fmt.Sprintf("model.FigureOf: %v has no field with the json key %q", rv.Type(), key))
	}
	ci, hasCI := fieldByKey(rv, key+"_ci95")
	switch x.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Int(key, x.Int())
	case reflect.String:
		return Text(key, x.String())
	case reflect.Float64:
		if hasCI && ci.Kind() == reflect.Float64 {
			return FloatCI(key, x.Float(), ci.Float())
		}
		return Float(key, x.Float())
	case reflect.Slice:
		if xs, ok := x.Interface().([]float64); ok {
			var c []float64
			if hasCI {
				c, _ = ci.Interface().([]float64)
			}
			return Vector(key, xs, c, 0)
		}
	}
	panic(fmt.Sprintf("model.FigureOf: the field %q of %v is a %v, not a figure", key, rv.Type(), x.Type()))
}

// FiguresOf is FigureOf of each key, in order.
func FiguresOf(v any, keys ...string) []Figure {
	out := make([]Figure, len(keys))
	for i, k := range keys {
		out[i] = FigureOf(v, k)
	}
	return out
}

// Named is f under another name: a column whose name differs from its JSON
// key (q for occupancy).
func (f Figure) Named(name string) Figure { f.Name = name; return f }

// Padded is the vector f padded with pad instead of 0.
func (f Figure) Padded(pad float64) Figure { f.Pad = FormatFloat(pad); return f }

// fieldByKey is the field of the struct rv whose json key is key.
func fieldByKey(rv reflect.Value, key string) (reflect.Value, bool) {
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name == key {
			return rv.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// IsVector reports whether the figure is a vector.
func (f Figure) IsVector() bool { return f.Vector != nil || f.Pad != "" }

var (
	mu     sync.RWMutex
	models = map[string]*Model{}
)

// Register makes a model available by name. It returns an error if the name
// is taken or the model lacks what the sweep layer needs.
func Register(m *Model) error {
	if m.Name == "" || m.Keys == nil || m.Run == nil {
		return fmt.Errorf("model %q: needs a name, keys and a run function", m.Name)
	}
	for _, k := range []string{KeySeed, KeyReplications} {
		if m.Keys.Key(k) == nil {
			return fmt.Errorf("model %q: must declare the key %q", m.Name, k)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := models[m.Name]; dup {
		return fmt.Errorf("model %q: already registered", m.Name)
	}
	models[m.Name] = m
	return nil
}

// MustRegister is Register for package initialisation: it panics on error.
func MustRegister(m *Model) {
	if err := Register(m); err != nil {
		panic(err)
	}
}

// Lookup returns the named model.
func Lookup(name string) (*Model, error) {
	mu.RLock()
	defer mu.RUnlock()
	if m, ok := models[name]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("model = %q: unknown; the models are %v", name, namesLocked())
}

// Names returns the registered model names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	var names []string
	for n := range models {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Point completes a point's values (defaults, checks) with its seed and
// replications set, ready for Run. They are set as the sweep's, not the
// user's (param.Values.SetImplied): a model that does not use them in some
// setting (admission without simulate) does not refuse them.
func (m *Model) Point(v *param.Values, seed uint64, replications int) (*param.Values, error) {
	v = v.Clone()
	if err := v.SetImplied(KeySeed, seed); err != nil {
		return nil, err
	}
	if err := v.SetImplied(KeyReplications, replications); err != nil {
		return nil, err
	}
	if err := m.Keys.Complete(v); err != nil {
		return nil, err
	}
	if err := m.CheckResources(v); err != nil { // before Validate, which may allocate
		return nil, err
	}
	if m.Validate != nil {
		if err := m.Validate(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// JSONNumber is x for encoding/json: nil (null) when x is NaN or infinite,
// which JSON cannot write (a half-width of a single replication).
func JSONNumber(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// JSONNumbers is JSONNumber for each of xs (nil for nil).
func JSONNumbers(xs []float64) []any {
	if xs == nil {
		return nil
	}
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = JSONNumber(x)
	}
	return out
}
