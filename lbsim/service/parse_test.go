package service

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		spec, want string
		mean, m2   float64
	}{
		{"exp", "exp(mean=1)", 1, 2},
		{"exponential:mean=2", "exp(mean=2)", 2, 8},
		{"det", "det(mean=1)", 1, 1},
		{" det : mean = 0.5 ", "det(mean=0.5)", 0.5, 0.25},
		{"erlang:k=4", "erlang(k=4,mean=1)", 1, 1.25},
		{"erlang:k=4,mean=2", "erlang(k=4,mean=2)", 2, 5},
		{"ERLANG:K=4,MEAN=2", "erlang(k=4,mean=2)", 2, 5},
		{"hyperexp:scv=4", "hyperexp(scv=4,mean=1)", 1, 5},
		{"bimodal:scv=4", "bimodal(scv=4,mean=1)", 1, 5},
		{"bimodal:mean=2,scv=4", "bimodal(scv=4,mean=2)", 2, 20},
		{"pareto:alpha=2.5", "pareto(alpha=2.5,mean=1)", 1, 6},
		{"pareto:alpha=1.5", "pareto(alpha=1.5,mean=1)", 1, math.Inf(1)},
		{"lomax:alpha=3", "pareto(alpha=3,mean=1)", 1, 4},
		{"weibull:shape=0.5", "weibull(shape=0.5,mean=1)", 1, 6},
		{"weibull:shape=1", "weibull(shape=1,mean=1)", 1, 2},
		{"lognormal:sigma=1", "lognormal(sigma=1,mean=1)", 1, math.E},
		{"hyperexp:scv=3,mean=0.1", "hyperexp(scv=3,mean=0.1)", 0.1, 0.04},
		{"lognormal:sigma=0.3,mean=0.7", "lognormal(sigma=0.3,mean=0.7)", 0.7, 0.49 * math.Exp(0.09)},
		{"erlang(k=3,mean=0.1)", "erlang(k=3,mean=0.1)", 0.1, 0.01 * 4 / 3},
	} {
		d, err := Parse(c.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.spec, err)
			continue
		}
		if d.String() != c.want {
			t.Errorf("Parse(%q).String() = %q, want %q", c.spec, d.String(), c.want)
		}
		if !close(d.Mean(), c.mean, 1e-12) || !close(d.SecondMoment(), c.m2, 1e-12) {
			t.Errorf("Parse(%q): moments (%v, %v), want (%v, %v)", c.spec, d.Mean(), d.SecondMoment(), c.mean, c.m2)
		}
		// Round trip: String parses back to the same law.
		d2, err := Parse(d.String())
		if err != nil {
			t.Errorf("Parse(%q) (round trip of %q): %v", d.String(), c.spec, err)
			continue
		}
		if d2.String() != d.String() || d2.Mean() != d.Mean() || d2.SecondMoment() != d.SecondMoment() || d2.Hazard() != d.Hazard() {
			t.Errorf("round trip %q -> %q -> %q", c.spec, d.String(), d2.String())
		}
	}
}

