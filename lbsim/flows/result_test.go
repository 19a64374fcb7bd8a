package flows

import (
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
)

// jsonFixtures are results with every field set to a value of its own: a bins
// run with rates whose half-widths and means are NaN or infinite in places
// (one replication, no packet), and a static-hashing run whose optional
// fields (rates, d, threshold, bins) are empty and left out.
func jsonFixtures() []*Result {
	nan := math.NaN()
	bins := &Result{Servers: 4, Rates: []float64{1, 1, 2, 0.5}, Lambda: 0.7, PacketsPerFlow: 5, FlowSize: "geometric",
		PacketRate: 0.25, Service: "exp(mean=1)", Policy: "bins", D: 2, Threshold: 3, Bins: 64, Horizon: 100, Warmup: 10,
		Replications: 1, Seed: 7, Events: 12345, Packets: 6000, Flows: 1200, WallSeconds: 0.125, EventsPerSecond: 98760,
		MeanDelay: 1.75, MeanDelayCI95: nan, QuantileLevels: []float64{0.5, 0.999}, DelayQuantiles: []float64{1.25, nan},
		DelayQuantilesCI95: []float64{nan, math.Inf(1)}, ViolatedFlowFraction: 0.03125, ViolatedFlowFractionCI95: nan,
		MovedPacketFraction: 0.0078125, MovedPacketFractionCI95: nan, RemapRate: 0.5, Occupancy: []float64{0.7, 0.3, 1e-9},
		OccupancyCI95: []float64{nan, 0.01, nan}, MeanQueue: 1.000000001, MeanQueueCI95: nan, ActiveFlows: 12.5,
		TableSize: 64, TableSizeCI95: nan,
		PerReplication: []RepResult{{Events: 12345, Packets: 6000, Flows: 1200, MeanDelay: nan, DelayQuantiles: []float64{1.25, nan},
			ViolatedFlowFraction: nan, MovedPacketFraction: 0.0078125, Remaps: 50, Occupancy: []float64{0.7, 0.3, 1e-9},
			MeanQueue: 1.000000001, ActiveFlows: 12.5, TableSize: 64}}}
	static := &Result{Servers: 2, Lambda: 0.5, PacketsPerFlow: 1, FlowSize: "fixed", PacketRate: 1, Service: "det",
		Policy: "static", Horizon: 50, Replications: 2, Seed: 1, Events: 10, Packets: 5, Flows: 5, WallSeconds: 1e-3,
		EventsPerSecond: 1e4, MeanDelay: 2, MeanDelayCI95: 0.5, ViolatedFlowFraction: 0, ViolatedFlowFractionCI95: 0,
		MovedPacketFraction: 0, MovedPacketFractionCI95: 0, Occupancy: []float64{0.5}, OccupancyCI95: []float64{0.1},
		MeanQueue: 0.5, MeanQueueCI95: 0.1,
		PerReplication: []RepResult{{Events: 5, Packets: 3, Flows: 3, MeanDelay: 2, DelayQuantiles: []float64{},
			Occupancy: []float64{0.5}, MeanQueue: 0.5}, {}}}
	return []*Result{bins, static}
}

// The JSON of a result is byte for byte what lbsim flows has always written
// (testdata/result.json, written by the encoding before it moved onto
// model.MarshalObject): the same keys in the same order, the same numbers,
// null for NaN and infinities, the optional fields left out when empty.
func TestResultJSONBytes(t *testing.T) {
	var values []any
	for _, r := range jsonFixtures() {
		values = append(values, r)
	}
	modeltest.JSONBytes(t, "testdata/result.json", values...)
}

// The figures of a result and of its replications (a sweep's columns) are
// byte for byte what they were (testdata/figures.json, written before the
// figures were read by the keys of their fields).
func TestFiguresBytes(t *testing.T) {
	var values []any
	for _, r := range jsonFixtures() {
		values = append(values, r.Figures(), r.ReplicationFigures())
	}
	modeltest.JSONBytes(t, "testdata/figures.json", values...)
}
