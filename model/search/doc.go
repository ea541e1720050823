// Package search is sandview's search query language: Mailpit-style
// operators over model.Email, parsed once and matched against many emails,
// for the message list (/) and `sandview email list --search`. It does no
// I/O.
//
// # Grammar
//
//	query    = { space } { term { space } } .
//	term     = [ "-" ] ( phrase | operator | word ) .
//	operator = name ":" ( phrase | word ) .      name: ASCII letters, any case
//	phrase   = `"` { char | `\"` | `\\` } [ `"` ] .
//	word     = non-space { non-space } .
//
// Space is any Unicode white space; a phrase also ends its term. Terms AND
// together; a leading "-" negates a term (a lone "-" is the text "-"). A
// phrase may be left unterminated (it runs to the end: the list searches as
// the user types); inside it, \" and \\ stand for " and \. A word is taken
// literally, quotes and backslashes included.
//
// # Terms
//
//	word, "phrase"          substring of subject, from, to, cc, rcpt or body
//	from: to: cc: subject:  substring of that field (to: any recipient, of
//	                        the To header or the envelope)
//	rcpt:                   substring of the envelope recipients only
//	                        (RCPT TO; unknown to a server that sends none)
//	is:read  is:unread      the read flag
//	has:attachment          at least one attachment
//	auth:pass  auth:fail    model.AuthResults.Verdict: pass, fail,
//	auth:unverified         not verified (auth:none is the same),
//	auth:skipped            not checked
//	spf: dkim: dmarc:       that check's result (dkim: any signature): pass,
//	reversedns:             fail, softfail, neutral, none, temperror,
//	                        permerror, skipped
//	before:D  after:D       received before D / at or after D
//	in:all                  search every inbox (AllInboxes), not a condition
//
// Operator names and their keyword values are case-insensitive. Operator
// names that are not in the table are searched as text ("form:alice",
// "https://x") and Notes says so. A known operator with a value it does not
// take is an error naming the token, as is from: with no value and -in:all.
//
// Text matches by substring after Unicode full case folding
// (golang.org/x/text/cases.Fold) of both sides and with accents dropped
// (canonical decomposition, combining marks removed): "strasse" finds
// "Straße", "file" finds "ﬁle", "cafe" finds "Café". Fields are
// searched as the terminal shows them: sanitized (termtext.SanitizeLine,
// termtext.Sanitize), To and Cc (model.Email.Cc) joined with ", ", the body being
// the text part and the HTML part converted to text (a word only the HTML
// of a multipart/alternative mail holds is found). A term never matches
// across two fields.
//
// auth: asks the one verdict of model (AuthResults.Verdict): SPF, DKIM
// and DMARC decide, reverse DNS does not; auth:fail is a real failure (fail,
// softfail, permerror), auth:unverified no record or inconclusive, and
// auth:skipped every check skipped or none reported. A check the server
// sent no data for matches no spf:/dkim:/dmarc:/reversedns: value.
//
// The check operators are the checks of model.AuthResults.Checks, each
// named by its key (model.Check.Key, its property in the authResults JSON:
// reverseDns, so reversedns: in any case), and matching when one of the
// check's entries has the result: a check added to the list has its
// operator. Reverse DNS has one too, although it never changes auth:.
//
// # Dates
//
// D is a date 2026-11-01 (its midnight), a time 2026-11-01T15:04 or
// 2026-11-01T15:04:05, an RFC 3339 time with an offset, today or yesterday
// (their midnights), or an age: digits and m, h, d or w (minutes, hours,
// calendar days, calendar weeks) before now. Dates and times without an
// offset are in the time zone of the clock given to Parse, which also
// resolves ages once, at parse time. before:D and after:D split all emails
// in two: after:D is the same as -before:D. So after:2026-11-01 includes the
// 1st and before:2026-11-01 does not.
//
// # Emails without content
//
// A list record carries only metadata: from, to, subject, receivedAt, the
// envelope (when the server sends it) and the read flag. For such an email (HasContent false) a term that needs the
// content (cc:, has:, auth:, a check's operator such as spf:) has no answer, and free
// text has one only when it is found in the metadata. A term without an
// answer fails whether negated or not, so such an email matches only when
// its metadata alone decides: a query never shows an email on a guess.
// NeedsContent tells the caller to load content first. The same holds for
// before:/after: on an email without a receipt time.
//
// # Use
//
// Parse the query on each edit; keep one Index for the session, Prepare it
// in the background as emails arrive, and call Filter (the count is its
// length) or Match per email; mark matches with Highlights on the text as
// displayed. String gives the canonical form for
// a status line: Parse(q.String()) with the same clock gives the same terms
// and scope (text once searched with a note prints quoted, so the note goes).
package search
