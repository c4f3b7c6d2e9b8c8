package cli

import "context"

// runBundle is not written yet (placeholder during development; must not ship).
func runBundle(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runBundle", "not implemented yet")
}
