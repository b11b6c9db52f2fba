// Package redisstore keeps task records in Redis, so that replicas behind
// one load balancer share them: a task created through one replica answers
// tasks/get, tasks/update and tasks/cancel through any other.
//
// Each record is one JSON string under "<prefix>task:<id>", expiring with
// the task's ttl (PEXPIREAT). Live tasks are also members of
// "<prefix>live" and of "<prefix>owner:<principal>", which the
// per-principal cap counts; a record leaving the live statuses leaves both
// sets. Updates are optimistic transactions (WATCH/MULTI/EXEC), retried on
// conflict. A cancel is also published on "<prefix>cancel", so the replica
// running the task stops it at once instead of at its next lease renewal.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwasm/mcpwasm/host/tasks"
	"github.com/redis/go-redis/v9"
)

// Store is a tasks.Store in Redis.
type Store struct {
	rdb     *redis.Client
	prefix  string
	maxSize int
}

// Open connects to addr ("redis://[user:password@]HOST:PORT/DB") and checks
// that the server answers. Records may each take up to maxSize bytes as
// JSON (0: no bound).
func Open(ctx context.Context, addr string, maxSize int) (*Store, error) {
	opt, err := redis.ParseURL(addr)
	if err != nil {
		return nil, fmt.Errorf("task store %s: %v", Redact(addr), err)
	}
	rdb := redis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("task store %s: %v", Redact(addr), err)
	}
	return &Store{rdb: rdb, prefix: "mcpwasm:", maxSize: maxSize}, nil
}

// Redact is addr without its credentials, for messages.
func Redact(addr string) string {
	opt, err := redis.ParseURL(addr)
	if err != nil {
		return "(unparsable address)"
	}
	return fmt.Sprintf("redis://%s/%d", opt.Addr, opt.DB)
}

func (s *Store) key(id string) string     { return s.prefix + "task:" + id }
func (s *Store) ownerKey(o string) string { return s.prefix + "owner:" + o }
func (s *Store) liveKey() string          { return s.prefix + "live" }
func (s *Store) cancelChannel() string    { return s.prefix + "cancel" }
func (s *Store) encode(r *tasks.Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if s.maxSize > 0 && len(b) > s.maxSize {
		return nil, tasks.ErrTooLarge
	}
	return b, nil
}

// maxRetries bounds the optimistic retries of one update.
const maxRetries = 50

// Create stores r, counted against its owner's cap.
func (s *Store) Create(ctx context.Context, r *tasks.Record, perOwner int) error {
	b, err := s.encode(r)
	if err != nil {
		return err
	}
	owner := s.ownerKey(r.Owner)
	for range maxRetries {
		err = s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			if perOwner > 0 {
				ids, err := tx.SMembers(ctx, owner).Result()
				if err != nil {
					return err
				}
				n := 0
				for _, id := range ids {
					ok, err := tx.Exists(ctx, s.key(id)).Result()
					if err != nil {
						return err
					}
					if ok == 1 {
						n++
					}
				}
				if n >= perOwner {
					return tasks.ErrTooMany
				}
			}
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, s.key(r.ID), b, 0)
				p.PExpireAt(ctx, s.key(r.ID), r.ExpiresAt())
				p.SAdd(ctx, owner, r.ID)
				p.PExpireAt(ctx, owner, r.ExpiresAt()) // pushed out by each task; stale members are skipped above
				p.SAdd(ctx, s.liveKey(), r.ID)
				return nil
			})
			return err
		}, owner)
		if !errors.Is(err, redis.TxFailedErr) {
			return err
		}
	}
	return fmt.Errorf("task store: too much contention creating a task")
}

// Get returns the record, or tasks.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	b, err := s.rdb.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	var r tasks.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("task store: record %q: %v", id, err)
	}
	return &r, nil
}

// Update applies fn atomically, retrying when another replica wrote the
// record in between.
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	key := s.key(id)
	var out *tasks.Record
	for range maxRetries {
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			b, err := tx.Get(ctx, key).Bytes()
			if errors.Is(err, redis.Nil) {
				return tasks.ErrNotFound
			}
			if err != nil {
				return err
			}
			var cur tasks.Record
			if err := json.Unmarshal(b, &cur); err != nil {
				return fmt.Errorf("task store: record %q: %v", id, err)
			}
			next := cur
			if err := json.Unmarshal(b, &next); err != nil { // a deep copy
				return err
			}
			if err := fn(&next); err != nil {
				return err
			}
			nb, err := s.encode(&next)
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, nb, redis.KeepTTL)
				if !cur.Status.Terminal() && next.Status.Terminal() {
					p.SRem(ctx, s.ownerKey(cur.Owner), id)
					p.SRem(ctx, s.liveKey(), id)
				}
				if next.CancelRequested && !cur.CancelRequested {
					p.Publish(ctx, s.cancelChannel(), id)
				}
				return nil
			})
			out = &next
			return err
		}, key)
		if !errors.Is(err, redis.TxFailedErr) {
			if err != nil {
				return nil, err
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("task store: too much contention updating task %q", id)
}

// Live lists the live tasks, dropping expired ones from the set (one
// pipelined round trip for the lot).
func (s *Store) Live(ctx context.Context) ([]string, error) {
	ids, err := s.rdb.SMembers(ctx, s.liveKey()).Result()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	p := s.rdb.Pipeline()
	exists := make([]*redis.IntCmd, len(ids))
	for i, id := range ids {
		exists[i] = p.Exists(ctx, s.key(id))
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, err
	}
	var out, gone []string
	for i, id := range ids {
		if exists[i].Val() == 0 {
			gone = append(gone, id)
		} else {
			out = append(out, id)
		}
	}
	if len(gone) > 0 {
		s.rdb.SRem(ctx, s.liveKey(), gone)
	}
	return out, nil
}

// Cancellations delivers the ids of tasks cancelled through any replica,
// until ctx ends (tasks.Canceller).
func (s *Store) Cancellations(ctx context.Context) <-chan string {
	sub := s.rdb.Subscribe(ctx, s.cancelChannel())
	// Wait for the subscription to be confirmed (or fail: the lease
	// renewal still carries cancels).
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	sub.Receive(rctx)
	cancel()
	out := make(chan string, 64)
	go func() {
		defer close(out)
		defer sub.Close()
		ch := sub.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-ch:
				if !ok {
					return
				}
				select {
				case out <- m.Payload:
				default: // the lease renewal catches what is dropped here
				}
			}
		}
	}()
	return out
}

// Close closes the connections.
func (s *Store) Close() error { return s.rdb.Close() }

// Flush deletes every key of this store (tests).
func (s *Store) Flush(ctx context.Context) error { return s.rdb.FlushDB(ctx).Err() }

var _ tasks.Store = (*Store)(nil)
