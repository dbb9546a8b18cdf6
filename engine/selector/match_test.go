package selector

import (
	"testing"
)

func TestMatchLabels(t *testing.T) {
	obj := []byte(`{"metadata":{"name":"a","labels":{"app":"web","app.kubernetes.io/name":"x","tier":"","num":"+7","big":"99999999999999999999"}}}`)
	tests := []struct {
		selector string
		want     bool
	}{
		{"", true},
		{"app=web", true},
		{"app=db", false},
		{"app!=db", true},
		{"missing!=x", true},
		{"app in (db,web)", true},
		{"app notin (web)", false},
		{"missing notin (web)", true},
		{"app.kubernetes.io/name=x", true},
		{"app.kubernetes.io/name", true},
		{"!app", false},
		{"!missing", true},
		{"tier=", true},
		{"app=web,tier=x", false},
		{"num>5", true},
		{"num>7", false},
		{"num<8", true},
		{"missing<8", false},
		{"app>0", false},
		{"big>0", false},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			reqs, err := ParseLabels(tt.selector)
			if err != nil {
				t.Fatal(err)
			}
			if got := MatchLabels(reqs, obj); got != tt.want {
				t.Errorf("MatchLabels(%q) = %v, want %v", tt.selector, got, tt.want)
			}
		})
	}
}

func TestMatchFields(t *testing.T) {
	obj := []byte(`{"metadata":{"name":"a","namespace":"ns"},"spec":{"color":"red","count":3,"on":true}}`)
	tests := []struct {
		selector string
		want     bool
	}{
		{"metadata.name=a", true},
		{"metadata.name!=a", false},
		{"metadata.namespace=ns,spec.color=red", true},
		{"spec.count=3", true},
		{"spec.on=true", true},
		{"spec.color=blue", false},
		{"spec.missing=", true},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			reqs, err := ParseFields(tt.selector)
			if err != nil {
				t.Fatal(err)
			}
			if got := MatchFields(reqs, obj, func(f string) string { return f }); got != tt.want {
				t.Errorf("MatchFields(%q) = %v, want %v", tt.selector, got, tt.want)
			}
		})
	}
}
