package cli

import "context"

// runScan is not written yet (placeholder during development; must not ship).
func runScan(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runScan", "not implemented yet")
}

// runList is not written yet (placeholder during development; must not ship).
func runList(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runList", "not implemented yet")
}

// runShow is not written yet (placeholder during development; must not ship).
func runShow(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runShow", "not implemented yet")
}

// runVerify is not written yet (placeholder during development; must not ship).
func runVerify(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runVerify", "not implemented yet")
}
