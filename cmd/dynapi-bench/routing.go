package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// routing is where the servers' reads ran, read from their /metrics at
// the end of a run with replicas: reads per operation on the replicas
// and on the primary, fallbacks per reason, and the mean time a read
// spent choosing (the primary's position, and the wait for a replica).
type routing struct {
	Replica       map[string]float64 `json:"replica"`
	Primary       map[string]float64 `json:"primary"`
	Fallbacks     map[string]float64 `json:"fallbacks"`
	ChoiceMeanUs  float64            `json:"choiceMeanUs"`
	choiceSeconds float64
	choices       float64
}

// scrapeRouting reads and sums the routing metrics of the servers at
// bases. Errors: a server that does not answer.
func scrapeRouting(ctx context.Context, bases []string) (*routing, error) {
	r := &routing{Replica: map[string]float64{}, Primary: map[string]float64{}, Fallbacks: map[string]float64{}}
	for _, base := range bases {
		body, err := fetchMetrics(ctx, base)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(body, "\n") {
			r.add(line)
		}
	}
	if r.choices > 0 {
		r.ChoiceMeanUs = r.choiceSeconds / r.choices * 1e6
	}
	return r, nil
}

// fetchMetrics returns the text of base's /metrics.
func fetchMetrics(ctx context.Context, base string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("read %s/metrics: %w", base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

// add counts one line of the metrics text.
func (r *routing) add(line string) {
	name, value, ok := strings.Cut(line, " ")
	v, err := strconv.ParseFloat(value, 64)
	if !ok || err != nil {
		return
	}
	switch {
	case strings.HasPrefix(name, "dynapi_storage_reads_total{"):
		if label(name, "target") == "primary" {
			r.Primary[label(name, "op")] += v
		} else {
			r.Replica[label(name, "op")] += v
		}
	case strings.HasPrefix(name, "dynapi_storage_replica_fallbacks_total{"):
		r.Fallbacks[label(name, "reason")] += v
	case name == "dynapi_storage_read_routing_seconds_sum":
		r.choiceSeconds += v
	case name == "dynapi_storage_read_routing_seconds_count":
		r.choices += v
	}
}

// label returns the value of label key in a metric's name{labels}.
func label(name, key string) string {
	_, rest, ok := strings.Cut(name, key+`="`)
	if !ok {
		return ""
	}
	value, _, _ := strings.Cut(rest, `"`)
	return value
}

// writeTable prints the share of reads served by replicas; nothing for nil.
func (r *routing) writeTable(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintln(w, "\nreads served by replicas (share of all reads of the run):")
	for _, op := range []string{"get", "list", "poll"} {
		total := r.Replica[op] + r.Primary[op]
		if total == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s: %.0f of %.0f (%.1f%%)\n", op, r.Replica[op], total, 100*r.Replica[op]/total)
	}
	fmt.Fprintf(w, "fallbacks to the primary: %v; time a read spent choosing (position + wait): %.0f µs on average\n",
		r.Fallbacks, r.ChoiceMeanUs)
}
