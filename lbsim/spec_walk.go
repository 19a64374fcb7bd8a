package lbsim

import (
	"fmt"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// The walk keys of a Spec (walk, steps) belong to the random-walk policy
// nbrw-jsqd, which also takes d and the graph keys (see spec_topology.go).

// walkPolicy is the policy that takes the walk keys.
const walkPolicy = "nbrw-jsqd"

// walkDefaults fills in the walk keys of nbrw-jsqd: walk nbrw, steps 1.
func (sp Spec) walkDefaults() Spec {
	if sp.Policy != walkPolicy {
		return sp
	}
	if sp.Walk == "" {
		sp.Walk = NonBacktracking.String()
	}
	if sp.Steps == 0 {
		sp.Steps = 1
	}
	return sp
}

// checkWalkKeys rejects the walk keys for policies other than nbrw-jsqd.
func (sp Spec) checkWalkKeys() error {
	if sp.Policy == walkPolicy {
		return nil
	}
	switch {
	case sp.Walk != "":
		return fmt.Errorf("walk = %q: policy %s takes no walk (only %s does)", sp.Walk, sp.Policy, walkPolicy)
	case sp.Steps != 0:
		return fmt.Errorf("steps = %d: policy %s takes no steps (only %s does)", sp.Steps, sp.Policy, walkPolicy)
	}
	return nil
}

// parseWalk reads the walk key.
func parseWalk(s string) (Walk, error) {
	switch s {
	case "", "nbrw":
		return NonBacktracking, nil
	case "srw":
		return SimpleWalk, nil
	}
	return 0, fmt.Errorf("walk = %q: must be nbrw (non-backtracking) or srw (simple random walk)", s)
}

// maxWalkSteps bounds the steps key: more steps than this per arrival is
// i.i.d. sampling at a higher price.
const maxWalkSteps = 1 << 20

func registerWalkPolicy() {
	RegisterPolicy(walkPolicy, func(sp Spec) (Policy, error) {
		sp = sp.walkDefaults()
		if sp.Sampling != "" {
			return nil, fmt.Errorf("sampling = %q: policy %s takes no sampling (the walkers sample)", sp.Sampling, walkPolicy)
		}
		walk, err := parseWalk(sp.Walk)
		if err != nil {
			return nil, err
		}
		if sp.Steps < 1 || sp.Steps > maxWalkSteps {
			return nil, fmt.Errorf("steps = %d: must be between 1 and %d (walk steps per arrival)", sp.Steps, maxWalkSteps)
		}
		d := sp.D
		if d == 0 {
			d = 2
		}
		if d < 1 || d > sp.Servers {
			return nil, fmt.Errorf("d = %d: must be between 1 and servers (%d)", d, sp.Servers)
		}
		if sp.Servers < 2 {
			return nil, fmt.Errorf("servers = %d: policy %s needs at least 2 servers", sp.Servers, walkPolicy)
		}
		if err := sp.checkGraphSpec(walkPolicy); err != nil {
			return nil, err
		}
		name := fmt.Sprintf("%s(d=%d,walk=%s,steps=%d,%s)", walkPolicy, d, walk, sp.Steps, sp.graphDescription())
		w, err := newSpecGraphPolicy(sp, name, func(g *graph.Graph) Policy { return WalkJSQd(g, d, walk, sp.Steps) })
		if err != nil {
			return nil, err
		}
		lazy := w.(*lazyPolicy)
		lazy.origin = false // the walkers, not an origin, pick the candidates
		return statefulLazyPolicy{lazy}, nil
	})
}
