package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
	"sigs.k8s.io/yaml"
)

// sweepName is what a sweep's name may hold: it goes into file names, job
// names and the comments of scripts and manifests, so nothing that a shell,
// YAML or a file system reads specially (slashes, spaces, quotes, line breaks
// of any kind).
var sweepName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Spec is a sweep: a base scenario, axes whose values vary it, the number of
// replications of every point and the root seed. It is what a sweep file
// holds (see the package documentation for the format).
type Spec struct {
	// Name labels the sweep (file names, job names); optional.
	Name string `json:"name,omitempty"`
	// Model names the model of the points (package model); absent means
	// "dispatch", the dispatch simulator of `lbsim run`.
	Model string `json:"model,omitempty"`
	// Base is the scenario shared by every point: an object with any keys
	// of the model except seed and replications.
	Base map[string]json.RawMessage `json:"base"`
	// Axes vary the base. Each axis is an object of one or more keys; the
	// value lists of the keys of one axis are zipped (they must have the same
	// length), and the axes are combined by Cartesian product, the last axis
	// varying fastest.
	Axes []Axis `json:"axes"`
	// Replications of every point (>= 1).
	Replications int `json:"replications"`
	// Seed is the root seed from which every point's seed is derived.
	Seed uint64 `json:"seed"`
}

// Axis is one axis of a sweep: keys of lbsim.Spec, each with its list of
// values (a JSON array, or a range object {"from", "to", "step"} or
// {"from", "to", "count"[, "scale": "log"]}). A null value leaves the key
// out of the point (its default applies).
type Axis map[string]json.RawMessage

// Point is one scenario of a sweep.
type Point struct {
	// Index is the point's position in the sweep's order (0-based).
	Index int
	// Params are the axis values of the point, in axis order (nil Value:
	// the key is absent and takes its default).
	Params []Param
	// Key is the hex SHA-256 of the point's canonical scenario (see
	// CanonicalJSON); it names the point whatever sweep it belongs to.
	Key string
	// Seed is the point's seed, derived from the root seed and Key.
	Seed uint64
	// Values are the point's keys after defaults, with Seed and the
	// sweep's replications: Values.Float("lambda"), Values.String("topology").
	Values *param.Values
	// Model is the sweep's model.
	Model *model.Model
}

// Param is one axis key of a point and its value as canonical JSON (nil when
// the key is absent).
type Param struct {
	Key   string
	Value json.RawMessage
}

// String writes the parameters as key=value pairs, for messages.
func (p Point) String() string {
	parts := make([]string, len(p.Params))
	for i, pa := range p.Params {
		v := "default"
		if pa.Value != nil {
			v = strings.Trim(string(pa.Value), `"`)
		}
		parts[i] = pa.Key + "=" + v
	}
	return fmt.Sprintf("point %d (%s)", p.Index, strings.Join(parts, ", "))
}

// reserved keys cannot appear in base or on an axis: the sweep sets them.
var reserved = map[string]string{
	"seed":         "each point's seed is derived from the sweep's root \"seed\"",
	"replications": "set \"replications\" at the top level of the sweep",
}

// ReadSpec reads a sweep file: JSON, or YAML when the name ends in .yaml or
// .yml (converted to JSON first, so the same strict rules apply).
func ReadSpec(path string) (*Spec, error) {
	data, err := param.ReadFile(path, param.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("sweep file: %w", err)
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		raw := data
		// Strict: a key given twice is an error, not the last one kept.
		if data, err = yaml.YAMLToJSONStrict(data); err != nil {
			msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n")
			msg = strings.ReplaceAll(msg, "already set in map", "given twice (give each key once)")
			return nil, fmt.Errorf("%q: malformed YAML: %s", path, strings.Join(strings.Fields(msg), " "))
		}
		if err := checkYAMLScalars(raw); err != nil {
			return nil, fmt.Errorf("%q: %w", path, err)
		}
	}
	sw, err := ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", path, err)
	}
	return sw, nil
}

