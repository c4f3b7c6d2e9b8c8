package pace

import (
	"context"
	"errors"
	"testing"
	"time"
)

// held reports whether g is shut now.
func held(g *Gate) bool { return g != nil && time.Now().UnixNano() < g.until.Load() }

func TestNilAndZeroGatesAreOpen(t *testing.T) {
	var nilGate *Gate
	nilGate.Hold(time.Hour) // no effect, no panic
	nilGate.Release()
	if held(nilGate) || nilGate.Wait(context.Background()) != nil {
		t.Fatal("a nil gate must be open")
	}
	var g Gate
	if held(&g) || g.Wait(context.Background()) != nil {
		t.Fatal("a zero gate must be open")
	}
}

// Wait blocks for as long as the gate is held and returns once it is released.
func TestWaitBlocksWhileHeld(t *testing.T) {
	var g Gate
	g.Hold(time.Hour)
	if !held(&g) {
		t.Fatal("held gate reports open")
	}
	done := make(chan error, 1)
	go func() { done <- g.Wait(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("Wait returned while the gate was held (err %v)", err)
	case <-time.After(30 * time.Millisecond):
	}
	g.Release()
	if err := <-done; err != nil {
		t.Fatalf("Wait after Release: %v", err)
	}
	if held(&g) {
		t.Fatal("released gate reports held")
	}
}

// A hold ends by itself, and a shorter hold never cuts a longer one short.
func TestHoldExpiresAndOnlyExtends(t *testing.T) {
	var g Gate
	g.Hold(time.Hour)
	long := g.until.Load()
	g.Hold(time.Millisecond)
	if g.until.Load() != long {
		t.Fatal("a shorter hold shortened the longer one")
	}
	g.Release()
	g.Hold(2 * time.Millisecond)
	if err := g.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if held(&g) {
		t.Fatal("the hold outlived its time")
	}
}

func TestWaitEndsWithItsContext(t *testing.T) {
	var g Gate
	g.Hold(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", err)
	}
}
