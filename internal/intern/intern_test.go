package intern

import (
	"strings"
	"testing"
)

// Equal strings get one number whether or not they share memory, different ones different
// numbers, with the cache or without it, and a string's number names it.
func TestNumbersFollowTheText(t *testing.T) {
	for _, places := range []int{0, Few, Many} {
		tab := New(places)
		words := []string{"GMAIL_SEND_EMAIL", "user_1", "ca_x", "user_1"}
		var nums []uint32
		for round := range 3 {
			for _, w := range words {
				s := w
				if round == 1 {
					s = strings.Clone(w) // the same text elsewhere in memory
				}
				nums = append(nums, tab.Of(s))
			}
		}
		for i, n := range nums {
			if want := nums[i%len(words)]; n != want {
				t.Fatalf("cache %d: %q got %d, earlier %d", places, words[i%len(words)], n, want)
			}
			if got := tab.Strings()[n]; got != words[i%len(words)] {
				t.Fatalf("cache %d: number %d names %q, want %q", places, n, got, words[i%len(words)])
			}
		}
		if tab.Of("") != 0 || tab.Len() != 3 || nums[0] == nums[1] || nums[1] == nums[2] {
			t.Fatalf("cache %d: numbers %v, len %d", places, nums, tab.Len())
		}
	}
	var zero Table
	first := zero.Of("a")
	if first != 1 || zero.Of(strings.Clone("a")) != first || zero.Strings()[1] != "a" {
		t.Fatal("the zero table does not number")
	}
}

// A string whose place in the cache another took is still found by its text.
func TestCacheCollisions(t *testing.T) {
	tab := New(2)
	var all []string
	for i := range 500 {
		all = append(all, strings.Repeat("x", i%7+1)+string(rune('a'+i%26))+strings.Repeat("y", i/26))
	}
	first := map[string]uint32{}
	for round := range 2 {
		for _, s := range all {
			n := tab.Of(s)
			if round == 0 {
				if _, seen := first[s]; !seen {
					first[s] = n
				}
			}
			if n != first[s] {
				t.Fatalf("%q: %d then %d", s, first[s], n)
			}
		}
	}
}

// After DropCache the table goes on numbering as before, and makes its cache again.
func TestDropCache(t *testing.T) {
	tab := New(Few)
	a := tab.Of("a")
	tab.DropCache()
	if tab.cache != nil {
		t.Fatal("the cache is still held")
	}
	if tab.Of(strings.Clone("a")) != a || tab.Of("b") == a || len(tab.cache) != Few {
		t.Fatalf("after DropCache: a %d, b %d, cache %d", tab.Of("a"), tab.Of("b"), len(tab.cache))
	}
}
