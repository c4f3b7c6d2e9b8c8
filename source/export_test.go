package source

// RecentMax is recentMax, for the external tests.
const RecentMax = recentMax
