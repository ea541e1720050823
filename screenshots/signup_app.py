"""A sign-up flow's confirmation mail, sent the way a Python app sends it
(the standard library's email and smtplib). make screenshots runs it
against the server on screen. Usage: signup_app.py HOST:PORT"""
import smtplib
import sys
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

host, port = sys.argv[1].rsplit(":", 1)
msg = EmailMessage()
msg["From"] = "Acme Accounts <no-reply@acme.example>"
msg["To"] = "new.user@acme.example"
msg["Subject"] = "Confirm your Acme account"
msg["Date"] = formatdate(localtime=False)
msg["Message-ID"] = make_msgid(domain="acme.example")
msg.set_content(
    "Hi Sam,\n\nyour verification code is 482913.\n\n"
    "Or confirm with this link:\nhttps://acme.example/confirm?token=7f3a9c\n\nThe Acme team\n"
)
msg.add_alternative(
    "<p>Hi Sam,</p><p>your verification code is <b>482913</b>.</p>"
    '<p><a href="https://acme.example/confirm?token=7f3a9c">Confirm my account</a></p>'
    "<p>The Acme team</p>",
    subtype="html",
)
with smtplib.SMTP(host, int(port)) as smtp:
    smtp.send_message(msg)
