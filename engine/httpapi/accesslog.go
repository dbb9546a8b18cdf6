package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// accessLevel is the level of the access log: kube-apiserver's httplog
// logs every request at verbosity 3, which is slog's info-3 (see
// cmd/dynapi's -v).
const accessLevel = slog.LevelInfo - 3

// logAccess writes one line per request, as kube-apiserver's httplog
// ("HTTP" verb=… URI=… latency=… resp=…), with the user and the bytes
// of the body: written only when the logger takes accessLevel, so that
// it costs nothing otherwise.
func (s *Server) logAccess(r *http.Request, info *requestInfo, code int, bytes int64, latency time.Duration) {
	ctx := context.Background() // the request's may be over: the line is written regardless
	if !s.logger.Enabled(ctx, accessLevel) {
		return
	}
	user := info.user
	if user == "" && s.authn == nil {
		user = anonymousUser.Name // no authentication configured: everyone is
	}
	s.logger.LogAttrs(ctx, accessLevel, "HTTP",
		slog.String("verb", metricVerb(r, info)), slog.String("URI", r.RequestURI), slog.String("user", user),
		slog.Int("resp", code), slog.Duration("latency", latency), slog.Int64("bytes", bytes),
		slog.String("userAgent", r.UserAgent()), slog.String("srcIP", r.RemoteAddr))
}
