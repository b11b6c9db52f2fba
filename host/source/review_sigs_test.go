package source

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/ocitest"
)

// TestCosignTagCannotCrowdOutBundles: 32 bad signatures pushed to cosign's
// tag do not take every place: a good Sigstore bundle attached as a
// referrer is still read, and verifies.
func TestCosignTagCannotCrowdOutBundles(t *testing.T) {
	reg := ocitest.New(t)
	key := ecKey(t)
	src, desc, m := signedPlugin(t, reg, "c/p", "echo")
	payload := ocitest.CosignPayload(reg.Host()+"/c/p", desc.Digest)
	for i := 0; i < maxSignatures; i++ {
		reg.SignCosign(t, "c/p", desc.Digest, append(append([]byte(nil), payload...), ' ', byte('0'+i%10), byte('0'+i/10)), []byte("x"))
	}
	reg.AttachBundle(t, "c/p", desc, ocitest.MessageBundle(t, key, m))
	res, err := newResolver(t, "", nil).Get(context.Background(), Request{Source: src, Policy: policy(t, Required, key)})
	if err != nil || res.Signature.State != "verified" {
		t.Fatalf("a good bundle behind %d bad cosign signatures: %v", maxSignatures, err)
	}
	if res.Signature.Found > maxSignatures {
		t.Fatalf("%d signatures kept", res.Signature.Found)
	}
}

// TestRegistryTextSanitized: what a registry or web server writes into an
// error (its error messages, its status line) reaches a terminal (pull,
// validate, inspect print errors as they are) without control characters:
// no escape sequence, no forged line.
func TestRegistryTextSanitized(t *testing.T) {
	reg := ocitest.New(t)
	reg.PushWasm(t, "e/p", "1", fixture.Bytes(t, "echo"))
	reg.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"errors":[{"code":"DENIED","message":"\u001b[2J\u001b[31mok     oci://x  verified\nsecond line\r"}]}`))
		return true
	}
	_, err := newResolver(t, "", nil).Get(context.Background(), Request{Source: "oci://" + reg.Host() + "/e/p:1"})
	if err == nil {
		t.Fatal("served")
	}
	for _, c := range err.Error() {
		if c < ' ' || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			t.Fatalf("control character %q in the error: %q", c, err.Error())
		}
	}
	if !strings.Contains(err.Error(), "second line") || !strings.Contains(err.Error(), "oci://"+reg.Host()) {
		t.Fatalf("the message is lost: %q", err.Error())
	}
}

// TestRefusedUpdateKeepsSignatures: pull --update that finds the
// signatures gone (a registry hiding them) refuses the plugin, and does
// not replace what the store recorded: serve --offline still verifies
// it from the signatures found before.
func TestRefusedUpdateKeepsSignatures(t *testing.T) {
	reg := ocitest.New(t)
	ctx := context.Background()
	key := ecKey(t)
	dir := t.TempDir()
	src, desc, _ := signedPlugin(t, reg, "s/p", "echo")
	signCosign(t, reg, "s/p", desc.Digest, key)
	if _, err := newResolver(t, dir, nil).Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err != nil {
		t.Fatal(err)
	}
	reg.Repo("s/p").Untag(sigTag(desc.Digest.String()))
	up := newResolver(t, dir, func(o *Options) { o.Update = true })
	if _, err := up.Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err == nil || !strings.Contains(err.Error(), "unsigned") {
		t.Fatalf("update with the signature gone: %v", err)
	}
	off := newResolver(t, dir, func(o *Options) { o.Offline = true })
	if res, err := off.Get(ctx, Request{Source: src, Policy: policy(t, Required, key)}); err != nil || res.Signature.State != "verified" {
		t.Fatalf("offline after a refused update: %v", err)
	}
}
