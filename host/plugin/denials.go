package plugin

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// maxDenialsPerCall bounds the denials one call records: a guest looping
// over escapes must not flood the audit log. The one past the bound says
// how the rest were dropped.
const maxDenialsPerCall = 8

// fsRefusals returns the callback that records one call's filesystem
// refusals as audit denials (see mountFS), to the audit log in ctx if any,
// and as events of the call's span when tracing is on.
func (p *Plugin) fsRefusals(ctx context.Context) func(reason string) {
	log := audit.FromContext(ctx)
	var n atomic.Int32
	return func(reason string) {
		switch k := n.Add(1); {
		case k > maxDenialsPerCall+1:
			return
		case k == maxDenialsPerCall+1:
			reason = fmt.Sprintf("more than %d filesystem refusals in this call: the rest are not recorded", maxDenialsPerCall)
		}
		log.Record(audit.Event{Kind: audit.KindDenial, Denial: audit.DenyFS, Plugin: p.cfg.Name, SHA256: p.SHA256(), Reason: reason})
		tracing.Event(ctx, "mcpwasm.fs.refused", tracing.KeyFSReason, reason)
	}
}
