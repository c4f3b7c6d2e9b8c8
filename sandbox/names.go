package sandbox

// pools is the vocabulary the history generator draws realistic arguments from. It is built
// per generator (no package-level state).
type pools struct {
	firsts, lasts        []string
	companies            []companySeed
	externalDomains      []string
	subjects, topics     []string
	sentences, signoffs  []string
	replies              []string
	slackTexts           []string
	services, components []string
	features, actions    []string
	issueTitles          []string
	issueBodies          []string
	comments             []string
	repoNames            []string
	channels             []string
	addLabels            []string
	jobTitles            []string
	stages               []string
	queries              []string
	frameworksPy         []string
	frameworksTS         []string
}

type companySeed struct{ name, domain, org string }

func newPools() *pools {
	return &pools{
		firsts: []string{"Maria", "James", "Aisha", "Wei", "Lucas", "Priya", "Tom", "Elena", "Kenji", "Sofia", "Omar", "Hannah",
			"Diego", "Chloe", "Ivan", "Fatima", "Noah", "Yuki", "Grace", "Mateo", "Leila", "Ben", "Nina", "Arjun", "Zoe",
			"Samuel", "Ingrid", "Carlos", "Mei", "Oliver", "Amara", "Jonas", "Rosa", "Dmitri", "Lena", "Kwame", "Ava", "Felix"},
		lasts: []string{"Garcia", "Smith", "Khan", "Zhang", "Silva", "Patel", "Becker", "Rossi", "Tanaka", "Novak", "Haddad",
			"Muller", "Lopez", "Martin", "Petrov", "Ali", "Johnson", "Sato", "Kim", "Fernandez", "Nasser", "Okafor", "Larsen",
			"Iyer", "Dubois", "Cohen", "Berg", "Moreau", "Chen", "Walsh", "Mensah", "Schmidt", "Costa", "Ivanova", "Fischer"},
		companies: []companySeed{{"Acme Corp", "acme.com", "acme-corp"}, {"Globex", "globex.io", "globex"},
			{"Initech", "initech.co", "initech"}, {"Umbrella Health", "umbrella-health.com", "umbrella-health"},
			{"Hooli", "hooli.xyz", "hooli"}, {"Stark Logistics", "starklogistics.com", "stark-logistics"},
			{"Northwind Traders", "northwind.io", "northwind"}, {"Contoso", "contoso.com", "contoso"},
			{"Fabrikam", "fabrikam.net", "fabrikam"}, {"Tyrell Systems", "tyrell.systems", "tyrell"},
			{"Massive Dynamic", "massivedynamic.com", "massive-dynamic"}, {"Vandelay Industries", "vandelay.com", "vandelay"},
			{"Pied Piper", "piedpiper.com", "pied-piper"}, {"Aperture Labs", "aperture.dev", "aperture-labs"},
			{"Wonka Foods", "wonkafoods.com", "wonka"}, {"Cyberdyne", "cyberdyne.ai", "cyberdyne"}},
		externalDomains: []string{"gmail.com", "outlook.com", "yahoo.com", "proton.me", "fastmail.com", "brightlane.co",
			"orbitpay.com", "kestrel.io", "bluepeak.org", "harborview.net", "lumen-retail.com", "quantix.ai"},
		subjects: []string{"Invoice #{n} for {month}", "Re: {topic}", "Your order #{n} has shipped", "Meeting notes: {topic} ({date})",
			"Welcome to {company}, {first}!", "Follow-up on {topic}", "Quote Q-{n} for {company}", "Weekly report {date}",
			"Action required: renew contract {n}", "Ticket #{n}: {topic}", "Reminder: {topic} on {date}", "Receipt {n} from {company}",
			"Interview schedule for {first} ({date})", "Your trial ends in {small} days", "Updated proposal v{small} ({n})"},
		topics: []string{"Q3 planning", "onboarding", "the data migration", "pricing update", "support escalation", "SOC 2 audit",
			"renewal", "the API outage", "hiring plan", "design review", "the product launch", "budget approval", "the offsite",
			"vendor contract", "customer feedback"},
		sentences: []string{"Please find the details below and let me know if anything is missing.",
			"Thanks for the quick turnaround on this.", "Could you confirm by end of day?",
			"Attaching the latest numbers; the totals changed slightly since last week.",
			"We are on track for the deadline, pending one review.", "Happy to jump on a call if that is easier.",
			"The invoice is due within 30 days of this email.", "Your account has been updated with the new plan.",
			"I have looped in the team for visibility.", "Let me know which slot works best for you."},
		signoffs: []string{"Best", "Thanks", "Cheers", "Kind regards", "Regards"},
		replies: []string{"Thanks, {first} — confirmed on our side.", "Sounds good, let's go with option {small}.",
			"I've forwarded this to finance (ref {n}).", "Can we push this to {date}?", "Got it. I'll send the signed copy by Friday.",
			"Quick update: ticket {n} is resolved.", "Looping in {first} who owns this now."},
		slackTexts: []string{"Deploy {n} of {service} finished in {small}m :white_check_mark:", "New signup: {email}",
			"Alert: {service} error rate {small}.{tiny}% over the last 5m", "Daily standup reminder ({date})",
			"Ticket #{n} escalated by {first}", "PR #{n} merged into main: {feature}", "Invoice {n} paid by {company}",
			"Build #{n} failed on {component} :red_circle:", "{first} closed deal {n} with {company} :tada:",
			"Reminder: {topic} review at {hour}:00 UTC"},
		services:   []string{"billing-api", "auth-service", "web", "search", "notifications", "ingest-worker", "gateway"},
		components: []string{"checkout", "login", "webhooks", "CSV export", "dashboard", "rate limiter", "search index", "invoices page"},
		features:   []string{"SSO", "dark mode", "bulk import", "audit log", "2FA", "usage alerts", "CSV export", "retry button"},
		actions:    []string{"save", "refresh", "upload", "logout", "bulk delete", "page 2", "sort by date"},
		issueTitles: []string{
			"Bug: {component} returns 500 on {action}",
			"Add {feature} to {component}",
			"Flaky test in {component} (run {n})",
			"Docs: clarify {feature}",
			"{component}: timeout after {small}0s on {action}",
			"Support {feature} for enterprise plan (#{n})",
			"Crash when {action} in {component}",
			"Improve error message for {component} ({n})",
		},
		issueBodies: []string{"Steps to reproduce:\n1. Open {component}\n2. Try to {action}\n\nExpected: it works. Actual: error {n}.",
			"Customers are asking for {feature}. See support ticket {n}.", "Seen in production since {date}; {small} reports so far.",
			"Proposal: add {feature} behind a flag. Rollout plan in the doc."},
		comments: []string{"Reproduced on v1.{small}.{tiny}.", "Fixed in #{n}.", "Can we get this into the next release?",
			"Looks like a duplicate of #{small}{tiny}.", "I'll take this one.", "Added a failing test in #{n}.",
			"Customer {company} hit this again today.", "Closing after the {date} deploy, reopen if it comes back."},
		repoNames: []string{"api", "web", "infra", "mobile-app", "docs", "data-pipeline", "sdk"},
		channels:  []string{"general", "eng-alerts", "deploys", "sales", "support", "random", "growth"},
		addLabels: []string{"STARRED", "IMPORTANT", "Label_Invoices", "Label_FollowUp", "Label_Receipts", "Label_Customers"},
		jobTitles: []string{"VP Sales", "CTO", "Account Manager", "Founder", "Procurement Lead", "Data Engineer", "Head of Ops"},
		stages:    []string{"lead", "subscriber", "marketingqualifiedlead", "salesqualifiedlead", "customer"},
		queries: []string{
			"is:unread",
			"in:inbox is:unread",
			"label:INBOX newer_than:1d",
			"subject:invoice",
			"from:{ext}",
			"in:sent newer_than:2d",
			"has:attachment invoice",
			"subject:\"{topic}\"",
		},
		frameworksPy: []string{"openai", "langchain", "crewai", "openai_agents", "", ""},
		frameworksTS: []string{"vercel", "openai", "langchain", "mastra", ""},
	}
}
