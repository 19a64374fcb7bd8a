package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Payloads that would run "touch pwned" if a value reached a script
// unvalidated or unquoted: a new line, the heredoc delimiters, command
// substitutions and quotes.
var injections = []string{
	"x\ntouch pwned\n",
	"x\nLBSIM_SWEEP\ntouch pwned\nLBSIM_SWEEP\n",
	"x\nLBSIM_MERGE\ntouch pwned\n",
	"x\rtouch pwned",
	"x\u2028touch pwned",
	"$(touch pwned)",
	"$(touch${IFS}pwned)",
	"`touch pwned`",
	"x'; touch pwned; '",
	"x\"; touch pwned; \"",
}

// Every value of lbsim slurm that goes into the script gets each payload:
// the command refuses it (exit 2, nothing printed) or prints a script that,
// run with a stand-in sbatch that runs each job script it is given (as the
// nodes would), executes nothing but the stand-ins.
func TestSlurmInjection(t *testing.T) {
	spec := writeSpec(t, cliSweep)
	bin := t.TempDir()
	sbatch := `#!/bin/bash
job=$(mktemp)
cat > "$job"
SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=1 SLURM_ARRAY_TASK_MIN=0 bash "$job" >/dev/null 2>&1 || true
echo "7;cluster"
`
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(sbatch), 0o755); err != nil {
		t.Fatal(err)
	}
	stub := filepath.Join(bin, "lbsim-stub")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, payload := range injections {
		dir := t.TempDir()
		specWith := filepath.Join(dir, "s"+payload+".json")
		data, _ := os.ReadFile(spec)
		if err := os.WriteFile(specWith, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{"spec", "out", "merge-out", "logs", "lbsim", "job-name", "partition", "account",
			"mem", "sbatch", "time", "merge-time"} {
			args := map[string]string{"out": filepath.Join(dir, "run"), "lbsim": stub}
			switch field {
			case "spec":
			case "out", "merge-out", "logs", "lbsim":
				args[field] = filepath.Join(dir, field+payload)
			case "sbatch":
				args[field] = "--qos=" + payload
			default:
				args[field] = payload
			}
			cmdArgs := []string{"slurm", spec}
			if field == "spec" {
				cmdArgs[1] = specWith
			}
			for k, v := range args {
				cmdArgs = append(cmdArgs, "--"+k, v)
			}
			code, script, stderr := cli(t, context.Background(), cmdArgs...)
			if code != 0 {
				// The log directory defaults to DIR/logs: a refusal of it names logs.
				if code != exitUsage || script != "" || !(strings.Contains(stderr, field+" = ") ||
					field == "out" && strings.Contains(stderr, "logs = ")) {
					t.Errorf("%s = %q: exit %d, stdout %q, stderr %q; want a refusal naming %s", field, payload, code, script, stderr, field)
				}
				continue
			}
			accepted++
			run := exec.Command("bash", "-s")
			run.Dir = dir
			run.Stdin = strings.NewReader(script)
			run.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			if out, err := run.CombinedOutput(); err != nil {
				t.Errorf("%s = %q: the script failed: %v\n%s", field, payload, err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Fatalf("%s = %q: the script executed the payload:\n%s", field, payload, script)
			}
		}
	}
	if accepted == 0 {
		t.Error("every payload was refused: the accepted ones (quoted paths) were not exercised")
	}
}

// Every value of lbsim k8s that goes into the manifest gets each payload: it
// is refused, or the manifest still holds exactly the two documents with the
// header lines all comments.
func TestK8sInjection(t *testing.T) {
	spec := writeSpec(t, cliSweep)
	for _, payload := range injections {
		for _, field := range []string{"image", "pvc", "mount", "out", "memory", "lbsim", "namespace", "name"} {
			args := []string{"k8s", spec}
			if field != "image" {
				args = append(args, "--image", "registry.example/lbsim:1")
			}
			value := payload
			if field == "mount" {
				value = "/data" + payload
			}
			args = append(args, "--"+field, value)
			code, manifest, stderr := cli(t, context.Background(), args...)
			if code != 0 {
				if code != exitUsage || manifest != "" || !strings.Contains(stderr, field+" = ") {
					t.Errorf("%s = %q: exit %d, stdout %q, stderr %q; want a refusal naming %s", field, payload, code, manifest, stderr, field)
				}
				continue
			}
			docs := strings.Split(manifest, "\n---\n")
			head, _, _ := strings.Cut(manifest, "apiVersion:")
			lines := strings.Split(strings.TrimSuffix(head, "\n"), "\n")
			for _, l := range lines {
				if !strings.HasPrefix(l, "#") {
					t.Errorf("%s = %q: header line %q is not a comment", field, payload, l)
				}
			}
			if len(docs) != 2 || strings.Contains(manifest, "\ntouch pwned") {
				t.Errorf("%s = %q: the manifest has %d documents:\n%s", field, payload, len(docs), manifest)
			}
		}
	}
}
