package journal

import (
	"context"
	"errors"
	"testing"
)

// TestViewsAreKeptForTheTeam: a saved view written by one journal handle is read by another
// (a second engineer on the same journal), replaced by name, listed by name, deleted once, and
// refused when it has no name, no author or an unknown show; a read-only handle reads them and
// writes none.
func TestViewsAreKeptForTheTeam(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			ana, ben := openT(t, dsn), openT(t, dsn)
			for _, v := range []View{
				{Name: "gmail-unknown", Filter: "toolkit:gmail outcome:ambiguous", Show: "flagged", Who: "ana", At: t0},
				{Name: "dups", Filter: "", Show: "duplicates", Who: "ana", At: t0},
				{Name: "gmail-unknown", Filter: "toolkit:gmail outcome:ambiguous -settled:yes", Show: "flagged", Who: "ben", At: t0.Add(1)},
			} {
				if err := ana.SaveView(ctx, v); err != nil {
					t.Fatal(err)
				}
			}
			vs, err := ben.Views(ctx)
			if err != nil || len(vs) != 2 || vs[0].Name != "dups" || vs[1].Name != "gmail-unknown" ||
				vs[1].Filter != "toolkit:gmail outcome:ambiguous -settled:yes" || vs[1].Who != "ben" || !vs[1].At.Equal(t0.Add(1)) {
				t.Fatalf("views read by another handle: %+v %v", vs, err)
			}
			for _, bad := range []View{
				{Name: "", Show: "all", Who: "ana", At: t0},
				{Name: " x", Show: "all", Who: "ana", At: t0},
				{Name: "x", Show: "everything", Who: "ana", At: t0},
				{Name: "x", Show: "all", At: t0},
			} {
				if err := ana.SaveView(ctx, bad); !errors.Is(err, ErrInvalidRecord) {
					t.Errorf("SaveView(%+v) = %v, want ErrInvalidRecord", bad, err)
				}
			}
			ro, err := OpenReadOnly(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			if vs, err := ro.Views(ctx); err != nil || len(vs) != 2 {
				t.Errorf("read-only views: %+v %v", vs, err)
			}
			if err := ro.SaveView(ctx, View{Name: "x", Show: "all", Who: "ana", At: t0}); !errors.Is(err, ErrReadOnly) {
				t.Errorf("a read-only journal saved a view: %v", err)
			}
			if err := ben.DeleteView(ctx, "dups"); err != nil {
				t.Fatal(err)
			}
			if err := ben.DeleteView(ctx, "dups"); !errors.Is(err, ErrNotFound) {
				t.Errorf("deleting a view twice: %v, want ErrNotFound", err)
			}
			if vs, err := ana.Views(ctx); err != nil || len(vs) != 1 {
				t.Errorf("views after a delete: %+v %v", vs, err)
			}
		})
	}
}
