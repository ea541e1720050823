# Regenerates python_cc_date.eml with Python's email package:
#   python3 gen_python.py > python_cc_date.eml
from email.message import EmailMessage
from email.headerregistry import Address

m = EmailMessage()
m["From"] = Address("Zoë Sender", "zoe", "example.org")
m["To"] = ", ".join(f"to{i}@example.net" for i in range(3))
m["Cc"] = [Address("Café, Team", "team", "example.net")] + [Address("", f"cc{i}", "example.net") for i in range(11)]
m["Subject"] = "Réunion au café"
m["Date"] = "Mon, 03 Mar 2025 10:00:00 +0100"
m["Message-ID"] = "<python-cc-date@example.org>"
m.set_content("Bonjour,\nla réunion a lieu au Café du Coin.\n")
print(m.as_string(), end="")
