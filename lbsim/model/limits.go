package model

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/lbsim/notebooks/lbsim/param"
)

// Resource limits shared by every model and every subcommand: a run whose
// estimated memory or work is above its limit is refused before anything is
// allocated, with an error (a *LimitError) naming the key that drives the
// estimate, the estimate and how to raise the limit.
//
// A model joins by declaring Model.Memory (bytes, and the key that drives
// them) and Model.Cost (expected events); CheckResources then refuses a point
// above the limits, in `lbsim MODEL`, in sweeps (every point, before the first
// runs) and in its own Go entry point if that calls CheckMemory. Code that
// allocates from a user's value outside a model (a theory command, a file)
// calls CheckMemory itself. Files and pipes are read through param.ReadAll or
// param.LimitReader, never io.ReadAll on an unbounded reader.

// EnvMaxMemory and EnvMaxEvents name the environment variables that set the
// limits when SetMemoryLimit and SetEventLimit were not called (the flags
// --max-memory and --max-events of the command line call them).
const (
	EnvMaxMemory = "LBSIM_MAX_MEMORY"
	EnvMaxEvents = "LBSIM_MAX_EVENTS"
)

// DefaultMemoryFraction is the fraction of the machine's memory (MemTotal of
// /proc/meminfo) that a run may use by default; DefaultMemoryFallback is the
// limit where /proc/meminfo cannot be read.
const (
	DefaultMemoryFraction = 0.5
	DefaultMemoryFallback = 4 << 30
)

// DefaultMaxEvents bounds the expected events of one run by default: about
// 6 days of one core at EventsPerSecond.
const DefaultMaxEvents = 1e13

// EventsPerSecond is the rate (events per second on one core) used to turn
// an estimated number of events into a time in messages: the order of the
// simulators' measured rates on the 2-core reference machine (README,
// Performance).
const EventsPerSecond = 2e7

var (
	limitsMu    sync.Mutex
	memoryLimit float64 // 0: not set
	eventLimit  float64 // 0: not set; +Inf: none
)

// SetMemoryLimit sets the memory limit in bytes (0 restores the default:
// the environment variable, else a fraction of the machine's memory).
func SetMemoryLimit(bytes float64) {
	limitsMu.Lock()
	memoryLimit = bytes
	limitsMu.Unlock()
}

// SetEventLimit sets the limit on expected events (0 restores the default,
// +Inf removes the limit).
func SetEventLimit(events float64) {
	limitsMu.Lock()
	eventLimit = events
	limitsMu.Unlock()
}

// MemoryLimit returns the memory limit in bytes and where it comes from.
func MemoryLimit() (bytes float64, source string) {
	if b, src, ok := setLimit(&memoryLimit, "--max-memory", EnvMaxMemory, ParseBytes); ok && b > 0 {
		return b, src
	}
	if total, ok := machineMemory(); ok {
		return DefaultMemoryFraction * total, fmt.Sprintf("default: %g of the machine's %s", DefaultMemoryFraction, FormatBytes(total))
	}
	return DefaultMemoryFallback, "default: the machine's memory is unknown"
}

// EventLimit returns the limit on expected events and where it comes from.
func EventLimit() (events float64, source string) {
	x, src, ok := setLimit(&eventLimit, "--max-events", EnvMaxEvents, func(s string) (float64, error) {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x >= 0) {
			return 0, errors.New("bad")
		}
		return x, nil
	})
	switch {
	case !ok:
		return DefaultMaxEvents, "default"
	case x == 0:
		return math.Inf(1), src
	}
	return x, src
}

// setLimit returns the limit set in *p (by the flag flag), else the one of
// the environment variable env, if any.
func setLimit(p *float64, flag, env string, parse func(string) (float64, error)) (float64, string, bool) {
	limitsMu.Lock()
	set := *p
	limitsMu.Unlock()
	if set > 0 {
		return set, flag, true
	}
	if s := os.Getenv(env); s != "" {
		if x, err := parse(s); err == nil {
			return x, env, true
		}
	}
	return 0, "", false
}

// machineMemory reads MemTotal from /proc/meminfo.
var machineMemory = sync.OnceValues(func() (float64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err != nil || kb <= 0 {
				return 0, false
			}
			return kb * 1024, true
		}
	}
	return 0, false
})

