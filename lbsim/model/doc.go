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
package model
