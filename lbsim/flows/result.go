package flows

import (
	"time"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/model"
)

// Result is what Simulate measured: means over the replications with their
// 95% half-widths (Student t over replications; NaN with one replication).
// The fields are in the order of the JSON object (MarshalJSON), the order
// lbsim flows has always written: the figures that may be NaN come after
// per_replication.
type Result struct {
	Servers int `json:"servers"`
	// Rates are the per-server service rates (absent: all 1).
	Rates  []float64 `json:"rates,omitempty"`
	Lambda float64   `json:"lambda"`
	// LambdaProfile is the time-varying arrival rate (absent: lambda
	// throughout), as ParseProfile reads it.
	LambdaProfile  string  `json:"lambda_profile,omitempty"`
	PacketsPerFlow float64 `json:"packets_per_flow"`
	FlowSize       string  `json:"flow_size"`
	PacketRate     float64 `json:"packet_rate"`
	Service        string  `json:"service"`
	Policy         string  `json:"policy"`
	D              int     `json:"d,omitempty"`
	Threshold      int     `json:"threshold,omitempty"`
	Bins           int     `json:"bins,omitempty"`
	Horizon        float64 `json:"horizon"`
	Warmup         float64 `json:"warmup"`
	Replications   int     `json:"replications"`
	Seed           uint64  `json:"seed"`
	// Events counts packet arrivals and departures over all replications;
	// EventsPerSecond (below) divides it by the wall time.
	Events      int64   `json:"events"`
	Packets     int64   `json:"packets"`
	Flows       int64   `json:"flows"`
	WallSeconds float64 `json:"wall_seconds"`
	// Remaps is the mean number of bin remaps per unit time (bins).
	RemapRate float64 `json:"remap_rate"`
	// Occupancy[i-1] is q_i, the time-average fraction of servers with at
	// least i packets; MeanQueue the mean packets per server.
	Occupancy []float64 `json:"occupancy"`
	MeanQueue float64   `json:"mean_queue"`
	// ActiveFlows is the time-average number of flows in progress.
	ActiveFlows float64 `json:"active_flows"`
	// TableSize is the number of entries the dispatcher keeps for
	// stickiness: 0 for static hashing (a hash of the flow) and per-packet
	// JSQ (queue lengths only), the flows in progress away from their
	// hashed server for sticky (time average: only those need an entry),
	// and B for bins.
	TableSize      float64     `json:"table_size"`
	PerReplication []RepResult `json:"per_replication"`
	// MeanDelay (last) is the mean packet delay (sojourn: wait plus
	// service), MeanDelayCI95 its half-width; DelayQuantiles[i] the mean over
	// replications of each replication's exact quantile at level
	// QuantileLevels[i], written as delay_quantiles: [{p, value, ci95}].
	MeanDelayCI95      float64   `json:"mean_delay_ci95"`
	DelayQuantiles     []float64 `json:"delay_quantiles"`
	QuantileLevels     []float64 `json:"-"`
	DelayQuantilesCI95 []float64 `json:"-"`
	// ViolatedFlowFraction, MovedPacketFraction: see RepResult.
	ViolatedFlowFraction     float64   `json:"violated_flow_fraction"`
	ViolatedFlowFractionCI95 float64   `json:"violated_flow_fraction_ci95"`
	MovedPacketFraction      float64   `json:"moved_packet_fraction"`
	MovedPacketFractionCI95  float64   `json:"moved_packet_fraction_ci95"`
	OccupancyCI95            []float64 `json:"occupancy_ci95"`
	MeanQueueCI95            float64   `json:"mean_queue_ci95"`
	TableSizeCI95            float64   `json:"table_size_ci95"`
	EventsPerSecond          float64   `json:"events_per_second"`
	MeanDelay                float64   `json:"mean_delay"`
	// MeanServersPerFlow (see RepResult) and its half-width, written last
	// as mean_servers_per_flow and mean_servers_per_flow_ci95 when measured.
	MeanServersPerFlow     float64 `json:"-"`
	MeanServersPerFlowCI95 float64 `json:"-"`
}

