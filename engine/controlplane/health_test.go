package controlplane

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// TestControllerChecks: a controller's check passes while it runs, fails
// once its work returns on its own, and passes again when Close ended it.
func TestControllerChecks(t *testing.T) {
	c := &ControlPlane{}
	crash := make(chan struct{})
	c.goController(context.Background(), "crashes", func(ctx context.Context) {
		select {
		case <-crash:
		case <-ctx.Done():
		}
	})
	c.goController(context.Background(), "runs", func(ctx context.Context) { <-ctx.Done() })
	check := func(name string) error {
		for _, h := range c.health.list() {
			if h.Name == "poststarthook/"+name {
				return h.Check(context.Background())
			}
		}
		t.Fatalf("no check %s", name)
		return nil
	}
	if err := check("crashes"); err != nil {
		t.Fatalf("running: %v", err)
	}
	close(crash)
	wait.Eventually(t, 5*time.Second, func() (bool, string) {
		return errors.Is(check("crashes"), errStopped), "a returned controller reported stopped"
	})
	if err := check("runs"); err != nil {
		t.Errorf("the other one: %v", err)
	}
	for _, stop := range c.stops {
		stop()
	}
	if err := check("runs"); err != nil {
		t.Errorf("ended by Close: %v", err)
	}
}
