// Command hashkit is an mcpwasm plugin with hashing, encoding, identifier and
// time tools: hash, encode, decode, uuid, jwt_decode and time. Build it with
// build.sh.
package main

import (
	"fmt"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

// pure marks tools whose answer depends only on their arguments.
const pure = `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`

// input is the schema of the two ways to pass data: text or base64 bytes.
const input = `
	"text":{"type":"string","description":"The input as text (hashed as its UTF-8 bytes). Give this or base64."},
	"base64":{"type":"string","description":"The input as bytes, base64-encoded (standard or URL-safe alphabet, padding optional). Give this or text."}`

const encodings = `["base64","base64url","hex","url","url_path"]`

func init() {
	mcpwasm.Tool("hash", "Compute a checksum or cryptographic hash (sha256, sha1, md5, sha512, sha384, sha224 or crc32) of a text or of base64-encoded bytes, as hex and base64. With hmac_key it computes the HMAC instead (not for crc32). md5 and sha1 are broken for security purposes; use them only to match existing checksums.",
		`{"type":"object","properties":{`+input+`,
			"algorithm":{"type":"string","enum":["sha256","sha1","md5","sha512","sha384","sha224","crc32"],"default":"sha256","description":"The hash function; crc32 is the IEEE polynomial (as in zip, gzip and PNG)."},
			"hmac_key":{"type":"string","description":"If set, compute HMAC-<algorithm> with this key (its UTF-8 bytes)."}},
		"additionalProperties":false}`,
		hashTool).Title("Hash").Annotations(pure).OutputSchema(`{"type":"object","properties":{
			"algorithm":{"type":"string"},"hmac":{"type":"boolean"},"input_bytes":{"type":"integer"},
			"hex":{"type":"string"},"base64":{"type":"string"}},"required":["algorithm","hmac","input_bytes","hex","base64"]}`)

	mcpwasm.Tool("encode", "Encode a text (its UTF-8 bytes) or base64-given bytes as base64, base64url (URL-safe alphabet, as in JWTs), hex, url (query component: space becomes +) or url_path (path segment: space becomes %20).",
		`{"type":"object","properties":{`+input+`,
			"encoding":{"type":"string","enum":`+encodings+`,"description":"The encoding to produce."},
			"padding":{"type":"boolean","description":"Pad base64 output with '=' to a multiple of 4 characters. Default: true for base64, false for base64url."}},
		"required":["encoding"],"additionalProperties":false}`,
		encodeTool).Title("Encode").Annotations(pure)

	mcpwasm.Tool("decode", "Decode base64, base64url, hex, url (query component, + is a space) or url_path text. base64 and base64url accept missing padding and ignore whitespace; hex ignores whitespace, ':' and a 0x prefix. Decoded bytes that are valid UTF-8 are returned as text, others as base64 and hex.",
		`{"type":"object","properties":{
			"text":{"type":"string","description":"The encoded text."},
			"encoding":{"type":"string","enum":`+encodings+`,"description":"The encoding to decode."}},
		"required":["text","encoding"],"additionalProperties":false}`,
		decodeTool).Title("Decode").Annotations(pure)

	mcpwasm.Tool("uuid", "Generate random UUIDs from a cryptographically secure source: version 4 (random) or version 7 (Unix-time ordered, good for database keys), in the canonical lower-case 8-4-4-4-12 form.",
		`{"type":"object","properties":{
			"count":{"type":"integer","minimum":1,"maximum":100,"default":1,"description":"How many UUIDs to generate."},
			"version":{"type":"integer","enum":[4,7],"default":4,"description":"4 for random, 7 for time-ordered."}},
		"additionalProperties":false}`,
		uuidTool).Title("Generate UUIDs").Annotations(`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}`)

	mcpwasm.Tool("jwt_decode", "Decode a JSON Web Token (JWS compact form header.payload.signature) and show its header, claims and the times of exp, nbf and iat. It does NOT verify the signature: the claims may be forged, so never rely on them for authentication or authorization.",
		`{"type":"object","properties":{
			"token":{"type":"string","description":"The token, optionally with a \"Bearer \" prefix."}},
		"required":["token"],"additionalProperties":false}`,
		jwtTool).Title("Decode a JWT (unverified)").Annotations(pure)

	mcpwasm.Tool("time", "Tell the current time, or a given one, in a time zone; add or subtract a duration; measure the time until another moment; and convert to other zones. Knows the IANA time zone database (e.g. Europe/Paris, America/New_York, Asia/Kolkata) and fixed offsets like +05:30. Times may be RFC 3339 (2024-03-10T14:30:00Z, 2024-03-10T14:30:00+01:00), a date and wall time in the zone (2024-03-10, 2024-03-10 14:30, 2024-03-10T14:30:45) or Unix seconds (1710081000).",
		`{"type":"object","properties":{
			"zone":{"type":"string","default":"UTC","description":"IANA zone name, UTC, or a fixed offset like +05:30."},
			"at":{"type":"string","description":"The time to start from instead of now. A date or wall time without an offset is read in zone."},
			"add":{"type":"string","description":"A duration to add (negative to subtract): ISO 8601 like P1Y2M10DT2H30M, P3W or -P1D, or h/m/s units like 90m, 1h30m, -36h. Years, months, weeks and days are calendar steps in zone (the wall-clock time is kept across DST changes); hours, minutes and seconds are exact."},
			"until":{"type":"string","description":"Another time (same forms as at): the answer includes the time from the result until it (negative if it is earlier)."},
			"convert_to":{"type":"array","items":{"type":"string"},"maxItems":20,"description":"Other zones to show the result in."}},
		"additionalProperties":false}`,
		timeTool).Title("Time and date arithmetic").Annotations(`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}`)
}

func main() {}

var errorf = fmt.Errorf
