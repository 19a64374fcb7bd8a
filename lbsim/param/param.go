package param

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Kind is the type of a key's value.
type Kind int

// The kinds of values. In Go a value of kind Int is an int, Uint a uint64,
// Float a float64, Bool a bool, String a string, Ints an []int and Floats a
// []float64.
const (
	Int Kind = iota + 1
	Uint
	Float
	Bool
	String
	Ints
	Floats
)

func (k Kind) String() string {
	switch k {
	case Int:
		return "integer"
	case Uint:
		return "integer in [0, 2^64-1]"
	case Float:
		return "number"
	case Bool:
		return "true or false"
	case String:
		return "string"
	case Ints:
		return "list of integers"
	case Floats:
		return "list of numbers"
	}
	return "unknown kind"
}

// article writes the kind with its article ("an integer").
func (k Kind) article() string {
	if k == Int || k == Uint {
		return "an " + k.String()
	}
	return "a " + k.String()
}

// Key declares one parameter.
type Key struct {
	// Name is the JSON key; the flag is --Name with '-' for '_'.
	Name string
	Kind Kind
	// Arg is the placeholder of the flag's value in the help (N, X, LIST,
	// NAME); bool flags take none.
	Arg string
	// Doc says what the key is, in one line (the help wraps it).
	Doc string
	// Range states the allowed values in words, for the help and the
	// message of a missing key ("an integer >= 1"); Check enforces them.
	Range string
	// Required keys must be given.
	Required bool
	// Default returns the value of the key when it is absent, computed from
	// the keys declared before it; ok false leaves it absent. Nil: no default.
	Default func(v *Values) (x any, ok bool)
	// DefaultDoc states the default in the help ("2", "horizon/10").
	DefaultDoc string
	// Enum lists the allowed values of a String key (nil: any string).
	Enum []string
	// Check returns "" when the value x is allowed, else what it must be
	// ("must be between 1 and servers (10)"), or, for a bad item of a list,
	// a message that names it ("rates[3] = -1: must be > 0"); it may read
	// other keys of v, after defaults. Nil: any value of the kind.
	Check func(x any, v *Values) string
	// For lists the variants (values of the set's variant key) that use the
	// key; nil means every variant.
	For []string
	// Unused, if not nil, returns why the key has no effect on the scenario
	// as completed ("unused without simulate: ..."), or "" when it is used:
	// for a key that only some settings of other keys read (a simulation's
	// horizon in a model that can also solve exactly, the seed of a
	// topology that may not be random). Complete refuses the key when the
	// user gave it (Values.Given) with a value other than its default; a
	// default, or the same value given again (a printed scenario fed back),
	// changes nothing and passes.
	Unused func(v *Values) string
	// Tags mark keys for the commands: SimulationOnly keys are not read by
	// exact solutions.
	Tags []string
}

// SimulationOnly tags the keys that only a simulation reads (horizon,
// seed, ...): an exact solution ignores them.
const SimulationOnly = "simulation-only"

// Flag is the key's command-line flag name, without dashes.
func (k *Key) Flag() string { return strings.ReplaceAll(k.Name, "_", "-") }

// HasTag reports whether the key carries the tag.
func (k *Key) HasTag(tag string) bool { return slices.Contains(k.Tags, tag) }

// UsedBy reports whether the variant uses the key. Keys with a For list
// are used by no variant when none is chosen ("").
func (k *Key) UsedBy(variant string) bool {
	return k.For == nil || slices.Contains(k.For, variant)
}

// Set is the ordered list of a model's keys. It is safe for concurrent use;
// keys are added at init time (by the variants that bring them) and read
// afterwards.
type Set struct {
	// Name labels the set in messages ("lbsim run").
	Name string
	// Variant is the key that selects a variant ("policy"), or "".
	Variant string

	mu       sync.RWMutex
	keys     []*Key
	byName   map[string]*Key
	variants map[string][]string // variant -> keys it declared it uses
}

// NewSet returns an empty set of keys; variant names the key that selects
// the variant of the model ("" if it has none).
func NewSet(name, variant string) *Set {
	return &Set{Name: name, Variant: variant, byName: map[string]*Key{}, variants: map[string][]string{}}
}

// Add declares keys. It panics on a name declared before or on a malformed
// declaration: declarations are code, checked when the package loads.
func (s *Set) Add(keys ...Key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		if k.Name == "" || k.Kind == 0 || k.Doc == "" {
			panic(fmt.Sprintf("param: key %q in %s: needs a name, a kind and a doc", k.Name, s.Name))
		}
		if _, dup := s.byName[k.Name]; dup {
			panic(fmt.Sprintf("param: key %q declared twice in %s", k.Name, s.Name))
		}
		if k.Enum != nil && k.Kind != String {
			panic(fmt.Sprintf("param: key %q: Enum needs kind String", k.Name))
		}
		k := k
		s.keys = append(s.keys, &k)
		s.byName[k.Name] = &k
	}
}

// Use records that variant uses the named keys, adding it to their For
// lists (keys whose For is nil, used by every variant, are left as they
// are). It panics on an unknown key.
func (s *Set) Use(variant string, names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range names {
		k, ok := s.byName[name]
		if !ok {
			panic(fmt.Sprintf("param: variant %q uses key %q, which %s does not declare", variant, name, s.Name))
		}
		if k.For != nil && !slices.Contains(k.For, variant) {
			k.For = append(k.For, variant)
		}
		s.variants[variant] = append(s.variants[variant], name)
	}
}

