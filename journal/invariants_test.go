package journal

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestClaimsRefuseWithoutTheSchemasGuarantees: a journal whose one-claim index, primary key or
// state check is missing or altered (a restore that skipped post-data, a copy made by hand)
// opens, says what is missing, and refuses every claim; before, it opened on schema_version
// alone and 8 racers claimed one execution up to 6 times. The schema is damaged after the
// journal was opened: the claim reads the catalog again in its own transaction.
func TestClaimsRefuseWithoutTheSchemasGuarantees(t *testing.T) {
	const states = `('intent', 'sent', 'indeterminate', 'succeeded')`
	for _, b := range backends(t) {
		damage := map[string][]string{
			"index dropped":          {`DROP INDEX attempts_one_claim`},
			"index not unique":       {`DROP INDEX attempts_one_claim`, `CREATE INDEX attempts_one_claim ON attempts (execution_id) WHERE state IN ` + states},
			"index over fewer state": {`DROP INDEX attempts_one_claim`, `CREATE UNIQUE INDEX attempts_one_claim ON attempts (execution_id) WHERE state IN ('intent', 'sent')`},
			"index on two columns":   {`DROP INDEX attempts_one_claim`, `CREATE UNIQUE INDEX attempts_one_claim ON attempts (execution_id, id) WHERE state IN ` + states},
			"index never true":       {`DROP INDEX attempts_one_claim`, `CREATE UNIQUE INDEX attempts_one_claim ON attempts (execution_id) WHERE state IN ` + states + ` AND id = ''`},
			"table copied by hand": {`DROP INDEX attempts_one_claim`, `CREATE TABLE attempts_copy AS SELECT * FROM attempts`, `DROP TABLE attempts`,
				`ALTER TABLE attempts_copy RENAME TO attempts`, `CREATE UNIQUE INDEX attempts_one_claim ON attempts (execution_id) WHERE state IN ` + states},
		}
		if b.name == "postgres" {
			damage["state check dropped"] = []string{`ALTER TABLE attempts DROP CONSTRAINT attempts_state_check`}
		}
		for name, stmts := range damage {
			t.Run(b.name+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				dsn := b.fresh(t)
				j := openT(t, dsn)
				if err := j.Verify(ctx); err != nil {
					t.Fatalf("a new journal is not whole: %v", err)
				}
				mustClaim(t, j, claim("log_before", t0)) // the check can pass
				db := j.(*store).db
				for _, s := range stmts {
					if _, err := db.ExecContext(ctx, s); err != nil {
						t.Fatalf("%s: %v", s, err)
					}
				}
				if err := j.Verify(ctx); !errors.Is(err, ErrUnguarded) {
					t.Fatalf("Verify on a damaged schema: %v", err)
				}
				var wg sync.WaitGroup
				var mu sync.Mutex
				won := 0
				for range 8 {
					wg.Go(func() {
						ok, _, err := j.ClaimAttempt(ctx, claim("log_race", t0))
						mu.Lock()
						defer mu.Unlock()
						if ok {
							won++
						}
						if !errors.Is(err, ErrUnguarded) {
							t.Errorf("a claim on a damaged schema: ok=%v %v", ok, err)
						}
					})
				}
				wg.Wait()
				if won != 0 {
					t.Fatalf("%d claims on a journal without its guarantees", won)
				}
				again := openT(t, dsn)
				if err := again.Verify(ctx); !errors.Is(err, ErrUnguarded) || !strings.Contains(err.Error(), "CREATE UNIQUE INDEX") {
					t.Fatalf("opened again, the damage is not named with its repair: %v", err)
				}
			})
		}
	}
}
