// Package sshbox is the SSH transport of a shared test box: it accepts SSH
// users by public key only (an authorized_keys file, watched: a key taken
// out ends its user's connections within seconds), keeps its host key,
// limits sessions per user and in total, and hands each session to the
// interactive or command handler that the binary composes (the TUI, the
// CLI), or to the sftp handlers it gives. It knows nothing of mail.
//
// # What a client may ask
//
// Only session channels: no port forwarding, agent or X11 forwarding, and
// no other channel or global request. A session may set only TERM,
// COLORTERM, LANG, LC_* and NO_COLOR (other env requests are refused); its
// terminal is at most MaxWidth x MaxHeight whatever size it asks; a
// command line has at most MaxCommandBytes bytes and MaxCommandWords words
// (longer ones end with exit status 2 before they are parsed). Every
// login, logout and refusal is one "ssh: <event>" line of the log with
// event=, fp=, user=, role=, remote=, kind= (tui, command, sftp), reason=
// and duration= attributes.
//
// # The authorized_keys file
//
// One key a line as OpenSSH writes it, "[options] type base64 [comment]";
// blank lines and lines starting with # are skipped; the comment names the
// user. A line longer than 64 KiB is skipped. A line that is skipped (not
// a key, an option refused) is logged with the file and its line number,
// and the other lines still load; when a key is listed twice the first
// line counts. Options, comma-separated, names in any case, values in
// double quotes (\" inside for a quote):
//
//   - role="viewer"|"member"|"admin": the user's role (default member).
//   - from="pattern-list": the key is accepted only from a client whose
//     address matches: entries separated by commas, each a CIDR block
//     (10.0.0.0/8, fd00::/8) or a pattern with * and ? (192.168.1.*),
//     "!" before one refusing the addresses it matches whatever else
//     matches (OpenSSH's rules). Names are not resolved, so a host name
//     matches nothing.
//   - expiry-time="YYYYMMDD[HHMM[SS]][Z]": the key is refused from that
//     time on, read as UTC (unlike OpenSSH, which reads it as local
//     time without the Z); an open connection of the key is closed then.
//   - restrict, no-pty: the key may not open a terminal (commands and
//     sftp only), unless pty is also given.
//   - no-port-forwarding, no-agent-forwarding, no-X11-forwarding,
//     no-user-rc: accepted; they are true of every user anyway.
//
// Any other option (command=, environment=, permitopen=, permitlisten=,
// principals=, cert-authority, tunnel=, no-touch-required, …) refuses the
// key: sandview cannot honour it, so it does not pretend to. The file is
// looked at every second: a key taken out, or whose role or options
// change, has its open connections closed (their sessions end); the
// composer hears of each key taken out through Config.Removed.
package sshbox
