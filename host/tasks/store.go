package tasks

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// Store keeps task records. Implementations must be safe for concurrent
// use, by one process (MemoryStore) or by many replicas (redisstore).
type Store interface {
	// Create stores a new record, counting it against its owner: it fails
	// with ErrTooMany if the owner already has perOwner live tasks (0: no
	// bound). It returns only once a Get on any replica would find it.
	Create(ctx context.Context, r *Record, perOwner int) error
	// Get returns a copy of the record, or ErrNotFound (also once it
	// expired).
	Get(ctx context.Context, id string) (*Record, error)
	// Update applies fn to the current record atomically and stores the
	// result, unless fn returns an error (returned as is). It returns the
	// stored record. A record leaving the live statuses stops counting
	// against its owner.
	Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error)
	// Live returns the ids of live records (working or input_required), for
	// the lease sweep.
	Live(ctx context.Context) ([]string, error)
	// Close releases the store's connections.
	Close() error
}

// Canceller is a Store that tells every replica at once which tasks were
// cancelled (Redis pub/sub). Without it, a replica learns of a cancel at
// its next lease renewal.
type Canceller interface {
	// Cancellations delivers cancelled task ids until ctx ends.
	Cancellations(ctx context.Context) <-chan string
}

// MemoryStore is the Store of a single process: records in a map, dropped
// once they expire.
type MemoryStore struct {
	mu      sync.Mutex
	records map[string]*Record
	live    map[string]int // live tasks per owner
	maxSize int
	// MaxRecords bounds the records kept, finished ones included, until
	// they expire (0: no bound): a Create over it fails with ErrFull.
	MaxRecords int
	now        func() time.Time
	swept      time.Time // last sweep: at most one a second
}

// NewMemoryStore returns an empty store whose records may each take up to
// maxSize bytes as JSON (0: no bound).
func NewMemoryStore(maxSize int) *MemoryStore {
	return &MemoryStore{records: map[string]*Record{}, live: map[string]int{}, maxSize: maxSize, now: time.Now}
}

// Create implements Store.
func (m *MemoryStore) Create(_ context.Context, r *Record, perOwner int) error {
	if err := m.fits(r); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked()
	if perOwner > 0 && m.live[r.Owner] >= perOwner {
		return ErrTooMany
	}
	if m.MaxRecords > 0 && len(m.records) >= m.MaxRecords {
		m.swept = time.Time{} // expired ones may free room: sweep now
		m.sweepLocked()
		if len(m.records) >= m.MaxRecords {
			return ErrFull
		}
	}
	m.records[r.ID] = clone(r)
	m.live[r.Owner]++
	return nil
}

// Get implements Store.
func (m *MemoryStore) Get(_ context.Context, id string) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	if !ok || !m.now().Before(r.ExpiresAt()) {
		return nil, ErrNotFound
	}
	return clone(r), nil
}

// Update implements Store.
func (m *MemoryStore) Update(_ context.Context, id string, fn func(*Record) error) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.records[id]
	if !ok || !m.now().Before(cur.ExpiresAt()) {
		return nil, ErrNotFound
	}
	next := clone(cur)
	if err := fn(next); err != nil {
		return nil, err
	}
	if err := m.fits(next); err != nil {
		return nil, err
	}
	if !cur.Status.Terminal() && next.Status.Terminal() {
		m.release(cur.Owner)
	}
	m.records[id] = next
	return clone(next), nil
}

// Live implements Store.
func (m *MemoryStore) Live(context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked()
	var ids []string
	for id, r := range m.records {
		if !r.Status.Terminal() {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// Close implements Store.
func (m *MemoryStore) Close() error { return nil }

// Len is the number of records kept, expired ones not yet swept included.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
}

func (m *MemoryStore) release(owner string) {
	if m.live[owner]--; m.live[owner] <= 0 {
		delete(m.live, owner)
	}
}

// sweepLocked forgets expired records, scanning them at most once a
// second (expired ones are invisible to Get and Update meanwhile).
func (m *MemoryStore) sweepLocked() {
	now := m.now()
	if now.Sub(m.swept) < time.Second && now.After(m.swept) {
		return
	}
	m.swept = now
	for id, r := range m.records {
		if !now.Before(r.ExpiresAt()) {
			if !r.Status.Terminal() {
				m.release(r.Owner)
			}
			delete(m.records, id)
		}
	}
}

func (m *MemoryStore) fits(r *Record) error {
	if m.maxSize <= 0 {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(b) > m.maxSize {
		return ErrTooLarge
	}
	return nil
}

// clone deep-copies a record through JSON, as a shared store would.
func clone(r *Record) *Record {
	b, _ := json.Marshal(r)
	var c Record
	json.Unmarshal(b, &c)
	return &c
}
