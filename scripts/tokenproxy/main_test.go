package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestProxyKeepsEarlyStreams sends POSTs through the proxy to a backend
// that starts its event stream as soon as it has read the body, as go-sdk
// does for a tool call that notifies at once. Every stream must arrive
// whole. The race this guards against (see newProxy) needs the proxy's
// transport to be descheduled between sending the body and reading its
// EOF; lateEOF makes that pause certain. Without full duplex every stream
// loses its end.
func TestProxyKeepsEarlyStreams(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: first %s\n\n", body)
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond) // past lateEOF's pause
		fmt.Fprintf(w, "data: last %s\n\n", body)
	}))
	defer backend.Close()
	u, _ := url.Parse(backend.URL)
	inner := newProxy(u, "secret")
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := *r
		r2.Body = &lateEOF{ReadCloser: r.Body}
		inner.ServeHTTP(w, &r2)
	}))
	defer proxy.Close()

	const workers, each = 4, 25
	var lost atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
			defer client.CloseIdleConnections()
			for i := range each {
				msg := fmt.Sprintf(`{"worker":%d,"call":%d}`, w, i)
				got, err := post(client, proxy.URL, msg)
				want := fmt.Sprintf("data: first %s\n\ndata: last %s\n\n", msg, msg)
				if err != nil || got != want {
					lost.Add(1)
					first.CompareAndSwap(nil, fmt.Sprintf("%q, %v", got, err))
				}
			}
		})
	}
	wg.Wait()
	if n := lost.Load(); n > 0 {
		t.Fatalf("%d of %d streams arrived cut short or failed; the first: %s", n, workers*each, first.Load())
	}
}

func post(c *http.Client, url, body string) (string, error) {
	resp, err := c.Post(url, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, err = io.Copy(&b, resp.Body)
	return b.String(), err
}

// lateEOF delays the read after the body's last byte, as a descheduled
// transport goroutine would.
type lateEOF struct {
	io.ReadCloser
	n int
}

func (b *lateEOF) Read(p []byte) (int, error) {
	if b.n > 0 {
		time.Sleep(20 * time.Millisecond)
	}
	n, err := b.ReadCloser.Read(p)
	b.n += n
	return n, err
}
