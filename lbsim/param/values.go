package param

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Values are the keys a scenario gives, with their values. The zero Values
// is not usable: get one from Set.New or Set.DecodeJSON.
type Values struct {
	set *Set
	m   map[string]any
	// implied marks the present keys whose value the user did not give: set
	// by a default (Complete) or by SetImplied. Given reads it.
	implied map[string]bool
}

// New returns empty values of the set.
func (s *Set) New() *Values { return &Values{set: s, m: map[string]any{}, implied: map[string]bool{}} }

// Decl returns the set of keys the values belong to.
func (v *Values) Decl() *Set { return v.set }

// Clone returns an independent copy (lists are copied).
func (v *Values) Clone() *Values {
	c := v.set.New()
	for k, x := range v.m {
		switch t := x.(type) {
		case []int:
			x = slices.Clone(t)
		case []float64:
			x = slices.Clone(t)
		}
		c.m[k] = x
	}
	maps.Copy(c.implied, v.implied)
	return c
}

// Has reports whether the key is present.
func (v *Values) Has(name string) bool { _, ok := v.m[name]; return ok }

// Given reports whether the key is present with a value the user gave (a
// file, a flag, a sweep's base or axes, Set), not one that Complete filled
// in from its default or that the layer running the point set (SetImplied).
func (v *Values) Given(name string) bool { return v.Has(name) && !v.implied[name] }

// Delete makes the key absent.
func (v *Values) Delete(name string) { delete(v.m, name); delete(v.implied, name) }

// Present returns the names of the present keys in declaration order.
func (v *Values) Present() []string {
	var names []string
	for _, k := range v.set.Keys() {
		if v.Has(k.Name) {
			names = append(names, k.Name)
		}
	}
	return names
}

// SetImplied is Set for a value the user did not give: the seed and
// replications that a sweep sets on each of its points. Like a default, it
// does not count as given (Given), so a key that the scenario does not use
// (Key.Unused) is not refused for it.
func (v *Values) SetImplied(name string, x any) error {
	if err := v.Set(name, x); err != nil {
		return err
	}
	if v.Has(name) {
		v.implied[name] = true
	}
	return nil
}

// Set sets a key to x, which must have the Go type of the key's kind
// (integral float64 values are accepted for Int and Uint keys, and int for
// Float keys): a value the user gives (Given). An empty list makes the key
// absent.
func (v *Values) Set(name string, x any) error {
	delete(v.implied, name)
	k := v.set.Key(name)
	if k == nil {
		return fmt.Errorf("unknown key %q", name)
	}
	y, err := convert(k.Kind, x)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	switch t := y.(type) {
	case []int:
		if len(t) == 0 {
			delete(v.m, name)
			return nil
		}
	case []float64:
		if len(t) == 0 {
			delete(v.m, name)
			return nil
		}
	}
	v.m[name] = y
	return nil
}

func convert(kind Kind, x any) (any, error) {
	bad := func() (any, error) { return nil, fmt.Errorf("got %T, want %s", x, kind.article()) }
	switch kind {
	case Int:
		switch t := x.(type) {
		case int:
			return t, nil
		case float64:
			if t == math.Trunc(t) && math.Abs(t) <= 1<<53 {
				return int(t), nil
			}
		}
	case Uint:
		switch t := x.(type) {
		case uint64:
			return t, nil
		case int:
			if t >= 0 {
				return uint64(t), nil
			}
		}
	case Float:
		switch t := x.(type) {
		case float64:
			return t, nil
		case int:
			return float64(t), nil
		}
	case Bool:
		if b, ok := x.(bool); ok {
			return b, nil
		}
	case String:
		if s, ok := x.(string); ok {
			return s, nil
		}
	case Ints:
		if l, ok := x.([]int); ok {
			return l, nil
		}
	case Floats:
		if l, ok := x.([]float64); ok {
			return l, nil
		}
	}
	return bad()
}

// Get returns the value of a present key, or nil.
func (v *Values) Get(name string) any { return v.m[name] }

// Typed getters: the key's value, or the zero value when it is absent. They
// panic when the key's kind is another (a programming error).

func (v *Values) Int(name string) int          { return get[int](v, name) }
func (v *Values) Uint(name string) uint64      { return get[uint64](v, name) }
func (v *Values) Float(name string) float64    { return get[float64](v, name) }
func (v *Values) Bool(name string) bool        { return get[bool](v, name) }
func (v *Values) String(name string) string    { return get[string](v, name) }
func (v *Values) Ints(name string) []int       { return get[[]int](v, name) }
func (v *Values) Floats(name string) []float64 { return get[[]float64](v, name) }

func get[T any](v *Values, name string) T {
	x, ok := v.m[name]
	if !ok {
		if v.set.Key(name) == nil {
			panic(fmt.Sprintf("param: %s has no key %q", v.set.Name, name))
		}
		var zero T
		return zero
	}
	return x.(T)
}

// describe writes "key = value" for messages.
func (v *Values) describe(k *Key) string {
	return k.Name + " = " + Format(v.m[k.Name])
}

// Format writes a value as messages show it: strings quoted, numbers in
// shortest form, lists in brackets (long lists shortened).
func Format(x any) string {
	switch t := x.(type) {
	case string:
		return strconv.Quote(t)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case []float64:
		return formatList(t, func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) })
	case []int:
		return formatList(t, strconv.Itoa)
	}
	return fmt.Sprint(x)
}

