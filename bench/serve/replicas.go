package main

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// replicated reports whether a stack is one of -replicas' servers: those
// are the ones given a replica id.
func replicated(opts server.Options) bool { return opts.ReplicaID != "" }

// startReplicas starts n more servers over the same database as the first,
// each with its own store handle (its own connection pool and LISTEN
// connection, as another process would have), all with the stored event
// log on; their SSE writes are timed into lat (event created on the
// replica that ran it -> flushed by the one serving the client).
func startReplicas(cfg servertest.Config, files map[string]string, n int, lat *latencies) ([]*benchStack, error) {
	var out []*benchStack
	for i := range n {
		b, err := startStack(cfg, server.Options{OnEventWritten: lat.add, ReplicaID: fmt.Sprintf("bench-%c", 'b'+i)}, files)
		if err != nil {
			for _, o := range out {
				o.close()
			}
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
