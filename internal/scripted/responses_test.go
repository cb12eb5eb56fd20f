package scripted

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The Responses dialect: the step is chosen from the input items (a run of
// assistant output is one turn), and the stream is the API's typed events
// in order, ending in response.completed with the usage.
func TestResponsesStream(t *testing.T) {
	srv := New(Script{Steps: []Step{
		ToolStep(Call("Read", map[string]any{"file_path": "a"})).WithThinking("plan"),
		TextStep("done reading"),
	}})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	post := func(body string) (string, []map[string]any) {
		t.Helper()
		resp, err := http.Post(url+"/v1/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var names []string
		var evs []map[string]any
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				names = append(names, name)
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var ev map[string]any
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatalf("event %s: %v", data, err)
				}
				evs = append(evs, ev)
			}
		}
		return strings.Join(names, " "), evs
	}
	tools := `"tools":[{"type":"function","name":"Read","parameters":{"type":"object"}}]`
	names, evs := post(`{"model":"gpt-5","stream":true,"include":["reasoning.encrypted_content"],` + tools + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"read a"}]}]}`)
	want := "response.created " +
		"response.output_item.added response.reasoning_summary_text.delta response.reasoning_summary_text.done response.output_item.done " +
		"response.output_item.added response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done " +
		"response.completed"
	if names != want {
		t.Fatalf("events:\n%s\nwant:\n%s", names, want)
	}
	done, _ := evs[4]["item"].(map[string]any)
	if done["encrypted_content"] != Signature("plan") {
		t.Errorf("reasoning item %v", done)
	}
	call, _ := evs[8]["item"].(map[string]any)
	if call["type"] != "function_call" || call["name"] != "Read" || call["arguments"] != `{"file_path":"a"}` || !strings.HasPrefix(call["call_id"].(string), "call_") {
		t.Errorf("call item %v", call)
	}
	final, _ := evs[len(evs)-1]["response"].(map[string]any)
	if usage, _ := final["usage"].(map[string]any); final["status"] != "completed" || usage["input_tokens"].(float64) <= 0 {
		t.Errorf("completed %v", final)
	}

	// The call and its output in the input: the second step answers.
	names, evs = post(`{"model":"gpt-5","stream":true,` + tools + `,"input":[{"role":"user","content":"read a"},` +
		`{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call","call_id":"call_1","name":"Read","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_1","output":"x"}]}`)
	if !strings.Contains(names, "response.output_text.delta") {
		t.Fatalf("second step events: %s", names)
	}
	text, _ := evs[len(evs)-2]["item"].(map[string]any)
	if content, _ := text["content"].([]any); len(content) != 1 || content[0].(map[string]any)["text"] != "done reading" {
		t.Errorf("message item %v", text)
	}
	if reqs := srv.MainRequests(); len(reqs) != 2 || reqs[0].API != APIResponses || reqs[0].Step != 0 || reqs[1].Step != 1 {
		t.Errorf("requests %+v", reqs)
	}

	// Not streamed: the whole response object.
	resp, err := http.Post(url+"/v1/responses", "application/json", strings.NewReader(`{"model":"gpt-5",`+tools+`,"input":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var whole rResponse
	if err := json.Unmarshal(body, &whole); err != nil || whole.Object != "response" || len(whole.Output) != 2 || whole.Output[0].EncryptedContent != nil {
		t.Errorf("whole response %s (%v)", body, err)
	}
}
