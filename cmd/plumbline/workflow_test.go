package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// workflowFile is the CI recipe a catalogue repository copies.
const workflowFile = "catalog/ci/plumbline-catalogue.yml"

type workflow struct {
	Name string
	On   map[string]any
	Env  map[string]string
	Jobs map[string]struct {
		RunsOn   string         `yaml:"runs-on"`
		Services map[string]any `yaml:"services"`
		Env      map[string]string
		Steps    []struct {
			Name string
			Uses string
			If   string
			Run  string
			With map[string]string
			Env  map[string]string
		}
	}
}

var (
	invocation = regexp.MustCompile(`\bplumbline\s+([a-z]+)([^\n|;&]*)`)
	flagUse    = regexp.MustCompile(`(?:^|[\s+])(--?[a-z][a-z0-9-]*)`)
	flagHelp   = regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`)
)

// The CI recipe parses as a workflow and calls only commands and flags
// plumbline has, for every step the recipe promises.
func TestCatalogueWorkflow(t *testing.T) {
	t.Chdir("../..")
	body, err := os.ReadFile(workflowFile)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(body, &wf); err != nil {
		t.Fatalf("%s is not YAML: %v", workflowFile, err)
	}
	job, ok := wf.Jobs["catalogue"]
	if !ok || job.RunsOn == "" || len(job.Steps) == 0 || wf.On["pull_request"] == nil && !strings.Contains(string(body), "pull_request:") {
		t.Fatalf("%s has no catalogue job run on pull requests: %+v", workflowFile, wf)
	}
	if _, ok := job.Services["postgres"]; !ok || !strings.Contains(job.Env["DSN"], "localhost:5432") {
		t.Errorf("the job has no throwaway PostgreSQL service for check --db")
	}

	var calls []string
	artifact := false
	for _, step := range job.Steps {
		if step.Run == "" && step.Uses == "" {
			t.Errorf("step %q neither runs nor uses anything", step.Name)
		}
		if strings.HasPrefix(step.Uses, "actions/upload-artifact@") && strings.Contains(step.With["path"], "site") {
			artifact = true
		}
		script := strings.ReplaceAll(step.Run, "\\\n", " ")
		for _, m := range invocation.FindAllStringSubmatch(script, -1) {
			cmd, rest := m[1], m[2]
			calls = append(calls, cmd+" "+strings.TrimSpace(rest))
			if _, ok := commands[cmd]; !ok {
				t.Errorf("step %q calls plumbline %s, which is not a command", step.Name, cmd)
				continue
			}
			code, help, _ := runCLI(t, "help", cmd)
			if code != 0 {
				t.Fatalf("help %s: exit %d", cmd, code)
			}
			known := flagHelp.FindAllStringSubmatch(help, -1)
			for _, f := range flagUse.FindAllStringSubmatch(rest, -1) {
				name := strings.TrimLeft(f[1], "-")
				if !slices.ContainsFunc(known, func(k []string) bool { return k[1] == name }) {
					t.Errorf("step %q passes %s to plumbline %s, which has no such flag", step.Name, f[1], cmd)
				}
			}
			if strings.Contains(rest, "--format") && !strings.Contains(rest, "--format github") {
				t.Errorf("step %q: annotations need --format github", step.Name)
			}
		}
		if strings.Contains(step.Run, "psql") && !strings.Contains(step.Run, "ON_ERROR_STOP=1") {
			t.Errorf("step %q applies SQL without stopping at the first error", step.Name)
		}
	}
	for _, want := range []string{
		`check --format github "$CATALOG"`,
		`setup --db "$DSN" --grants sql/grants`,
		`check --format github --db "$DSN" --grants sql/grants "$CATALOG"`,
		`check --format github --contract "$CONTRACT" "$CATALOG"`,
		`check --diff "$RUNNER_TEMP/base/$CATALOG"`,
		`docs "$CATALOG" -o "$RUNNER_TEMP/site"`,
	} {
		if !slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, want) }) {
			t.Errorf("the workflow never runs plumbline %s; it runs:\n%s", want, strings.Join(calls, "\n"))
		}
	}
	if !artifact {
		t.Error("the workflow does not keep the docs site as an artifact")
	}
}
