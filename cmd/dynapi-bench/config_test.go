package main

import (
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	all := map[string]bool{}
	for _, p := range allPhases {
		all[p] = true
	}
	tests := []struct {
		name    string
		args    []string
		want    config
		wantErr string
	}{
		{name: "defaults", args: nil,
			want: config{Objects: 10000, Clients: 16, Size: 1200, WatchWrites: 1000, Phases: all}},
		{name: "everything set", args: []string{"-n", "50", "-c", "4", "-size", "2000", "-watch-writes", "10",
			"-database-url", "postgres://db", "-servers", "http://127.0.0.1:8080/, http://localhost:8081", "-phases", "get,watch", "-json"},
			want: config{Objects: 50, Clients: 4, Size: 2000, WatchWrites: 10, DatabaseURL: "postgres://db",
				Servers: []string{"http://127.0.0.1:8080", "http://localhost:8081"},
				Phases:  map[string]bool{"create": true, "get": true, "watch": true}, JSON: true}},
		{name: "replicas", args: []string{"-replicas", "1"},
			want: config{Objects: 10000, Clients: 16, Size: 1200, WatchWrites: 1000, Phases: all, Replicas: 1}},
		{name: "replicas of a given database", args: []string{"-replicas", "1", "-database-url", "postgres://db"}, wantErr: "-replicas needs the private PostgreSQL"},
		{name: "unknown phase", args: []string{"-phases", "get,fly"}, wantErr: `unknown phase "fly"`},
		{name: "remote server", args: []string{"-servers", "http://10.0.0.1:8080"}, wantErr: "not on loopback"},
		{name: "not a URL", args: []string{"-servers", "127.0.0.1:8080"}, wantErr: "not an http URL"},
		{name: "no objects", args: []string{"-n", "0"}, wantErr: "-n must be at least 1"},
		{name: "no clients", args: []string{"-c", "0"}, wantErr: "-c must be at least 1"},
		{name: "tiny objects", args: []string{"-size", "10"}, wantErr: "-size must be at least"},
		{name: "no watch writes", args: []string{"-watch-writes", "0"}, wantErr: "-watch-writes must be at least 1"},
		{name: "stray argument", args: []string{"extra"}, wantErr: "unexpected arguments"},
		{name: "bad number", args: []string{"-n", "many"}, wantErr: "invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("config = %+v\nwant     %+v", got, tt.want)
			}
		})
	}
}