// VariantKeys returns the keys that variant declared it uses (see Use).
func (s *Set) VariantKeys(variant string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.variants[variant])
}

// Keys returns the keys in declaration order.
func (s *Set) Keys() []*Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.keys)
}

// Key returns the named key, or nil.
func (s *Set) Key(name string) *Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.byName[name]
}

// Names returns the key names in declaration order.
func (s *Set) Names() []string {
	var names []string
	for _, k := range s.Keys() {
		names = append(names, k.Name)
	}
	return names
}

// Complete applies the defaults of the absent keys, in declaration order,
// and validates every present key: required keys, keys the chosen variant
// does not use, enums and Check, then keys the user gave that the completed
// scenario does not use (Key.Unused). The error names the first bad key.
func (s *Set) Complete(v *Values) error {
	if v.set != s {
		return fmt.Errorf("param: values of %s completed by %s", v.set.Name, s.Name)
	}
	variant := ""
	if s.Variant != "" && v.Has(s.Variant) {
		variant, _ = v.m[s.Variant].(string)
	}
	keys := s.Keys()
	for _, k := range keys {
		if !k.UsedBy(variant) {
			if v.Has(k.Name) && variant == "" {
				return fmt.Errorf("%s: only %s %s take %s", v.describe(k), s.Variant, strings.Join(k.For, ", "), k.Name)
			}
			if v.Has(k.Name) {
				return fmt.Errorf("%s: %s %s takes no %s", v.describe(k), s.Variant, variant, k.Name)
			}
			continue
		}
		if !v.Has(k.Name) && k.Default != nil {
			if x, ok := k.Default(v); ok {
				if err := v.SetImplied(k.Name, x); err != nil {
					panic(fmt.Sprintf("param: default of %s: %v", k.Name, err))
				}
			}
		}
		if !v.Has(k.Name) && k.Required {
			return fmt.Errorf("%s: missing; give --%s %s%s or %q in the scenario file", k.Name, k.Flag(), k.Arg,
				parenthesised(k.Range), k.Name)
		}
	}
	for _, k := range keys {
		if !v.Has(k.Name) {
			continue
		}
		x := v.m[k.Name]
		if k.Enum != nil && !slices.Contains(k.Enum, x.(string)) {
			return fmt.Errorf("%s: must be one of %s", v.describe(k), strings.Join(k.Enum, ", "))
		}
		if k.Check != nil {
			if msg := k.Check(x, v); msg != "" {
				if strings.HasPrefix(msg, k.Name+"[") { // names the list item itself
					return errors.New(msg)
				}
				return fmt.Errorf("%s: %s", v.describe(k), msg)
			}
		}
	}
	for _, k := range keys {
		if k.Unused == nil || !v.Given(k.Name) {
			continue
		}
		if msg := k.Unused(v); msg != "" && !isDefault(k, v) {
			return fmt.Errorf("%s: %s", v.describe(k), msg)
		}
	}
	return nil
}

// isDefault reports whether the key's value in completed values is the one
// its default gives there.
func isDefault(k *Key, v *Values) bool {
	if k.Default == nil {
		return false
	}
	x, ok := k.Default(v)
	if !ok {
		return false
	}
	y, err := convert(k.Kind, x)
	return err == nil && reflect.DeepEqual(y, v.m[k.Name])
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// Checks for common ranges. Each returns the message of Key.Check.

// IntBetween allows integers in [lo, hi].
func IntBetween(lo, hi int) func(any, *Values) string {
	return func(x any, _ *Values) string {
		if n := x.(int); n < lo || n > hi {
			return fmt.Sprintf("must be between %d and %d", lo, hi)
		}
		return ""
	}
}

// IntAtLeast allows integers >= lo.
func IntAtLeast(lo int) func(any, *Values) string {
	return func(x any, _ *Values) string {
		if x.(int) < lo {
			return fmt.Sprintf("must be at least %d", lo)
		}
		return ""
	}
}

// Positive allows finite numbers > 0.
func Positive(what string) func(any, *Values) string {
	return func(x any, _ *Values) string {
		if f := x.(float64); math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
			return "must be a finite " + what + " > 0"
		}
		return ""
	}
}

// NonNegative allows finite numbers >= 0.
func NonNegative(what string) func(any, *Values) string {
	return func(x any, _ *Values) string {
		if f := x.(float64); math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return "must be a finite " + what + " >= 0"
		}
		return ""
	}
}

// FileName allows the name of a file holding what ("an edge-list file"):
// any string but the empty one, which names no file. Given as a key's value,
// "" would otherwise pass validation and fail when the run opens it, or read
// as the key being absent (a design-or-file choice taking the design).
func FileName(what string) func(any, *Values) string {
	return func(x any, _ *Values) string {
		if x.(string) == "" {
			return "must name " + what
		}
		return ""
	}
}

// Constant is a Default that returns x.
func Constant(x any) func(*Values) (any, bool) {
	return func(*Values) (any, bool) { return x, true }
}
