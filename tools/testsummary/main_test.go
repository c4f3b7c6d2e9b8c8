package main

import (
	"strings"
	"testing"
)

func TestSummaryCountsFailuresAndGroupsSkips(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"pass","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"p/a","Test":"TestBad","Output":"    a_test.go:9: boom\n"}`,
		`{"Action":"fail","Package":"p/a","Test":"TestBad","Elapsed":0.5}`,
		`{"Action":"output","Package":"p/j","Test":"TestPG/postgres","Output":"    j_test.go:3: set EXECTRIAGE_TEST_POSTGRES\n"}`,
		`{"Action":"skip","Package":"p/j","Test":"TestPG/postgres"}`,
		`{"Action":"output","Package":"p/j","Test":"TestPG2/postgres","Output":"    j_test.go:3: set EXECTRIAGE_TEST_POSTGRES\n"}`,
		`{"Action":"skip","Package":"p/j","Test":"TestPG2/postgres"}`,
		`{"Action":"output","Package":"p/a","Output":"FAIL\tp/a\t0.6s\n"}`,
		`{"Action":"fail","Package":"p/a"}`,
		`# p/b: build failed`,
		`{"ImportPath":"p/c [p/c.test]","Action":"build-output","Output":"./c_test.go:3:28: undefined: thing\n"}`,
		`{"ImportPath":"p/c [p/c.test]","Action":"build-fail"}`,
		`{"Action":"fail","Package":"p/c","FailedBuild":"p/c [p/c.test]"}`,
	}, "\n")
	var out strings.Builder
	s := &summary{out: &out, buf: map[key][]string{}}
	if err := s.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	s.report()
	got := out.String()
	for _, want := range []string{
		"--- FAIL: p/a TestBad (0.50s)\n    a_test.go:9: boom",
		"FAIL\tp/a\t0.6s",
		"# p/b: build failed",
		"./c_test.go:3:28: undefined: thing\n",
		"1 tests passed, 1 failed, 2 skipped; 3 package or build failures\n",
		"  p/j (TestPG/postgres, TestPG2/postgres): set EXECTRIAGE_TEST_POSTGRES\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if s.failed == 0 || s.broken == 0 {
		t.Error("a failed run would exit 0")
	}
}