func TestParseErrors(t *testing.T) {
	valid := "(valid: exp, det, erlang, hyperexp, bimodal, pareto, weibull, lognormal, empirical)"
	for _, c := range []struct{ spec, want string }{
		{"erlang:k=0", "service: erlang: k = 0: must be an integer >= 1"},
		{"erlang:k=2.5", "service: erlang: k = 2.5: must be an integer >= 1"},
		{"erlang:k=-1", "service: erlang: k = -1: must be an integer >= 1"},
		{"erlang:k=1e300", "service: erlang: k = 1e+300: must be an integer >= 1"},
		{"erlang", "service: erlang: missing parameter k (e.g. erlang:k=2)"},
		{"erlang:mean=2", "service: erlang: missing parameter k"},
		{"erlang:k=abc", `service: erlang: k = "abc": not a number`},
		{"erlang:k=4,x=1", `service: erlang: unknown parameter "x" (valid: k, mean)`},
		{"erlang:k=4,k=5", "service: erlang: parameter k given twice"},
		{"erlang:4", `service: erlang: "4": want KEY=VALUE (valid keys: k, mean)`},
		{"erlang(k=4", "missing closing ')'"},
		{"exp:mean=0", "service: exp: mean = 0: must be a finite number > 0"},
		{"exp:mean=-1", "service: exp: mean = -1: must be a finite number > 0"},
		{"exp:mean=inf", "service: exp: mean = +Inf: must be a finite number > 0"},
		{"exp:scv=2", `service: exp: unknown parameter "scv" (valid: mean)`},
		{"det:mean=NaN", "service: det: mean = NaN"},
		{"hyperexp:scv=1", "service: hyperexp: scv = 1: must be a finite number > 1"},
		{"hyperexp", "service: hyperexp: missing parameter scv"},
		{"bimodal:scv=-1", "service: bimodal: scv = -1: must be a finite number > 0"},
		{"pareto:alpha=1", "service: pareto: alpha = 1: must be a finite number > 1 (for a finite mean)"},
		{"weibull:shape=0", "service: weibull: shape = 0: must be a finite number > 0"},
		{"lognormal:sigma=0", "service: lognormal: sigma = 0: must be a finite number > 0"},
		{"lognormal:sigma=1,mean=0", "service: lognormal: mean = 0"},
		{"empirical", "service: empirical: missing file name"},
		{"empirical:/nonexistent/times.txt", `service: empirical: open "/nonexistent/times.txt"`},
		{"gamma:k=2", `service: unknown distribution "gamma" ` + valid},
		{"", "service: empty distribution spec " + valid},
	} {
		d, err := Parse(c.spec)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want error %q", c.spec, d, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): error %q, want containing %q", c.spec, err, c.want)
		}
	}
	if len(Names()) != 9 || !strings.Contains(Usage, "erlang:k=4,mean=2") {
		t.Error("Names/Usage")
	}
}

func TestEmpiricalFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "times.txt")
	data := "# service times, seconds\n0.5\n\n  1.5  # trailing comment\n2\n3e0\n"
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	// As read: mean (0.5+1.5+2+3)/4 = 1.75, mean square (0.25+2.25+4+9)/4.
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadEmpirical(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !close(d.Mean(), 1.75, 1e-15) || !close(d.SecondMoment(), 15.5/4, 1e-15) || d.Hazard() != HazardNeither {
		t.Errorf("ReadEmpirical: %v mean %v m2 %v hazard %v", d, d.Mean(), d.SecondMoment(), d.Hazard())
	}
	// Parse rescales to the mean (default 1).
	for _, c := range []struct {
		spec string
		mean float64
	}{{"empirical:" + file, 1}, {"empirical:" + file + ",mean=3.5", 3.5}, {"empirical:mean=2,file=" + file, 2}} {
		p, err := Parse(c.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.spec, err)
		}
		c2 := c.mean / 1.75
		if !close(p.Mean(), c.mean, 1e-12) || !close(p.SecondMoment(), 15.5/4*c2*c2, 1e-12) {
			t.Errorf("Parse(%q): mean %v m2 %v", c.spec, p.Mean(), p.SecondMoment())
		}
		if p.String() != fmt.Sprintf("empirical(n=4,mean=%g)", c.mean) {
			t.Errorf("Parse(%q).String() = %q", c.spec, p.String())
		}
	}
	for _, c := range []struct{ text, want string }{
		{"1\nabc\n", `service: empirical: line 2: "abc": not a number`},
		{"1\n-2\n", "service: empirical: line 2: -2: must be a finite number >= 0"},
		{"1\n+Inf\n", "line 2: +Inf"},
		{"# nothing\n\n", "number of samples = 0"},
		{"0\n0\n", "mean of the samples = 0"},
	} {
		_, err := ReadEmpirical(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadEmpirical(%q): %v, want containing %q", c.text, err, c.want)
		}
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("1\nx\n"), 0o644)
	if _, err := Parse("empirical:" + bad); err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), bad) {
		t.Errorf("Parse bad file: %v", err)
	}
}
