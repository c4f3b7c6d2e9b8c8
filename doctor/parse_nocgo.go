//go:build !cgo

package doctor

import "context"

// CodeReader names how doctor reads code: a build without cgo has no tree-sitter, and reads
// with its own tokenizer (stripCode), which misses what TokenizerMisses says.
const CodeReader = "tokenizer"

// parseCode reads nothing without cgo: stripCode does.
func parseCode(context.Context, string, Ecosystem, []byte) (string, bool) { return "", false }
