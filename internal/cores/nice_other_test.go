//go:build !linux

package cores

const backgroundNice = 0

func niceness() int { return 0 }
