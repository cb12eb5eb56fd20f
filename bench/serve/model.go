package main

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// script is the turn every session runs: steps-1 steps of one Read each,
// of a different file each time (the doom-loop guard refuses a call
// repeated with the same input), then a text answer.
// modelMS > 0 makes every model call wait that long before answering, as a
// real model's time to first token does.
func script(steps, modelMS int) scripted.Script {
	var s scripted.Script
	for i := 0; i < steps-1; i++ {
		s.Steps = append(s.Steps, scripted.Step{Text: fmt.Sprintf("Step %d: reading the next file.", i+1),
			ToolCalls: []scripted.ToolCall{scripted.Call("Read", map[string]string{"file_path": noteFile(i)})}})
	}
	s.Steps = append(s.Steps, scripted.TextStep("All steps done; the notes say hello."))
	if modelMS > 0 {
		for i := range s.Steps {
			s.Steps[i].Fault = &scripted.Fault{FirstByteDelayMS: modelMS, Always: true}
		}
	}
	return s
}

func noteFile(i int) string { return fmt.Sprintf("notes-%02d.txt", i) }

// serveModel is the -child model mode: serve the script, print the URL,
// serve until stdin closes.
func serveModel(steps, modelMS int, addr string) error {
	ms := scripted.New(script(steps, modelMS), scripted.WithoutRecording(), scripted.WithAddr(addr))
	url, err := ms.Start()
	if err != nil {
		return err
	}
	defer ms.Close()
	fmt.Println(url)
	waitStdin()
	return nil
}
