package authnconfig

import (
	"crypto/sha256"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are kube-apiserver's authentication config controller metrics,
// with its names, labels and hashes.
type metrics struct {
	reloads *prometheus.CounterVec
	last    *prometheus.GaugeVec
	info    *prometheus.GaugeVec
	idHash  string
}

func newMetrics(reg prometheus.Registerer, serverID string) *metrics {
	m := &metrics{
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_authentication_config_controller_automatic_reloads_total",
			Help: "Total number of automatic reloads of authentication configuration split by status and apiserver identity."},
			[]string{"status", "apiserver_id_hash"}),
		last: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds",
			Help: "Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity."},
			[]string{"status", "apiserver_id_hash"}),
		info: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_authentication_config_controller_last_config_info",
			Help: "Information about the last applied authentication configuration with hash as label, split by apiserver identity."},
			[]string{"apiserver_id_hash", "hash"}),
		idHash: hash(serverID),
	}
	if reg != nil {
		reg.MustRegister(m.reloads, m.last, m.info)
	}
	return m
}

// reloaded records a reload attempt: status "success" or "failure".
func (m *metrics) reloaded(status string) {
	m.reloads.WithLabelValues(status, m.idHash).Inc()
	m.last.WithLabelValues(status, m.idHash).SetToCurrentTime()
}

// applied records the configuration in force.
func (m *metrics) applied(data []byte) {
	m.info.Reset()
	m.info.WithLabelValues(m.idHash, hash(string(data))).Set(1)
}

// hash is kube's: sha256:HEX, or "" for "".
func hash(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(s)))
}