// ParseSpec decodes a JSON sweep strictly (unknown keys are errors) and checks
// its structure. Points are checked by Points.
func ParseSpec(data []byte) (*Spec, error) {
	var sw Spec
	var raw struct {
		Spec
		Seed *uint64 `json:"seed"`
	}
	if err := param.DecodeStrict(data, &raw); err != nil {
		return nil, err
	}
	sw = raw.Spec
	m, err := sw.model()
	if err != nil {
		return nil, err
	}
	if raw.Seed == nil {
		return nil, errors.New("seed: missing; give the sweep's root seed (an integer in [0, 2^64-1])")
	}
	sw.Seed = *raw.Seed
	if sw.Replications < 1 {
		return nil, fmt.Errorf("replications = %d: must be at least 1", sw.Replications)
	}
	if sw.Base == nil {
		sw.Base = map[string]json.RawMessage{}
	}
	if sw.Name != "" && (!sweepName.MatchString(sw.Name) || len(sw.Name) > 100) {
		return nil, fmt.Errorf("name = %q: must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit", sw.Name)
	}
	for k := range sw.Base {
		if err := checkKey(m, k); err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
	}
	if len(sw.Axes) == 0 {
		return nil, errors.New("axes: empty; give at least one axis, e.g. [{\"lambda\": [0.5, 0.9]}]")
	}
	seen := map[string]int{}
	for i, ax := range sw.Axes {
		if len(ax) == 0 {
			return nil, fmt.Errorf("axes[%d]: empty object; give at least one key with its values", i)
		}
		n := -1
		for _, k := range ax.keys() {
			if err := checkKey(m, k); err != nil {
				return nil, fmt.Errorf("axes[%d]: %w", i, err)
			}
			if j, dup := seen[k]; dup {
				return nil, fmt.Errorf("axes[%d]: parameter %q is already on axes[%d]", i, k, j)
			}
			seen[k] = i
			vals, err := axisValues(ax[k])
			if err != nil {
				return nil, fmt.Errorf("axes[%d].%s: %w", i, k, err)
			}
			if n >= 0 && len(vals) != n {
				return nil, fmt.Errorf("axes[%d].%s: %d values, but the other keys of this (zipped) axis have %d",
					i, k, len(vals), n)
			}
			n = len(vals)
		}
	}
	return &sw, nil
}

// DefaultModel is the model of a sweep that names none.
const DefaultModel = "dispatch"

// model returns the sweep's model.
func (sw *Spec) model() (*model.Model, error) {
	name := sw.Model
	if name == "" {
		name = DefaultModel
	}
	return model.Lookup(name)
}

func checkKey(m *model.Model, k string) error {
	if why, ok := reserved[k]; ok {
		return fmt.Errorf("parameter %q: not allowed here; %s", k, why)
	}
	if m.Keys.Key(k) == nil {
		var keys []string
		for _, name := range m.Keys.Names() {
			if _, r := reserved[name]; !r {
				keys = append(keys, name)
			}
		}
		slices.Sort(keys)
		return fmt.Errorf("unknown parameter %q; the keys of model %s are %s", k, m.Name, strings.Join(keys, ", "))
	}
	return nil
}

