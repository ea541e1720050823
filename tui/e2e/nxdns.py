"""A DNS server on a loopback UDP port that knows no name: every query is
answered NXDOMAIN at once. The end-to-end scripts point sandview's checks
at it (SVC_DNS), so that they ask nothing beyond loopback. It prints its
port, then serves until killed."""
import socket

sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 0))
print(sock.getsockname()[1], flush=True)
while True:
    query, peer = sock.recvfrom(4096)
    if len(query) < 12 or query[2] & 0x80:
        continue  # not a query
    end = 12  # the question: the name's labels, then type and class
    while end < len(query) and query[end] != 0:
        end += 1 + query[end]
    end += 5
    if end > len(query):
        continue
    flags = bytes([0x80 | 0x04 | (query[2] & 0x79), 0x80 | 3])  # QR AA (opcode RD), RA NXDOMAIN
    counts = query[4:6] + bytes(6)  # the question, no records
    sock.sendto(query[:2] + flags + counts + query[12:end], peer)