func formatList[T any](xs []T, f func(T) string) string {
	var parts []string
	for i, x := range xs {
		if i == 8 && len(xs) > 10 {
			parts = append(parts, fmt.Sprintf("... (%d values)", len(xs)))
			break
		}
		parts = append(parts, f(x))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// MarshalJSON writes the present keys in declaration order. NaN and
// infinite numbers are written as null.
func (v *Values) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range v.Present() {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(name)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(encodeValue(v.m[name]))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func encodeValue(x any) []byte {
	num := func(f float64) []byte {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return []byte("null")
		}
		out, _ := json.Marshal(f)
		return out
	}
	switch t := x.(type) {
	case float64:
		return num(t)
	case []float64:
		parts := make([][]byte, len(t))
		for i, f := range t {
			parts[i] = num(f)
		}
		return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
	}
	out, _ := json.Marshal(x)
	return out
}

// Map returns the present keys and their values (lists shared, not copied).
func (v *Values) Map() map[string]any {
	m := make(map[string]any, len(v.m))
	for k, x := range v.m {
		m[k] = x
	}
	return m
}

// MaxFileBytes bounds a scenario, sweep spec or point file (JSON), read with
// ReadAll, and a file of service-time samples: a file that never ends is
// refused instead of filling the memory.
const MaxFileBytes = 64 << 20

// MaxDataFileBytes bounds an edge-list file named by a key, read through
// LimitReader.
const MaxDataFileBytes = 256 << 20

// DecodeJSON decodes one JSON object strictly: unknown keys, keys given twice
// (also in another case), values of the wrong type and trailing data are
// errors naming the key; null leaves a key absent. It applies no defaults
// (see Complete).
func (s *Set) DecodeJSON(data []byte) (*Values, error) {
	if err := checkKeys(data, false); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("malformed JSON: want an object of scenario keys, got a JSON %s", te.Value)
		}
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("malformed JSON: trailing data after the object")
	}
	if raw == nil {
		return nil, errors.New("malformed JSON: want an object of scenario keys, got null")
	}
	v := s.New()
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		k := s.Key(name)
		if k == nil {
			return nil, fmt.Errorf("unknown key %q; the keys are %s", name, strings.Join(s.Names(), ", "))
		}
		if raw[name] == nil {
			continue
		}
		x, err := fromJSON(k.Kind, raw[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := v.Set(name, x); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func jsonType(x any) string {
	switch x.(type) {
	case json.Number:
		return "number"
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

// fromJSON converts a decoded JSON value (UseNumber) to the Go type of kind.
func fromJSON(kind Kind, x any) (any, error) {
	bad := func() (any, error) { return nil, fmt.Errorf("got a JSON %s, want %s", jsonType(x), kind.article()) }
	switch kind {
	case Int, Uint, Float:
		n, ok := x.(json.Number)
		if !ok {
			return bad()
		}
		return parseNumber(kind, n.String())
	case Bool:
		if b, ok := x.(bool); ok {
			return b, nil
		}
	case String:
		if s, ok := x.(string); ok {
			return s, nil
		}
	case Ints, Floats:
		l, ok := x.([]any)
		if !ok {
			return bad()
		}
		elem := Int
		if kind == Floats {
			elem = Float
		}
		ints, floats := []int{}, []float64{}
		for i, e := range l {
			n, ok := e.(json.Number)
			if !ok {
				return nil, fmt.Errorf("item %d: got a JSON %s, want %s", i, jsonType(e), elem.article())
			}
			y, err := parseNumber(elem, n.String())
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			if kind == Ints {
				ints = append(ints, y.(int))
			} else {
				floats = append(floats, y.(float64))
			}
		}
		if kind == Ints {
			return ints, nil
		}
		return floats, nil
	}
	return bad()
}

// decimalNumber is a number in decimal notation, such as 12, 1e6 or 2.5e3.
var decimalNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parseNumber parses a number of kind Int, Uint or Float, as written in JSON
// or on the command line. Integers may be written like 1e6.
func parseNumber(kind Kind, s string) (any, error) {
	// Integers in decimal notation only: strconv and math/big also read base
	// prefixes (0x10, 0b1, 0o7: --seed 010 would be 8) and digit separators
	// (1_000), which give other values than a reader of the input sees.
	// (Floats keep Go's hexadecimal form 0x1p-2, which cannot be misread.)
	if kind != Float && !decimalNumber.MatchString(s) {
		return nil, fmt.Errorf("%s: want a decimal integer", s)
	}
	switch kind {
	case Int:
		if i, err := strconv.ParseInt(s, 10, 0); err == nil {
			return int(i), nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			return int(f), nil
		}
		return nil, fmt.Errorf("%s: want an integer", s)
	case Uint:
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u, nil
		}
		if i, ok := new(big.Float).SetString(s); ok && i.IsInt() && i.Sign() >= 0 {
			if u, acc := i.Uint64(); acc == big.Exact {
				return u, nil
			}
		}
		return nil, fmt.Errorf("%s: want an integer in [0, 2^64-1]", s)
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%s: want a number", s)
		}
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: number out of range", s)
		}
		return f, nil
	}
	return nil, fmt.Errorf("not a number kind: %v", kind)
}

// DecodeStrict decodes one JSON value into the Go value v (a struct of a
// command's or a sweep's own options), rejecting unknown keys, keys given
// twice or in upper case (at any depth) and trailing data, with errors that
// name the key.
func DecodeStrict(data []byte, v any) error {
	if err := checkKeys(data, true); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: got a JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return fmt.Errorf("malformed JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("malformed JSON: trailing data after the object")
	}
	return nil
}
