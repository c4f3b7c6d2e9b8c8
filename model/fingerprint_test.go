package model

import (
	"encoding/json"
	"hash/maphash"
	"reflect"
	"testing"
	"time"
)

// TestFingerprintCoversEveryField changes each field of an Execution (and of its error,
// source and parent) in turn, found by reflection, and checks that the fingerprint changes:
// a field added to Execution without being hashed fails here.
func TestFingerprintCoversEveryField(t *testing.T) {
	seed := maphash.MakeSeed()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	base := Execution{ID: "log_1", Timestamp: at, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "u",
		ConnectedAccountID: "ca", Status: "failed", Level: "error", Message: "m", StartTime: at, EndTime: at.Add(time.Second),
		Duration: time.Second, HasDuration: true, Arguments: json.RawMessage(`{"a":1}`), Response: json.RawMessage(`{"ok":1}`),
		Error: &ExecError{Message: "timed out", HTTPStatus: 504, Kind: ErrTimeout}, RequestID: "r", SessionID: "s", TraceID: "t",
		Source: Source{Host: "sdk", Framework: "f", Language: "python"}, SDKVersion: "0.15.0", RetryCount: 1,
		Parent: &Parent{LogID: "log_0", ToolSlug: "X"}, Detailed: true,
		Delivery: &Delivery{EventID: "evt_1", Attempt: 2, TriggerID: "ti_1", Error: "timeout", EndpointID: "we_1"},
		Approval: &Approval{RequestState: "rs_1", Responses: json.RawMessage(`[{"id":"ir_1","approved":true}]`)}}
	want := base.Fingerprint(seed)
	if again := base.Fingerprint(seed); again != want {
		t.Fatal("the fingerprint of one execution differs between two calls")
	}
	var changed int
	var mutate func(path string, v reflect.Value)
	mutate = func(path string, v reflect.Value) {
		for i := range v.NumField() {
			f, name := v.Field(i), path+v.Type().Field(i).Name
			switch f.Kind() {
			case reflect.Struct:
				if f.Type() == reflect.TypeFor[time.Time]() {
					old := f.Interface()
					f.Set(reflect.ValueOf(at.Add(time.Hour)))
					check(t, &base, seed, want, name)
					f.Set(reflect.ValueOf(old))
				} else {
					mutate(name+".", f)
				}
				continue
			case reflect.Pointer:
				old := reflect.ValueOf(f.Interface())
				f.Set(reflect.Zero(f.Type()))
				check(t, &base, seed, want, name+" (nil)")
				f.Set(old)
				mutate(name+".", f.Elem())
				continue
			case reflect.String:
				old := f.String()
				f.SetString(old + "x")
				check(t, &base, seed, want, name)
				f.SetString(old)
			case reflect.Int, reflect.Int64:
				old := f.Int()
				f.SetInt(old + 7)
				check(t, &base, seed, want, name)
				f.SetInt(old)
			case reflect.Uint32:
				old := f.Uint()
				f.SetUint(old + 7)
				check(t, &base, seed, want, name)
				f.SetUint(old)
			case reflect.Bool:
				f.SetBool(!f.Bool())
				check(t, &base, seed, want, name)
				f.SetBool(!f.Bool())
			case reflect.Slice:
				old := f.Bytes()
				f.SetBytes(append([]byte(nil), append(old, ' ')...))
				check(t, &base, seed, want, name)
				f.SetBytes(old)
			default:
				t.Errorf("%s: a field of kind %s the test does not know", name, f.Kind())
			}
			changed++
		}
	}
	mutate("", reflect.ValueOf(&base).Elem())
	if base.Fingerprint(seed) != want {
		t.Fatal("the test did not restore the execution")
	}
	if changed < 25 {
		t.Errorf("only %d fields were changed", changed)
	}
}

func check(t *testing.T, e *Execution, seed maphash.Seed, was uint64, field string) {
	t.Helper()
	if e.Fingerprint(seed) == was {
		t.Errorf("changing %s does not change the fingerprint", field)
	}
}
