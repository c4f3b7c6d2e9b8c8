package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/itchyny/gojq"

	"github.com/exectriage/exectriage/sanitize"
)

// parseJQ compiles a --jq expression, refusing a bad one before the command does anything.
func parseJQ(cmd, expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, usagef(cmd, "--jq: %s", sanitize.String(err.Error()))
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, usagef(cmd, "--jq: %s", sanitize.String(err.Error()))
	}
	return code, nil
}

// withJQ runs a command whose JSON document goes through the --jq expression (gh's --jq, on
// itchyny/gojq): the command writes its JSON to a buffer, each result of the query is printed
// on a line, a string raw and anything else as compact JSON, with what a terminal must not
// see escaped either way. Without an expression it runs as it is. The command's exit status
// stands; a query that fails on the document is a run-time failure (1).
func withJQ(ctx context.Context, env *Env, cmd, expr string, asJSON *bool, run func(*Env) int) int {
	if expr == "" {
		return run(env)
	}
	code, err := parseJQ(cmd, expr)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitUsage
	}
	*asJSON = true
	var buf bytes.Buffer
	inner := *env
	inner.Stdout = &buf
	status := run(&inner)
	if buf.Len() == 0 {
		return status
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		fmt.Fprintf(env.Stderr, "%s: --jq: the command's JSON could not be read: %v\n", progName(cmd), err)
		return ExitFinding
	}
	doc = numbersForJQ(doc)
	var out bytes.Buffer
	iter := code.RunWithContext(ctx, doc)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			if err, ok := err.(*gojq.HaltError); ok && err.Value() == nil {
				break
			}
			env.Stdout.Write(out.Bytes())
			fmt.Fprintf(env.Stderr, "%s: --jq: %s\n", progName(cmd), sanitize.String(err.Error()))
			return ExitFinding
		}
		if s, ok := v.(string); ok {
			out.WriteString(sanitize.String(s))
		} else {
			b, err := gojq.Marshal(v)
			if err != nil {
				fmt.Fprintf(env.Stderr, "%s: --jq: %v\n", progName(cmd), err)
				return ExitFinding
			}
			out.Write(sanitize.JSON(b))
		}
		out.WriteByte('\n')
	}
	if _, err := env.Stdout.Write(out.Bytes()); err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", progName(cmd), err)
		return ExitFinding
	}
	return status
}

// numbersForJQ turns json.Numbers into what gojq computes with (int or float64), in place.
func numbersForJQ(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbersForJQ(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbersForJQ(e)
		}
	}
	return v
}
