// Command mangen writes exectriage's man pages (one per command) from the same cobra definition
// the CLI runs: `make man` runs it into man/. Never edit the pages by hand.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/exectriage/exectriage/cli"
)

func main() {
	dir := flag.String("dir", "man", "directory to write the pages into")
	flag.Parse()
	if err := cli.WriteManPages(context.Background(), *dir); err != nil {
		fmt.Fprintln(os.Stderr, "mangen:", err)
		os.Exit(1)
	}
}
