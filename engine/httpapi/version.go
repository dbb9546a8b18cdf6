package httpapi

import (
	"net/http"
	"runtime"
)

// serverVersion is what /version reports, in the shape of k8s.io/apimachinery's
// version.Info; kubectl reads it at the start of some commands and prints it
// in `kubectl version`. dynapi speaks the v1.32 wire protocol.
var serverVersion = map[string]string{
	"major":        "1",
	"minor":        "32",
	"gitVersion":   "v1.32.0-dynapi",
	"gitCommit":    "",
	"gitTreeState": "",
	"buildDate":    "",
	"goVersion":    runtime.Version(),
	"compiler":     runtime.Compiler,
	"platform":     runtime.GOOS + "/" + runtime.GOARCH,
}

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, serverVersion)
}
