// Package triage holds exectriage's decisions about tool executions, as pure logic over
// model values: whether a tool reads or writes (Kinds, from tool tags or the slug's verb),
// what an execution's outcome was and why (Classify: succeeded, failed, rejected, ambiguous,
// with a one-line reason naming the evidence), which writes need a person's attention
// (flagged), which executions are duplicates of one another and where they came from
// (Analyze: duplicate groups with an sdk_auto_retry, app_retry or double_submit pattern),
// which records name an SDK that still auto-retries writes (OldSDK, over package sdkversion), and
// what the provider itself says (Verifiers: run a read tool through a ReadToolRunner and match
// the effect). It does no I/O except through the interfaces it is given, and reads its
// optional configuration file (package config).
package triage
