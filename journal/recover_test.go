package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestRecoveryLosesARaceCleanly: the owner records its real outcome between recovery's read
// and its write; recovery's compare-and-set on the state loses, and the outcome stands (a
// recovery that wrote unconditionally turned a success into indeterminate, and a failure
// settled by its owner into something a person could settle again).
func TestRecoveryLosesARaceCleanly(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			owner := openT(t, dsn, WithOwner(Owner{Host: "other-host", PID: 7}))
			c := claim("log_race", time.Now())
			mustClaim(t, owner, c)
			if err := owner.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSent, "", "", time.Now()); err != nil {
				t.Fatal(err)
			}
			r := openT(t, dsn)
			r.(*store).opt.alive = func(Owner) (bool, bool) {
				// between recovery's read and its write, the owner records success
				if err := owner.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSucceeded, "log_new", "done", time.Now()); err != nil {
					t.Error(err)
				}
				return false, true
			}
			if n, err := r.RecoverOpen(ctx); n != 0 || err != nil {
				t.Fatalf("recovery changed %d (%v)", n, err)
			}
			if a, _ := r.Attempt(ctx, c.Attempt.ID); a.State != model.AttemptSucceeded || a.NewLogID != "log_new" {
				t.Fatalf("the owner's outcome was overwritten: %+v", a)
			}
		})
	}
}

// TestRecoveryTellsSentFromNeverSent: recovery's detail says "never sent" only of an intent;
// of a sent attempt it must not (a person reading it would settle a live effect as failed).
func TestRecoveryTellsSentFromNeverSent(t *testing.T) {
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "j.db")
	j := openT(t, dsn, WithOwner(Owner{Host: "other-host", PID: 7}))
	intent, sent := claim("log_intent", t0), claim("log_sent", t0)
	mustClaim(t, j, intent)
	mustClaim(t, j, sent)
	if err := j.UpdateAttempt(ctx, sent.Attempt.ID, model.AttemptSent, "", "", t0); err != nil {
		t.Fatal(err)
	}
	r := openT(t, dsn, WithClock(func() time.Time { return t0.Add(time.Hour) }))
	if n, err := r.RecoverOpen(ctx); n != 2 || err != nil {
		t.Fatalf("recovered %d (%v)", n, err)
	}
	i, _ := r.Attempt(ctx, intent.Attempt.ID)
	s, _ := r.Attempt(ctx, sent.Attempt.ID)
	if !strings.Contains(i.Detail, "never sent") {
		t.Errorf("the intent's detail: %q", i.Detail)
	}
	if strings.Contains(s.Detail, "never sent") || !strings.Contains(s.Detail, "still sent") {
		t.Errorf("the sent attempt's detail says it was never sent: %q", s.Detail)
	}
}

// TestAReplacedJournalIsNoticed: a journal file replaced under an open journal (renamed over
// by a restore, another process's new journal) is refused for every write; SQLite would write
// on to the old, unlinked file and the guard's records would be lost.
func TestAReplacedJournalIsNoticed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "j.db")
	j := openT(t, path)
	c := claim("log_rep", t0)
	mustClaim(t, j, c)
	other := filepath.Join(dir, "other.db")
	o := openT(t, other)
	o.Close()
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if err := j.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSent, "", "", t0); err == nil || !strings.Contains(err.Error(), "deleted or replaced") {
		t.Errorf("update after the file was replaced: %v", err)
	}
	if ok, _, err := j.ClaimAttempt(ctx, claim("log_rep2", t0)); ok || err == nil {
		t.Errorf("claim after the file was replaced: %v %v", ok, err)
	}
}
