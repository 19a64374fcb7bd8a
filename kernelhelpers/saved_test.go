package kernelhelpers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stampID is the id of the first cell that scripts/nbstamp.py puts in an
// executed notebook: the commit, date, mode and run time of the execution.
const stampID = "lbsim-executed"

// savedNotebook is the part of a .ipynb file the saved-notebook test reads.
type savedNotebook struct {
	Cells    []savedCell `json:"cells"`
	Metadata struct {
		Lbsim struct {
			Executed *struct {
				Commit        string  `json:"commit"`
				Date          string  `json:"date"`
				Mode          string  `json:"mode"`
				WallSeconds   float64 `json:"wall_seconds"`
				SourcesSHA256 string  `json:"sources_sha256"`
			} `json:"executed"`
		} `json:"lbsim"`
	} `json:"metadata"`
}

// savedCell is one cell of a savedNotebook.
type savedCell struct {
	ID             string            `json:"id"`
	CellType       string            `json:"cell_type"`
	Source         json.RawMessage   `json:"source"`
	ExecutionCount *int              `json:"execution_count"`
	Outputs        []json.RawMessage `json:"outputs"`
}

// readSavedNotebook reads the notebook file path.
func readSavedNotebook(t *testing.T, path string) savedNotebook {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb savedNotebook
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	return nb
}

// cellText joins a cell's source, stored as a string or a list of lines.
func cellText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		t.Fatalf("cell source is neither a string nor a list of strings: %v", err)
	}
	return strings.Join(lines, "")
}

// TestSavedNotebooks checks the executed notebooks committed in notebooks/
// (written in place by `make reproduce`): each starts with its stamp cell,
// was run in full mode, has no error output, has a thumbnail of its main
// chart, and its cells are the ones that were executed (the hash of every
// cell's type and source, computed as scripts/nbstamp.py does, matches the
// one recorded at execution). A notebook edited after its run fails here
// until `make reproduce NOTEBOOKS=notebooks/NAME.ipynb` runs it again.
func TestSavedNotebooks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	commit := regexp.MustCompile(`^[0-9a-f]{40}$`)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ipynb")
		t.Run(name, func(t *testing.T) {
			nb := readSavedNotebook(t, f)
			ex := nb.Metadata.Lbsim.Executed
			if ex == nil || len(nb.Cells) == 0 || nb.Cells[0].ID != stampID {
				t.Fatalf("not saved with its outputs: run `make reproduce NOTEBOOKS=notebooks/%s.ipynb` and commit the result", name)
			}
			h := sha256.New()
			for _, c := range nb.Cells[1:] {
				h.Write([]byte(c.CellType))
				h.Write([]byte{0})
				h.Write([]byte(cellText(t, c.Source)))
				h.Write([]byte{0})
				for _, o := range c.Outputs {
					if bytes.Contains(o, []byte(`"output_type": "error"`)) {
						t.Errorf("cell %s has an error output", c.ID)
					}
				}
				if c.CellType == "code" && c.ExecutionCount == nil {
					t.Errorf("code cell %s was not executed", c.ID)
				}
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != ex.SourcesSHA256 {
				t.Errorf("the cells changed after the notebook was executed (sources hash %s, recorded %s): run `make reproduce NOTEBOOKS=notebooks/%s.ipynb` again", got[:12], ex.SourcesSHA256[:min(12, len(ex.SourcesSHA256))], name)
			}
			if ex.Mode != "full" {
				t.Errorf("executed in %s mode; the committed notebooks are full-mode runs (make reproduce)", ex.Mode)
			}
			if !commit.MatchString(ex.Commit) {
				t.Errorf("recorded commit %q is not a commit hash", ex.Commit)
			} else if stamp := cellText(t, nb.Cells[0].Source); !strings.Contains(stamp, ex.Commit[:12]) || !strings.Contains(stamp, ex.Date[:10]) {
				t.Errorf("the stamp cell does not state the commit %.12s and the date %.10s: %q", ex.Commit, ex.Date, stamp)
			}
			thumb, err := os.ReadFile(filepath.Join("..", "notebooks", "thumbnails", name+".svg"))
			if err != nil || !bytes.Contains(thumb, []byte("<svg")) || !bytes.Contains(thumb, []byte("<path")) {
				t.Errorf("no thumbnail with a drawn chart in notebooks/thumbnails/%s.svg (make reproduce writes it): %v", name, err)
			}
		})
	}
}

// TestNotebookThumbnails checks that the index (notebooks/README.md) and the
// README's notebook table show each notebook's thumbnail, the picture of its
// main chart that `make reproduce` writes.
func TestNotebookThumbnails(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	for _, doc := range []struct{ path, prefix string }{
		{filepath.Join("..", "notebooks", "README.md"), "thumbnails/"},
		{filepath.Join("..", "README.md"), "notebooks/thumbnails/"},
	} {
		b, err := os.ReadFile(doc.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".ipynb")
			row := ""
			for _, line := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(line, "| [`"+name) {
					row = line
				}
			}
			if !strings.Contains(row, `<img src="`+doc.prefix+name+`.svg"`) {
				t.Errorf("%s: the row of %s does not show its thumbnail %s%s.svg", doc.path, name, doc.prefix, name)
			}
		}
	}
}
