package cli

import "context"

// runDoctor is not written yet (placeholder during development; must not ship).
func runDoctor(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runDoctor", "not implemented yet")
}
