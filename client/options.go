package client

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// Strategy is how new mail is delivered to subscribers.
type Strategy string

// Delivery strategies of the client contract.
const (
	// StrategyAuto tries the event stream first and falls back to polling
	// when it does not open within SSEConnectionTimeout.
	StrategyAuto Strategy = "auto"
	// StrategySSE uses the event stream only.
	StrategySSE Strategy = "sse"
	// StrategyPolling polls the sync endpoint.
	StrategyPolling Strategy = "polling"
)

// Contract defaults (client contract, "Client options" and "Limits").
const (
	DefaultTimeout                  = 30 * time.Second
	DefaultMaxRetries               = 3
	DefaultRetryDelay               = time.Second
	DefaultPollingInterval          = 2 * time.Second
	DefaultPollingMaxBackoff        = 30 * time.Second
	DefaultPollingBackoffMultiplier = 1.5
	DefaultPollingJitterFactor      = 0.3
	DefaultSSEReconnectInterval     = 5 * time.Second
	DefaultSSEMaxReconnectAttempts  = 10
	DefaultSSEConnectionTimeout     = 5 * time.Second
)

// defaultRetryOn lists the statuses retried by default.
func defaultRetryOn() []int {
	return []int{
		http.StatusRequestTimeout,
		http.StatusTooManyRequests,
		http.StatusInternalServerError,
		http.StatusBadGateway,
		http.StatusServiceUnavailable,
		http.StatusGatewayTimeout,
	}
}

// Options configure a Client. New fills the contract's defaults; the
// With* options change them.
type Options struct {
	BaseURL  string
	APIKey   string
	Strategy Strategy
	// Timeout bounds each HTTP request (each attempt of a retried one).
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// RetryDelay is the wait before retry 0; retry n waits RetryDelay·2^n
	// (or the server's Retry-After when that is longer, capped at 60 s).
	RetryDelay time.Duration
	// RetryOn lists the HTTP statuses that are retried. Network failures
	// are always retried.
	RetryOn []int

	PollingInterval          time.Duration
	PollingMaxBackoff        time.Duration
	PollingBackoffMultiplier float64
	PollingJitterFactor      float64

	SSEReconnectInterval    time.Duration
	SSEMaxReconnectAttempts int
	SSEConnectionTimeout    time.Duration
	// SSEMaxReconnectDelay caps the doubling reconnect delay; zero (the
	// default) leaves it uncapped as the contract has it (an hour at most).
	SSEMaxReconnectDelay time.Duration
	// SSEReconnectJitter takes up to this share (0 to 1) off each
	// reconnect delay at random; zero (the default) keeps the delays
	// exact.
	SSEReconnectJitter float64

	// HTTPClient is used for every request; nil means the client's own. Its
	// Timeout, if any, applies on top of Options.Timeout (and would also cut
	// long-lived event streams, so leave it zero).
	HTTPClient *http.Client
	// OnSyncError receives errors of background work (delivery, syncing)
	// that has no caller to return them to.
	OnSyncError func(error)
}

// Option changes Options.
type Option func(*Options)

// DefaultOptions returns the contract's defaults (without base URL and key).
func DefaultOptions() Options {
	return Options{
		Strategy:                 StrategyAuto,
		Timeout:                  DefaultTimeout,
		MaxRetries:               DefaultMaxRetries,
		RetryDelay:               DefaultRetryDelay,
		RetryOn:                  defaultRetryOn(),
		PollingInterval:          DefaultPollingInterval,
		PollingMaxBackoff:        DefaultPollingMaxBackoff,
		PollingBackoffMultiplier: DefaultPollingBackoffMultiplier,
		PollingJitterFactor:      DefaultPollingJitterFactor,
		SSEReconnectInterval:     DefaultSSEReconnectInterval,
		SSEMaxReconnectAttempts:  DefaultSSEMaxReconnectAttempts,
		SSEConnectionTimeout:     DefaultSSEConnectionTimeout,
	}
}

// WithStrategy sets the delivery strategy.
func WithStrategy(s Strategy) Option { return func(o *Options) { o.Strategy = s } }

// WithTimeout sets the per-request timeout.
func WithTimeout(d time.Duration) Option { return func(o *Options) { o.Timeout = d } }

// WithRetries sets the number of retries and the base retry delay.
func WithRetries(max int, delay time.Duration) Option {
	return func(o *Options) {
		o.MaxRetries = max
		o.RetryDelay = delay
	}
}

