package policy

import (
	"fmt"
	"sort"
	"strings"

	cedar "github.com/cedar-policy/cedar-go"
	"github.com/cedar-policy/cedar-go/types"
)

// Decision is the outcome of one request.
type Decision struct {
	// Allow is the decision.
	Allow bool
	// Policies are the ids of the policies that decided it: the forbids
	// that matched (or failed: see Authorize) when denied, the permits that
	// matched when allowed; none when nothing permitted.
	Policies []string
	// Reason is the @reason annotation of the first deciding policy that
	// has one.
	Reason string
	// Errors are the policies that failed to evaluate on this request
	// ("id: message").
	Errors []string
}

// Authorize decides a request. A nil Set allows everything (no policy
// configured). Cedar's rules apply: a matching forbid denies, else a
// matching permit allows, else the request is denied. One rule is
// stricter than Cedar's: a forbid that fails to evaluate (an attribute the
// request lacks, a comparison of values of different types) denies, where
// Cedar would skip it, so a request that a forbid cannot judge is never
// let through; a permit that fails permits nothing.
func (s *Set) Authorize(r Request) Decision {
	if s == nil {
		return Decision{Allow: true}
	}
	req, es, err := s.build(r)
	if err != nil {
		return Decision{Errors: []string{err.Error()}, Reason: err.Error()}
	}
	ok, diag := cedar.Authorize(s.list, es, req)
	d := Decision{Allow: ok == cedar.Allow}
	var failedForbids []string
	for _, e := range diag.Errors {
		d.Errors = append(d.Errors, fmt.Sprintf("%s: %s", e.PolicyID, e.Message))
		if p := s.ps.Get(e.PolicyID); p != nil && p.Effect() == cedar.Forbid {
			failedForbids = append(failedForbids, string(e.PolicyID))
		}
	}
	sort.Strings(d.Errors)
	if d.Allow && len(failedForbids) > 0 {
		d.Allow = false
		sort.Strings(failedForbids)
		d.Policies = failedForbids
		d.Reason = "the policy could not be evaluated on this request (a forbid that errors denies): " + trimReason(strings.Join(d.Errors, "; "))
		return d
	}
	for _, reason := range diag.Reasons {
		d.Policies = append(d.Policies, string(reason.PolicyID))
	}
	if !d.Allow {
		d.Policies = append(d.Policies, failedForbids...)
	}
	sort.Strings(d.Policies)
	d.Policies = compact(d.Policies)
	for _, id := range d.Policies {
		if r := s.reasons[types.PolicyID(id)]; r != "" {
			d.Reason = trimReason(r)
			break
		}
	}
	return d
}

func compact(ss []string) []string {
	out := ss[:0]
	for i, v := range ss {
		if i == 0 || v != ss[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Message is a denial's text for the client: what was refused, the
// deciding policy and its reason.
func (d Decision) Message(principal string, a Action, what string) string {
	switch {
	case len(d.Policies) == 0 && d.Reason != "":
		return fmt.Sprintf("%s refused to %q by policy: %s", what, principal, d.Reason)
	case len(d.Policies) == 0:
		return fmt.Sprintf("%s refused to %q: no policy permits %s", what, principal, a)
	}
	ids := make([]string, len(d.Policies))
	for i, id := range d.Policies {
		ids[i] = fmt.Sprintf("%q", id)
	}
	msg := fmt.Sprintf("%s refused to %q by policy %s", what, principal, strings.Join(ids, ", "))
	if d.Reason != "" {
		msg += ": " + d.Reason
	}
	return msg
}

// build turns a request into Cedar's request and entities.
func (s *Set) build(r Request) (cedar.Request, entities, error) {
	pe := principalEntity(r.Principal)
	te, plugin := s.targets.get(r.Target)
	var args types.Record
	if r.StringArgs != nil {
		args = StringArguments(r.StringArgs)
	} else {
		var err error
		if args, err = Arguments(r.Arguments); err != nil {
			return cedar.Request{}, nil, err
		}
	}
	t := r.Time
	ctx := types.NewRecord(types.RecordMap{
		"arguments": args,
		"time":      types.NewDatetime(t),
		"hour":      types.Long(t.Hour()),
		"weekday":   types.String(t.Weekday().String()),
		"protocol":  types.String(r.Protocol),
		"session":   types.String(r.Session),
	})
	// Groups need no entity of their own: membership is the user's parents.
	es := entities{pe, te, plugin}
	return cedar.Request{Principal: pe.UID, Action: types.NewEntityUID(TypeAction, types.String(r.Action)),
		Resource: te.UID, Context: ctx}, es, nil
}

// Listable decides whether a list shows r's target to its principal: r is
// decided with no arguments, and a denial counts only when it does not
// depend on them. A target denied by forbids is hidden unless every one of
// them reads the arguments; one that nothing permitted is hidden unless
// some permit reads them. A call is still decided on its own arguments.
func (s *Set) Listable(r Request) bool {
	if s == nil {
		return true
	}
	r.Arguments, r.StringArgs = nil, nil
	d := s.Authorize(r)
	if d.Allow {
		return true
	}
	if len(d.Policies) == 0 {
		for id := range s.args {
			if s.ps.Get(id).Effect() == cedar.Permit {
				return true
			}
		}
		return false
	}
	for _, id := range d.Policies {
		if !s.args[types.PolicyID(id)] {
			return false
		}
	}
	return true
}
