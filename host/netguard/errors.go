package netguard

import "net/http"

// Reasons a request was refused or failed, as Error.Reason. The guest sees
// the reason in the x-mcpwasm-error response header.
const (
	// ReasonNoGrant: the plugin was granted no network at all.
	ReasonNoGrant = "not_granted"
	// ReasonHost: no grant names the URL's host.
	ReasonHost = "host_not_granted"
	// ReasonScheme: the scheme is not http or https, or not granted (only
	// https is, unless a grant lists http).
	ReasonScheme = "scheme_not_granted"
	// ReasonPort: the grants naming the host do not name the port.
	ReasonPort = "port_not_granted"
	// ReasonMethod: the grants naming the host do not name the method.
	ReasonMethod = "method_not_granted"
	// ReasonAddress: the host resolved to (or is) a loopback, private,
	// link-local, metadata, multicast, reserved or unspecified address no
	// IP or CIDR grant names. Checked on every connection, at dial time.
	ReasonAddress = "address_not_granted"
	// ReasonRedirects: more than MaxRedirects redirects.
	ReasonRedirects = "too_many_redirects"
	// ReasonRequests: more requests in one call than Limits.MaxRequests.
	ReasonRequests = "too_many_requests"
	// ReasonRequestSize: the request body is larger than
	// Limits.MaxRequestBody.
	ReasonRequestSize = "request_too_large"
	// ReasonResponseSize: the response body is larger than
	// Limits.MaxResponse.
	ReasonResponseSize = "response_too_large"
	// ReasonTimeout: the request did not finish before the call's deadline
	// (or Limits.Timeout).
	ReasonTimeout = "timeout"
	// ReasonBadRequest: the request is malformed (URL, method, header).
	ReasonBadRequest = "bad_request"
	// ReasonFailed: the request was allowed but failed: the name does not
	// resolve, the connection was refused or reset, TLS failed, the call
	// was cancelled.
	ReasonFailed = "failed"
)

// Error is a request the guard refused or that failed. Its message names
// the plugin, the destination (scheme, host and port, never the path or
// query, which may hold secrets) and the reason.
type Error struct {
	// Reason is one of the Reason constants.
	Reason string
	// Msg is the whole message, as the guest sees it.
	Msg string
	// Host is the destination as scheme://host:port, when known.
	Host string
	// IP is the address refused or connected to, when known.
	IP string
}

// Error returns the refusal's message.
func (e *Error) Error() string { return e.Msg }

// Denied reports whether the guard refused the request by policy (a grant
// or a limit), as opposed to a request that was allowed and failed or was
// malformed. Denials go to the audit log.
func (e *Error) Denied() bool {
	switch e.Reason {
	case ReasonFailed, ReasonBadRequest:
		return false
	}
	return true
}

// Status is the HTTP status code the guest is given for this error: the
// guard acts like an egress proxy answering in the server's place.
func (e *Error) Status() int {
	switch e.Reason {
	case ReasonBadRequest:
		return http.StatusBadRequest
	case ReasonRequests:
		return http.StatusTooManyRequests
	case ReasonRequestSize:
		return http.StatusRequestEntityTooLarge
	case ReasonTimeout:
		return http.StatusGatewayTimeout
	case ReasonFailed, ReasonResponseSize, ReasonRedirects:
		return http.StatusBadGateway
	}
	return http.StatusForbidden
}
