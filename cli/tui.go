package cli

import "context"

// runTUI is not written yet (placeholder during development; must not ship).
func runTUI(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runTUI", "not implemented yet")
}
