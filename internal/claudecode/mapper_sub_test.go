package claudecode

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
)

// The CLI's sub-agent frames carry parent_tool_use_id: their text and
// tool calls become events with that field, and their messages are kept
// apart from the main conversation for the child session.
func TestMapperSubagentFrames(t *testing.T) {
	lines := []string{
		`{"type":"assistant","message":{"id":"msg_main1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"a1","name":"Agent","input":{"description":"read notes","prompt":"TASK","subagent_type":"reader"}}],"usage":{"input_tokens":10,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"s","uuid":"u1"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"TASK"}]},"parent_tool_use_id":"a1","session_id":"s","uuid":"u2"}`,
		`{"type":"assistant","message":{"id":"msg_sub1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/x"}}],"usage":{"input_tokens":100,"output_tokens":50}},"parent_tool_use_id":"a1","session_id":"s","uuid":"u3"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"r1","content":"hello"}]},"parent_tool_use_id":"a1","session_id":"s","uuid":"u4"}`,
		`{"type":"assistant","message":{"id":"msg_sub2","model":"claude-sonnet-4-5","content":[{"type":"text","text":"notes say hello"}],"usage":{"input_tokens":200,"output_tokens":60}},"parent_tool_use_id":"a1","session_id":"s","uuid":"u5"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a1","content":"notes say hello"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u6","tool_use_result":{"status":"completed","agentId":"x","usage":{"input_tokens":300,"output_tokens":110}}}`,
		`{"type":"result","subtype":"success","result":"done","session_id":"s","num_turns":2,"usage":{"input_tokens":10,"output_tokens":5}}`,
	}
	var m Mapper
	var evs []event.Event
	for _, l := range lines {
		msg, ok, err := ParseLine([]byte(l))
		if err != nil || !ok {
			t.Fatalf("parse %s: %v", l, err)
		}
		evs = append(evs, m.Map(msg)...)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.ParentToolUseID+"/"+string(e.Type)+"/"+e.ToolUseID)
	}
	want := "/tool_use/a1 a1/tool_use/r1 a1/tool_result/r1 a1/text/ /tool_result/a1 /result/"
	if strings.Join(got, " ") != want {
		t.Errorf("events\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if u := evs[len(evs)-1].Usage; u == nil || u.InputTokens != 310 || u.OutputTokens != 115 {
		t.Errorf("result usage %+v: the sub-agent's (from the Agent result) should be added", u)
	}
	main := m.TakeMessages()
	if len(main) != 2 || main[0].ProviderID != "msg_main1" || main[1].ProviderID != "u6" {
		t.Errorf("main messages: %+v", main)
	}
	kids := m.TakeChildMessages()
	if len(kids) != 1 || kids[0].ParentToolUseID != "a1" || len(kids[0].Messages) != 4 {
		t.Fatalf("child messages: %+v", kids)
	}
	roles := ""
	var out int64
	for _, msg := range kids[0].Messages {
		roles += string(msg.Role) + " "
		if msg.Usage != nil {
			out += msg.Usage.OutputTokens
		}
	}
	if roles != "user assistant user assistant " || out != 110 {
		t.Errorf("child roles %q, output tokens %d", roles, out)
	}
	if m.SubTitle("a1") != "reader: read notes" {
		t.Errorf("title %q", m.SubTitle("a1"))
	}
}
