package httpapi_test

import (
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// jsonPatch builds a JSON patch of n copies of op.
func jsonPatch(n int, op string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(op+",", n), ",") + "]"
}

// doublings is a JSON patch of n copy operations, each doubling the size
// of the object: 983 bytes that ask for gigabytes at n = 16.
func doublings(n int) string {
	ops := []string{`{"op":"add","path":"/spec/config/d0","value":"` + strings.Repeat("x", 1024) + `"}`}
	for i := 1; i <= n; i++ {
		ops = append(ops, `{"op":"copy","from":"/spec/config","path":"/spec/config/d`+strconv.Itoa(i)+`"}`)
	}
	return "[" + strings.Join(ops, ",") + "]"
}

func TestHostileBoundedWork(t *testing.T) {
	s := newTestServer(t)
	s.create(labWidgets, labWidget("target", `{"list":[]}`))
	s.create(labWidgets, labWidget("big", `{"s":"`+strings.Repeat("x", 1700<<10)+`"}`))
	target := labWidgets + "/target"
	jp := func(name, body string, code int) hostileCase {
		return hostileCase{name: name, method: http.MethodPatch, path: target + "?dryRun=All",
			contentType: "application/json-patch+json", body: body, code: code}
	}
	insert := `{"op":"add","path":"/spec/config/list/0","value":1}`
	runHostile(t, s, []hostileCase{
		jp("test without a value", `[{"op":"test","path":""}]`, http.StatusBadRequest),
		jp("test of the root against null", `[{"op":"test","path":"","value":null}]`, http.StatusUnprocessableEntity),
		jp("16 doubling copies", doublings(16), http.StatusUnprocessableEntity),
		jp("10,001 operations", jsonPatch(10001, `{"op":"test","path":"/kind","value":"Widget"}`), http.StatusRequestEntityTooLarge),
		jp("40,000 inserts at index 0", jsonPatch(40000, insert), http.StatusRequestEntityTooLarge),
		{name: "patched object over 3 MiB", method: http.MethodPatch, path: labWidgets + "/big",
			contentType: "application/merge-patch+json", body: `{"spec":{"config":{"t":"` + strings.Repeat("y", 1700<<10) + `"}}}`,
			code: http.StatusRequestEntityTooLarge},
	})
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	laughs := "apiVersion: labs.example.com/v1alpha1\nkind: Widget\nmetadata: {name: new}\nspec:\n  port: 80\n  config:\n    a: &a [x,x,x,x,x,x,x,x,x]\n"
	for i := 1; i < 10; i++ { // j holds 9^10 x: YAML aliases unbounded would ask for gigabytes
		name, prev := string(rune('a'+i)), string(rune('a'+i-1))
		laughs += "    " + name + ": &" + name + " [*" + prev + strings.Repeat(",*"+prev, 8) + "]\n"
	}
	post := func(name, contentType, body string) hostileCase {
		return hostileCase{name: name, method: http.MethodPost, path: labWidgets, contentType: contentType, body: body,
			code: http.StatusBadRequest}
	}
	runHostile(t, s, []hostileCase{
		post("JSON nested 10,001 deep", "application/json", labWidget("new", `{"d":`+deep(10001)+`}`)),
		post("YAML nested 10,001 deep", "application/yaml", "apiVersion: labs.example.com/v1alpha1\nkind: Widget\nmetadata: {name: new}\nspec: {port: 80, config: {d: "+deep(10001)+"}}\n"),
		post("YAML aliases (billion laughs)", "application/yaml", laughs),
	})
	for _, ct := range []string{"application/json", "application/yaml"} {
		start := time.Now()
		r := s.do(http.MethodPost, labWidgets+"?dryRun=All", ct, labWidget("new", `{"d":`+deep(9990)+`}`))
		t.Logf("%s nested 9,990 deep: %d in %v: %.200s", ct, r.code, time.Since(start), r.body)
	}
	start := time.Now()
	r := s.do(http.MethodPatch, target+"?dryRun=All", "application/json-patch+json", jsonPatch(10000, insert))
	if r.code != http.StatusOK || len(r.get("spec.config.list").Array()) != 10000 {
		t.Fatalf("10,000 inserts: %d %.300s", r.code, r.body)
	}
	t.Logf("10,000 inserts at index 0: %v", time.Since(start))
}

// TestHostileValidationIsBounded: an array of 40,000 or 1,000,000 items of
// the wrong type costs a bounded answer. How much work it costs is bounded
// by TestHostileRequestMemoryIsBounded (allocations, which do not depend on
// the machine's load); the time is logged, not asserted.
func TestHostileValidationIsBounded(t *testing.T) {
	s := newTestServer(t)
	for _, n := range []int{40000, 1000000} {
		body := widget("wrong", `{"tags":[`+strings.TrimSuffix(strings.Repeat("1,", n), ",")+`]}`)
		start := time.Now()
		r := s.do(http.MethodPost, widgets, "application/json", body)
		took := time.Since(start)
		t.Logf("%d wrong-typed items: %d in %v, %d causes, %d bytes", n, r.code, took, len(r.get("details.causes").Array()), len(r.body))
		if r.code != http.StatusUnprocessableEntity && r.code != http.StatusRequestEntityTooLarge {
			t.Fatalf("code %d: %.300s", r.code, r.body)
		}
		if causes := len(r.get("details.causes").Array()); causes > 101 {
			t.Errorf("%d causes", causes)
		}
	}
}

// requestAllocBound bounds what one write request may allocate, in bytes
// per byte of its body, whatever the body holds: as memory held is at
// most what was allocated, a bound on what a request can hold too.
const requestAllocBound = 64

// TestHostileRequestMemoryIsBounded: creates at the body limit (3 MiB)
// whose every item is wrong, or valid but one, allocate a bounded multiple
// of the body (client and server, in this process), where 1.5 million
// wrong items allocated 1.3 GB in the schema library's errors alone. Not
// parallel: it reads the process's allocation counter.
func TestHostileRequestMemoryIsBounded(t *testing.T) {
	s := newTestServer(t)
	items := func(item string) string {
		return strings.TrimSuffix(strings.Repeat(item+",", (3<<20-200)/(len(item)+1)), ",")
	}
	for _, tt := range []struct{ name, tags string }{
		{"1.5 million numbers for strings", items("1")},
		{"780,000 valid strings and one number", items(`"a"`) + ",1"},
	} {
		body := widget("wrong", `{"tags":[`+tt.tags+`]}`)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := s.do(http.MethodPost, widgets+"?dryRun=All", "application/json", body)
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s (%d bytes): %d, %d causes; %d MB allocated, %.0f per byte", tt.name, len(body), r.code,
			len(r.get("details.causes").Array()), allocated>>20, float64(allocated)/float64(len(body)))
		if r.code != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %.300s", tt.name, r.code, r.body)
		}
		if allocated > uint64(requestAllocBound*len(body)) {
			t.Errorf("%s: allocated %d MB, more than %d bytes per byte of the body", tt.name, allocated>>20, requestAllocBound)
		}
	}
}
