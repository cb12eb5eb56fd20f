package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// beatConns is how many connections the heartbeats have to themselves:
// one, and one more so a beat stuck on a broken connection does not hold
// up the next (the server starts a beat every interval without waiting).
const beatConns = 2

// beatPool is the heartbeats' own pool, beside the store's: a replica
// whose pool is taken by busy sessions still proves it is alive. Under
// load, beats queued behind turns' writes on the shared pool timed out,
// and the other replicas took a live replica for dead and moved its
// running turns (bench/serve -procs). Connections open on first use.
func beatPool(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	c := cfg.Copy()
	c.MaxConns, c.MinConns = beatConns, 0
	c.ConnConfig.RuntimeParams["application_name"] = c.ConnConfig.RuntimeParams["application_name"] + " heartbeat"
	return pgxpool.NewWithConfig(ctx, c)
}
