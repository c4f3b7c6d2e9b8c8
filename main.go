// Command exectriage triages Composio tool executions: it lists them, flags ambiguous writes,
// groups duplicates, checks the provider's real state and offers a retry that can never
// cause a duplicate. All behaviour lives in the packages; main only wires.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/exectriage/exectriage/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, cli.OSEnv(), os.Args[1:])
	stop()
	os.Exit(code)
}