// ParseBytes parses a size such as 8GB, 512MiB, 1.5G, 1e9 or 4096 (bytes;
// K, M, G, T are powers of 1000, Ki, Mi, Gi, Ti powers of 1024; a final B is
// optional).
func ParseBytes(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "b")
	mult := 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40},
		{"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0, fmt.Errorf("%q: want a size such as 8GB, 512MiB or 1e9 (bytes)", s)
	}
	return x * mult, nil
}

// FormatBytes writes a size in B, KB, MB, GB or TB (powers of 1000), 3 digits.
func FormatBytes(b float64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	return strconv.FormatFloat(b, 'g', 3, 64) + " " + units[i]
}

// formatDuration writes seconds as a rough human duration.
func formatDuration(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.3g seconds", s)
	case s < 2*3600:
		return fmt.Sprintf("%.3g minutes", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.3g hours", s/3600)
	case s < 2*365*86400:
		return fmt.Sprintf("%.3g days", s/86400)
	}
	return fmt.Sprintf("%.3g years", s/(365*86400))
}

// A LimitError is a refusal to run above a resource limit: invalid input
// (exit 2 on the command line).
type LimitError struct {
	// Key names what drives the estimate, with its value ("servers = 1e9").
	Key string
	// Need is the estimate (bytes or events); Limit the limit.
	Need, Limit float64
	msg         string
}

func (e *LimitError) Error() string { return e.msg }

// ErrLimit is matched by every *LimitError (errors.Is).
var ErrLimit = errors.New("above a resource limit")

// Is makes errors.Is(err, ErrLimit) true for a LimitError.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// CheckMemory refuses an allocation of about bytes, driven by key (a key
// and its value, as in "servers = 1000000000"), above the memory limit.
func CheckMemory(key string, bytes float64) error {
	limit, source := MemoryLimit()
	if !(bytes > limit) { // NaN passes: no estimate
		return nil
	}
	return &LimitError{Key: key, Need: bytes, Limit: limit, msg: fmt.Sprintf(
		"%s: needs about %s of memory, above the limit of %s (%s); lower it, or raise the limit with "+
			"--max-memory or %s", key, FormatBytes(bytes), FormatBytes(limit), source, EnvMaxMemory)}
}

// CheckEvents refuses a run of about events expected events, driven by key,
// above the event limit, with an estimate of its time.
func CheckEvents(key string, events float64) error {
	limit, source := EventLimit()
	if !(events > limit) {
		return nil
	}
	return &LimitError{Key: key, Need: events, Limit: limit, msg: fmt.Sprintf(
		"%s: expects about %.3g events, about %s on one core at %.0g events/s, above the limit of %.3g events (%s); "+
			"lower it, or raise the limit with --max-events or %s (0: none)", key, events,
		formatDuration(events/EventsPerSecond), EventsPerSecond, limit, source, EnvMaxEvents)}
}

// BytesPerReplication is what CheckResources counts for each replication of
// any model, on top of Model.Memory: the figures an Outcome keeps per
// replication (PerReplication) and their JSON in a point file.
const BytesPerReplication = 512

// CheckResources refuses a point of m whose memory (Model.Memory, plus
// BytesPerReplication per replication) or expected events (Model.Cost) are
// above the limits. v holds completed values.
func (m *Model) CheckResources(v *param.Values) error {
	bytes, key := 0.0, ""
	if m.Memory != nil {
		bytes, key = m.Memory(v)
	}
	if r, ok := v.Get(KeyReplications).(int); ok {
		perRep := BytesPerReplication * float64(r)
		if perRep > bytes {
			key = KeyReplications
		}
		bytes += perRep
	}
	if err := CheckMemory(keyValue(v, key), bytes); err != nil {
		return err
	}
	if m.Cost != nil {
		key := KeyHorizon
		switch {
		case m.CostKey != nil:
			key = m.CostKey(v)
		case !v.Has(KeyHorizon):
			key = KeyReplications
		}
		if err := CheckEvents(keyValue(v, key), m.Cost(v)); err != nil {
			return err
		}
	}
	return nil
}

// keyValue writes "key = value" for a key of v, else the key alone.
func keyValue(v *param.Values, key string) string {
	if key == "" || v.Decl().Key(key) == nil || !v.Has(key) {
		return key
	}
	return key + " = " + param.Format(v.Get(key))
}
