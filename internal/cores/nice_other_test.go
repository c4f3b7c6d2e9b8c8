//go:build !linux

package cores

const backgroundNice, foregroundNice = 0, 0

func niceness() int { return 0 }
