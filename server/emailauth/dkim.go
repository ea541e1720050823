package emailauth

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net/textproto"
	"strings"

	"github.com/emersion/go-msgauth/dkim"

	"sandview/model"
)

// maxSignatures caps the DKIM signatures verified per message; further
// signatures are reported as not verified.
const maxSignatures = 10

// signatureTag is what the results report of one DKIM-Signature header.
type signatureTag struct {
	domain   string // d=
	selector string // s=
}

// unsignedDKIM is the result for a message without DKIM-Signature.
func unsignedDKIM() []model.DKIMResult {
	return []model.DKIMResult{{Result: model.ResultNone, Signature: "dkim=none (message not signed)"}}
}

// checkDKIM verifies every DKIM-Signature of raw, in header order.
func checkDKIM(ctx context.Context, dns Resolver, raw []byte) []model.DKIMResult {
	signatures := signatureTags(raw)
	if len(signatures) == 0 {
		return unsignedDKIM()
	}
	verifications, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{
		LookupTXT:        func(name string) ([]string, error) { return dns.LookupTXT(ctx, name) },
		MaxVerifications: maxSignatures,
	})
	if errors.Is(err, dkim.ErrTooManySignatures) {
		err = nil
	}
	results := make([]model.DKIMResult, len(signatures))
	for i, sig := range signatures {
		results[i] = model.DKIMResult{Domain: sig.domain, Selector: sig.selector}
		var label, reason string
		switch {
		case i >= maxSignatures:
			label, reason = model.ResultPermerror, "too many signatures; not verified"
		case err != nil || len(verifications) != min(len(signatures), maxSignatures):
			label, reason = model.ResultPermerror, "unreadable message header"
		default:
			label, reason = verificationOutcome(ctx, verifications[i].Err)
		}
		results[i].Result = label
		results[i].Signature = signatureDetails(label, reason, sig)
	}
	return results
}

// verificationOutcome names the outcome of one verification the way an
// Authentication-Results header does (RFC 8601: pass, fail, temperror,
// permerror), which is also the result reported, with a short reason: a
// key lookup the DNS did not answer is temperror, never fail.
func verificationOutcome(ctx context.Context, err error) (label, reason string) {
	switch {
	case err == nil:
		return model.ResultPass, ""
	case dkim.IsTempFail(err):
		if timeout, ended := timedOut(ctx); ended {
			return model.ResultTemperror, timeout
		}
		for _, failure := range []string{dnsTimeout, dnsRefused, dnsServerFailure} {
			if strings.HasSuffix(err.Error(), failure) { // how the key lookup failed
				return model.ResultTemperror, failure
			}
		}
		return model.ResultTemperror, shortReason(err)
	case dkim.IsPermFail(err):
		return model.ResultPermerror, shortReason(err)
	}
	return model.ResultFail, shortReason(err)
}

// shortReason turns a go-msgauth error into a few words.
func shortReason(err error) string {
	reason := strings.TrimPrefix(err.Error(), "dkim: ")
	reason, _, _ = strings.Cut(reason, ":")
	switch reason {
	case "body hash did not verify":
		return "body hash mismatch"
	case "signature did not verify":
		return "signature mismatch"
	}
	return shorten(reason)
}

func signatureDetails(label, reason string, sig signatureTag) string {
	var b strings.Builder
	b.WriteString("dkim=" + label)
	if reason != "" {
		b.WriteString(" (" + reason + ")")
	}
	if sig.domain != "" {
		b.WriteString(" header.d=" + sig.domain)
	}
	if sig.selector != "" {
		b.WriteString(" header.s=" + sig.selector)
	}
	return b.String()
}

// signatureTags lists the d= and s= tags of the DKIM-Signature headers in
// the order go-msgauth verifies them: header fields split the way its
// reader splits them (a line starting with a space or tab continues the
// previous field).
func signatureTags(raw []byte) []signatureTag {
	reader := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw)))
	var fields []string
	for {
		line, err := reader.ReadLine()
		if err != nil || line == "" {
			break
		}
		if len(fields) > 0 && (line[0] == ' ' || line[0] == '\t') {
			fields[len(fields)-1] += line
			continue
		}
		fields = append(fields, line)
	}
	var tags []signatureTag
	for _, field := range fields {
		name, value, found := strings.Cut(field, ":")
		if !found || !strings.EqualFold(strings.TrimSpace(name), "DKIM-Signature") {
			continue
		}
		tags = append(tags, parseSignatureTags(value))
	}
	return tags
}

// hasSignatureField reports whether a line of raw's header section starts
// with the DKIM-Signature field name: a quick test that spares unsigned
// messages the DKIM check.
func hasSignatureField(raw []byte) bool {
	const name = "DKIM-Signature"
	for line := raw; len(line) > 0; {
		if len(line) >= len(name) && bytes.EqualFold(line[:len(name)], []byte(name)) {
			return true
		}
		next := bytes.IndexByte(line, '\n')
		if next < 0 || next == 0 || next == 1 && line[0] == '\r' {
			return false // the last line, or the empty line ending the header
		}
		line = line[next+1:]
	}
	return false
}

func parseSignatureTags(value string) signatureTag {
	var sig signatureTag
	for _, pair := range strings.Split(value, ";") {
		key, val, found := strings.Cut(pair, "=")
		if !found {
			continue
		}
		val = stripWhitespace(val)
		switch strings.TrimSpace(key) {
		case "d":
			sig.domain = val
		case "s":
			sig.selector = val
		}
	}
	return sig
}

func stripWhitespace(s string) string {
	return strings.Join(strings.Fields(s), "")
}
