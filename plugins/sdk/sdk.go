package sdk

import (
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/grpcshim"
)

// Plugins lists what one binary serves; leave a kind nil when the binary
// does not serve it (calls of that kind then fail on the host with
// plugins.ErrUnsupported).
type Plugins struct {
	Trainer   plugins.Trainer
	LLM       plugins.LLM
	Benchmark plugins.Benchmark
}

// Serve serves the given plugins until the host ends the process. It never
// returns normally.
func Serve(p Plugins) {
	if p.Trainer == nil && p.LLM == nil && p.Benchmark == nil {
		Logger("sdk").Error("sdk.Serve called with no plugin to serve")
		os.Exit(1)
	}
	go exitWithParent(os.Getppid(), time.Second)
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  grpcshim.Handshake,
		VersionedPlugins: grpcshim.VersionedPlugins(grpcshim.PluginSet(p.Trainer, p.LLM, p.Benchmark)),
		GRPCServer:       plugin.DefaultGRPCServer,
		Logger:           Logger("go-plugin"),
	})
}

// ServeTrainer serves a trainer plugin.
func ServeTrainer(t plugins.Trainer) { Serve(Plugins{Trainer: t}) }

// ServeLLM serves an LLM plugin.
func ServeLLM(l plugins.LLM) { Serve(Plugins{LLM: l}) }

// ServeBenchmark serves a benchmark plugin.
func ServeBenchmark(b plugins.Benchmark) { Serve(Plugins{Benchmark: b}) }

// stderr is the process's real stderr, taken before plugin.Serve swaps
// os.Stderr for a pipe that is forwarded to the host's SyncStderr.
var stderr = os.Stderr

// Logger returns a logger for plugin code. It writes JSON lines to the
// process's stderr, which the host parses and files under the plugin's
// name in its log.
func Logger(name string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      hclog.Debug,
		Output:     stderr,
		JSONFormat: true,
	})
}

// exitWithParent ends the plugin when the host that started it is gone. A
// host killed with SIGKILL cannot close its plugins, and an orphaned plugin
// would keep its resources (and, for a trainer, its runs) forever; on Unix an
// orphan is re-parented, so a changed parent pid means the host died.
func exitWithParent(ppid int, every time.Duration) {
	if ppid <= 1 {
		return // started by init or a reaper: nothing to watch
	}
	for range time.Tick(every) {
		if os.Getppid() != ppid {
			Logger("sdk").Warn("host process is gone; plugin exiting", "host_pid", ppid)
			os.Exit(2)
		}
	}
}
