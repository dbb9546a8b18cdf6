package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestLogFormat: --log-format and -v give the process's logger its format
// and level: json writes one JSON object per line, and from -v=3 every
// request has its access line (kube's httplog: verb, URI, user, status,
// latency, bytes), which -v=0 leaves out.
func TestLogFormat(t *testing.T) {
	url, _ := startPostgres(t)
	tests := []struct {
		name       string
		args       []string
		wantAccess string // a substring of the access line of GET /readyz; "": none
	}{
		{"json at -v=3", []string{"--log-format=json", "-v=3"},
			`"level":"V3","msg":"HTTP","verb":"GET","URI":"/readyz?verbose","user":"system:anonymous","resp":200,`},
		{"text at --log-level=info-3", []string{"--log-level=info-3"},
			`level=V3 msg=HTTP verb=GET URI=/readyz?verbose user=system:anonymous resp=200 latency=`},
		{"json at -v=0", []string{"--log-format=json"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig("serve", tt.args, func(string) string { return "" }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			var out syncBuffer
			m := runMainLogged(t, Config{DatabaseURL: url, Log: cfg.Log}, newLogger(cfg.Log, &out))
			code, body := httpGet(t, "http://"+m.Addr()+"/readyz?verbose")
			if err := m.Close(); err != nil || code != http.StatusOK {
				t.Fatalf("GET /readyz?verbose = %d %s; Close: %v", code, body, err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			access := ""
			for _, line := range lines {
				if cfg.Log.Format == logJSON && (!strings.HasPrefix(line, "{") || !json.Valid([]byte(line))) {
					t.Errorf("not one JSON object: %q", line)
				}
				if strings.Contains(line, "/readyz?verbose") {
					access = line
				}
			}
			if tt.wantAccess == "" && access != "" || !strings.Contains(access, tt.wantAccess) {
				t.Errorf("access line %q; want one with %q", access, tt.wantAccess)
			}
			if tt.wantAccess != "" && !strings.Contains(access, "bytes") {
				t.Errorf("access line %q without the bytes of the body", access)
			}
		})
	}
}

// TestLogFlags: the log flags refuse what they do not know.
func TestLogFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--log-format=xml"}, `--log-format: "xml" is not text or json`},
		{[]string{"-v=-1"}, `"-1" is not a verbosity`},
		{[]string{"--log-level=loud"}, `invalid value "loud" for flag -log-level`},
	}
	for _, tt := range tests {
		_, err := parseConfig("serve", tt.args, func(string) string { return "" }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v; want %q", tt.args, err, tt.want)
		}
	}
}