func aggregate(o *Options, quantiles []float64, out []RepResult, elapsed time.Duration) *Result {
	reps := len(out)
	p := o.Policy
	res := &Result{Servers: o.Servers, Rates: o.Rates, Lambda: o.Lambda, LambdaProfile: o.profileSpec(), PacketsPerFlow: o.PacketsPerFlow, FlowSize: o.sizeSpec(),
		PacketRate: o.PacketRate, Policy: p.Policy.String(), Horizon: o.Horizon, Warmup: o.Warmup,
		Replications: reps, Seed: o.Seed, PerReplication: out, QuantileLevels: quantiles, WallSeconds: elapsed.Seconds()}
	res.Service = "exp(mean=1)"
	if o.Service != nil {
		res.Service = o.Service.String()
	}
	switch p.Policy {
	case JSQd:
		res.D = p.D
	case Sticky:
		res.D, res.Threshold = p.D, p.Threshold
	case Bins:
		res.D, res.Threshold, res.Bins = p.D, p.Threshold, p.Bins
	}
	var remaps int64
	for _, rr := range out {
		res.Events += rr.Events
		res.Packets += rr.Packets
		res.Flows += rr.Flows
		remaps += rr.Remaps
	}
	res.EventsPerSecond = float64(res.Events) / elapsed.Seconds()
	res.RemapRate = float64(remaps) / float64(reps) / (o.Horizon - o.Warmup)
	res.MeanDelay, res.MeanDelayCI95 = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].MeanDelay })
	res.DelayQuantiles, res.DelayQuantilesCI95 = mc.VectorMeanCI95(reps, func(r int) []float64 { return out[r].DelayQuantiles })
	res.ViolatedFlowFraction, res.ViolatedFlowFractionCI95 = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].ViolatedFlowFraction })
	res.MovedPacketFraction, res.MovedPacketFractionCI95 = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].MovedPacketFraction })
	res.MeanServersPerFlow, res.MeanServersPerFlowCI95 = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].MeanServersPerFlow })
	res.Occupancy, res.OccupancyCI95 = mc.VectorMeanCI95(reps, func(r int) []float64 { return out[r].Occupancy })
	res.MeanQueue, res.MeanQueueCI95 = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].MeanQueue })
	res.ActiveFlows, _ = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].ActiveFlows })
	res.TableSize, res.TableSizeCI95 = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].TableSize })
	return res
}

// quantile is a point of the delay distribution.
type quantile struct {
	P     float64 `json:"p"`
	Value any     `json:"value"`
	CI95  any     `json:"ci95"`
}

// MarshalJSON writes NaN and infinite numbers (half-widths of one
// replication) as null (model.MarshalObject), and the quantiles as
// {p, value, ci95}.
func (r *Result) MarshalJSON() ([]byte, error) {
	qs := make([]quantile, len(r.QuantileLevels))
	for i, p := range r.QuantileLevels {
		qs[i] = quantile{P: p, Value: model.JSONNumber(r.DelayQuantiles[i]), CI95: model.JSONNumber(r.DelayQuantilesCI95[i])}
	}
	extra := []model.Field{{Key: "delay_quantiles", Value: qs}}
	if r.MeanServersPerFlow != 0 {
		extra = append(extra, model.Field{Key: keyServersPerFlow, Value: model.JSONNumber(r.MeanServersPerFlow)},
			model.Field{Key: keyServersPerFlow + "_ci95", Value: model.JSONNumber(r.MeanServersPerFlowCI95)})
	}
	return model.MarshalObject(r, extra...)
}

// keyServersPerFlow is the JSON key and figure of MeanServersPerFlow.
const keyServersPerFlow = "mean_servers_per_flow"

// MarshalJSON writes NaN numbers (a replication with no packet) as null
// (model.MarshalObject).
func (r RepResult) MarshalJSON() ([]byte, error) {
	if r.MeanServersPerFlow != 0 {
		return model.MarshalObject(r, model.Field{Key: keyServersPerFlow, Value: model.JSONNumber(r.MeanServersPerFlow)})
	}
	return model.MarshalObject(r)
}

// Figures returns the summary figures: replications, events, mean_delay,
// the delay quantiles delay_p50, delay_p99.9, ... (each with _ci95),
// violated_flow_fraction, moved_packet_fraction, table_size, active_flows,
// remap_rate, mean_queue, q (q_1, q_2, ...) and, when measured,
// mean_servers_per_flow.
// Each is read by its JSON key (model.FigureOf), under that name unless said.
func (r *Result) Figures() []model.Figure {
	figs := model.FiguresOf(r, "replications", "events", "mean_delay")
	for i, p := range r.QuantileLevels {
		figs = append(figs, model.FloatCI(quantileName(p), r.DelayQuantiles[i], r.DelayQuantilesCI95[i]))
	}
	figs = append(figs, model.FiguresOf(r, "violated_flow_fraction", "moved_packet_fraction", "table_size", "active_flows",
		"remap_rate", "mean_queue")...)
	figs = append(figs, model.FigureOf(r, "occupancy").Named("q"))
	if r.MeanServersPerFlow != 0 { // last: the columns of earlier versions keep their places
		figs = append(figs, model.FloatCI(keyServersPerFlow, r.MeanServersPerFlow, r.MeanServersPerFlowCI95))
	}
	return figs
}

// quantileName is the figure of the delay quantile at level p: delay_p99,
// delay_p99.9, ...
func quantileName(p float64) string { return "delay_p" + model.FormatFloat(100*p) }

// ReplicationFigures returns each replication's figures.
func (r *Result) ReplicationFigures() [][]model.Figure {
	out := make([][]model.Figure, len(r.PerReplication))
	for k, rr := range r.PerReplication {
		figs := model.FiguresOf(&rr, "events", "mean_delay")
		for i, p := range r.QuantileLevels {
			figs = append(figs, model.Float(quantileName(p), rr.DelayQuantiles[i]))
		}
		figs = append(figs, model.FiguresOf(&rr, "violated_flow_fraction", "moved_packet_fraction", "table_size")...)
		figs = append(figs, model.FigureOf(&rr, "occupancy").Named("q"))
		if rr.MeanServersPerFlow != 0 {
			figs = append(figs, model.Float(keyServersPerFlow, rr.MeanServersPerFlow))
		}
		out[k] = figs
	}
	return out
}
