package cli

import "context"

// runRetry is not written yet (placeholder during development; must not ship).
func runRetry(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runRetry", "not implemented yet")
}

// runResolve is not written yet (placeholder during development; must not ship).
func runResolve(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runResolve", "not implemented yet")
}

// runMark is not written yet (placeholder during development; must not ship).
func runMark(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runMark", "not implemented yet")
}

// runJournal is not written yet (placeholder during development; must not ship).
func runJournal(ctx context.Context, env *Env, args []string) int {
	return usageError(env, "runJournal", "not implemented yet")
}