// WithRetryOn sets the HTTP statuses that are retried.
func WithRetryOn(statuses ...int) Option {
	return func(o *Options) { o.RetryOn = slices.Clone(statuses) }
}

// WithHTTPClient sets the HTTP client used for every request.
func WithHTTPClient(hc *http.Client) Option { return func(o *Options) { o.HTTPClient = hc } }

// WithOnSyncError sets the callback for background errors.
func WithOnSyncError(fn func(error)) Option { return func(o *Options) { o.OnSyncError = fn } }

// WithPolling sets the polling interval, its maximum, growth and jitter.
func WithPolling(interval, maxBackoff time.Duration, multiplier, jitter float64) Option {
	return func(o *Options) {
		o.PollingInterval = interval
		o.PollingMaxBackoff = maxBackoff
		o.PollingBackoffMultiplier = multiplier
		o.PollingJitterFactor = jitter
	}
}

// WithSSE sets the stream's reconnect delay, attempts and connect wait.
func WithSSE(reconnectInterval time.Duration, maxAttempts int, connectTimeout time.Duration) Option {
	return func(o *Options) {
		o.SSEReconnectInterval = reconnectInterval
		o.SSEMaxReconnectAttempts = maxAttempts
		o.SSEConnectionTimeout = connectTimeout
	}
}

// WithSSEBackoff caps the stream's doubling reconnect delay at maxDelay
// (zero: uncapped) and takes up to the share jitter (0 to 1) off each
// delay at random. An interactive program may want quick reconnects that
// never wait long: WithSSE(time.Second, …) with WithSSEBackoff(30*time.Second, 0.3).
func WithSSEBackoff(maxDelay time.Duration, jitter float64) Option {
	return func(o *Options) {
		o.SSEMaxReconnectDelay = maxDelay
		o.SSEReconnectJitter = jitter
	}
}

// validate reports the first option that cannot work.
func (o Options) validate() error {
	switch o.Strategy {
	case StrategyAuto, StrategySSE, StrategyPolling:
	default:
		return fmt.Errorf("unknown delivery strategy %q: use auto, sse or polling", o.Strategy)
	}
	switch {
	case o.Timeout <= 0:
		return fmt.Errorf("timeout must be positive, got %s", o.Timeout)
	case o.MaxRetries < 0:
		return fmt.Errorf("max retries must not be negative, got %d", o.MaxRetries)
	case o.RetryDelay < 0:
		return fmt.Errorf("retry delay must not be negative, got %s", o.RetryDelay)
	case o.PollingInterval <= 0:
		return fmt.Errorf("polling interval must be positive, got %s", o.PollingInterval)
	case o.PollingMaxBackoff < o.PollingInterval:
		return fmt.Errorf("polling max backoff %s is below the polling interval %s", o.PollingMaxBackoff, o.PollingInterval)
	case o.PollingBackoffMultiplier < 1:
		return fmt.Errorf("polling backoff multiplier must be at least 1, got %g", o.PollingBackoffMultiplier)
	case o.PollingJitterFactor < 0 || o.PollingJitterFactor > 1:
		return fmt.Errorf("polling jitter factor must be between 0 and 1, got %g", o.PollingJitterFactor)
	case o.SSEReconnectInterval <= 0:
		return fmt.Errorf("stream reconnect interval must be positive, got %s", o.SSEReconnectInterval)
	case o.SSEMaxReconnectAttempts < 0:
		return fmt.Errorf("stream reconnect attempts must not be negative, got %d", o.SSEMaxReconnectAttempts)
	case o.SSEConnectionTimeout <= 0:
		return fmt.Errorf("stream connection timeout must be positive, got %s", o.SSEConnectionTimeout)
	case o.SSEMaxReconnectDelay < 0:
		return fmt.Errorf("stream max reconnect delay must not be negative, got %s", o.SSEMaxReconnectDelay)
	case o.SSEReconnectJitter < 0 || o.SSEReconnectJitter > 1:
		return fmt.Errorf("stream reconnect jitter must be between 0 and 1, got %g", o.SSEReconnectJitter)
	}
	return nil
}

// clone returns a copy that shares no slices with o.
func (o Options) clone() Options {
	o.RetryOn = slices.Clone(o.RetryOn)
	return o
}
