// Package param declares the parameters of a model once and derives from the
// declarations everything that reads, checks or explains them: scenario files
// (strict JSON), command-line flags, defaults, validation with one error
// message per key, help text and the reference tables of the READMEs.
//
// A Key is one parameter: its name (the JSON key; the flag is --name with '-'
// for '_'), its Kind (int, uint, float, bool, string, or a list of ints or
// floats), its default, its allowed range and a one-line doc. A Set is the
// ordered list of the keys of a model. Values hold what a scenario gives:
// which keys are present and their values; an absent key takes its default
// when Set.Complete applies the defaults, in declaration order, so a default
// may depend on keys declared before it ("warmup" defaults to horizon/10).
//
// The keys of a model that has variants (the dispatch policies) say which
// variants use them (Key.For); Set.Complete rejects a key that the chosen
// variant does not use, naming both, and fills in only the defaults of the
// keys it uses. A variant that brings a key of its own declares it with
// Set.Add, next to its code: that one declaration makes the key a flag, a
// file key, a sweep axis and a line of the help.
//
// A key that only some settings of other keys read (admission's horizon
// without simulate, graph_seed on a topology that is not random) says so
// with Key.Unused; Set.Complete then rejects it when the user gave it
// (Values.Given: not filled in from its default, not set by the layer that
// runs the point with Values.SetImplied) at a value other than its default.
//
// Errors name the key first, in the form the command line prints:
//
//	d = 0: must be between 1 and servers (10)
//	lambda: missing; give --lambda X or "lambda" in the scenario file
//	walk = "x": must be one of nbrw, srw
package param
