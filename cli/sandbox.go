package cli

import "context"

// runSandbox is not written yet (placeholder during development; must not ship).
func runSandbox(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runSandbox", "not implemented yet")
}
