package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
)

// Log formats of --log-format.
const (
	logText = "text"
	logJSON = "json"
)

// LogConfig is how the server logs: --log-format, -v and --log-level.
type LogConfig struct {
	// Format is text (slog's key=value lines) or json (one JSON object
	// per line).
	Format string
	// Level is the least important level written. Kube's verbosity -v=N
	// is slog.LevelInfo-N, the mapping of logr's slog bridge (klog's V(N)
	// lines are slog records at level -N): -v=0 is info, -v=4 debug, and
	// the access log (kube's httplog, V(3)) shows from -v=3.
	Level slog.Level
}

// verbosity is the -v flag: kube's verbosity, a number ≥ 0, setting
// LogConfig.Level to info minus it.
type verbosity struct{ level *slog.Level }

func (v verbosity) String() string {
	if v.level == nil || *v.level >= slog.LevelInfo {
		return "0"
	}
	return strconv.Itoa(int(slog.LevelInfo - *v.level))
}

func (v verbosity) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a verbosity (0, 1, 2, …)", s)
	}
	*v.level = slog.LevelInfo - slog.Level(n)
	return nil
}

// logFlags declares the logging flags of every command.
func logFlags(fs *flag.FlagSet, c *LogConfig, withEnv func(name, env string) string) {
	fs.StringVar(&c.Format, "log-format", logText, "text or json (one JSON object per line)"+withEnv("log-format", "DYNAPI_LOG_FORMAT"))
	fs.Var(verbosity{&c.Level}, "v", "kube's log verbosity, the same as --log-level=info-N: 0 info, 3 the access log (one line per request), 4 debug")
	fs.TextVar(&c.Level, "log-level", slog.LevelInfo, "least level written: debug, info, warn, error, or info-N (the same as -v=N); the last of -v and --log-level wins"+withEnv("log-level", "DYNAPI_LOG_LEVEL"))
}

// check refuses a format other than text and json.
func (c LogConfig) check() error {
	if c.Format != logText && c.Format != logJSON {
		return fmt.Errorf("--log-format: %q is not text or json", c.Format)
	}
	return nil
}

// newLogger is the process's one logger, writing to w in the configured
// format from the configured level: the logger every package and
// Kubernetes' libraries (klog) log through.
func newLogger(c LogConfig, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.Level, ReplaceAttr: levelName}
	if c.Format == logJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// levelName writes a level below info other than debug as kube's
// verbosity, "V3", rather than slog's "DEBUG+1".
func levelName(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 || a.Key != slog.LevelKey {
		return a
	}
	l, ok := a.Value.Any().(slog.Level)
	if !ok || l >= slog.LevelInfo || l == slog.LevelDebug {
		return a
	}
	return slog.String(slog.LevelKey, "V"+strconv.Itoa(int(slog.LevelInfo-l)))
}
