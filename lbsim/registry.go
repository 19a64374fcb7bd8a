package lbsim

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/lbsim/notebooks/lbsim/param"
)

// PolicyDef registers a policy by name for scenario files, sweeps and the
// command line.
type PolicyDef struct {
	// Name is the value of the policy key.
	Name string
	// NewKeys declares the keys this policy brings (none of Keys may have
	// the same name); give them For: []string{} so that only the policies
	// that Use them accept them.
	NewKeys []param.Key
	// Uses lists the keys of Keys (declared before, or in NewKeys) that the
	// policy reads besides the keys every policy has.
	Uses []string
	// Example gives the keys of a small valid scenario of the policy
	// besides servers (12) and lambda (0.6): the registration tests run it,
	// through its scenario file and back.
	Example map[string]any
	// Build makes the policy from completed values (defaults applied, each
	// key checked on its own); it checks what depends on several keys and
	// names the offending key in its error.
	Build func(v *param.Values) (Policy, error)
}

var (
	policiesMu sync.RWMutex
	policies   = map[string]PolicyDef{}
)

// RegisterPolicy makes a policy available by name in scenario files, sweeps
// and on the command line, with the keys it declares. It refuses a name that
// is already registered (built-in or not) and keys declared twice.
func RegisterPolicy(def PolicyDef) error {
	if def.Name == "" || def.Build == nil {
		return fmt.Errorf("RegisterPolicy: a policy needs a name and a build function")
	}
	policiesMu.Lock()
	defer policiesMu.Unlock()
	if _, dup := policies[def.Name]; dup {
		return fmt.Errorf("RegisterPolicy: policy %q is already registered", def.Name)
	}
	for _, k := range def.NewKeys {
		if Keys.Key(k.Name) != nil {
			return fmt.Errorf("RegisterPolicy %s: key %q is already declared; list it in Uses instead", def.Name, k.Name)
		}
	}
	for _, name := range def.Uses {
		if Keys.Key(name) == nil && !slices.ContainsFunc(def.NewKeys, func(k param.Key) bool { return k.Name == name }) {
			return fmt.Errorf("RegisterPolicy %s: uses key %q, which is not declared", def.Name, name)
		}
	}
	Keys.Add(def.NewKeys...)
	Keys.Use(def.Name, def.Uses...)
	policies[def.Name] = def
	return nil
}

// mustRegister registers a built-in policy.
func mustRegister(def PolicyDef) {
	if err := RegisterPolicy(def); err != nil {
		panic(err)
	}
}

// PolicyNames returns the registered policy names, sorted.
func PolicyNames() []string {
	policiesMu.RLock()
	defer policiesMu.RUnlock()
	names := make([]string, 0, len(policies))
	for name := range policies {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// PolicyExample returns the example keys a policy was registered with
// (PolicyDef.Example), if any.
func PolicyExample(name string) (map[string]any, bool) {
	policiesMu.RLock()
	defer policiesMu.RUnlock()
	def, ok := policies[name]
	if !ok || def.Example == nil {
		return nil, false
	}
	return maps.Clone(def.Example), true
}

// buildPolicy makes the policy the completed values name, and returns the
// keys that rebuild it (the policy key and the keys it uses).
func buildPolicy(v *param.Values) (Policy, map[string]any, error) {
	policiesMu.RLock()
	def, ok := policies[v.String(keyPolicy)]
	policiesMu.RUnlock()
	if !ok {
		return nil, nil, fmt.Errorf("policy = %q: unknown", v.String(keyPolicy))
	}
	p, err := def.Build(v)
	if err != nil {
		return nil, nil, err
	}
	keys := policyKeys(def, v)
	switch w := p.(type) {
	case *lazyPolicy:
		w.keys = keys
	case statefulLazyPolicy:
		w.keys = keys
	}
	return p, keys, nil
}

// policyKeys returns the policy name and the values of the keys it uses.
func policyKeys(def PolicyDef, v *param.Values) map[string]any {
	keys := map[string]any{keyPolicy: def.Name}
	for _, name := range Keys.VariantKeys(def.Name) {
		if v.Has(name) {
			keys[name] = v.Get(name)
		}
	}
	return keys
}
