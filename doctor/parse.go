//go:build cgo

package doctor

import (
	"bytes"
	"context"
	"path"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// CodeReader names how doctor reads code: with tree-sitter's grammars (a build with cgo), or
// with its own tokenizer (parse_nocgo.go), which misses what TokenizerMisses says.
const CodeReader = "tree-sitter"

// grammar is the tree-sitter grammar of a code file, by its extension; nil for none.
func grammar(rel string, eco Ecosystem) *sitter.Language {
	switch ext := strings.ToLower(path.Ext(rel)); {
	case eco == PyPI:
		return sitter.NewLanguage(tspy.Language())
	case ext == ".tsx":
		return sitter.NewLanguage(tsts.LanguageTSX())
	case ext == ".ts" || ext == ".mts" || ext == ".cts":
		return sitter.NewLanguage(tsts.LanguageTypescript())
	case eco == NPM: // .js, .jsx, .mjs, .cjs: JSX included
		return sitter.NewLanguage(tsjs.Language())
	}
	return nil
}

// parseCode is stripCode as the language's grammar reads the file: comments, the text of
// string literals (not the code of a template's ${…} or an f-string's {…}), regular
// expressions' patterns and JSX text are blanked, every newline and quote kept. ok is false
// when there is no grammar for the file or the parse was stopped.
func parseCode(ctx context.Context, rel string, eco Ecosystem, src []byte) (code string, ok bool) {
	lang := grammar(rel, eco)
	if lang == nil {
		return "", false
	}
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(lang); err != nil {
		return "", false
	}
	read := func(at int, _ sitter.Point) []byte {
		if at >= len(src) {
			return nil
		}
		return src[at:]
	}
	stop := &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool { return ctx.Err() != nil }}
	tree := p.ParseWithOptions(read, nil, stop)
	if tree == nil {
		return "", false
	}
	defer tree.Close()
	out := bytes.Clone(src)
	blank := func(n *sitter.Node) {
		for i := n.StartByte(); i < n.EndByte() && i < uint(len(out)); i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	c := tree.Walk()
	defer c.Close()
	for {
		n := c.Node()
		descend := true
		switch n.Kind() {
		case "comment", "hash_bang_line", "html_comment":
			blank(n)
			descend = false
		case "string_content", "string_fragment", "escape_sequence", "regex_pattern", "jsx_text":
			// the text of a literal; an f-string's {…} and a template's ${…} are their
			// siblings (Python's interpolation, JavaScript's template_substitution): code
			blank(n)
			descend = false
		}
		if descend && c.GotoFirstChild() {
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return string(out), ctx.Err() == nil
			}
		}
	}
}
