package client

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// specSchema is the part of a JSON Schema the contract test walks.
type specSchema struct {
	Type                 string                 `json:"type"`
	Properties           map[string]*specSchema `json:"properties"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
	Items                *specSchema            `json:"items"`
	Required             []string               `json:"required"`
}

type specExtract struct {
	Execute struct {
		RequestBody *specSchema `json:"requestBody"`
	} `json:"execute"`
	Proxy struct {
		RequestBody *specSchema `json:"requestBody"`
	} `json:"proxy"`
}

func loadSpecExtract(t *testing.T) specExtract {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "openapi-execute-proxy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var x specExtract
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	if x.Execute.RequestBody == nil || x.Proxy.RequestBody == nil {
		t.Fatal("extract lacks a request body schema")
	}
	return x
}

// undefinedFields walks a JSON value against a schema and returns the paths of object keys the
// schema does not define. Free-form parts (no properties, or additionalProperties, or no
// type at all) are not descended into: their keys belong to the caller, not to the API.
func undefinedFields(path string, s *specSchema, v any) []string {
	var bad []string
	switch v := v.(type) {
	case map[string]any:
		if s.Properties == nil {
			return nil
		}
		for k, val := range v {
			ps, ok := s.Properties[k]
			if !ok {
				if len(s.AdditionalProperties) == 0 || string(s.AdditionalProperties) == "false" {
					bad = append(bad, path+"."+k)
				}
				continue
			}
			bad = append(bad, undefinedFields(path+"."+k, ps, val)...)
		}
	case []any:
		if s.Items != nil {
			for _, it := range v {
				bad = append(bad, undefinedFields(path+"[]", s.Items, it)...)
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// TestWriteBodiesUseOnlyFieldsTheSpecDefines captures the bodies Execute, Proxy and
// RunReadTool really send and checks every field name against the OpenAPI extract.
func TestWriteBodiesUseOnlyFieldsTheSpecDefines(t *testing.T) {
	spec := loadSpecExtract(t)
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		if r.URL.Path == "/api/v3.1/tools/execute/proxy" {
			writeJSON(w, 200, `{"status":200,"data":{}}`)
			return
		}
		writeJSON(w, 200, okResultJSON)
	})
	c := newTestClient(t, srv.URL)
	w := c.WithoutRetries()
	ctx := t.Context()
	calls := []struct {
		name   string
		schema *specSchema
		run    func() error
	}{
		{"execute with every field", spec.Execute.RequestBody, func() error {
			_, err := w.Execute(ctx, "GMAIL_SEND_EMAIL", ExecuteRequest{
				Arguments:          json.RawMessage(`{"recipient_email":"a@b.c","nested":{"anything":[1,{"x":2}]}}`),
				ConnectedAccountID: "ca_1", UserID: "u1", Version: "20250909_00", RequestID: "r1",
			})
			return err
		}},
		{"execute with text", spec.Execute.RequestBody, func() error {
			_, err := w.Execute(ctx, "GMAIL_SEND_EMAIL", ExecuteRequest{Text: "send hi to bob", UserID: "u1"})
			return err
		}},
		{"execute with nothing", spec.Execute.RequestBody, func() error {
			_, err := w.Execute(ctx, "GMAIL_SEND_EMAIL", ExecuteRequest{})
			return err
		}},
		{"read tool", spec.Execute.RequestBody, func() error {
			_, err := c.RunReadTool(ctx, model.ToolCall{Slug: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{"q":"x"}`), ConnectedAccountID: "ca_1", UserID: "u1", Version: "latest"})
			return err
		}},
		{"proxy with every field", spec.Proxy.RequestBody, func() error {
			_, err := w.Proxy(ctx, ProxyRequest{
				Endpoint: "/gmail/v1/users/me/messages", Method: "POST", Body: json.RawMessage(`{"raw":"abc","free":{"form":true}}`),
				ConnectedAccountID: "ca_1", Parameters: []ProxyParameter{{"Accept", "header", "application/json"}, {"q", "query", "x"}},
			})
			return err
		}},
	}
	for i, call := range calls {
		t.Run(call.name, func(t *testing.T) {
			if err := call.run(); err != nil {
				t.Fatal(err)
			}
			sent := rc.all()[i].Body
			var v map[string]any
			if err := json.Unmarshal(sent, &v); err != nil {
				t.Fatalf("body %s: %v", sent, err)
			}
			if bad := undefinedFields("body", call.schema, v); len(bad) > 0 {
				t.Errorf("fields not in the spec: %v (body %s)", bad, sent)
			}
			for _, req := range call.schema.Required {
				if _, ok := v[req]; !ok {
					t.Errorf("required field %q missing from %s", req, sent)
				}
			}
			if call.schema == spec.Execute.RequestBody {
				if _, ok := v["version"]; !ok {
					t.Errorf("version not sent: %s", sent)
				}
			}
		})
	}
}

// TestSpecWalkerCatchesUnknownFields keeps the contract test honest: the walker must flag a
// field the spec does not define, at the top and inside proxy parameters.
func TestSpecWalkerCatchesUnknownFields(t *testing.T) {
	spec := loadSpecExtract(t)
	var v map[string]any
	json.Unmarshal([]byte(`{"arguments":{"free":1},"idempotency_key":"k","version":"latest"}`), &v)
	if bad := undefinedFields("body", spec.Execute.RequestBody, v); !slices.Equal(bad, []string{"body.idempotency_key"}) {
		t.Errorf("execute: flagged %v", bad)
	}
	v = nil
	json.Unmarshal([]byte(`{"endpoint":"/x","method":"GET","parameters":[{"name":"a","type":"header","value":"b","in":"header"}]}`), &v)
	if bad := undefinedFields("body", spec.Proxy.RequestBody, v); !slices.Equal(bad, []string{"body.parameters[].in"}) {
		t.Errorf("proxy: flagged %v", bad)
	}
}