// keys returns the axis's keys sorted, the order of its columns.
func (ax Axis) keys() []string {
	keys := make([]string, 0, len(ax))
	for k := range ax {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Keys returns the axis keys of the sweep in column order: axes in order,
// the keys of a zipped axis sorted.
func (sw *Spec) Keys() []string {
	var keys []string
	for _, ax := range sw.Axes {
		keys = append(keys, ax.keys()...)
	}
	return keys
}

// axisRange is the range form of an axis's values.
type axisRange struct {
	From  *float64 `json:"from"`
	To    *float64 `json:"to"`
	Step  float64  `json:"step,omitempty"`
	Count int      `json:"count,omitempty"`
	Scale string   `json:"scale,omitempty"`
}

// maxAxisValues bounds one axis, so that a typo in a range cannot expand to
// billions of points.
const maxAxisValues = 100000

// axisValues returns the values of one key of an axis as JSON values.
func axisValues(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '[':
		var vals []json.RawMessage
		if err := json.Unmarshal(raw, &vals); err != nil {
			return nil, fmt.Errorf("malformed list: %w", err)
		}
		if len(vals) == 0 {
			return nil, errors.New("empty list of values; give at least one")
		}
		return vals, nil
	case len(raw) > 0 && raw[0] == '{':
		var r axisRange
		if err := param.DecodeStrict(raw, &r); err != nil {
			return nil, fmt.Errorf("range: %w (a range has from, to and step, or from, to, count and optionally scale)", err)
		}
		return r.values()
	}
	return nil, fmt.Errorf("got %s; want a list of values [v1, v2, ...] or a range {\"from\": a, \"to\": b, \"step\": s}", raw)
}

func (r axisRange) values() ([]json.RawMessage, error) {
	if r.From == nil || r.To == nil {
		return nil, errors.New("range: needs from and to")
	}
	a, b := *r.From, *r.To
	if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
		return nil, errors.New("range: from and to must be finite")
	}
	var xs []float64
	switch {
	case r.Step != 0 && r.Count != 0:
		return nil, errors.New("range: give step or count, not both")
	case r.Step != 0:
		if r.Scale != "" {
			return nil, errors.New("range: scale goes with count, not step")
		}
		if math.IsNaN(r.Step) || (b-a)/r.Step < 0 {
			return nil, fmt.Errorf("range: step = %v goes away from to = %v", r.Step, b)
		}
		n := math.Floor((b-a)/r.Step+1e-9) + 1
		if n > maxAxisValues {
			return nil, fmt.Errorf("range: %v values, more than %d", n, maxAxisValues)
		}
		for i := range int(n) {
			// a + i*step, rounded to 12 significant digits so that 0.1 steps
			// give 0.3, not 0.30000000000000004.
			xs = append(xs, round12(a+float64(i)*r.Step))
		}
	case r.Count != 0:
		if r.Count < 1 || r.Count > maxAxisValues {
			return nil, fmt.Errorf("range: count = %d: must be in [1, %d]", r.Count, maxAxisValues)
		}
		switch r.Scale {
		case "", "linear":
		case "log":
			if a <= 0 || b <= 0 {
				return nil, errors.New("range: a log scale needs from > 0 and to > 0")
			}
		default:
			return nil, fmt.Errorf("range: scale = %q: must be linear or log", r.Scale)
		}
		for i := range r.Count {
			t := 0.0
			if r.Count > 1 {
				t = float64(i) / float64(r.Count-1)
			}
			x := a + t*(b-a)
			if r.Scale == "log" {
				x = math.Exp(math.Log(a) + t*(math.Log(b)-math.Log(a)))
			}
			xs = append(xs, round12(x))
		}
	default:
		return nil, errors.New("range: needs step or count")
	}
	vals := make([]json.RawMessage, len(xs))
	for i, x := range xs {
		vals[i] = json.RawMessage(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return vals, nil
}

func round12(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return v
}

// NumPoints is the number of points of the sweep.
func (sw *Spec) NumPoints() int {
	n := 1
	for _, ax := range sw.Axes {
		vals, _ := axisValues(ax[ax.keys()[0]])
		n *= len(vals)
	}
	return n
}

// maxPoints bounds a sweep.
const maxPoints = 10_000_000

// bytesPerPoint bounds the memory of an expanded point (its parameters, key
// and values): TestPointsMemory measures it.
const bytesPerPoint = 2048

// Points expands the sweep into its points, in order, and validates every
// one with the strict scenario parser: an error names the point and the
// parameter.
func (sw *Spec) Points() ([]Point, error) {
	m, err := sw.model()
	if err != nil {
		return nil, err
	}
	type column struct {
		key  string
		vals []json.RawMessage
	}
	var axes [][]column
	total := 1
	for _, ax := range sw.Axes {
		var cols []column
		for _, k := range ax.keys() {
			vals, err := axisValues(ax[k])
			if err != nil {
				return nil, fmt.Errorf("axes.%s: %w", k, err)
			}
			cols = append(cols, column{k, vals})
		}
		axes = append(axes, cols)
		total *= len(cols[0].vals)
		if total > maxPoints {
			return nil, fmt.Errorf("axes: more than %d points", maxPoints)
		}
	}
	// The points and their values, before the first is built.
	if err := model.CheckMemory(fmt.Sprintf("axes (%d points)", total), bytesPerPoint*float64(total)); err != nil {
		return nil, err
	}
	points := make([]Point, total)
	idx := make([]int, len(axes))
	for p := range total {
		// idx: the mixed-radix digits of p, last axis fastest.
		rem := p
		for a := len(axes) - 1; a >= 0; a-- {
			n := len(axes[a][0].vals)
			idx[a] = rem % n
			rem /= n
		}
		obj := map[string]json.RawMessage{}
		for k, v := range sw.Base {
			obj[k] = v
		}
		var params []Param
		for a, cols := range axes {
			for _, c := range cols {
				v := c.vals[idx[a]]
				if isNull(v) {
					delete(obj, c.key)
					params = append(params, Param{Key: c.key})
					continue
				}
				obj[c.key] = v
				cv, err := canonical(v)
				if err != nil {
					return nil, fmt.Errorf("axes.%s: %w", c.key, err)
				}
				params = append(params, Param{Key: c.key, Value: cv})
			}
		}
		pt := Point{Index: p, Params: params, Model: m}
		if err := pt.build(obj, sw.Seed, sw.Replications); err != nil {
			return nil, err
		}
		points[p] = pt
	}
	return points, nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// build derives the point's key and seed from its scenario object and
// validates the scenario. The points of a model other than the default one
// have "model" in the object their key and seed derive from, so two models'
// points with the same keys draw different numbers.
func (pt *Point) build(obj map[string]json.RawMessage, root uint64, reps int) error {
	for k, v := range obj {
		if isNull(v) {
			delete(obj, k)
		}
	}
	seedObj := obj
	if pt.Model.Name != DefaultModel {
		seedObj = maps.Clone(obj)
		name, _ := json.Marshal(pt.Model.Name)
		seedObj["model"] = name
	}
	canon, err := CanonicalJSON(seedObj)
	if err != nil {
		return fmt.Errorf("%v: %w", pt, err)
	}
	sum := sha256.Sum256(canon)
	pt.Key = hex.EncodeToString(sum[:])
	pt.Seed = PointSeed(root, canon)
	scenario, err := CanonicalJSON(obj)
	if err != nil {
		return fmt.Errorf("%v: %w", pt, err)
	}
	v, err := pt.Model.Keys.DecodeJSON(scenario)
	if err != nil {
		return fmt.Errorf("%v: %w", pt, err)
	}
	if pt.Values, err = pt.Model.Point(v, pt.Seed, reps); err != nil {
		return fmt.Errorf("%v: %w", pt, err)
	}
	return nil
}

// PointSeed is the seed of the point whose canonical scenario (CanonicalJSON,
// without seed and replications) is canon, in a sweep with root seed root:
// the first 8 bytes, big-endian, of SHA-256("lbsim-sweep-seed/v1" 0x00
// root-as-8-bytes-big-endian canon). Replication r of the point then draws
// from lbsim.Stream(seed, r), as in any run, so `lbsim run --seed SEED`
// with the point's scenario reproduces the point.
func PointSeed(root uint64, canon []byte) uint64 {
	h := sha256.New()
	h.Write([]byte("lbsim-sweep-seed/v1\x00"))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], root)
	h.Write(b[:])
	h.Write(canon)
	return binary.BigEndian.Uint64(h.Sum(nil)[:8])
}

// CanonicalJSON encodes a scenario object canonically: keys sorted, no
// spaces, null values dropped, numbers in one spelling (integers, including
// integral floats below 2^53 in magnitude, in decimal; other numbers in Go's
// shortest round-trip form, so 0.50, 5e-1 and 0.5 are the same), strings as
// encoding/json writes them.
func CanonicalJSON(obj map[string]json.RawMessage) ([]byte, error) {
	m := map[string]json.RawMessage{}
	for k, v := range obj {
		if isNull(v) {
			continue
		}
		cv, err := canonical(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		m[k] = cv
	}
	return json.Marshal(m) // sorts the keys; RawMessage is copied as is
}

// canonical re-encodes one JSON value canonically.
func canonical(v json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("malformed value %s: %w", v, err)
	}
	x, err := canonicalValue(x)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

func canonicalValue(x any) (any, error) {
	switch t := x.(type) {
	case json.Number:
		return canonicalNumber(t)
	case []any:
		for i := range t {
			var err error
			if t[i], err = canonicalValue(t[i]); err != nil {
				return nil, err
			}
		}
		return t, nil
	case map[string]any:
		for k := range t {
			var err error
			if t[k], err = canonicalValue(t[k]); err != nil {
				return nil, err
			}
		}
		return t, nil
	}
	return x, nil
}

func canonicalNumber(n json.Number) (json.Number, error) {
	s := n.String()
	if i, ok := new(big.Int).SetString(s, 10); ok {
		return json.Number(i.String()), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("number %s: out of range", s)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return json.Number(strconv.FormatInt(int64(f), 10)), nil
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}
