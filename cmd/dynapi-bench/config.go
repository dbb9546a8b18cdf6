package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
)

// allPhases are the phases in the order they run. create always runs: every
// other phase works on the objects it makes. raw is the PostgreSQL baseline
// run after each phase that has one.
var allPhases = []string{"create", "get", "list", "select", "update", "patch", "watch", "delete", "raw"}

// kindsPhase measures many definitions (see kinds.go); it runs only when
// named, after the others, and alone it needs no create.
const kindsPhase = "kinds"

// defaultKinds is the number of definitions of the kinds phase when -kinds is 0.
const defaultKinds = 100

// minSize is the smallest -size: an object's fixed fields take about this much.
const minSize = 300

// config is what the flags ask for.
type config struct {
	Objects     int
	Clients     int
	Size        int
	WatchWrites int
	DatabaseURL string
	Servers     []string
	Phases      map[string]bool
	JSON        bool
	Kinds       int // definitions of the kinds phase; 0: defaultKinds
	// Batch, when not 0, makes the create phase create the objects in
	// batches of this many, reading the rate and memory after each.
	Batch int
	// PostgresPID is the postmaster of -database-url's server, when on
	// this machine: the tool then meters its CPU too.
	PostgresPID int
	// Replicas is how many streaming replicas of its private PostgreSQL
	// the tool starts, for the servers to read from.
	Replicas int
	// Token is sent as a bearer token with every request; servers the tool
	// starts then authenticate it and authorize with RBAC.
	Token string
	// Readme is a file whose figures table (between readmeBegin and
	// readmeEnd) the run rewrites; empty: none.
	Readme string
}

// kindCount is the number of definitions of the kinds phase.
func (c config) kindCount() int {
	if c.Kinds > 0 {
		return c.Kinds
	}
	return defaultKinds
}

// parseConfig reads the flags.
func parseConfig(args []string, stderr io.Writer) (config, error) {
	var c config
	var servers, phases string
	fs := flag.NewFlagSet("dynapi-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.Objects, "n", 10000, "number of objects")
	fs.IntVar(&c.Clients, "c", 16, "concurrent clients")
	fs.IntVar(&c.Size, "size", 1200, "size of an object as sent, in bytes")
	fs.IntVar(&c.WatchWrites, "watch-writes", 1000, "writes whose watch events are timed")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL for the servers and the baseline; empty: a private, durable one")
	fs.StringVar(&servers, "servers", "", "comma-separated URLs of running dynapi servers on loopback; empty: start two")
	fs.StringVar(&phases, "phases", strings.Join(allPhases, ","), "comma-separated phases to run")
	fs.BoolVar(&c.JSON, "json", false, "print the results as JSON")
	fs.StringVar(&c.Token, "token", "", "bearer token sent with every request; the servers the tool starts authenticate it\n"+
		"(--token-auth-file) and authorize it with RBAC through a ClusterRoleBinding to cluster-admin")
	fs.IntVar(&c.Replicas, "replicas", 0, "streaming replicas of the private PostgreSQL that the servers read from (--database-read-url)")
	fs.StringVar(&c.Readme, "readme", "", "rewrite the figures table of this file (README.md) with the run's figures,\n"+
		"between the lines "+readmeBegin+" and "+readmeEnd)
	fs.IntVar(&c.Batch, "batch", 0, "create the objects in batches of this many, each from all clients at once, and print\n"+
		"the create rate and the servers' resident memory after each (0: one phase)")
	fs.IntVar(&c.PostgresPID, "postgres-pid", 0, "PID of the postmaster of -database-url's server, on this machine, to meter its CPU (0: unmetered)")
	fs.IntVar(&c.Kinds, "kinds", 0, fmt.Sprintf("definitions of the kinds phase (0: %d)", defaultKinds))
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	var err error
	if c.Servers, err = parseServers(servers); err != nil {
		return c, err
	}
	if c.Phases, err = parsePhases(phases); err != nil {
		return c, err
	}
	return c, c.check()
}

// check rejects numbers the phases cannot work with.
func (c config) check() error {
	switch {
	case c.Objects < 1:
		return errors.New("-n must be at least 1")
	case c.Clients < 1:
		return errors.New("-c must be at least 1")
	case c.Size < minSize:
		return fmt.Errorf("-size must be at least %d", minSize)
	case c.WatchWrites < 1:
		return errors.New("-watch-writes must be at least 1")
	case c.Batch < 0:
		return errors.New("-batch must not be negative")
	case c.Kinds < 0:
		return errors.New("-kinds must not be negative")
	case c.Replicas < 0:
		return errors.New("-replicas must not be negative")
	case c.Replicas > 0 && (c.DatabaseURL != "" || len(c.Servers) > 0):
		return errors.New("-replicas needs the private PostgreSQL: no -database-url or -servers")
	}
	return nil
}

// parseServers splits the URLs and checks that each is on loopback: the
// tool sends thousands of requests per second and must not flood a network.
func parseServers(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var out []string
	for _, s := range strings.Split(list, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || u.Scheme != "http" {
			return nil, fmt.Errorf("-servers: %q is not an http URL", s)
		}
		if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("-servers: %q is not on loopback", s)
		}
		out = append(out, strings.TrimSuffix(u.String(), "/"))
	}
	return out, nil
}

// parsePhases reads the phase list; create is always included, unless
// the list names the kinds phase alone.
func parsePhases(list string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(allPhases, p) && p != kindsPhase {
			return nil, fmt.Errorf("-phases: unknown phase %q (known: %s,%s)", p, strings.Join(allPhases, ","), kindsPhase)
		}
		out[p] = true
	}
	if len(out) > 1 || !out[kindsPhase] {
		out["create"] = true
	}
	return out, nil
}
