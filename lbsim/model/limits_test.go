package model

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/param"
)

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]float64{"4096": 4096, "1e9": 1e9, "8GB": 8e9, "8G": 8e9, "512MiB": 512 << 20,
		"1.5Gi": 1.5 * (1 << 30), "2 TB": 2e12, "10kB": 1e4} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "lots", "-1GB", "NaN", "Inf", "1XB"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) accepted", s)
		}
	}
}

func TestMemoryLimitSources(t *testing.T) {
	t.Setenv(EnvMaxMemory, "")
	if b, src := MemoryLimit(); !(b > 0) || !strings.HasPrefix(src, "default") {
		t.Errorf("default limit %v from %q", b, src)
	}
	if total, ok := machineMemory(); ok {
		if b, _ := MemoryLimit(); b != DefaultMemoryFraction*total {
			t.Errorf("default limit %v, want %v of MemTotal %v", b, DefaultMemoryFraction, total)
		}
	}
	t.Setenv(EnvMaxMemory, "2GiB")
	if b, src := MemoryLimit(); b != 2<<30 || src != EnvMaxMemory {
		t.Errorf("limit %v from %q, want 2 GiB from the environment", b, src)
	}
	SetMemoryLimit(1e6)
	defer SetMemoryLimit(0)
	if b, src := MemoryLimit(); b != 1e6 || src != "--max-memory" {
		t.Errorf("limit %v from %q, want the one set", b, src)
	}
	err := CheckMemory("servers = 5", 2e6)
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrLimit) || le.Need != 2e6 || le.Limit != 1e6 ||
		err.Error() != "servers = 5: needs about 2 MB of memory, above the limit of 1 MB (--max-memory); lower it, "+
			"or raise the limit with --max-memory or LBSIM_MAX_MEMORY" {
		t.Errorf("CheckMemory: %v", err)
	}
	if err := CheckMemory("servers = 5", 1e6); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

func TestEventLimit(t *testing.T) {
	t.Setenv(EnvMaxEvents, "")
	if e, _ := EventLimit(); e != DefaultMaxEvents {
		t.Errorf("default %v", e)
	}
	t.Setenv(EnvMaxEvents, "0")
	if e, _ := EventLimit(); !math.IsInf(e, 1) {
		t.Errorf("%s=0 gives %v, want no limit", EnvMaxEvents, e)
	}
	SetEventLimit(1e9)
	defer SetEventLimit(0)
	err := CheckEvents("horizon = 1e6", 3.6e12)
	if err == nil || !strings.Contains(err.Error(), "expects about 3.6e+12 events, about 2.08 days on one core") {
		t.Errorf("CheckEvents: %v", err)
	}
}

// CheckResources uses a model's declared Memory and Cost.
func TestCheckResources(t *testing.T) {
	keys := param.NewSet("test", "")
	keys.Add(SeedKey(), ReplicationsKey(), HorizonKey(10),
		param.Key{Name: "size", Kind: param.Int, Doc: "size", Default: param.Constant(1)})
	m := &Model{Name: "test", Keys: keys,
		Memory: func(v *param.Values) (float64, string) { return 1000 * float64(v.Int("size")), "size" },
		Cost:   func(v *param.Values) float64 { return v.Float(KeyHorizon) * float64(v.Int(KeyReplications)) }}
	v := keys.New()
	_ = v.Set("size", 2000)
	_ = v.Set(KeyHorizon, 5e6)
	if err := keys.Complete(v); err != nil {
		t.Fatal(err)
	}
	SetMemoryLimit(1e6)
	SetEventLimit(1e6)
	defer SetMemoryLimit(0)
	defer SetEventLimit(0)
	if err := m.CheckResources(v); err == nil || !strings.HasPrefix(err.Error(), "size = 2000: needs about 2 MB") {
		t.Errorf("memory: %v", err)
	}
	_ = v.Set("size", 10)
	if err := m.CheckResources(v); err == nil || !strings.HasPrefix(err.Error(), "horizon = 5e+06: expects about 5e+06 events") {
		t.Errorf("events: %v", err)
	}
	_ = v.Set(KeyHorizon, 5.0)
	if err := m.CheckResources(v); err != nil {
		t.Errorf("within the limits: %v", err)
	}
	// Any model keeps figures per replication: counted without Memory.
	m.Memory = nil
	_ = v.Set(KeyReplications, 10000)
	if err := m.CheckResources(v); err == nil || !strings.HasPrefix(err.Error(), "replications = 10000: needs about 5.12 MB") {
		t.Errorf("replications: %v", err)
	}
}
