package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

type k8sConfig struct {
	image       string
	shards      int
	parallelism int
	pvc         string
	mount       string
	out         string
	cpu         int
	memory      string
	lbsim       string
	namespace   string
	name        string
	retries     int
	write       string
}

func k8sFlags(c *k8sConfig) *flags {
	f := newFlags("k8s")
	f.add("image", "IMAGE", "container image with lbsim on its PATH (required)", stringValue(&c.image))
	f.add("shards", "N", "completions of the indexed Job (1 <= N <= points; default: one per point, at most "+
		"100); pod i runs the points with index % N == i", intValue(&c.shards))
	f.add("parallelism", "P", "pods at once (>= 1; default: N)", intValue(&c.parallelism))
	f.add("pvc", "CLAIM", "PersistentVolumeClaim for the output, ReadWriteMany when pods run on several "+
		"nodes (default lbsim-data)", stringValue(&c.pvc))
	f.add("mount", "PATH", "where the claim is mounted in the pods (default /data)", stringValue(&c.mount))
	f.add("out", "DIR", "sweep output directory, relative to the mount (default sweeps/SWEEPNAME)", stringValue(&c.out))
	f.add("cpu", "C", "cores requested by each pod (>= 1; default 1)", intValue(&c.cpu))
	f.add("memory", "SIZE", "memory requested and limit of each pod (default 1Gi)", stringValue(&c.memory))
	f.add("lbsim", "PATH", "the lbsim executable in the image (default lbsim)", stringValue(&c.lbsim))
	f.add("namespace", "NS", "namespace of the ConfigMap and the Job (default: kubectl's)", stringValue(&c.namespace))
	f.add("name", "NAME", "name of the Job (default lbsim-SWEEPNAME); the ConfigMap is NAME-spec", stringValue(&c.name))
	f.add("retries", "R", "restarts allowed per index (backoffLimitPerIndex; >= 0; default 3)", intValue(&c.retries))
	f.add("write", "FILE", "write the manifest to FILE instead of stdout; FILE must not exist", stringValue(&c.write))
	return f
}

func k8sHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: lbsim k8s SPEC --image IMAGE [flags]

Prints a Kubernetes manifest (YAML, two documents) that runs the sweep SPEC as
an indexed Job: a ConfigMap holding the sweep, and a Job with
completionMode: Indexed and N completions whose pod i runs "lbsim sweep
/spec/sweep.json --out MOUNT/DIR --shards N --resume" (the shard is
JOB_COMPLETION_INDEX, set by Kubernetes) on a PersistentVolumeClaim. Apply it
with kubectl apply -f; when the Job has completed, run "lbsim merge
MOUNT/DIR --out FILE.csv" in a pod that mounts the claim (or copy the
directory out with kubectl cp and merge locally). A pod that fails restarts
and skips the points already finished.

Flags:
`)
	k8sFlags(&k8sConfig{}).printFlags(w)
	fmt.Fprint(w, `
Example:
  lbsim k8s data/specs/01-jsqd-finite-n.json --image registry.example/lbsim:1 --shards 24 --cpu 2 | kubectl apply -f -

Exit status: 0 success, 1 runtime failure, 2 invalid input.
`)
}

var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	k8sQuantity  = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([KMGTPE]i|[kMGTPE])?$`)
)

// k8sName makes a DNS-1123 label from a sweep name.
func k8sName(s string) string {
	s = strings.ToLower(s)
	s = regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(s, "-")
	s = strings.Trim(s, "-")
	if len(s) > 50 {
		s = strings.Trim(s[:50], "-")
	}
	return s
}

