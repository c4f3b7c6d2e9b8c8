// Package verify asks the provider whether an execution's effect exists: for each write tool
// it knows (built in, or described in the config as a VerifierSpec) it runs a read tool
// through a ReadToolRunner (the API client, which never retries) and matches the items it
// returns against the execution's arguments, answering found, not_found or unknown with the
// evidence (model.ProviderState). It does no I/O but through the runner it is given.
package verify
