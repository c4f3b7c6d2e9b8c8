// Package triage holds exectriage's decisions about tool executions, as pure logic over
// model values: whether a tool reads or writes (Kinds, from tool tags or the slug's verb),
// what an execution's outcome was and why (Classify: succeeded, failed, rejected, ambiguous,
// with a one-line reason naming the evidence), which writes need a person's attention
// (flagged), which executions are duplicates of one another and where they came from
// (Analyze: duplicate groups with an sdk_auto_retry, app_retry or double_submit pattern),
// which records name an SDK that still auto-retries writes (OldSDK, over package sdkversion),
// what the journal's verdicts and retries make of an execution (CaseOf), and whether a retry
// may be sent (CheckRetry, whose next Step each front words its own way). It does no I/O.
// What the provider itself says is package verify's.
package triage
