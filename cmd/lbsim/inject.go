package main

import (
	"regexp"
	"strings"
	"unicode"
)

// Values that lbsim slurm and lbsim k8s write into a script or a manifest
// are validated so that none can add a line (and with it a command, a
// heredoc delimiter or a YAML document): no value may hold a control
// character or a Unicode line separator, the Slurm options that go into
// #SBATCH lines unquoted must match a strict pattern, and everything else is
// quoted (shellQuote) where bash reads it.

// noControl refuses a value with a control character or a line separator.
func noControl(key, v string) error {
	for _, r := range v {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return usageErr("%s = %q: must not contain control characters or line breaks (it goes into a script "+
				"or manifest)", key, v)
		}
	}
	return nil
}

// noControlAll applies noControl to key-value pairs in order.
func noControlAll(kv ...string) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if err := noControl(kv[i], kv[i+1]); err != nil {
			return err
		}
	}
	return nil
}

var (
	// slurmName: a partition (or a comma-separated list), account or job name.
	slurmName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.,+-]*$`)
	// slurmMem: sbatch --mem, a size with an optional unit.
	slurmMem = regexp.MustCompile(`^[0-9]+[KMGT]?$`)
	// slurmOption: one extra #SBATCH option, --name or --name=value.
	slurmOption = regexp.MustCompile(`^--?[A-Za-z][A-Za-z0-9-]*(=[A-Za-z0-9_.,:+=@%/-]+)?$`)
)

// checkPattern refuses a value (when given) that does not match re.
func checkPattern(key, v string, re *regexp.Regexp, what string) error {
	if v != "" && !re.MatchString(v) {
		return usageErr("%s = %q: must be %s", key, v, what)
	}
	return nil
}

// commentLine makes s safe in a one-line comment: control characters and
// line separators become '?'.
func commentLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return '?'
		}
		return r
	}, s)
}
