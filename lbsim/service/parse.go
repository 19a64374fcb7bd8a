package service

import (
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim/param"
)

// Usage describes the spec syntax Parse accepts, for command-line help.
const Usage = `service-time law: NAME[:KEY=VALUE,...], every law taking mean=X (default 1):
  exp                      exponential
  det                      deterministic
  erlang:k=K               Erlang, K >= 1 phases (SCV 1/K)
  hyperexp:scv=C           two-phase balanced-means hyperexponential, C > 1
  bimodal:scv=C            two-point: mean/2 w.p. 1-q, mean(1+2C) w.p. q = 1/(1+4C), C > 0
  pareto:alpha=A           Lomax (Pareto II from 0), A > 1 (infinite variance for A <= 2)
  weibull:shape=K          Weibull, K > 0 (K < 1 decreasing, K > 1 increasing hazard)
  lognormal:sigma=S        lognormal, S > 0 (SCV exp(S^2)-1)
  empirical:FILE           resample the numbers in FILE (one per line, # comments),
                           rescaled to the mean
e.g. erlang:k=4,mean=2. The form NAME(KEY=VALUE,...), as String prints, is also accepted.`

type lawSpec struct {
	params   []string // valid parameter names, mean last
	required []string
	build    func(p map[string]float64, file string) (Distribution, error)
}

var laws = map[string]lawSpec{
	"exp": {params: []string{"mean"}, build: func(p map[string]float64, _ string) (Distribution, error) {
		return Exponential(p["mean"])
	}},
	"det": {params: []string{"mean"}, build: func(p map[string]float64, _ string) (Distribution, error) {
		return Deterministic(p["mean"])
	}},
	"erlang": {params: []string{"k", "mean"}, required: []string{"k"}, build: func(p map[string]float64, _ string) (Distribution, error) {
		k := p["k"]
		if k != math.Trunc(k) || k < 1 || k > 1<<30 {
			return nil, paramError("erlang", "k", k, "an integer >= 1")
		}
		return Erlang(int(k), p["mean"])
	}},
	"hyperexp": {params: []string{"scv", "mean"}, required: []string{"scv"}, build: func(p map[string]float64, _ string) (Distribution, error) {
		return HyperexpSCV(p["mean"], p["scv"])
	}},
	"bimodal": {params: []string{"scv", "mean"}, required: []string{"scv"}, build: func(p map[string]float64, _ string) (Distribution, error) {
		return Bimodal(p["mean"], p["scv"])
	}},
	"pareto": {params: []string{"alpha", "mean"}, required: []string{"alpha"}, build: func(p map[string]float64, _ string) (Distribution, error) {
		return Pareto(p["alpha"], p["mean"])
	}},
	"weibull": {params: []string{"shape", "mean"}, required: []string{"shape"}, build: func(p map[string]float64, _ string) (Distribution, error) {
		return Weibull(p["shape"], p["mean"])
	}},
	"lognormal": {params: []string{"sigma", "mean"}, required: []string{"sigma"}, build: func(p map[string]float64, _ string) (Distribution, error) {
		return Lognormal(p["sigma"], p["mean"])
	}},
	"empirical": {params: []string{"file", "mean"}, required: []string{"file"}, build: func(p map[string]float64, file string) (Distribution, error) {
		f, err := param.Open(file, param.MaxFileBytes)
		if err != nil {
			if pe, ok := err.(*fs.PathError); ok { // quote the path: it may hold any byte
				err = fmt.Errorf("%s %q: %w", pe.Op, file, pe.Err)
			}
			return nil, fmt.Errorf("service: empirical: %v", err)
		}
		defer f.Close()
		x, err := readSamples(f)
		if err != nil {
			return nil, fmt.Errorf("%v (file %q)", err, file)
		}
		return EmpiricalWithMean(x, p["mean"])
	}},
}

// lawNames is the order in which valid names are listed.
var lawNames = []string{"exp", "det", "erlang", "hyperexp", "bimodal", "pareto", "weibull", "lognormal", "empirical"}

// aliases map alternative names to the canonical ones.
var aliases = map[string]string{
	"exponential":   "exp",
	"deterministic": "det",
	"lomax":         "pareto",
}

// Names lists the law names Parse accepts.
func Names() []string { return append([]string(nil), lawNames...) }

// Parse reads a command-line service-time spec (see Usage), e.g. "exp",
// "erlang:k=4", "hyperexp:scv=4,mean=2", "empirical:times.txt". Every law
// takes mean=X, default 1. The form String prints, e.g. "erlang(k=4,mean=2)",
// parses back to the same law. Errors name the parameter and its range.
func Parse(spec string) (Distribution, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, fmt.Errorf("service: empty distribution spec (valid: %s)", strings.Join(lawNames, ", "))
	}
	name, rest := s, ""
	if i := strings.IndexAny(s, ":("); i >= 0 {
		name, rest = s[:i], s[i+1:]
		if s[i] == '(' {
			if !strings.HasSuffix(rest, ")") {
				return nil, fmt.Errorf("service: %q: missing closing ')'", spec)
			}
			rest = rest[:len(rest)-1]
		}
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[name]; ok {
		name = a
	}
	law, ok := laws[name]
	if !ok {
		return nil, fmt.Errorf("service: unknown distribution %q (valid: %s)", name, strings.Join(lawNames, ", "))
	}
	p := map[string]float64{"mean": 1}
	seen := map[string]bool{}
	file := ""
	if strings.TrimSpace(rest) != "" {
		for i, kv := range strings.Split(rest, ",") {
			kv = strings.TrimSpace(kv)
			key, val, hasEq := strings.Cut(kv, "=")
			key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
			if !hasEq {
				if name == "empirical" && i == 0 {
					key, val = "file", kv
				} else {
					return nil, fmt.Errorf("service: %s: %q: want KEY=VALUE (valid keys: %s)", name, kv, strings.Join(law.params, ", "))
				}
			}
			if !contains(law.params, key) {
				return nil, fmt.Errorf("service: %s: unknown parameter %q (valid: %s)", name, key, strings.Join(law.params, ", "))
			}
			if seen[key] {
				return nil, fmt.Errorf("service: %s: parameter %s given twice", name, key)
			}
			seen[key] = true
			if key == "file" {
				if val == "" {
					return nil, fmt.Errorf("service: %s: empty file name", name)
				}
				file = val
				continue
			}
			v, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, fmt.Errorf("service: %s: %s = %q: not a number", name, key, val)
			}
			p[key] = v
		}
	}
	for _, k := range law.required {
		if !seen[k] {
			if k == "file" {
				return nil, fmt.Errorf("service: %s: missing file name (e.g. %s:times.txt)", name, name)
			}
			return nil, fmt.Errorf("service: %s: missing parameter %s (e.g. %s:%s=2)", name, k, name, k)
		}
	}
	return law.build(p, file)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
