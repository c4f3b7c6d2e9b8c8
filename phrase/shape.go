package phrase

// What triage cannot do when a project's logs carry no record of a field (app.App.ShapeReport).

// Without says what is lost when no record carries the named field ("" for a field it does not
// know).
func Without(field string) string {
	switch field {
	case "tool":
		return "nothing can be triaged: no tool, no kind"
	case "toolkit":
		return "the toolkit column and the provider's name in the advice"
	case "arguments":
		return "duplicate groups, provider checks and the guarded retry (all need the arguments)"
	case "response":
		return "a 200 with successful:false is only seen in the error"
	case "error kind":
		return "outcomes are read from the error's text alone"
	case "upstream status":
		return "a provider's 4xx and 5xx are told apart by text alone"
	case "duration":
		return "a success slower than the caller's timeout cannot be flagged; SDK backoff timing is coarse"
	case "SDK version":
		return "no note on an SDK that retries writes"
	case "SDK language":
		return "an SDK version is read for both languages (\"language not recorded\")"
	case "retry count":
		return "SDK retries are told by timing alone"
	case "session id":
		return "session executions cannot be told from tools.execute (the session threshold does not apply)"
	case "request id":
		return "resolve finds a retry's log by tool, account and arguments only"
	case "tool version":
		return "a retry runs the latest version of the tool"
	}
	return ""
}

// NoStoredData is what a project with "Don't store data" on loses: no detail keeps its
// arguments or its response.
const NoStoredData = "stored data: no log keeps its arguments or its response (\"Don't store data\" is on for this project): " +
	"provider checks, duplicate groups and the guarded retry cannot work from these logs"
