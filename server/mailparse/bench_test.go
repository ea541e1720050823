package mailparse

import "testing"

// benchMessage is a typical ~3 KB notification mail: text and HTML
// alternatives and a small CSV attachment.
const benchMessage = `Received: from mail.example.org (mail.example.org [192.0.2.10]) by mx.sandbox.test; Sat, 21 Nov 2026 13:25:55 +0000
DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org; s=mail; h=from:to:subject:date; bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=; b=dGVzdA==
From: "Dana Example" <dana@example.org>
To: customer@sandbox.test
Subject: =?UTF-8?Q?Your_order_#1042_has_shipped_=E2=9C=93?=
Date: Sat, 21 Nov 2026 13:25:55 +0000
Message-ID: <4e75770d-fadc-4d1f-9ef6-7a0e58036296@example.org>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mixed-boundary"

--mixed-boundary
Content-Type: multipart/alternative; boundary="alt-boundary"

--alt-boundary
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Hello Dana,

Good news: your order #1042 has shipped and is on its way. You can follow
the parcel at https://example.org/track/1042 and change the delivery at
https://example.org/account/deliveries?order=3D1042.

Items: 2 x Widget, 1 x Gadget. Total: 42.00 =E2=82=AC.

If anything looks wrong, reply to this mail or write to
mailto:support@example.org. We are happy to help.

Thanks for shopping with us,
The Example team
--alt-boundary
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: quoted-printable

<!DOCTYPE html><html><head><meta charset=3D"utf-8"><title>Shipped</title></h=
ead><body style=3D"font-family:sans-serif"><h1>Your order has shipped</h1>
<p>Hello Dana,</p><p>Good news: your order <b>#1042</b> has shipped and is o=
n its way. <a href=3D"https://example.org/track/1042">Track the parcel</a> o=
r <a href=3D"https://example.org/account/deliveries?order=3D1042">change the=
 delivery</a>.</p><table><tr><td>Widget</td><td>2</td></tr><tr><td>Gadget</t=
d><td>1</td></tr><tr><td>Total</td><td>42.00 &euro;</td></tr></table>
<p>Questions? <a href=3D"mailto:support@example.org">support@example.org</a>=
</p><p><img src=3D"https://example.org/img/logo.png" alt=3D"Example"></p>
<p style=3D"color:#888">The Example team</p></body></html>
--alt-boundary--
--mixed-boundary
Content-Type: text/csv; charset=utf-8; name="order-1042.csv"
Content-Disposition: attachment; filename="order-1042.csv"
Content-Transfer-Encoding: base64

aXRlbSxxdHkscHJpY2UKV2lkZ2V0LDIsMTIuMDAKR2FkZ2V0LDEsMTguMDAK
--mixed-boundary--
`

func BenchmarkParseSmallMultipart(b *testing.B) {
	raw := crlf(benchMessage)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		m := Parse(raw)
		if len(m.Content.Attachments) != 1 {
			b.Fatalf("attachments = %d", len(m.Content.Attachments))
		}
	}
}

func BenchmarkExtractLinks(b *testing.B) {
	m := Parse(crlf(benchMessage))
	b.ReportAllocs()
	for b.Loop() {
		ExtractLinks(m.Content.Text, m.Content.HTML)
	}
}
