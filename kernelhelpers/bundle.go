package kernelhelpers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/janpfeifer/gonb/gonbui"
)

// EchartsEnv names the environment variable that points at echarts.min.js,
// overriding the search for <repo>/third_party/node_modules/echarts/dist/echarts.min.js.
const EchartsEnv = "LBSIM_ECHARTS_JS"

// echartsRel is where scripts/setup.sh installs the bundle, relative to the repository root.
var echartsRel = filepath.Join("third_party", "node_modules", "echarts", "dist", "echarts.min.js")

// markerPrefix names the file, in the GoNB session's temporary directory, whose
// existence says that this kernel session has already received the bundle.
const markerPrefix = ".lbsim-kernelhelpers-echarts-"

// Hooks to gonbui, replaced by the tests.
var (
	inNotebook  = func() bool { return gonbui.IsNotebook }
	displayHTML = gonbui.DisplayHTML
	updateHTML  = gonbui.UpdateHTML
	syncDisplay = gonbui.Sync
)

var (
	bundleMu        sync.Mutex
	bundleCache     string // the <script> element holding echarts, once read
	bundlePath      string
	deliveredInProc bool // this process already delivered or saw the marker
)

// EchartsPath returns the echarts.min.js that charts embed: $LBSIM_ECHARTS_JS
// if set, else the first third_party/node_modules/echarts/dist/echarts.min.js
// found walking up from the working directory, from $GONB_DIR (the notebook's
// directory) and from this package's source directory.
func EchartsPath() (string, error) {
	if p := os.Getenv(EchartsEnv); p != "" {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Errorf("kernelhelpers: $%s=%q is not a readable file (install echarts with scripts/setup.sh, or unset it)", EchartsEnv, p)
		}
		return p, nil
	}
	p, starts, ok := findAbove(echartsRel)
	if !ok {
		return "", fmt.Errorf("kernelhelpers: echarts.min.js not found: looked for %s above %s; run scripts/setup.sh (it installs echarts from npm into <repo>/third_party/node_modules) or set $%s to the file",
			echartsRel, strings.Join(starts, ", "), EchartsEnv)
	}
	return p, nil
}

// bundleScript returns the <script> element that defines window.echarts, read
// once per process.
func bundleScript() (string, error) {
	bundleMu.Lock()
	defer bundleMu.Unlock()
	return bundleScriptLocked()
}

func bundleScriptLocked() (string, error) {
	if bundleCache != "" {
		return bundleCache, nil
	}
	p, err := EchartsPath()
	if err != nil {
		return "", err
	}
	js, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("kernelhelpers: reading echarts: %w", err)
	}
	s, err := wrapBundle(string(js))
	if err != nil {
		return "", fmt.Errorf("kernelhelpers: %s: %w", p, err)
	}
	bundleCache, bundlePath = s, p
	return s, nil
}

// wrapBundle puts the echarts UMD bundle inside a function whose parameters
// define, exports and module shadow RequireJS's globals (Jupyter Notebook 6
// loads RequireJS, so the bundle would otherwise register an anonymous AMD
// module, or fail with "Mismatched anonymous define()", instead of setting
// window.echarts). Called with this = window, the UMD header then takes its
// browser-global branch. The function returns early when echarts is already
// there (a reopened notebook replays every saved output).
func wrapBundle(js string) (string, error) {
	if !strings.Contains(js, "echarts") {
		return "", errors.New("does not look like the echarts bundle")
	}
	low := strings.ToLower(js)
	if strings.Contains(low, "</script") || strings.Contains(low, "<!--") {
		return "", errors.New("bundle contains </script or <!-- and cannot be inlined")
	}
	return "<script type=\"text/javascript\" data-lbsim-echarts=\"bundle\">\n" +
		"(function (define, exports, module) {\nif (window.echarts) { return; }\n" +
		js +
		"\n}).call(window);\n</script>\n", nil
}

// sessionMarker returns the file, named prefix and a pid, that records
// something done once per kernel session (the bundle's delivery, the note
// that charts carry no static picture), or "" outside GoNB. GONB_TMP_DIR is the directory GoNB creates for each kernel
// process (/tmp/gonb_<random id>, removed when the kernel exits), and every
// cell program of that kernel is started by the kernel process itself, so the
// pair (GONB_TMP_DIR, parent pid) identifies the kernel session.
func sessionMarker(prefix string) string {
	dir := os.Getenv("GONB_TMP_DIR")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, prefix+strconv.Itoa(os.Getppid()))
}

// delivered reports whether this kernel session already has the bundle.
func deliveredLocked() bool {
	if deliveredInProc {
		return true
	}
	if m := sessionMarker(markerPrefix); m != "" {
		if _, err := os.Stat(m); err == nil {
			deliveredInProc = true
			return true
		}
	}
	return false
}

// markDeliveredLocked records that the bundle went out in this session. If the
// marker cannot be written, later cells deliver the bundle again (harmless:
// the wrapper skips itself when window.echarts exists).
func markDeliveredLocked() {
	deliveredInProc = true
	m := sessionMarker(markerPrefix)
	if m == "" {
		return
	}
	f, err := os.OpenFile(m, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		if !errors.Is(err, fs.ErrExist) {
			fmt.Fprintf(os.Stderr, "kernelhelpers: cannot record echarts delivery (%v); later cells will embed it again\n", err)
		}
		return
	}
	fmt.Fprintf(f, "echarts delivered to this kernel session from %s\n", bundlePath)
	f.Close()
}

// bundleForSession returns the bundle <script> if this kernel session has not
// received it yet (and records that it now has), or "" if it has. The caller
// must display what it gets.
func bundleForSession() (string, error) {
	bundleMu.Lock()
	defer bundleMu.Unlock()
	if deliveredLocked() {
		return "", nil
	}
	s, err := bundleScriptLocked()
	if err != nil {
		return "", err
	}
	markDeliveredLocked()
	return s, nil
}

// Setup displays the echarts bundle in the current cell's output, whether or
// not this kernel session already received it, and records the delivery so
// that the charts that follow do not embed it again. Charts deliver the bundle
// by themselves (the first chart of each kernel session carries it); call
// Setup in a cell of its own near the top of a notebook to keep the bundle in a
// cell you do not re-run. Outside a notebook it only checks that the bundle is
// found.
func Setup() error {
	s, err := bundleScript()
	if err != nil {
		showError(err)
		return err
	}
	if !inNotebook() {
		return nil
	}
	bundleMu.Lock()
	markDeliveredLocked()
	bundleMu.Unlock()
	displayHTML(s + `<div class="lbsim-echarts-setup" style="font-size:small;color:#777">echarts loaded for kernelhelpers charts</div>`)
	syncDisplay()
	return nil
}

// showError displays err in the notebook as a red box (nothing outside one).
func showError(err error) {
	if !inNotebook() {
		return
	}
	displayHTML(`<pre class="lbsim-error" style="color:#a00;background:#fee;padding:6px;white-space:pre-wrap">` +
		escape(err.Error()) + `</pre>`)
	syncDisplay()
}
