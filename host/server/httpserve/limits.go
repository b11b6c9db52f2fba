package httpserve

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/time/rate"
)

// limits are the token buckets and in-flight counts of principals, IPs
// and sessions.
type limits struct {
	mu         sync.Mutex
	principals map[string]*principal
	sessions   map[string]int
	open       map[string]int // stateful sessions held, by principal key
	lastWarn   time.Time      // of a refusal logged at warn (see quiet)
}

func newLimits() *limits {
	return &limits{principals: map[string]*principal{}, sessions: map[string]int{}, open: map[string]int{}}
}

type principal struct {
	lim      *rate.Limiter
	inflight int
}

// limit applies the rate and concurrency bounds, then serves.
func (a *access) limit(w http.ResponseWriter, r *http.Request, info *auth.TokenInfo) {
	ip := a.clientIP(r)
	key, who := "ip:"+limitKey(ip), ""
	if info != nil {
		key, who = "principal:"+info.UserID, info.UserID
	}
	unmetered := info == nil && a.o.localUnlimited && localPeer(r, ip)
	counted := r.Method == http.MethodPost
	sid := r.Header.Get("Mcp-Session-Id")
	now := time.Now()
	a.mu.Lock()
	p := a.principal(key, now)
	if unmetered {
		// not rate limited (see AccessOptions.Rate)
	} else if res := p.lim.ReserveN(now, 1); !res.OK() || res.DelayFrom(now) > 0 {
		delay := res.DelayFrom(now)
		res.CancelAt(now)
		a.mu.Unlock()
		secs := int(math.Ceil(delay.Seconds()))
		a.refuse(w, r, who, strconv.Itoa(max(secs, 1)),
			fmt.Sprintf("rate limit: over %g requests/s (burst %d) for %s", a.o.Rate, a.o.Burst, key))
		return
	}
	if counted {
		switch {
		case p.inflight >= a.o.PrincipalConcurrency:
			a.mu.Unlock()
			a.refuse(w, r, who, "1", fmt.Sprintf("concurrency limit: %d requests of %s in progress", p.inflight, key))
			return
		case sid != "" && a.sessions[sid] >= a.o.SessionConcurrency:
			n := a.sessions[sid]
			a.mu.Unlock()
			a.refuse(w, r, who, "1", fmt.Sprintf("concurrency limit: %d requests of session %s in progress", n, clip.String(sid, clip.Log)))
			return
		}
		p.inflight++
		if sid != "" {
			a.sessions[sid]++
		}
	}
	a.mu.Unlock()
	r = r.WithContext(context.WithValue(r.Context(), sessionClaimKey{}, &sessionClaim{l: a.limits, key: key, max: a.o.PrincipalSessions}))
	if counted {
		defer func() {
			a.mu.Lock()
			p.inflight--
			if sid != "" {
				if a.sessions[sid]--; a.sessions[sid] <= 0 {
					delete(a.sessions, sid)
				}
			}
			a.mu.Unlock()
		}()
	}
	a.next.ServeHTTP(w, r)
}

// localPeer reports whether r comes straight from a process on this host:
// a loopback client address, and no header saying a proxy forwarded it.
func localPeer(r *http.Request, ip string) bool {
	addr, err := netip.ParseAddr(ip)
	return err == nil && addr.Unmap().IsLoopback() &&
		r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == ""
}

// principal returns key's entry, made on first use. a.mu is held.
func (a *access) principal(key string, now time.Time) *principal {
	p := a.principals[key]
	if p == nil {
		a.sweep(now)
		lim := rate.NewLimiter(rate.Limit(a.o.Rate), a.o.Burst)
		if a.o.Rate < 0 {
			lim = rate.NewLimiter(rate.Inf, 0)
		}
		p = &principal{lim: lim}
		a.principals[key] = p
	}
	return p
}

// exhausted reports whether key's bucket is empty, and in how many
// seconds it has a token again.
func (a *access) exhausted(key string) (string, bool) {
	if a.o.Rate < 0 {
		return "", false
	}
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.principals[key]
	if !ok {
		return "", false
	}
	tokens := p.lim.TokensAt(now)
	if tokens >= 1 {
		return "", false
	}
	return strconv.Itoa(max(1, int(math.Ceil((1-tokens)/a.o.Rate)))), true
}

// charge takes a token from key's bucket, if it has one.
func (a *access) charge(key string) {
	now := time.Now()
	a.mu.Lock()
	a.principal(key, now).lim.AllowN(now, 1)
	a.mu.Unlock()
}

// maxIdlePrincipals is how many principals are tracked before idle ones
// (a full bucket, nothing in flight) are forgotten.
const maxIdlePrincipals = 4096

func (a *access) sweep(now time.Time) {
	if len(a.principals) < maxIdlePrincipals {
		return
	}
	for k, p := range a.principals {
		if p.inflight == 0 && p.lim.TokensAt(now) >= float64(p.lim.Burst()) {
			delete(a.principals, k)
		}
	}
}

// quiet reports whether a refusal should be logged at debug level: every
// refusal is audited, but the log gets at most one a second at warn level,
// so a flood of bad requests cannot flood stderr too.
func (a *access) quiet() bool {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if now.Sub(a.lastWarn) < time.Second {
		return true
	}
	a.lastWarn = now
	return false
}

// refuse answers 429 with Retry-After and records the refusal.
func (a *access) refuse(w http.ResponseWriter, r *http.Request, who, retry, reason string) {
	a.srv.Deny(audit.DenyRateLimit, who, a.clientIP(r), reason, a.quiet())
	w.Header().Set("Retry-After", retry)
	rpcError(w, http.StatusTooManyRequests, nil, -32000, reason+"; retry after "+retry+"s")
}

// sessionClaim is a principal's share of the stateful sessions: the
// transport takes one when a request would create a session, and gives it
// back when that session ends (or was not created).
type sessionClaim struct {
	l   *limits
	key string
	max int
}

type sessionClaimKey struct{}

func sessionClaimOf(ctx context.Context) *sessionClaim {
	c, _ := ctx.Value(sessionClaimKey{}).(*sessionClaim)
	return c
}

// take reserves a session for the principal, or says why not.
func (c *sessionClaim) take() string {
	if c == nil {
		return ""
	}
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if n := c.l.open[c.key]; n >= c.max {
		return fmt.Sprintf("session limit: %s holds %d sessions, the most one client may; end one (or let it expire) first", c.key, n)
	}
	c.l.open[c.key]++
	return ""
}

// give returns a session taken.
func (c *sessionClaim) give() {
	if c == nil {
		return
	}
	c.l.mu.Lock()
	if c.l.open[c.key]--; c.l.open[c.key] <= 0 {
		delete(c.l.open, c.key)
	}
	c.l.mu.Unlock()
}
