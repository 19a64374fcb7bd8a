package sweep

import (
	"os"
	"strings"
	"testing"
)

// LoadCSV refuses a file that never ends instead of reading it into memory.
func TestLoadCSVBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := LoadCSV("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("LoadCSV(/dev/zero): %v, want a size refusal", err)
	}
}
