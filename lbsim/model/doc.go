// Package model is the experiment layer shared by every model family of
// lbsim: a Model is a registered name, its declared keys (package param)
// and a function that runs one point (a scenario and a seed) and returns
// named figures with confidence intervals. The dispatch simulator (package
// lbsim) is one model; the sweep layer (lbsim/sweep: sweeps, merge, Slurm,
// Kubernetes, LoadCSV, provenance) and the command line work with any model
// by its name.
//
// Figures are what a sweep's tidy CSV holds: a scalar figure is one column
// (and a _ci95 column when it has a confidence half-width), a vector figure
// is the columns name1, name2, ... (padded across points to the longest) and
// then name1_ci95, ...; a text figure is a label such as the engine used.
// Values are formatted once, by Float, Int and Text, in the shortest form
// that reads back exactly, so merged CSVs are the same bytes wherever the
// points ran.
//
// A model's result is declared once, as a struct with json tags: its JSON
// is MarshalObject (NaN-safe, fields in order; MarshalSorted for a result
// first written from a map) and read back by UnmarshalObject, and its
// figures are read by those keys (FigureOf, FiguresOf), each with the
// half-width of the field keyed KEY_ci95.
//
// # Resource limits and bounded reads
//
// A point is refused before it allocates or runs when its estimated memory
// or expected events are above the limits (CheckResources, CheckMemory,
// CheckEvents; set by SetMemoryLimit and SetEventLimit, the command line's
// --max-memory and --max-events, or the variables LBSIM_MAX_MEMORY and
// LBSIM_MAX_EVENTS; by default half the machine's memory and 1e13 events).
// The refusal is a *LimitError naming the key that drives the estimate, the
// estimate and how to raise the limit; the command line reports it as
// invalid input (exit 2). A new model joins in three steps:
//
//   - declare Memory: its peak bytes for completed values and the key that
//     drives them (CheckResources adds BytesPerReplication per replication
//     for the figures every model keeps);
//   - declare Cost: its expected events (the event limit, progress and
//     scheduling use it), and CostKey, the key that drives them, where it
//     is not horizon;
//   - poll for an interrupt in every loop that can run long: the context in
//     Run, param.Interrupted in Validate and the solvers it calls;
//   - read every file or pipe a key names through param.ReadFile,
//     param.ReadAll or param.LimitReader (param.MaxFileBytes for JSON and
//     samples, param.MaxDataFileBytes for edge lists), never an unbounded
//     io.ReadAll; allocations from a user's value that Memory does not cover
//     call CheckMemory themselves.
//
// Its subcommand (lbsim MODEL) and sweeps (Model.Point, for every point
// before the first runs) then check it, and cmd/lbsim's TestEveryModelHostile
// covers its subcommand with no row to add.
package model
