package lbsim

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// The engine choice, in one place: which engine, and which of its loops,
// runs a resolved scenario, decided from the scenario and what its policy
// declares (Needs), and why an engine the scenario names cannot run it.
// Run, the memory estimate and the scenario checks read it; the engines do
// not decide again.

// simulator runs one replication of a resolved scenario (an engine's loop).
type simulator func(ctx context.Context, sc *Scenario, r *rand.Rand, src *rand.PCG, check tick) (*replication, error)

// plan is how a resolved scenario runs.
type plan struct {
	engine Engine    // the engine the result reports
	run    simulator // its loop for the scenario
	// perServer: the loop is the per-server loop of the uniformized chain
	// (engine_uniformized_servers.go), whose memory is a byte per server.
	perServer bool
}

// choosePlan returns the plan of the resolved scenario sc: the engine sc
// names, or for EngineAuto the general engine when only it can run sc,
// else the occupancy-level engine when it can, else the per-server engine.
// JSQ(2) with a common service rate on at most 2^20 servers runs, on the
// per-server and the uniformized engine, on the per-server loop of the
// uniformized chain: the same law at a fraction of the cost.
func choosePlan(sc *Scenario) plan {
	engine := sc.Engine
	if engine == EngineAuto {
		engine = EngineServers
		if needsGeneral(*sc) != "" {
			engine = EngineGeneral
		} else if occupancyIneligible(*sc) == "" {
			engine = EngineOccupancy
		}
	}
	switch engine {
	case EngineOccupancy:
		return plan{engine: engine, run: runOccupancy}
	case EngineGeneral:
		return plan{engine: engine, run: runGeneral}
	case EngineUniformized:
		if uniformPairs(sc) {
			return plan{engine: engine, run: runUniformizedServers, perServer: true}
		}
		return plan{engine: engine, run: runUniformized}
	}
	if uniformPairs(sc) && servable(sc) {
		return plan{engine: engine, run: runServersUniform, perServer: true}
	}
	return plan{engine: engine, run: runServers}
}

// uniformRule returns the sampling of the policies the uniformized engine
// runs (the shortest of d uniform servers: JSQ(d), random as d = 1), and ok
// = false for the others.
func uniformRule(p Policy) (rule inlineRule, ok bool) {
	rule = NeedsOf(p).inline
	return rule, rule.kind == sampleShortest
}

// uniformPairs reports whether sc's policy samples two uniform servers
// (JSQ(2), with or without replacement) on 2 <= N <= uniformServersMax
// servers: what the per-server loop of the uniformized chain runs.
func uniformPairs(sc *Scenario) bool {
	rule, ok := uniformRule(sc.Policy)
	return ok && rule.d == 2 && sc.Servers >= 2 && sc.Servers <= uniformServersMax
}

// servable reports whether the per-server engine's scenario sc, of a
// uniformPairs policy, fits the per-server loop of the uniformized chain: a
// common service rate and initial queues it can hold (the uniformized
// engine refuses the others).
func servable(sc *Scenario) bool {
	if _, homogeneous := commonRate(sc.Rates); !homogeneous {
		return false
	}
	for _, l := range sc.InitLengths {
		if l > serversMaxLen {
			return false
		}
	}
	return len(sc.InitOccupancy) <= serversMaxLen
}

// needsGeneral says why only the general engine can run sc, or "".
func needsGeneral(sc Scenario) string {
	switch {
	case sc.Service != nil:
		return fmt.Sprintf("service is %s", sc.Service)
	case sc.Discipline != "" && sc.Discipline != FIFO:
		return fmt.Sprintf("discipline is %s", sc.Discipline)
	case NeedsOf(sc.Policy).Workload:
		return fmt.Sprintf("policy %s reads workloads", sc.Policy.Name())
	case watchesDepartures(sc.Policy):
		return fmt.Sprintf("policy %s traces tagged queues", sc.Policy.Name())
	}
	return ""
}

// occupancyIneligible says why the occupancy-level engine cannot run sc, or "".
func occupancyIneligible(sc Scenario) string {
	if why := needsGeneral(sc); why != "" {
		return why
	}
	if _, ok := sc.Policy.(OccupancyRouter); !ok {
		return fmt.Sprintf("policy %s is not exchangeable (does not implement OccupancyRouter)", sc.Policy.Name())
	}
	if _, homogeneous := commonRate(sc.Rates); !homogeneous {
		return "service rates are heterogeneous"
	}
	if sc.OriginWeights != nil && NeedsOf(sc.Policy).Origin {
		return "origins are weighted"
	}
	if sc.InitLengths != nil {
		return "per-server initial lengths are given"
	}
	return ""
}

// uniformIneligible says why the uniformized engine cannot run sc, or "".
func uniformIneligible(sc Scenario) string {
	if why := needsGeneral(sc); why != "" {
		return why
	}
	if _, ok := uniformRule(sc.Policy); !ok {
		return fmt.Sprintf("policy %s is not one of jsqd (with or without replacement) and random", sc.Policy.Name())
	}
	if _, homogeneous := commonRate(sc.Rates); !homogeneous {
		return "service rates are heterogeneous"
	}
	if sc.InitLengths != nil {
		return "per-server initial lengths are given"
	}
	return ""
}
