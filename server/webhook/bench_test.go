package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"sandview/model"
	"sandview/server/store/memory"
)

// BenchmarkDeliveries measures deliveries per second to a fast local
// receiver, through Handle, filtering, rendering, signing and HTTP.
func BenchmarkDeliveries(b *testing.B) {
	for _, hooks := range []int{1, 10} {
		b.Run(strconv.Itoa(hooks)+"-webhooks", func(b *testing.B) {
			var got atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.Add(1)
				w.WriteHeader(http.StatusOK)
			}))
			defer srv.Close()
			e, err := New(Config{Enabled: true, AllowHTTP: true, AllowPrivate: true, Store: memory.New()}, testInboxes)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close(b.Context())
			for range hooks {
				if _, err := e.create(context.Background(), scope{}, model.CreateWebhookRequest{URL: srv.URL, Events: []string{model.EventEmailReceived}}); err != nil {
					b.Fatal(err)
				}
			}
			mail := plainMail("b", "Benchmark")
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				// Keep the intake queue from overflowing.
				for int64(i*hooks)-got.Load() > 1000 {
					time.Sleep(50 * time.Microsecond)
				}
				e.Handle(received("b"+strconv.Itoa(i), mail))
			}
			for got.Load() < int64(b.N*hooks) {
				time.Sleep(50 * time.Microsecond)
			}
			b.ReportMetric(float64(b.N*hooks)/time.Since(start).Seconds(), "deliveries/s")
		})
	}
}

// BenchmarkRenderTemplates measures rendering an email.received event with
// each template.
func BenchmarkRenderTemplates(b *testing.B) {
	names := append([]string{}, model.BuiltinTemplates()...)
	names = append(names, model.TemplateCustom)
	ev := received("r", plainMail("r", "Your order #1042 has shipped"))
	for _, name := range names {
		tmpl := &model.WebhookTemplate{Type: name}
		if name == model.TemplateCustom {
			tmpl.Body = `{"text": "New mail from {{data.from.address}}: {{data.subject}}", "id": "{{id}}", "auth": {{data.auth}}, "at": "{{timestamp}}"}`
		}
		ct, err := compileTemplate(tmpl)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := newEventView(ev, "evt_bench", ev.At, DefaultConfig().dataShape(), nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ct.render(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
