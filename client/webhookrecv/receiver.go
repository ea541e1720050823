package webhookrecv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultBuffer       = 256
	DefaultMaxBodyBytes = 1 << 20
)

// Options configures a Receiver.
type Options struct {
	// Secrets verify signatures; any may match (current and previous
	// during a rotation). None: every signed delivery is "unchecked".
	Secrets []string
	// Tolerance is the accepted timestamp age (DefaultTolerance when 0).
	Tolerance time.Duration
	// SkipStalenessCheck turns the timestamp check off.
	SkipStalenessCheck bool
	// Now is the clock (time.Now).
	Now func() time.Time
	// Buffer is how many deliveries wait unread (DefaultBuffer); beyond
	// it the oldest is dropped.
	Buffer int
	// MaxBodyBytes bounds a delivery's body (DefaultMaxBodyBytes); larger
	// ones are answered 413.
	MaxBodyBytes int64
}

// Delivery is one request the receiver got.
type Delivery struct {
	ReceivedAt time.Time
	// Event, DeliveryID and Timestamp are the X-<Word>-Event, -Delivery
	// and -Timestamp headers as sent.
	Event, DeliveryID, Timestamp string
	// Age is how old the timestamp was on arrival.
	Age       time.Duration
	Signature SignatureStatus
	Headers   http.Header
	Body      []byte
	// PrettyBody is the body indented when it is JSON, else the body as
	// text. It is untrusted: sanitize before printing.
	PrettyBody string
	// Path is the request path; Remote the sender's address.
	Path, Remote string
}

// Receiver is a running webhook endpoint.
type Receiver struct {
	opts       Options
	listener   net.Listener
	server     *http.Server
	deliveries chan Delivery
	secrets    atomic.Pointer[[]string]
	dropped    atomic.Uint64

	mu     sync.Mutex // guards sends on deliveries against Close
	closed bool
	served chan struct{}
}

// Listen starts a receiver on addr (such as "127.0.0.1:0"). It stops when
// ctx ends or Close is called.
func Listen(ctx context.Context, addr string, opts Options) (*Receiver, error) {
	if opts.Tolerance == 0 {
		opts.Tolerance = DefaultTolerance
	}
	if opts.Tolerance < 0 {
		return nil, errors.New("webhook receiver: tolerance must not be negative")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("webhook receiver: listen on %s: %w", addr, err)
	}
	r := &Receiver{
		opts:       opts,
		listener:   ln,
		deliveries: make(chan Delivery, opts.Buffer),
		served:     make(chan struct{}),
	}
	r.SetSecrets(opts.Secrets...)
	r.server = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(r.served)
		_ = r.server.Serve(ln) // returns http.ErrServerClosed on Close
	}()
	context.AfterFunc(ctx, func() { _ = r.Close() })
	return r, nil
}

// URL is where to point a webhook: http://host:port/hook (any path is
// accepted).
func (r *Receiver) URL() string { return "http://" + r.listener.Addr().String() + "/hook" }

// Addr is the listening address.
func (r *Receiver) Addr() string { return r.listener.Addr().String() }

// Deliveries yields each delivery as it lands; it is closed by Close.
func (r *Receiver) Deliveries() <-chan Delivery { return r.deliveries }

// Dropped counts deliveries dropped because nobody read them in time.
func (r *Receiver) Dropped() uint64 { return r.dropped.Load() }

// SetSecrets replaces the secrets signatures are checked against.
func (r *Receiver) SetSecrets(secrets ...string) {
	s := slices.Clone(secrets)
	r.secrets.Store(&s)
}

// Close stops listening and closes the Deliveries channel.
func (r *Receiver) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	err := r.server.Close()
	<-r.served
	r.mu.Lock()
	close(r.deliveries)
	r.mu.Unlock()
	if err != nil {
		return fmt.Errorf("webhook receiver: close: %w", err)
	}
	return nil
}

// ServeHTTP answers every POST with 200 at once and queues the delivery.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "webhook deliveries are POST requests", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, r.opts.MaxBodyBytes))
	if err != nil {
		http.Error(w, "body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	now := r.opts.Now()
	tolerance := r.opts.Tolerance
	if r.opts.SkipStalenessCheck {
		tolerance = 0
	}
	status, event, id, age := Verify(req.Header, body, *r.secrets.Load(), tolerance, now)
	d := Delivery{
		ReceivedAt: now,
		Event:      event,
		DeliveryID: id,
		Timestamp:  findBrand(req.Header).timestamp,
		Age:        age,
		Signature:  status,
		Headers:    req.Header.Clone(),
		Body:       body,
		PrettyBody: pretty(body),
		Path:       req.URL.Path,
		Remote:     req.RemoteAddr,
	}
	r.push(d)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"received":true}`)
}

// push queues d without blocking, dropping the oldest waiting delivery
// when the buffer is full.
func (r *Receiver) push(d Delivery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	for {
		select {
		case r.deliveries <- d:
			return
		default:
		}
		select {
		case <-r.deliveries:
			r.dropped.Add(1)
		default:
		}
	}
}

// pretty indents a JSON body; anything else is returned as text with
// invalid UTF-8 replaced.
func pretty(body []byte) string {
	var b bytes.Buffer
	if json.Valid(body) && json.Indent(&b, body, "", "  ") == nil {
		return b.String()
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}
