package main

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// floodAnswer is what one request of a flood got back.
type floodAnswer struct {
	code       int
	retryAfter string
	body       string
	err        error
}

// One user flooding the server with more requests than it serves at once
// gets 429 with Retry-After and a Status for those past their share, while
// another user is served throughout. The flood is held in flight, not
// timed: each of alice's creates sends its headers with Expect:
// 100-continue, as curl does for a large body, and the server takes the
// request's slot before it reads the body, which then waits for the test.
func TestFairnessUnderFlood(t *testing.T) {
	const limit, flood = 4, 12
	const share = limit / 2 // what one user may hold
	url, _ := startPostgres(t)
	tokens := secretFile(t, t.TempDir(), "tokens.csv", []byte("alice-token,alice,1\nbob-token,bob,2\n"))
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{TokenAuthFile: tokens,
		MaxRequestsInflight: limit, MaxMutatingInflight: limit}})
	base := "http://" + m.Addr()
	// The client waits for 100 Continue (or an answer) before it sends a body.
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	defer client.CloseIdleConnections()

	bodies := make([]*io.PipeWriter, flood)
	answers := make(chan floodAnswer, flood)
	var wg sync.WaitGroup
	for i := range flood {
		r, w := io.Pipe()
		bodies[i] = w
		wg.Go(func() { answers <- sendHeld(client, base, "alice", r) })
	}
	// Exactly flood-share are refused: alice can hold no more than her share.
	for range flood - share {
		a := receive(t, answers)
		if a.err != nil || a.code != http.StatusTooManyRequests || a.retryAfter != "1" ||
			gjson.Get(a.body, "kind").String() != "Status" || gjson.Get(a.body, "reason").String() != "TooManyRequests" ||
			gjson.Get(a.body, "code").Int() != http.StatusTooManyRequests {
			t.Fatalf("alice past her share: %+v", a)
		}
	}

	// alice holds her share of the server: bob is served, one request
	// after another and two at once.
	for i := range 5 {
		if code, out := call(t, client, "POST", base+"/api/v1/namespaces/default/configmaps", configMap(fmt.Sprintf("bob-%d", i)),
			"Authorization", "Bearer bob-token"); code != http.StatusCreated {
			t.Fatalf("bob's create during the flood: %d %s", code, out)
		}
		if code, out := call(t, client, "GET", base+"/api/v1/namespaces/default/configmaps", "",
			"Authorization", "Bearer bob-token"); code != http.StatusOK {
			t.Fatalf("bob's list during the flood: %d %s", code, out)
		}
	}
	var bobs sync.WaitGroup
	for i := range share {
		bobs.Go(func() {
			if code, out := call(t, client, "POST", base+"/api/v1/namespaces/default/configmaps",
				configMap(fmt.Sprintf("bob-at-once-%d", i)), "Authorization", "Bearer bob-token"); code != http.StatusCreated {
				t.Errorf("bob's concurrent create during the flood: %d %s", code, out)
			}
		})
	}
	bobs.Wait()

	// The requests alice held are served once their bodies arrive.
	for i, w := range bodies {
		_, _ = io.WriteString(w, configMap(fmt.Sprintf("alice-%d", i)))
		_ = w.Close()
	}
	for range share {
		if a := receive(t, answers); a.err != nil || a.code != http.StatusCreated {
			t.Fatalf("alice's held create: %+v", a)
		}
	}
	wg.Wait()
}

// sendHeld creates a ConfigMap as user with the body read from body.
func sendHeld(client *http.Client, base, user string, body io.Reader) floodAnswer {
	req, err := http.NewRequest("POST", base+"/api/v1/namespaces/default/configmaps", body)
	if err != nil {
		return floodAnswer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+user+"-token")
	req.Header.Set("Expect", "100-continue")
	resp, err := client.Do(req)
	if err != nil {
		return floodAnswer{err: err}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return floodAnswer{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: string(out), err: err}
}

// receive waits for the next answer of a flood, for at most a generous
// minute: a request the server neither refuses nor serves hangs the test.
func receive(t *testing.T, answers <-chan floodAnswer) floodAnswer {
	t.Helper()
	select {
	case a := <-answers:
		return a
	case <-time.After(time.Minute):
		t.Fatal("no answer to a request of the flood within a minute")
		return floodAnswer{}
	}
}

func configMap(name string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"k":"v"}}`
}
