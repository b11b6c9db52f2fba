package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/host/internal/bytesize"
)

// The valid ranges of the limits, the same for flags and the config file.
// A value outside them is refused with a message, never adjusted.
const (
	// MinMemory is the smallest memory limit: the Extism kernel keeps 1 MiB
	// of its own memory, and input and output need room beyond it.
	MinMemory = 2 << 20
	// MaxMemory is the largest: 65,536 pages of 64 KiB, all a 32-bit wasm
	// memory can address.
	MaxMemory = 4 << 30
	// MaxTimeout is the longest per-call time limit.
	MaxTimeout = 24 * time.Hour
	// MaxOutputLimit is the largest max_output: an output lives in a
	// linear memory first, so it cannot be larger than MaxMemory.
	MaxOutputLimit = MaxMemory
	// MaxConcurrency is the most calls of one plugin allowed at once.
	MaxConcurrency = 1024
	// MinBudget is the smallest non-zero memory budget: room for one
	// instance of a small plugin, which is charged the Extism kernel's 1 MiB,
	// its 4 MiB stack bound and its memories' initial sizes.
	MinBudget = 8 << 20
)

// CheckTimeout refuses a per-call time limit outside (0, MaxTimeout].
func CheckTimeout(d time.Duration) error {
	if d <= 0 || d > MaxTimeout {
		return fmt.Errorf("%v is out of range: a time limit must be more than 0 and at most %v", d, MaxTimeout)
	}
	return nil
}

// CheckMemory refuses a memory limit outside [MinMemory, MaxMemory]. A
// limit that is not a whole number of 64 KiB pages is rounded down later.
func CheckMemory(n uint64) error {
	if n < MinMemory || n > MaxMemory {
		return fmt.Errorf("%s is out of range: a memory limit must be between 2MiB (the Extism kernel keeps 1MiB) and 4GiB (65536 pages, all a 32-bit wasm memory can have)", bytesize.Format(n))
	}
	return nil
}

// CheckMaxOutput refuses an output limit outside [1, MaxOutputLimit].
func CheckMaxOutput(n uint64) error {
	if n == 0 || n > MaxOutputLimit {
		return fmt.Errorf("%s is out of range: an output limit must be at least 1 byte and at most 4GiB", bytesize.Format(n))
	}
	return nil
}

// CheckConcurrency refuses a per-plugin concurrency outside
// [1, MaxConcurrency].
func CheckConcurrency(n int) error {
	if n < 1 || n > MaxConcurrency {
		return fmt.Errorf("%d is out of range: concurrency must be between 1 and %d", n, MaxConcurrency)
	}
	return nil
}

// CheckBudget refuses a memory budget below MinBudget; 0 means unbounded.
func CheckBudget(n uint64) error {
	if n != 0 && n < MinBudget {
		return fmt.Errorf("%s is too small: a memory budget must be 0 (unbounded) or at least 8MiB (one instance is charged the Extism kernel's 1MiB, a 4MiB stack bound and its initial memory)", bytesize.Format(n))
	}
	return nil
}

// CheckMaxSessions refuses a session cap below 1 (--max-sessions and
// [server] max_sessions alike; not given, the server's default applies).
func CheckMaxSessions(n int) error {
	if n < 1 {
		return fmt.Errorf("%d is out of range: the most live sessions must be at least 1", n)
	}
	return nil
}

// CheckSessionTimeout refuses an idle-session expiry that is not positive
// (--session-timeout and [server] session_timeout alike).
func CheckSessionTimeout(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%v is out of range: a session timeout must be more than 0", d)
	}
	return nil
}

// checkLimits checks the limits of one table ([defaults] or a [[plugin]]):
// every value given must parse and be in range, with the same checks as
// the flags (concurrency = 0 is refused as --concurrency 0 is: concSet says
// the key was written). where names the table for messages; table and
// index locate it in data, for the line number. Every problem is returned,
// joined.
func checkLimits(data []byte, where, table string, index int, timeout Duration, memory, maxOutput Size, concurrency int, concSet bool) error {
	var errs []error
	fail := func(key string, err error) {
		if line := valueLine(data, table, index, key); line > 0 {
			errs = append(errs, fmt.Errorf("line %d: %s: %s: %v", line, where, key, err))
			return
		}
		errs = append(errs, fmt.Errorf("%s: %s: %v", where, key, err))
	}
	if timeout.set {
		if timeout.err != nil {
			fail("timeout", timeout.err)
		} else if err := CheckTimeout(timeout.Duration); err != nil {
			fail("timeout", err)
		}
	}
	for _, s := range []struct {
		key   string
		v     Size
		check func(uint64) error
	}{{"memory", memory, CheckMemory}, {"max_output", maxOutput, CheckMaxOutput}} {
		if !s.v.set {
			continue
		}
		if s.v.err != nil {
			fail(s.key, s.v.err)
		} else if err := s.check(s.v.Bytes); err != nil {
			fail(s.key, err)
		}
	}
	if concurrency != 0 || concSet {
		if err := CheckConcurrency(concurrency); err != nil {
			fail("concurrency", err)
		}
	}
	return errors.Join(errs...)
}

var (
	headerRE = regexp.MustCompile(`^\s*(\[\[?)\s*([\w."-]+)\s*\]\]?`)
)

// valueLine finds the line of key in the index-th table named table (an
// array of tables counts its entries; a plain table has index 0). It gives
// 0 when the key is not written on its own line there (an inline table, a
// dotted key).
func valueLine(data []byte, table string, index int, key string) int {
	keyRE := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	cur, n := "", -1
	counts := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		if m := headerRE.FindStringSubmatch(line); m != nil {
			cur = m[2]
			if m[1] == "[[" {
				n = counts[cur]
				counts[cur]++
			} else {
				n = 0
			}
			continue
		}
		if cur == table && n == index && keyRE.MatchString(line) {
			return i + 1
		}
	}
	return 0
}