func k8sCommand(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	c := k8sConfig{pvc: "lbsim-data", mount: "/data", cpu: 1, memory: "1Gi", lbsim: "lbsim", retries: 3}
	pos, err := k8sFlags(&c).parse(args)
	if err != nil {
		return err
	}
	sw, _, shards, err := clusterSweep(pos, c.shards, 100)
	if err != nil {
		return err
	}
	if c.image == "" {
		return usageErr("image: missing; give --image IMAGE (a container image with lbsim)")
	}
	// Nothing given may add a line to the manifest (see inject.go); the YAML
	// encoder quotes the values, the header comment shell-quotes them.
	if err := noControlAll("image", c.image, "pvc", c.pvc, "mount", c.mount, "out", c.out, "memory", c.memory,
		"lbsim", c.lbsim, "namespace", c.namespace, "name", c.name); err != nil {
		return err
	}
	if c.namespace != "" && (!dnsLabel.MatchString(c.namespace) || len(c.namespace) > 63) {
		return usageErr("namespace = %q: must be a DNS label (lowercase letters, digits and -, at most 63 characters)", c.namespace)
	}
	if !dnsSubdomain.MatchString(c.pvc) || len(c.pvc) > 253 {
		return usageErr("pvc = %q: must be a claim name (lowercase letters, digits, - and .)", c.pvc)
	}
	if !k8sQuantity.MatchString(c.memory) {
		return usageErr("memory = %q: must be a Kubernetes quantity such as 1Gi, 512Mi or 2G", c.memory)
	}
	if c.parallelism == 0 {
		c.parallelism = shards
	}
	if c.parallelism < 1 {
		return usageErr("parallelism = %d: must be >= 1", c.parallelism)
	}
	if c.cpu < 1 {
		return usageErr("cpu = %d: must be >= 1", c.cpu)
	}
	if c.retries < 0 {
		return usageErr("retries = %d: must be >= 0", c.retries)
	}
	if !path.IsAbs(c.mount) {
		return usageErr("mount = %q: must be an absolute path", c.mount)
	}
	base := "sweep"
	if sw.Name != "" {
		base = sw.Name
	}
	if c.name == "" {
		c.name = "lbsim-" + k8sName(base)
	}
	if !dnsLabel.MatchString(c.name) || len(c.name) > 58 {
		return usageErr("name = %q: must be a DNS label (lowercase letters, digits and -, at most 58 characters)", c.name)
	}
	if c.out == "" {
		c.out = path.Join("sweeps", base)
	}
	if path.IsAbs(c.out) || strings.HasPrefix(path.Clean(c.out), "..") {
		return usageErr("out = %q: must be a path relative to the mount (%s)", c.out, c.mount)
	}
	specJSON, err := json.MarshalIndent(sw, "", " ")
	if err != nil {
		return failure(err)
	}
	meta := func(name string) map[string]any {
		m := map[string]any{"name": name, "labels": map[string]any{"app.kubernetes.io/name": "lbsim", "lbsim/sweep": c.name}}
		if c.namespace != "" {
			m["namespace"] = c.namespace
		}
		return m
	}
	configMap := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   meta(c.name + "-spec"),
		"data":       map[string]any{"sweep.json": string(specJSON) + "\n"},
	}
	outDir := path.Join(c.mount, c.out)
	job := map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   meta(c.name),
		"spec": map[string]any{
			"completionMode":       "Indexed",
			"completions":          shards,
			"parallelism":          c.parallelism,
			"backoffLimitPerIndex": c.retries,
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "lbsim", "lbsim/sweep": c.name}},
				"spec": map[string]any{
					"restartPolicy": "Never",
					"containers": []any{map[string]any{
						"name":  "sweep",
						"image": c.image,
						"command": []any{c.lbsim, "sweep", "/spec/sweep.json", "--out", outDir,
							"--shards", fmt.Sprint(shards), "--resume", "--workers", fmt.Sprint(c.cpu)},
						"resources": map[string]any{
							"requests": map[string]any{"cpu": fmt.Sprint(c.cpu), "memory": c.memory},
							"limits":   map[string]any{"memory": c.memory},
						},
						"volumeMounts": []any{
							map[string]any{"name": "data", "mountPath": c.mount},
							map[string]any{"name": "spec", "mountPath": "/spec", "readOnly": true},
						},
					}},
					"volumes": []any{
						map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": c.pvc}},
						map[string]any{"name": "spec", "configMap": map[string]any{"name": c.name + "-spec"}},
					},
				},
			},
		},
	}
	var docs []string
	for _, obj := range []any{configMap, job} {
		y, err := yaml.Marshal(obj)
		if err != nil {
			return failure(err)
		}
		docs = append(docs, string(y))
	}
	manifest := fmt.Sprintf("# Generated by: %s\n# Sweep %q: %d points x %d replications in %d indexed pods; merge afterwards with\n"+
		"#   %s merge %s --out FILE.csv\n", commentLine(strings.Join(quoteAll(os.Args), " ")),
		commentLine(base), sw.NumPoints(), sw.Replications, shards, shellQuote(c.lbsim), shellQuote(outDir)) + strings.Join(docs, "---\n")
	if c.write != "" {
		if err := writeOutput(ctx, "write", c.write, []byte(manifest), 0o644, true); err != nil {
			return err
		}
		return nil
	}
	if _, err := io.WriteString(stdout, manifest); err != nil {
		return failure(err)
	}
	return nil
}
