package httpapi_test

import (
	"net/http"
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

// TestHostileValidationIsBounded: an array of 40,000 items of the wrong
// type costs a bounded answer, in time linear in the object.
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
		if took > hangGuard {
			t.Errorf("took %v", took)
		}
	}
}
