package lbsim

import (
	"fmt"
	"math"
	"runtime"

	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// Estimates of a run's peak memory, checked before anything is allocated
// (model.CheckMemory): a run above the limit is refused with an error naming
// the key that drives the estimate. The figures per server and per task are
// the engines' own (TestMemoryEstimate measures them); they are upper bounds
// up to the few levels that a queue's growth adds.
const (
	bytesPerServer        = 16  // per-server engine: length, sorted order, its inverse, idle bits
	bytesPerServerRates   = 16  // heterogeneous rates: the rate classes and their Fenwick tree
	bytesPerServerGeneral = 112 // general engine: a server's record, its next event, the queue's ring
	bytesPerServerUniform = 2   // the uniformized chain's per-server loop (JSQ(2), N <= 2^20): a length, and slack
	bytesPerServerPlaced  = 4   // placing init occupancies on servers (a shuffled order)
	bytesPerInitialTask   = 32  // general engine: each task of a queue of init_lengths longer than 4 (its ring)
	bytesPerReplication   = 1024
	trajectoryLevels      = 16 // levels assumed for a recorded trajectory without init
)

// dispatchMemory is Dispatch.Memory: the estimate of a run of completed
// values on all cores.
func dispatchMemory(v *param.Values) (float64, string) {
	sc, err := scenarioFromCompleted(v.Clone()) // completed and checked already
	if err != nil {
		return 0, "" // Validate reports it
	}
	bytes, key := memoryEstimate(&sc, choosePlan(&sc), runtime.GOMAXPROCS(0))
	return bytes, key
}

// memoryEstimate returns the peak memory of the resolved scenario sc run
// as p plans by workers replications at once, and the key that drives it.
func memoryEstimate(sc *Scenario, p plan, workers int) (float64, string) {
	engine := p.engine
	n := float64(sc.Servers)
	perServer := 0.0
	switch engine {
	case EngineServers:
		perServer = bytesPerServer
		if sc.Rates != nil {
			perServer += bytesPerServerRates
		}
		if p.perServer {
			perServer = bytesPerServerUniform
			if sc.InitOccupancy != nil {
				perServer += bytesPerServerPlaced
			}
		}
	case EngineGeneral:
		perServer = bytesPerServerGeneral
	case EngineUniformized:
		if p.perServer {
			perServer = bytesPerServerUniform
		}
	}
	tasks := 0.0
	if engine == EngineGeneral {
		for _, l := range sc.InitLengths {
			if l > 4 {
				tasks += float64(l)
			}
		}
	}
	concurrent := float64(max(1, min(workers, sc.Replications)))
	terms := []struct {
		bytes float64
		key   string
	}{
		{concurrent * perServer * n, keyServers},
		{concurrent * bytesPerInitialTask * tasks, keyInitLengths},
		{bytesPerReplication * float64(sc.Replications), keyReplications},
	}
	if sc.Grid > 0 {
		levels := float64(max(len(sc.InitOccupancy), trajectoryLevels))
		// Each replication's trajectory and its summary (mean and half-width).
		points := math.Floor(sc.Horizon/sc.Grid) + 1
		terms = append(terms, struct {
			bytes float64
			key   string
		}{8 * levels * points * (float64(sc.Replications) + 2), keyGrid})
	}
	total, key, top := 0.0, "", -1.0
	for _, t := range terms {
		total += t.bytes
		if t.bytes > top {
			key, top = t.key, t.bytes
		}
	}
	return total, key
}

// checkResources refuses a run whose memory or expected events are above the
// limits of package model, naming the key that drives the estimate.
func checkResources(sc *Scenario, p plan, workers int) error {
	bytes, key := memoryEstimate(sc, p, workers)
	if err := model.CheckMemory(describeKey(sc, key), bytes); err != nil {
		return err
	}
	events := expectedEvents(sc.Lambda, sc.Servers, sc.Horizon, sc.Replications)
	return model.CheckEvents(fmt.Sprintf("horizon = %g (servers = %d, replications = %d)", sc.Horizon, sc.Servers, sc.Replications), events)
}

// expectedEvents estimates the events of a run: about 2 lambda N horizon
// arrivals and departures per replication.
func expectedEvents(lambda float64, servers int, horizon float64, replications int) float64 {
	return 2 * lambda * float64(servers) * horizon * float64(replications)
}

// describeKey writes "key = value" for the keys memoryEstimate names.
func describeKey(sc *Scenario, key string) string {
	switch key {
	case keyServers:
		return fmt.Sprintf("servers = %d", sc.Servers)
	case keyReplications:
		return fmt.Sprintf("replications = %d", sc.Replications)
	case keyGrid:
		return fmt.Sprintf("grid = %g (horizon = %g, replications = %d)", sc.Grid, sc.Horizon, sc.Replications)
	case keyInitLengths:
		return fmt.Sprintf("init_lengths (%d servers)", len(sc.InitLengths))
	}
	return key
}
